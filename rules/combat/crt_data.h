// The CRT engine's data (the rules: crt_engine.h): its options with their defaults, read from a
// game's engine options together with the table and the shift chart they name (crt_table.h).
// Pure functions over values; thread-safe.
#pragma once

#include <optional>

#include "rules/combat/combat_engine.h"
#include "rules/combat/crt_table.h"

namespace adj {

// The engine's options with their defaults (the rules: crt_engine.h).
struct CrtOptions {
  CrtTable table;
  ShiftChart shifts;
  int strength_per_army = 1;
  int population_strength = 0;
  int fort_strength = 0;
  bool zoc = true;
  bool retreat_into_empty = false;
  int ambush_shift = 1;
  int overrun_shift = 1;
  int assault_rolls = 2;
  int attacker_retreat = 1;  // areas an AR retreats the attackers from their origin (0: home)
  enum class RiverShift { kAll, kAny, kProportional };
  RiverShift river_shift = RiverShift::kAll;
  std::optional<int> advance = 1;  // attackers that enter a vacated area; nullopt: all
  bool overrun_rout = true;        // overrun "rout" (seed 001 5.5) or "shift" (one roll)
  int overrun_rout_areas = 1;      // extra areas a routed defender retreats
  int overrun_confusion_loss = 1;  // armies lost before each roll of the fight to the finish
  CombatPhaseRules phase{CombatPhaseRules::Scope::kTurn, true, true};
};

// Parses and checks the engine options; `validate` also checks the table documents against
// schemas/crt_table.schema.json. Errors are "/engine/options/<key>...: <what is wrong>".
Result<CrtOptions> crt_options_from_json(const Json& options, bool validate);

// The words the CRT engine reads (CombatEngine::vocabulary) under `options` (the defaults when
// they do not parse): the shift chart's entries as terrain words and as true features ("fortified"
// also applies by itself to an area with a fort) and the "river" border.
EngineVocabulary crt_vocabulary(const Json& options);

}  // namespace adj
