// The engine a game runs, for every front end: a built-in engine by name, or the game's Lua
// script (rules/combat/script_engine.h) built from the text stored with the game
// (storage/engine_script_store.h) and cached process-wide by version and sha256.
//
// Which script version runs: a turn run uses the game's newest stored version (an upload is used
// from the next turn run) and records it in the next state's EngineSpec; order checks use the
// newest version too; a battle's --replay uses the version its log names.
//
// Thread-safety: the functions are safe from any thread (the cache is locked); each caller
// passes its own store.
#pragma once

#include <string>
#include <string_view>

#include "rules/combat/engine_resolver.h"
#include "rules/combat/script_engine.h"
#include "storage/engine_script_store.h"

namespace adj {

// The host's limits on every script engine (source size, instructions, memory).
const ScriptLimits& host_script_limits();

// The script engine of `source` (version id.version, id.sha256 its sha256), from the cache or
// compiled now. Errors as load_script_engine's, prefixed with the version.
Result<EngineHandle> script_engine_for(std::string_view source, const ScriptId& id);

// The engine of the game with spec `spec`: a built-in engine by name; for "lua" the version the
// spec names (or, when it names none, the newest stored). Built-in: NotFound for an unknown
// name. Lua: NotFound when the game has no such version; Corruption when the stored text does
// not match its sha256; FailedPrecondition when the stored text does not load.
Result<EngineHandle> game_engine(EngineScriptStore& scripts, const std::string& game,
                                 const EngineSpec& spec);

// The engine a run of the game's `turn` uses: for "lua" the newest stored version whose
// from_turn <= turn (EngineScriptStore::engine_script_for_turn: a rerun after a rollback uses
// the version the turn first ran with, unless the GM stored one since), written into `spec`
// (script_version, script_sha256); built-in engines as game_engine.
Result<EngineHandle> current_engine(EngineScriptStore& scripts, const std::string& game, int turn,
                                    EngineSpec& spec);

// What checking a script before it is stored found.
struct ScriptCheck {
  std::string sha256;  // of the source
  bool passed = false;
  std::string report;   // the conformance suite's report as text (one line per check)
  Json json;            // the same as JSON (what the store keeps)
  EngineHandle engine;  // the script loaded (version 0), for further checks by the caller
};

// Checks a script a GM brings (scenario, upload, `adjutant engines check`): InvalidArgument when
// it is larger than host_script_limits().source_bytes or does not load (the loader's message,
// with its line); otherwise runs the conformance suite on it (ScriptCheck::passed, report).
// One check runs at a time in the process (a check may cost seconds of CPU): meanwhile another
// gets Unavailable at once, which is_script_check_busy() recognises (HTTP answers 429).
Result<ScriptCheck> check_script(std::string_view source);
bool is_script_check_busy(const Status& s);

// Ok when the game may store another script version; FailedPrecondition when it has
// kMaxEngineScriptVersions (storage/engine_script_limits.h) already; the store's errors
// (NotFound for an unknown game). Front ends ask before the check, which costs far more.
Status script_version_room(EngineScriptStore& scripts, const std::string& game);
// How long a front end tells a refused uploader to wait (Retry-After), in seconds.
inline constexpr int kScriptCheckRetrySeconds = 30;

// An EngineResolver over one game's stored scripts (for code that takes a resolver).
class GameEngineResolver final : public EngineResolver {
 public:
  // `scripts` is borrowed and used from the calling thread only.
  GameEngineResolver(EngineScriptStore& scripts, std::string game)
      : scripts_(scripts), game_(std::move(game)) {}
  Result<EngineHandle> resolve(const EngineSpec& spec) const override {
    return game_engine(scripts_, game_, spec);
  }

 private:
  EngineScriptStore& scripts_;
  std::string game_;
};

}  // namespace adj
