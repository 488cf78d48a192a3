// TEMPORARY: lets this branch's tests link before tests/support/pg_test_db.cc lands (pg-core's
// branch). PostgreSQL tests skip visibly with this message. Drop this file at the merge.
#include "tests/support/pg_test_db.h"

namespace adj::testing {

Result<std::string> fresh_pg_database() {
  return Status::Unavailable("tests/support/pg_test_db.cc is not merged into this branch yet");
}

Result<std::unique_ptr<Store>> open_test_store(const std::string&, const TempDir&) {
  return Status::Unavailable("tests/support/pg_test_db.cc is not merged into this branch yet");
}

}  // namespace adj::testing
