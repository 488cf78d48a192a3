// Opening the database for the server: SqliteStore::open plus the C++ steps of migrations that
// SQL cannot do (today: hashing the secrets and tokens of a database made before migration
// 0005, see SqliteStore::upgrade_credentials). Every front end opens its store through this.
#pragma once

#include <memory>
#include <string>

#include "storage/sqlite/sqlite_store.h"

namespace adj {

// As SqliteStore::open; then runs pending upgrades (once per database; `now` is their time).
// An upgrade that fails leaves the database as it was and returns its error.
Result<std::unique_ptr<SqliteStore>> open_store(const std::string& path, UnixTime now);

}  // namespace adj
