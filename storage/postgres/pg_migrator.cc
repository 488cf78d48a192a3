#include "storage/postgres/pg_migrator.h"

#include <algorithm>

#include "storage/postgres/pg_session.h"

namespace adj::pg {

namespace {

// A database migrated before the list was one (schemas/migrations/README.md) recorded
// PostgreSQL's own files as versions 1..12, the first named "core". Its rows get the list's
// versions by name, and the list's steps below the newest that were empty for PostgreSQL get
// rows of their own, in one transaction. Nothing to do for a database without that first row.
Status renumber_legacy(sql::Session& s, const std::vector<Migration>& migrations) {
  ADJ_TRY(const sql::Rows legacy,
          s.query("SELECT 1 FROM schema_migrations WHERE version = 1 AND name = 'core'", {}));
  if (legacy.empty()) return Status::Ok();
  ADJ_TRY(auto tx, sql::WriteTx::begin(s));
  ADJ_TRY(const sql::Rows rows, s.query("SELECT name FROM schema_migrations ORDER BY version", {}));
  int newest = 0;
  ADJ_RETURN_IF_ERROR(s.exec("UPDATE schema_migrations SET version = -version"));
  for (int i = 0; i < rows.size(); ++i) {
    const std::string old = rows.text(i, 0);
    const std::string name = old == "core" ? "init" : old;
    const auto m = std::find_if(migrations.begin(), migrations.end(),
                                [&](const Migration& x) { return x.name == name; });
    if (m == migrations.end() || m->version <= newest)
      return Status::FailedPrecondition("schema_migrations records PostgreSQL migration " +
                                        std::to_string(i + 1) + "_" + old +
                                        ", which this binary's list does not have in that order");
    newest = m->version;
    ADJ_RETURN_IF_ERROR(
        s.write("UPDATE schema_migrations SET version = ?, name = ? WHERE version = ?",
                {m->version, m->name, -(i + 1)}));
  }
  for (const auto& m : migrations) {
    if (m.version >= newest) break;
    ADJ_RETURN_IF_ERROR(
        s.write("INSERT INTO schema_migrations(version, name, applied_at) VALUES "
                "(?, ?, CAST(extract(epoch FROM now()) AS BIGINT)) "
                "ON CONFLICT (version) DO NOTHING",
                {m.version, m.name}));
  }
  return tx.commit();
}

}  // namespace

Result<int> migrate(Connection& c, const std::vector<Migration>& migrations) {
  ADJ_RETURN_IF_ERROR(check_sequence(migrations));
  // One session lock for the whole run: a second daemon waits here until the first is done.
  ADJ_RETURN_IF_ERROR(c.query("SELECT pg_advisory_lock($1)", {kMigrationLockKey}).status());
  PgSession s(c);
  auto out = adj::migrate(s, migrations, [&] { return renumber_legacy(s, migrations); });
  auto unlock = c.query("SELECT pg_advisory_unlock($1)", {kMigrationLockKey});
  if (out.ok() && !unlock.ok()) return unlock.status();
  return out;
}

}  // namespace adj::pg
