// The Dark Age engine written in Lua (rules/combat/scripts/dark_age.lua) gives exactly the C++
// engine's outcomes (to_json of the outcome, and the draws: none) on 10,000 random battles.
#include <gtest/gtest.h>

#include "rules/combat/conformance.h"
#include "rules/combat/dark_age_engine.h"
#include "rules/combat/local_world.h"
#include "rules/combat/script_engine.h"
#include "rules/turn/turn_result.h"
#include "schemas/embedded.h"
#include "tests/support/sanitized.h"

namespace adj {
namespace {

std::shared_ptr<const CombatEngine> lua_dark_age() {
  auto src = embedded_file("rules/combat/scripts/dark_age.lua");
  EXPECT_TRUE(src.has_value());
  if (!src) return nullptr;
  auto e = load_script_engine(*src, {1, ""});
  EXPECT_TRUE(e.ok()) << e.status().to_string();
  return e.ok() ? e.value() : nullptr;
}

TEST(LuaDarkAge, SameOutcomesAsTheCppEngineOn10000RandomBattles) {
  auto lua = lua_dark_age();
  ASSERT_TRUE(lua);
  const DarkAgeEngine cpp;
  EXPECT_EQ(lua->deterministic(), cpp.deterministic());
  EXPECT_EQ(lua->world_radius(Json::object()), cpp.world_radius(Json::object()));
  EXPECT_EQ(lua->dark_age_actions(), cpp.dark_age_actions());
  Xoshiro256 gen(derive_seed(2026, "lua-dark-age"));
  int compared = 0, wins = 0, stalemates = 0, ambushes = 0;
  std::map<std::string, int> kinds;
  const int battles = testing::sanitized_count(10'000);  // 1,000 under the sanitizers
  for (int i = 0; i < battles; ++i) {
    const Json doc = random_battle(gen, i % 2 == 0);
    auto b = prepare_battle(doc, "dark-age");
    ASSERT_TRUE(b.ok()) << b.status().to_string() << "\n" << doc.dump();
    Xoshiro256 r1((*b)->seed), r2((*b)->seed);
    auto want = cpp.resolve((*b)->input, r1);
    auto got = lua->resolve((*b)->input, r2);
    ASSERT_TRUE(want.ok());
    ASSERT_TRUE(got.ok()) << got.status().to_string() << "\n" << doc.dump();
    ASSERT_EQ(to_json(*got), to_json(*want)) << "battle " << i << ": " << doc.dump();
    ASSERT_EQ(r1.draw_count(), r2.draw_count());
    ++compared;
    wins += want->attacker_wins;
    stalemates += want->detail.contains("ended");
    ambushes += !want->rounds.empty() && want->rounds[0].detail.contains("ambush_multiplier");
    ++kinds[doc["kind"].get<std::string>()];
  }
  EXPECT_EQ(compared, battles);
  // The random battles reach every branch of the rules (shares of 10,000: 500, 9,500, 50, ...).
  EXPECT_GT(wins, battles / 20);
  EXPECT_LT(wins, battles - battles / 20);
  EXPECT_GT(stalemates, battles / 200);
  EXPECT_GT(ambushes, battles / 50);
  for (const char* k : {"move", "assault", "probe", "overrun"})
    EXPECT_GT(kinds[k], battles / 5) << k;
}

TEST(LuaDarkAge, RefusesEngineOptionsLikeTheCppEngine) {
  auto lua = lua_dark_age();
  ASSERT_TRUE(lua);
  GameState s;
  EXPECT_TRUE(lua->check_game(s).ok());
  s.engine.options = {{"x", 1}};
  EXPECT_FALSE(lua->check_game(s).ok());
  EXPECT_FALSE(DarkAgeEngine().check_game(s).ok());
}

}  // namespace
}  // namespace adj
