// TEMPORARY stubs of the PgStore NoticeStore methods (storage/postgres/pg_store_notices.cc, not
// written yet): they let the PgStore vtable link until those land. DELETE this file then
// (duplicate symbols otherwise). Every stub fails with Internal. (pg-admin's own methods are in
// pg_store_admin.cc, pg_store_credentials.cc, pg_store_press.cc and pg_store_throttle.cc.)
#include "storage/postgres/pg_store.h"

namespace adj {

namespace {
Status pending(const char* what) {
  return Status::Internal(std::string("PgStore::") + what + " is not written yet (notices)");
}
}  // namespace

Result<std::int64_t> PgStore::append_notice(const Notice&) { return pending("append_notice"); }
Result<std::vector<Notice>> PgStore::pending_notices(int) { return pending("pending_notices"); }
Status PgStore::mark_notice_done(std::int64_t) { return pending("mark_notice_done"); }
Result<std::vector<Notice>> PgStore::notices(const std::string&) { return pending("notices"); }

}  // namespace adj
