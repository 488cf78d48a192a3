// Opening the database for the server: open_database() (storage/open_database.h: the backend is
// chosen by the argument, a SQLite path or a postgresql:// URL) plus the C++ steps of migrations
// that SQL cannot do (today: hashing the secrets and tokens of a SQLite database made before
// migration 0005, see Store::upgrade_credentials). Every front end opens its store through this
// and holds it as a Store, never as a backend's class.
#pragma once

#include <memory>
#include <string>

#include "storage/open_database.h"
#include "storage/store.h"

namespace adj {

// As open_database(db); then runs pending upgrades (once per database; `now` is their time).
// An upgrade that fails leaves the database as it was and returns its error. Errors never carry
// a password from the URL.
Result<std::unique_ptr<Store>> open_store(const std::string& db, UnixTime now);

}  // namespace adj
