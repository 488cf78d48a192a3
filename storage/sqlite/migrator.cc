#include "storage/sqlite/migrator.h"

namespace adj::sqlite {

Result<Database> open_migrated(const std::string& path) {
  ADJ_TRY(auto db, Database::open(path));
  ADJ_TRY(auto migrations, bundled_migrations(Dialect::kSqlite));
  auto version = migrate(db, migrations);
  if (!version.ok())
    return Status(version.status().code(), path + ": " + version.status().message());
  return db;
}

}  // namespace adj::sqlite
