// The engine-independent conformance suite: properties every combat engine (built-in or script)
// must have, checked on a deterministic set of generated battles plus any sample documents.
//
//   same seed, same outcome and draws; losses within the forces (and each round's); a winner has
//   survivors and no defender left; per-force results add up (outcome_inconsistency); the outcome
//   does not depend on the order of areas, players and borders in the input; an engine that
//   declares itself deterministic never draws; every resolve() succeeds (a script's Lua error or
//   broken limit is a failed check with its message, never a crash).
//
// Pure: no I/O. `adjutant engines check SCRIPT` prints the report; tests/rules/combat runs it on
// every built-in engine and on the shipped example scripts.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rules/combat/combat_engine.h"

namespace adj {

// A battle-calculator document (rules/combat/local_world.h, full form) of a random world around
// one battle: kind, 1 to 3 attacking groups (combined attacks), ambush, defence mode, rivers,
// forts, populations, terrain, cities, army counts from tiny to large. With `vary_rules`, the
// document's "rules" also vary (bonuses, fort weight, ambush multiplier, assault round limit).
// Deterministic in the draws of `rng`.
Json random_battle(Rng& rng, bool vary_rules);

// `count` battles from random_battle, seeded by `seed`: the suite's own sample set (independent
// of any data file). Every attack kind appears.
std::vector<Json> conformance_battles(int count = 48, Seed seed = 15);

struct ConformanceCheck {
  std::string name;                   // e.g. "same seed, same outcome and draws"
  int runs = 0;                       // battles x seeds tried
  int failures = 0;                   // how many of them failed
  std::vector<std::string> messages;  // the first failures, each naming the battle and seed
};

struct ConformanceReport {
  std::string engine;
  int battles = 0;
  std::vector<ConformanceCheck> checks;

  bool ok() const;
  // One line per check ("PASS name (runs)" / "FAIL name: n of runs" and its messages).
  std::string to_text() const;
};

// Runs the suite on `engine` with the generated battles and `samples` (calculator documents; a
// document that does not prepare is a failed check naming it). A script engine's calls share one
// upload check's budget (ScriptRunBudget, ScriptLimits::check_instructions), and the suite stops
// at the first battle that breaks a limit or the budget: a check's cost is bounded. Documents are
// prepared with the built-in "dark-age" world defaults, then resolved by `engine` itself.
ConformanceReport run_conformance(const CombatEngine& engine, const std::vector<Json>& samples = {},
                                  bool generated = true);

}  // namespace adj
