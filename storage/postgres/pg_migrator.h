// PostgreSQL schema migrations: the @postgres fragments of schemas/migrations/NNNN_name.sql (the
// one list of both backends, storage/core/migration_files.h), compiled into the binary.
//
// Each migration runs once, in its own transaction together with its row in
//   schema_migrations(version BIGINT PRIMARY KEY, name TEXT, applied_at BIGINT),
// so a database is always at a whole version. The whole run holds a session advisory lock
// (kMigrationLockKey), and each migration's transaction re-checks schema_migrations, so several
// daemons opening one database at once apply each migration exactly once; the others wait and
// then find nothing to do. Migration files must not contain BEGIN/COMMIT.
//
// Thread-safety: migrate uses only the Connection it is given.
#pragma once

#include <cstdint>
#include <vector>

#include "rules/core/status.h"
#include "storage/core/migration_files.h"
#include "storage/postgres/pg_database.h"

namespace adj::pg {

using adj::Migration;

// The advisory lock key migrations run under ("adj_migr" as bytes).
inline constexpr std::int64_t kMigrationLockKey = 0x61646a5f6d696772;

// Brings the database up to the last of `migrations` (REQUIRES: versions 1..N, ascending;
// InvalidArgument otherwise) and returns the resulting version. FailedPrecondition when the
// database records a version newer than the last one given (written by a newer binary); nothing
// is changed then. A failing migration is rolled back on its own; the ones before it stay.
// A database recorded under PostgreSQL's numbering before the one list is renumbered first
// (schemas/migrations/README.md). REQUIRES: no transaction open on `c`.
Result<int> migrate(Connection& c, const std::vector<Migration>& migrations);

}  // namespace adj::pg
