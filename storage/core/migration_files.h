// Numbered migration files (schemas/sql/NNNN_name.sql for SQLite, schemas/pg/NNNN_name.sql for
// PostgreSQL), compiled into the binary: their names, their order, and reading them. Each
// backend's migrator (storage/sqlite/migrator.h, storage/postgres/pg_migrator.h) applies them.
// Pure functions over the embedded files; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "rules/core/status.h"

namespace adj {

struct Migration {
  int version = 0;   // NNNN, from 1
  std::string name;  // "init" for 0001_init.sql
  std::string sql;
};

// Parses a migration's file name ("schemas/sql/0001_init.sql" or "0001_init.sql"): four or more
// digits, '_', a name of [a-z0-9_], ".sql". InvalidArgument otherwise.
Result<Migration> migration_from_file(std::string_view path, std::string_view sql);

// InvalidArgument unless the versions of `migrations` are 1, 2, 3, ... in order.
Status check_sequence(const std::vector<Migration>& migrations);

// The migrations compiled into this binary under `dir` ("schemas/sql/"), ascending. Internal if a
// file is misnamed or the versions are not 1, 2, 3, ...
Result<std::vector<Migration>> bundled_migrations(std::string_view dir);

}  // namespace adj
