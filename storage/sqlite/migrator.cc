#include "storage/sqlite/migrator.h"

namespace adj::sqlite {

Result<std::vector<Migration>> bundled_migrations() {
  return adj::bundled_migrations(Dialect::kSqlite);
}

Result<int> schema_version(Database& db) { return adj::schema_version(db); }

Result<int> migrate(Database& db, const std::vector<Migration>& migrations) {
  return adj::migrate(db, migrations);
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
