// The one list of numbered migration files, schemas/migrations/NNNN_name.sql, compiled into the
// binary: their names, their order, and each dialect's fragment of them (schemas/migrations/
// README.md); and the one runner that applies a dialect's list over a sql::Session, whose
// contract each backend's migrator states (storage/sqlite/migrator.h,
// storage/postgres/pg_migrator.h). The list's functions are pure and thread-safe; the runner uses
// only the Session it is given.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "rules/core/status.h"
#include "storage/core/sql_session.h"

namespace adj {

struct Migration {
  int version = 0;   // NNNN, from 1
  std::string name;  // "init" for 0001_init.sql
  std::string sql;   // one dialect's fragment; may be empty (the step is empty for it)
};

using sql::Dialect;

// The text of `file` that runs on `dialect`: what stands before the first marker line or after a
// "-- @both" line, and what follows a "-- @sqlite" or "-- @postgres" line for that dialect, in
// file order. Marker lines themselves are dropped.
std::string dialect_fragment(std::string_view file, Dialect dialect);

// Parses a migration's file name ("schemas/migrations/0001_init.sql" or "0001_init.sql"): four or
// more digits, '_', a name of [a-z0-9_], ".sql". InvalidArgument otherwise.
Result<Migration> migration_from_file(std::string_view path, std::string_view sql);

// InvalidArgument unless the versions of `migrations` are 1, 2, 3, ... in order.
Status check_sequence(const std::vector<Migration>& migrations);

// The migrations compiled into this binary, ascending, with `dialect`'s fragments. Internal if a
// file is misnamed or the versions are not 1, 2, 3, ...
Result<std::vector<Migration>> bundled_migrations(Dialect dialect);

// Brings the session's database to the last of `migrations` (InvalidArgument unless versions
// 1..N) and returns the resulting version. Each migration runs in its own write transaction with
// its schema_migrations row (and on SQLite `PRAGMA user_version`), skipped when its row is there
// already. `before`, when given, runs once schema_migrations exists, before the recorded version
// is read. FailedPrecondition(schema_too_new) when the database is newer than `migrations`;
// Corruption when SQLite's user_version and schema_migrations disagree. REQUIRES: no transaction
// open on `s`.
Result<int> migrate(sql::Session& s, const std::vector<Migration>& migrations,
                    const std::function<Status()>& before = {});

// The version recorded in the session's database (0 for a new one).
Result<int> schema_version(sql::Session& s);

}  // namespace adj
