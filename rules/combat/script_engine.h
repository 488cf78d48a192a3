// Combat engines a GM writes: a Lua 5.4 script behind the CombatEngine interface, sandboxed.
//
// The script receives the same BattleInput as a C++ engine (as Lua tables) and returns the same
// BattleOutcome (at most ScriptLimits::outcome_bytes of data, 10,000 rounds), checked for
// consistency before the turn uses it. Sandbox: no io, os, package, require,
// load/loadstring/dofile/loadfile, debug, collectgarbage, string.dump, no pattern matching in C
// without an instruction bound; randomness only from the battle's Rng (handed to the script as an
// object). Every call (resolve, check_order, check_game, ...) runs under an instruction limit and
// the engine's Lua state under a memory limit; a call that breaks either, or raises an error,
// returns a Status naming the script, the call and the limit or the script's message (with its
// line), and leaves the engine usable for the next call.
//
// Determinism: no state survives from one call to the next (a battle's outcome depends only on
// its input and its Rng), so --replay of one battle and a whole turn's rerun give the same bytes.
//
// Thread-safety: a ScriptEngine is const to its callers and may be shared by threads; it
// serialises its calls internally.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "rules/combat/combat_engine.h"
#include "rules/core/status.h"

namespace adj {

// Bounds on one script engine. Defaults are the host's; a GM cannot raise them. Every bound is
// counted, never timed: a call's pass or fail depends only on the script and its input, so a
// replay gives what the run gave (lua_sandbox.h: what counts as an instruction).
struct ScriptLimits {
  std::size_t source_bytes = 256 * 1024;        // the script's text
  std::uint64_t instructions = 50'000'000;      // per call (one battle, one order check, ...)
  std::size_t memory_bytes = 64 * 1024 * 1024;  // the engine's whole Lua state
  std::size_t string_bytes = 1024 * 1024;       // the longest string a call may make
  int call_depth = 1000;                        // levels of nested calls
  // What one battle's outcome may hold (its detail, rounds, units...): string bytes plus 8 per
  // value, as lua_marshal.h's outcome_from_lua counts them.
  std::size_t outcome_bytes = 256 * 1024;
  // Totals over a run (ScriptRunBudget): one upload check (the conformance suite: every battle
  // it resolves and every check it makes) and one turn run (every battle and check of the turn).
  std::uint64_t check_instructions = 200'000'000;
  std::uint64_t turn_instructions = 1'000'000'000;
  std::size_t turn_outcome_bytes = 16 * 1024 * 1024;
};

// The runs that have a total budget.
enum class ScriptRun { kUploadCheck, kTurnRun };

// The total budget of one run (ScriptLimits::check_instructions; turn_instructions and
// turn_outcome_bytes), over every call a script engine makes for it. While one is alive, the
// script engine calls made on the thread that made it count against it: a call runs at most what
// remains of the run's instructions (and at most its own limit) and a battle's outcome holds at
// most what remains of the run's outcome bytes; past either the call fails ("the turn run's
// budget of N script instructions is used up"). They nest: the innermost one counts.
// Not thread-safe: one thread's, on its stack.
class ScriptRunBudget {
 public:
  explicit ScriptRunBudget(ScriptRun run);
  ~ScriptRunBudget();
  ScriptRunBudget(const ScriptRunBudget&) = delete;
  ScriptRunBudget& operator=(const ScriptRunBudget&) = delete;

  ScriptRun run() const { return run_; }
  // "upload check" or "turn run".
  const char* name() const { return run_ == ScriptRun::kTurnRun ? "turn run" : "upload check"; }
  // Used so far.
  std::uint64_t instructions = 0;
  std::size_t outcome_bytes = 0;
  // Whether a call ran out of the budget (the run should stop: every further call fails).
  bool exhausted = false;

  // The innermost budget of the calling thread, or null.
  static ScriptRunBudget* current();

 private:
  ScriptRun run_;
  ScriptRunBudget* outer_;
};

// Which script a game runs: what battle logs record, so that --replay finds the same text.
struct ScriptId {
  int version = 0;     // 1, 2, ... per game; each upload is a new version
  std::string sha256;  // lowercase hex of the source bytes
};

// Compiles `source` in a fresh sandbox and checks it defines what an engine needs (see
// docs/lua-engines.md). `id` is recorded in the engine (name(): "lua"; script_id()).
// Errors: the source is too big, does not compile (the message names the line), or lacks
// `resolve`. Never throws.
Result<std::shared_ptr<const CombatEngine>> load_script_engine(std::string_view source,
                                                               const ScriptId& id,
                                                               const ScriptLimits& limits = {});

// The script id of an engine made by load_script_engine; null for a built-in engine.
const ScriptId* script_id_of(const CombatEngine& engine);

// VM instructions the script engine's calls have run so far (all calls, all threads); 0 for a
// built-in engine. The conformance suite bounds a check's total cost with it.
std::uint64_t script_instructions(const CombatEngine& engine);

// Bytes the script engine's Lua state holds between calls (at most 8 MB after a call unless its
// live data is larger: see LuaSandbox::kIdleBytes); 0 for a built-in engine.
std::size_t script_memory_held(const CombatEngine& engine);

// Whether the script engine runs its top level once rather than before every call
// (LuaSandbox::keep_top_level); false for a built-in engine.
bool script_top_level_kept(const CombatEngine& engine);

}  // namespace adj
