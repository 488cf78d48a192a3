#include "storage/postgres/pg_migrator.h"

#include <algorithm>

#include "storage/core/messages.h"

namespace adj::pg {

namespace {

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

// A database migrated before the list was one (schemas/migrations/README.md) recorded
// PostgreSQL's own files as versions 1..12, the first named "core". Its rows get the list's
// versions by name, and the list's steps below the newest that were empty for PostgreSQL get
// rows of their own, in one transaction. Nothing to do for a database without that first row.
Status renumber_legacy(Connection& c, const std::vector<Migration>& migrations) {
  auto legacy = c.query("SELECT 1 FROM schema_migrations WHERE version = 1 AND name = 'core'");
  if (!legacy.ok()) return legacy.status();
  if (legacy->empty()) return Status::Ok();
  auto tx = Transaction::begin(c);
  if (!tx.ok()) return tx.status();
  auto rows = c.query("SELECT name FROM schema_migrations ORDER BY version");
  if (!rows.ok()) return rows.status();
  int newest = 0;
  ADJ_RETURN_IF_ERROR(c.exec("UPDATE schema_migrations SET version = -version"));
  for (int i = 0; i < rows->size(); ++i) {
    const std::string old = rows->text(i, 0);
    const std::string name = old == "core" ? "init" : old;
    const auto m = std::find_if(migrations.begin(), migrations.end(),
                                [&](const Migration& x) { return x.name == name; });
    if (m == migrations.end() || m->version <= newest)
      return Status::FailedPrecondition("schema_migrations records PostgreSQL migration " +
                                        std::to_string(i + 1) + "_" + old +
                                        ", which this binary's list does not have in that order");
    newest = m->version;
    auto up = c.query("UPDATE schema_migrations SET version = $1, name = $2 WHERE version = $3",
                      {m->version, m->name, -(i + 1)});
    if (!up.ok()) return up.status();
  }
  for (const auto& m : migrations) {
    if (m.version >= newest) break;
    auto add = c.query(
        "INSERT INTO schema_migrations(version, name, applied_at) "
        "VALUES ($1, $2, extract(epoch FROM now())::bigint) ON CONFLICT (version) DO NOTHING",
        {m.version, m.name});
    if (!add.ok()) return add.status();
  }
  return tx->commit();
}

Result<int> migrate_locked(Connection& c, const std::vector<Migration>& migrations) {
  ADJ_RETURN_IF_ERROR(c.exec(kCreateMigrationsTable));
  ADJ_RETURN_IF_ERROR(renumber_legacy(c, migrations));
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
  return adj::bundled_migrations(Dialect::kPostgres);
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
