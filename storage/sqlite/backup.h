// A consistent copy of a live database file (SQLite's online backup API), for `adjutant backup`.
// Safe while the daemon runs: the copy is one snapshot (readers never block writers under WAL).
#pragma once

#include <cstdint>
#include <string>

#include "rules/core/status.h"

namespace adj::sqlite {

struct BackupInfo {
  std::int64_t pages = 0;
  std::int64_t bytes = 0;
  int schema_version = 0;  // the highest migration in the copy
};

// Copies the database at `from` into a new file `to`. The copy is written beside `to` under a
// temporary name, checked (PRAGMA integrity_check) and then renamed, so `to` is either complete
// or absent. NotFound when `from` does not exist; AlreadyExists when `to` does (nothing is
// overwritten); Corruption when the copy fails its check; IOError otherwise.
Result<BackupInfo> backup_database(const std::string& from, const std::string& to);

}  // namespace adj::sqlite
