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
// Thread-safety: open_migrated uses only the Database it opens.
#pragma once

#include <string>

#include "rules/core/status.h"
#include "storage/core/migration_files.h"
#include "storage/sqlite/database.h"

namespace adj::sqlite {

// Database::open(path) brought up to the bundled migrations by adj::migrate
// (storage/core/migration_files.h: its errors, then naming `path`).
Result<Database> open_migrated(const std::string& path);

}  // namespace adj::sqlite
