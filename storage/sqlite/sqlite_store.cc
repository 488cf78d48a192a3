// SqliteStore: opening, the schema version, revisions and the throttle's own connection. What
// both backends share is SqlStore's (storage/core/sql_store.h).
#include "storage/sqlite/sqlite_store.h"

#include "storage/sqlite/migrator.h"
#include "storage/sqlite/revision_watch.h"
#include "storage/sqlite/sqlite_throttle_store.h"

namespace adj {

Result<std::unique_ptr<SqliteStore>> SqliteStore::open(const std::string& path) {
  ADJ_TRY(auto db, sqlite::open_migrated(path));
  return std::unique_ptr<SqliteStore>(new SqliteStore(std::move(db), path));
}

SqliteStore::SqliteStore(sqlite::Database db, std::string path)
    : db_(std::move(db)), path_(std::move(path)) {}

SqliteStore::~SqliteStore() = default;

Result<std::shared_ptr<const RevisionMap>> SqliteStore::revisions() {
  if (!watch_) {
    auto w = sqlite::RevisionWatch::open(path_);
    if (!w.ok()) return w.status();
    watch_ = std::move(w).value();
  }
  return watch_->current();
}

Status SqliteStore::open_throttle() {
  if (throttle_) return Status::Ok();
  ADJ_TRY(throttle_, SqliteThrottleStore::open(path_));
  return Status::Ok();
}

Result<std::vector<ThrottleState>> SqliteStore::throttle_states(
    const std::vector<std::string>& keys) {
  ADJ_RETURN_IF_ERROR(open_throttle());
  return throttle_->throttle_states(keys);
}

Status SqliteStore::update_throttle(const std::vector<std::string>& keys,
                                    const std::function<void(std::vector<ThrottleState>&)>& change,
                                    std::int64_t now, std::int64_t forget_before,
                                    std::size_t max_rows) {
  ADJ_RETURN_IF_ERROR(open_throttle());
  return throttle_->update_throttle(keys, change, now, forget_before, max_rows);
}

Result<int> SqliteStore::schema_version() { return sqlite::schema_version(db_); }

}  // namespace adj
