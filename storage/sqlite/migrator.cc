#include "storage/sqlite/migrator.h"
#include "storage/core/messages.h"

#include <algorithm>

namespace adj::sqlite {

namespace {

constexpr std::string_view kCreateMigrationsTable = R"sql(
  CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at INTEGER NOT NULL
  ) STRICT
)sql";

Result<int> query_int(Database& db, std::string_view sql) {
  auto st = db.prepare(sql);
  if (!st.ok()) return st.status();
  auto row = st->step();
  if (!row.ok()) return row.status();
  if (!*row || st->column_is_null(0)) return 0;
  return st->column_int(0);
}

// Applies one migration unless it is already recorded; re-checked inside the transaction so two
// processes migrating the same file do not both apply it.
Status apply(Database& db, const Migration& m) {
  auto tx = Transaction::begin(db);
  if (!tx.ok()) return tx.status();
  {
    auto seen = db.prepare("SELECT 1 FROM schema_migrations WHERE version = ?");
    if (!seen.ok()) return seen.status();
    seen->bind_int(1, m.version);
    auto row = seen->step();
    if (!row.ok()) return row.status();
    if (*row) return Status::Ok();  // the destructor rolls back the empty transaction
  }
  const std::string where = "migration " + std::to_string(m.version) + "_" + m.name + ": ";
  if (auto s = db.exec(m.sql); !s.ok()) return Status(s.code(), where + s.message());
  {
    auto rec = db.prepare(
        "INSERT INTO schema_migrations(version, name, applied_at) VALUES (?, ?, unixepoch())");
    if (!rec.ok()) return rec.status();
    rec->bind_int(1, m.version).bind_text(2, m.name);
    ADJ_RETURN_IF_ERROR(rec->run());
  }
  ADJ_RETURN_IF_ERROR(db.exec("PRAGMA user_version = " + std::to_string(m.version)));
  return tx->commit();
}

}  // namespace

Result<std::vector<Migration>> bundled_migrations() {
  return adj::bundled_migrations(Dialect::kSqlite);
}

Result<int> schema_version(Database& db) { return query_int(db, "PRAGMA user_version"); }

Result<int> migrate(Database& db, const std::vector<Migration>& migrations) {
  ADJ_RETURN_IF_ERROR(check_sequence(migrations));
  {
    // In a write transaction taken up front: an autocommit write that first reads would fail at
    // once (SQLITE_BUSY_SNAPSHOT, no busy wait) when another process migrates the same new file.
    auto tx = Transaction::begin(db);
    if (!tx.ok()) return tx.status();
    ADJ_RETURN_IF_ERROR(db.exec(kCreateMigrationsTable));
    ADJ_RETURN_IF_ERROR(tx->commit());
  }
  const int known = static_cast<int>(migrations.size());

  auto user_version = schema_version(db);
  if (!user_version.ok()) return user_version.status();
  auto recorded = query_int(db, "SELECT max(version) FROM schema_migrations");
  if (!recorded.ok()) return recorded.status();
  const int newest = std::max(*user_version, *recorded);
  if (newest > known) return Status::FailedPrecondition(schema_too_new(newest, known));
  if (*user_version != *recorded)
    return Status::Corruption("database user_version is " + std::to_string(*user_version) +
                              " but schema_migrations records version " +
                              std::to_string(*recorded));

  for (const auto& m : migrations) {
    if (m.version <= *recorded) continue;
    ADJ_RETURN_IF_ERROR(apply(db, m));
  }
  return schema_version(db);
}

}  // namespace adj::sqlite
