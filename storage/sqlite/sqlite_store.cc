// SqliteStore: opening, revisions and the throttle's own connection. What
// both backends share is SqlStore's (storage/core/sql_store.h).
#include "storage/sqlite/sqlite_store.h"

#include "storage/sqlite/migrator.h"
#include "storage/sqlite/revision_watch.h"

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
    ADJ_TRY(watch_, sqlite::RevisionWatch::open(path_));
  }
  return watch_->current();
}

Result<sql::Session*> SqliteStore::throttle_session() {
  if (!throttle_db_) {
    ADJ_TRY(throttle_db_, sqlite::open_migrated(path_));
  }
  return &*throttle_db_;
}

}  // namespace adj
