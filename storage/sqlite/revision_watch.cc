#include "storage/sqlite/revision_watch.h"

#include <sqlite3.h>

#include "storage/core/sql_store.h"

namespace adj::sqlite {

Result<std::unique_ptr<RevisionWatch>> RevisionWatch::open(const std::string& path) {
  ADJ_TRY(Database db, Database::open(path));
  // A reader waits at most this long for a lock; the caller may be an I/O thread.
  set_busy_wait(db.handle(), 100);
  return std::unique_ptr<RevisionWatch>(new RevisionWatch(std::move(db)));
}

Result<std::shared_ptr<const RevisionMap>> RevisionWatch::current() {
  std::lock_guard lock(mu_);
  ADJ_TRY(const sql::Rows version, db_.query("PRAGMA data_version", {}));
  const std::int64_t now = version.empty() ? -1 : version.int64(0, 0);
  if (revisions_ && now == data_version_) return revisions_;
  // Another connection committed: often the outbox or the inbox, whose writes change no
  // revision. Revisions only grow, so their sum changes exactly when one did: the map is read
  // again only then.
  if (revisions_) {
    ADJ_TRY(const sql::Rows sum, db_.query("SELECT coalesce(sum(rev), 0) FROM revisions", {}));
    if (!sum.empty() && sum.int64(0, 0) == revisions_->at("*")) {
      data_version_ = now;
      return revisions_;
    }
  }
  ADJ_TRY(revisions_, read_revisions(db_));
  data_version_ = now;
  return revisions_;
}

}  // namespace adj::sqlite
