#include "storage/sqlite/migrator.h"

#include "storage/sqlite/sqlite_session.h"

namespace adj::sqlite {

Result<std::vector<Migration>> bundled_migrations() {
  return adj::bundled_migrations(Dialect::kSqlite);
}

Result<int> schema_version(Database& db) {
  SqliteSession s(db);
  return adj::schema_version(s);
}

Result<int> migrate(Database& db, const std::vector<Migration>& migrations) {
  SqliteSession s(db);
  return adj::migrate(s, migrations);
}

Result<Database> open_migrated(const std::string& path) {
  ADJ_TRY(auto db, Database::open(path));
  ADJ_TRY(auto migrations, bundled_migrations());
  auto version = migrate(db, migrations);
  if (!version.ok())
    return Status(version.status().code(), path + ": " + version.status().message());
  return db;
}

}  // namespace adj::sqlite
