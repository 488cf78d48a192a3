// How a caller finds the engine a game runs: a built-in engine by name (engine_registry.h), or
// a script engine ("lua") built by the caller from the script text it stores with the game
// (server/app/engine_catalog.h). rules/ never loads a script by itself from storage: it receives
// the engine (or an EngineResolver) from its caller.
#pragma once

#include <memory>

#include "rules/combat/combat_engine.h"
#include "rules/core/status.h"
#include "rules/game/state.h"

namespace adj {

// The engine name of script engines (EngineSpec::name, a scenario's engine.name).
inline constexpr const char* kScriptEngineName = "lua";

// An engine as a caller holds it: built-in engines live for the whole program (the pointer does
// not own them); script engines are shared by the cache that built them and every holder.
using EngineHandle = std::shared_ptr<const CombatEngine>;

// A non-owning handle on a built-in engine (null stays null).
EngineHandle builtin_handle(const CombatEngine* engine);

// Finds the engine of a game's EngineSpec. Thread-safety: implementations are safe to call from
// any thread.
class EngineResolver {
 public:
  virtual ~EngineResolver() = default;
  // NotFound for an unknown engine name or script version; a script that does not load is
  // FailedPrecondition naming the version and the loader's message.
  virtual Result<EngineHandle> resolve(const EngineSpec& spec) const = 0;
};

// Built-in engines only: a "lua" spec is FailedPrecondition (the caller has no script store).
const EngineResolver& builtin_engines();

}  // namespace adj
