#include "storage/postgres/pg_migrator.h"
#include "storage/core/messages.h"

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
  if (*recorded > known) return Status::FailedPrecondition(schema_too_new(*recorded, known));
  for (const auto& m : migrations) {
    if (m.version <= *recorded) continue;
    ADJ_RETURN_IF_ERROR(apply(c, m));
  }
  return schema_version(c);
}

}  // namespace

Result<std::vector<Migration>> bundled_migrations() {
  return adj::bundled_migrations(kMigrationsDir);
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
