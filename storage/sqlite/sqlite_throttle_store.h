// The SQLite ThrottleStore (storage/throttle_store.h): storage/core/sql_throttle.h over its own
// connection to the database file, so a failed login is counted outside any transaction of the
// store it sits beside.
//
// Thread-safety: one object per thread. Several processes may share the file: update_throttle
// is one BEGIN IMMEDIATE transaction (waiting up to the connection's busy timeout, then
// IOError), so concurrent failures are all counted.
#pragma once

#include <memory>
#include <string>

#include "storage/sqlite/database.h"
#include "storage/sqlite/sqlite_session.h"
#include "storage/throttle_store.h"

namespace adj {

class SqliteThrottleStore : public ThrottleStore {
 public:
  // Opens `path` (creating it if missing) and applies any pending migrations, as
  // SqliteStore::open does.
  static Result<std::unique_ptr<SqliteThrottleStore>> open(const std::string& path);

  Result<std::vector<ThrottleState>> throttle_states(const std::vector<std::string>& keys) override;
  // InvalidArgument (nothing written) for an empty key or one holding a newline.
  Status update_throttle(const std::vector<std::string>& keys,
                         const std::function<void(std::vector<ThrottleState>&)>& change,
                         std::int64_t now, std::int64_t forget_before,
                         std::size_t max_rows) override;

 private:
  explicit SqliteThrottleStore(sqlite::Database db) : db_(std::move(db)) {}
  sqlite::Database db_;
  sqlite::SqliteSession session_{db_};
};

}  // namespace adj
