// Lua scripts of games (SQLite migration 0015, PostgreSQL 0006): one row per game and version,
// kept for the game's life so that every version a battle log names can be replayed. The
// application (server/app/engine_catalog.h) checks a script and computes its sha256 before it is
// kept: the store checks the sha256's form only, not that it matches the source (game_engine
// does, answering Corruption). Thread-safety: as the other stores, one object per thread.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rules/core/status.h"
#include "storage/records.h"

namespace adj {

struct EngineScript {
  std::string game;
  int version = 0;     // 1, 2, ... per game, assigned by the store
  std::string source;  // the Lua text (empty in engine_script_versions)
  std::string sha256;  // 64 lowercase hex digits of `source`
  UnixTime created_at = 0;
  std::string created_by;   // "scenario", "gm:web", "gm:api", ...
  std::string conformance;  // the conformance suite's report (JSON text), "" when none ran
  // The turn from whose run on this version is used (>= 1): the game's open turn when it was
  // stored. A rerun of an earlier turn after a rollback keeps the version that turn ran with.
  int from_turn = 1;
};

class EngineScriptStore {
 public:
  virtual ~EngineScriptStore() = default;
  // Stores s.source as the game's next version (the newest + 1, or 1); returns that version.
  // s.version is ignored. InvalidArgument (nothing written) for an empty source, a sha256 that
  // is not 64 hex digits (the store does not check that it is the source's: the application
  // does) or a from_turn below 1; NotFound for an unknown game; FailedPrecondition past the
  // game's kMaxEngineScriptVersions (engine_script_limits.h). Concurrent adds get distinct
  // versions.
  virtual Result<int> add_engine_script(const EngineScript& s) = 0;
  // One version with its source. NotFound for an unknown game or version.
  virtual Result<EngineScript> engine_script(const std::string& game, int version) = 0;
  // The version a run of `turn` uses (without its source): the newest whose from_turn <= turn;
  // nullopt when there is none. NotFound for an unknown game.
  virtual Result<std::optional<EngineScript>> engine_script_for_turn(const std::string& game,
                                                                     int turn) = 0;
  // Every version of the game, oldest first, without their sources. NotFound for an unknown
  // game.
  virtual Result<std::vector<EngineScript>> engine_script_versions(const std::string& game) = 0;
};

}  // namespace adj
