// The one list of numbered migration files, schemas/migrations/NNNN_name.sql, compiled into the
// binary: their names, their order, and each dialect's fragment of them (schemas/migrations/
// README.md). Each backend's migrator (storage/sqlite/migrator.h, storage/postgres/pg_migrator.h)
// applies its dialect's list. Pure functions over the embedded files; thread-safe.
#pragma once

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

}  // namespace adj
