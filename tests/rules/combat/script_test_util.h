// Helpers shared by the Lua engine's tests (script_sandbox_test.cc, script_limits_test.cc).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "rules/combat/local_world.h"
#include "rules/combat/script_engine.h"

namespace adj::script_test {

// A prepared Dark Age battle of `kind` with `attackers` against `defenders`.
inline std::unique_ptr<PreparedBattle> battle(const std::string& kind = "move", int attackers = 10,
                                              int defenders = 6) {
  Json doc = {{"engine", "dark-age"},
              {"kind", kind},
              {"attacker", {{"armies", attackers}}},
              {"defender", {{"armies", defenders}}}};
  auto b = prepare_battle(doc, "");
  EXPECT_TRUE(b.ok()) << b.status().to_string();
  return std::move(b).value();
}

// The script engine of `source` (version 1), or null with a test failure.
inline std::shared_ptr<const CombatEngine> load(const std::string& source,
                                                ScriptLimits limits = {}) {
  auto e = load_script_engine(source, {1, "test"}, limits);
  EXPECT_TRUE(e.ok()) << e.status().to_string();
  return e.ok() ? e.value() : nullptr;
}

inline Result<BattleOutcome> run(const CombatEngine& e, const PreparedBattle& b, Seed seed = 1) {
  Xoshiro256 rng(seed);
  return e.resolve(b.input, rng);
}

}  // namespace adj::script_test
