// The revision counters of migration 0013 (table `revisions`), watched cheaply: one
// `PRAGMA data_version` per call tells whether any connection (this process or another) committed
// since the last call; only then is the sum of the revisions read, and only when it changed is
// the table read again (a write that bumps no revision, such as the outbox's, costs one sum).
//
// Thread-safety: current() may be called from any thread; calls are serialised by a mutex. The
// watch owns its own read-only connection and never writes.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "rules/core/status.h"
#include "storage/sqlite/database.h"
#include "storage/store.h"

namespace adj::sqlite {

using adj::RevisionMap;

class RevisionWatch {
 public:
  // Opens its own connection to the database at `path` (already migrated).
  static Result<std::unique_ptr<RevisionWatch>> open(const std::string& path);

  // The revisions as committed now. The same shared map is returned until the database changes.
  // An error (e.g. the file is busy in recovery) is returned as is; callers then do without.
  Result<std::shared_ptr<const RevisionMap>> current();

 private:
  explicit RevisionWatch(Database db) : db_(std::move(db)) {}
  std::mutex mu_;
  Database db_;
  std::int64_t data_version_ = -1;
  std::shared_ptr<const RevisionMap> revisions_;
};

}  // namespace adj::sqlite
