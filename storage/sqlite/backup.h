// A consistent copy of a live database file (SQLite's online backup API), for `adjutant backup`.
// Safe while the daemon runs: the copy is one snapshot (readers never block writers under WAL).
#pragma once

#include <string>

#include "rules/core/status.h"
#include "storage/open_database.h"

namespace adj::sqlite {

// Copies the database at `from` into a new file `to`. The copy is written beside `to` under a
// temporary name, checked (PRAGMA integrity_check) and then renamed, so `to` is either complete
// or absent. NotFound when `from` does not exist; AlreadyExists when `to` does (nothing is
// overwritten); Corruption when the copy fails its check; IOError otherwise.
Result<DatabaseBackup> backup_database(const std::string& from, const std::string& to);

}  // namespace adj::sqlite
