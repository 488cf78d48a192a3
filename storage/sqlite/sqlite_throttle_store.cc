#include "storage/sqlite/sqlite_throttle_store.h"

#include "storage/core/sql_throttle.h"
#include "storage/sqlite/migrator.h"

namespace adj {

Result<std::unique_ptr<SqliteThrottleStore>> SqliteThrottleStore::open(const std::string& path) {
  ADJ_TRY(auto db, sqlite::open_migrated(path));
  return std::unique_ptr<SqliteThrottleStore>(new SqliteThrottleStore(std::move(db)));
}

Result<std::vector<ThrottleState>> SqliteThrottleStore::throttle_states(
    const std::vector<std::string>& keys) {
  return sql_throttle_states(session_, keys);
}

Status SqliteThrottleStore::update_throttle(
    const std::vector<std::string>& keys,
    const std::function<void(std::vector<ThrottleState>&)>& change, std::int64_t now,
    std::int64_t forget_before, std::size_t max_rows) {
  return sql_update_throttle(session_, keys, change, now, forget_before, max_rows);
}

}  // namespace adj
