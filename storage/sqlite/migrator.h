// SQLite schema migrations: the @sqlite fragments of schemas/migrations/NNNN_name.sql (the one
// list of both backends, storage/core/migration_files.h), compiled into the binary.
//
// Each migration runs in its own BEGIN IMMEDIATE transaction together with its row in
//   schema_migrations(version INTEGER PRIMARY KEY, name TEXT, applied_at INTEGER)
// and `PRAGMA user_version = version`, so a database is always at a whole version. Versions
// already recorded are skipped, which makes migrating idempotent and safe when two processes
// open the same file at once. Migration files must not contain BEGIN/COMMIT, and must not change
// `PRAGMA foreign_keys` (it is a no-op inside a transaction); a later migration that rebuilds a
// table needs explicit support here.
//
// Thread-safety: the functions use only the Database they are given.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "rules/core/status.h"
#include "storage/core/migration_files.h"
#include "storage/sqlite/database.h"

namespace adj::sqlite {

using adj::check_sequence;
using adj::Migration;
using adj::migration_from_file;

// The migrations compiled into this binary with their SQLite fragments, ascending. Internal if a
// bundled file is misnamed or the versions are not 1, 2, 3, ...
Result<std::vector<Migration>> bundled_migrations();

// Brings `db` up to the last of `migrations` (REQUIRES: versions 1..N, ascending; InvalidArgument
// otherwise) and returns the resulting version.
// FailedPrecondition when the database records a version newer than the last one given (written
// by a newer binary); nothing is changed then. Corruption when schema_migrations and
// user_version disagree. A failing migration is rolled back on its own; the ones before it stay.
Result<int> migrate(Database& db, const std::vector<Migration>& migrations);

// The version recorded in the database (0 for a new file).
Result<int> schema_version(Database& db);

// Database::open(path) brought up to the bundled migrations (errors then name `path`).
Result<Database> open_migrated(const std::string& path);

}  // namespace adj::sqlite
