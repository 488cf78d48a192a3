#include "storage/postgres/pg_migrator.h"

#include <algorithm>

#include "schemas/embedded.h"
#include "storage/sqlite/migrator.h"

namespace adj::pg {

namespace {

constexpr std::string_view kMigrationsDir = "schemas/pg/";

constexpr std::string_view kCreateMigrationsTable = R"sql(
  CREATE TABLE IF NOT EXISTS schema_migrations (
    version    BIGINT PRIMARY KEY,
    name       TEXT   NOT NULL,
    applied_at BIGINT NOT NULL
  )
)sql";

Status check_sequence(const std::vector<Migration>& migrations) {
  for (std::size_t i = 0; i < migrations.size(); ++i) {
    if (migrations[i].version != static_cast<int>(i) + 1)
      return Status::InvalidArgument("migrations must be numbered 1, 2, 3, ...; found " +
                                     std::to_string(migrations[i].version) + " (" +
                                     migrations[i].name + ") at position " + std::to_string(i + 1));
  }
  return Status::Ok();
}

// Applies one migration unless it is already recorded (checked inside its transaction).
Status apply(Connection& c, const Migration& m) {
  auto tx = Transaction::begin(c);
  if (!tx.ok()) return tx.status();
  auto seen = c.query("SELECT 1 FROM schema_migrations WHERE version = $1", {m.version});
  if (!seen.ok()) return seen.status();
  if (!seen->empty()) return tx->commit();
  const std::string where = "migration " + std::to_string(m.version) + "_" + m.name + ": ";
  if (auto s = c.exec(m.sql); !s.ok()) return Status(s.code(), where + s.message());
  auto rec = c.query(
      "INSERT INTO schema_migrations(version, name, applied_at) "
      "VALUES ($1, $2, extract(epoch FROM now())::bigint)",
      {m.version, m.name});
  if (!rec.ok()) return rec.status();
  return tx->commit();
}

Result<int> migrate_locked(Connection& c, const std::vector<Migration>& migrations) {
  ADJ_RETURN_IF_ERROR(c.exec(kCreateMigrationsTable));
  const int known = static_cast<int>(migrations.size());
  auto recorded = schema_version(c);
  if (!recorded.ok()) return recorded.status();
  if (*recorded > known)
    return Status::FailedPrecondition("database schema version " + std::to_string(*recorded) +
                                      " is newer than this binary supports (" +
                                      std::to_string(known) +
                                      "); use a newer adjutant or restore a backup");
  for (const auto& m : migrations) {
    if (m.version <= *recorded) continue;
    ADJ_RETURN_IF_ERROR(apply(c, m));
  }
  return schema_version(c);
}

}  // namespace

Result<std::vector<Migration>> bundled_migrations() {
  std::vector<Migration> out;
  for (const auto& path : embedded_files(kMigrationsDir)) {
    if (path.size() < 4 || path.substr(path.size() - 4) != ".sql") continue;
    auto m = sqlite::migration_from_file(path, embedded_file(path).value_or(""));
    if (!m.ok()) return Status::Internal(m.status().message());
    out.push_back(Migration{m->version, std::move(m->name), std::move(m->sql)});
  }
  std::sort(out.begin(), out.end(),
            [](const Migration& a, const Migration& b) { return a.version < b.version; });
  if (auto s = check_sequence(out); !s.ok()) return Status::Internal(s.message());
  return out;
}

Result<int> schema_version(Connection& c) {
  auto exists = c.query("SELECT to_regclass('schema_migrations') IS NOT NULL");
  if (!exists.ok()) return exists.status();
  if (!exists->boolean(0, 0)) return 0;
  auto r = c.query("SELECT coalesce(max(version), 0) FROM schema_migrations");
  if (!r.ok()) return r.status();
  return r->int32(0, 0);
}

Result<int> migrate(Connection& c, const std::vector<Migration>& migrations) {
  ADJ_RETURN_IF_ERROR(check_sequence(migrations));
  // One session lock for the whole run: a second daemon waits here until the first is done.
  auto lock = c.query("SELECT pg_advisory_lock($1)", {kMigrationLockKey});
  if (!lock.ok()) return lock.status();
  auto out = migrate_locked(c, migrations);
  auto unlock = c.query("SELECT pg_advisory_unlock($1)", {kMigrationLockKey});
  if (out.ok() && !unlock.ok()) return unlock.status();
  return out;
}

}  // namespace adj::pg
