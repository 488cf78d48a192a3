// The worked examples of docs/rules/dark-age.md §1.13, each as its own test, through the same
// battle calculator input the command line uses.
#include <gtest/gtest.h>

#include "rules/combat/dark_age_engine.h"
#include "rules/combat/local_world.h"

namespace adj {
namespace {

struct Fight {
  BattleOutcome out;
  std::size_t draws = 0;
};

Fight dark_age_fight(const std::string& kind, int attackers, Json defender, bool ambush = false,
                     Json rules = Json::object()) {
  Json doc = {{"engine", "dark-age"}, {"kind", kind},     {"attacker", {{"armies", attackers}}},
              {"defender", defender}, {"ambush", ambush}, {"rules", rules}};
  auto b = prepare_battle(doc, "");
  EXPECT_TRUE(b.ok()) << b.status().to_string();
  Xoshiro256 rng(1);
  auto out = (*b)->engine->resolve((*b)->input, rng);
  EXPECT_TRUE(out.ok());
  return {*out, rng.draw_count()};
}

TEST(DarkAgeExample1, MoveTenAgainstSixWipesThemOut) {
  auto f = dark_age_fight("move", 10, {{"armies", 6}, {"mode", "defend"}});
  EXPECT_TRUE(f.out.attacker_wins);
  EXPECT_EQ(f.out.attacker_losses, 3);
  EXPECT_EQ(f.out.defender_losses, 6);
  ASSERT_EQ(f.out.rounds.size(), 1u);
  EXPECT_EQ(f.out.rounds[0].defender_strength, 6);
  EXPECT_EQ(f.draws, 0u);
}

TEST(DarkAgeExample1, AmbushDoublesAttackerLosses) {
  auto f = dark_age_fight("move", 10, {{"armies", 6}}, true);
  EXPECT_TRUE(f.out.attacker_wins);
  EXPECT_EQ(f.out.attacker_losses, 6);
  EXPECT_EQ(10 - f.out.attacker_losses, 4);
}

TEST(DarkAgeExample2, PopulationAndFortHoldTheArea) {
  auto f = dark_age_fight("move", 10, {{"armies", 6}, {"population", 2}, {"fort", 1}});
  EXPECT_EQ(f.out.rounds[0].defender_strength, 9);
  EXPECT_FALSE(f.out.attacker_wins);
  EXPECT_EQ(f.out.attacker_losses, 4);
  EXPECT_EQ(f.out.defender_losses, 5);
  EXPECT_EQ(10 - f.out.attacker_losses, 6);  // survivors return to the origin
}

TEST(DarkAgeExample2, WithAmbushOnlyTwoReturn) {
  auto f = dark_age_fight("move", 10, {{"armies", 6}, {"population", 2}, {"fort", 1}}, true);
  EXPECT_FALSE(f.out.attacker_wins);
  EXPECT_EQ(f.out.attacker_losses, 8);
}

TEST(DarkAgeExample3, ProbeAgainstUnownedLowlands) {
  auto f = dark_age_fight("probe", 3, {{"armies", 1}, {"population", 2}});
  EXPECT_TRUE(f.out.attacker_wins);
  EXPECT_EQ(f.out.attacker_losses, 1);
  EXPECT_TRUE(f.out.attacker_stops);
}

TEST(DarkAgeExample3, ProbeFailsAfterALevy) {
  auto f = dark_age_fight("probe", 3, {{"armies", 2}, {"population", 2}});
  EXPECT_FALSE(f.out.attacker_wins);
  EXPECT_EQ(f.out.defender_losses, 1);
  auto g = dark_age_fight("probe", 6, {{"armies", 2}, {"population", 2}});
  EXPECT_TRUE(g.out.attacker_wins);
  EXPECT_EQ(g.out.attacker_losses, 1);
  EXPECT_EQ(6 - g.out.attacker_losses, 5);
}

TEST(DarkAgeExample3, ProbeIgnoresAmbush) {
  auto f = dark_age_fight("probe", 3, {{"armies", 1}, {"population", 2}}, true);
  EXPECT_EQ(f.out.attacker_losses, 1);
}

TEST(DarkAgeExample4, AssaultOnACity) {
  Json city = {{"armies", 1}, {"fort", 1}, {"population", 4}, {"kind", "city"}};
  auto three = dark_age_fight("assault", 3, city);
  EXPECT_EQ(three.out.rounds[0].defender_strength, 9);
  EXPECT_FALSE(three.out.attacker_wins);  // mutual wipe-out: no capture (OQ-9)
  EXPECT_EQ(three.out.attacker_losses, 3);
  EXPECT_EQ(three.out.defender_losses, 1);
  auto four = dark_age_fight("assault", 4, city);
  EXPECT_FALSE(four.out.attacker_wins);
  EXPECT_EQ(four.out.attacker_losses, 4);
  auto five = dark_age_fight("assault", 5, city);
  EXPECT_TRUE(five.out.attacker_wins);
  EXPECT_EQ(five.out.attacker_losses, 4);
}

TEST(DarkAgeExample5, MultiRoundAssault) {
  auto f = dark_age_fight("assault", 8, {{"armies", 6}, {"population", 2}});
  ASSERT_EQ(f.out.rounds.size(), 4u);
  const int a_losses[] = {2, 2, 1, 1}, d_losses[] = {2, 2, 1, 1};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(f.out.rounds[i].attacker_losses, a_losses[i]) << "round " << i + 1;
    EXPECT_EQ(f.out.rounds[i].defender_losses, d_losses[i]) << "round " << i + 1;
  }
  EXPECT_TRUE(f.out.attacker_wins);
  EXPECT_EQ(8 - f.out.attacker_losses, 2);
  EXPECT_TRUE(f.out.attacker_stops);
}

TEST(DarkAgeExample6, OverrunSweepsASmallArmyAside) {
  auto f = dark_age_fight("overrun", 15, {{"armies", 2}, {"fort", 2}, {"population", 3}});
  EXPECT_TRUE(f.out.attacker_wins);
  EXPECT_EQ(f.out.attacker_losses, 0);
  EXPECT_EQ(f.out.rounds.size(), 1u);
  EXPECT_FALSE(f.out.attacker_stops);
}

TEST(DarkAgeExample6, FailedOverrunBecomesACostlyAssault) {
  auto f = dark_age_fight("overrun", 9, {{"armies", 4}, {"population", 3}});
  ASSERT_EQ(f.out.rounds.size(), 3u);
  EXPECT_EQ(f.out.rounds[0].attacker_losses + f.out.rounds[0].defender_losses, 0);
  EXPECT_EQ(f.out.rounds[1].attacker_losses, 3);
  EXPECT_EQ(f.out.rounds[1].defender_losses, 3);
  EXPECT_EQ(f.out.rounds[2].attacker_losses, 2);
  EXPECT_EQ(f.out.rounds[2].defender_losses, 1);
  EXPECT_TRUE(f.out.attacker_wins);
  EXPECT_EQ(9 - f.out.attacker_losses, 4);
  EXPECT_TRUE(f.out.attacker_stops);
}

TEST(DarkAgeExample6, FiveAttackersAreDestroyed) {
  auto f = dark_age_fight("overrun", 5, {{"armies", 4}, {"population", 3}});
  EXPECT_FALSE(f.out.attacker_wins);
  EXPECT_EQ(f.out.attacker_losses, 5);
  EXPECT_EQ(4 - f.out.defender_losses, 3);
}

TEST(DarkAgeOpenQuestions, StalemateEndsTheAssault) {
  // OQ-5: 2 v defence level 2 kills nobody; the attack fails instead of looping.
  auto f = dark_age_fight("assault", 2, {{"armies", 2}});
  EXPECT_FALSE(f.out.attacker_wins);
  EXPECT_EQ(f.out.rounds.size(), 1u);
  EXPECT_EQ(f.out.attacker_losses, 0);
}

TEST(DarkAgeOpenQuestions, TerrainAndCityBonusesAreConfigurable) {
  auto forest = dark_age_fight("move", 4, {{"armies", 0}, {"terrain", "forest"}});
  EXPECT_EQ(forest.out.rounds[0].defender_strength, 1);
  auto custom = dark_age_fight("move", 4, {{"armies", 0}, {"terrain", "forest"}}, false,
                               {{"terrain_bonus", {{"forest", 3}}}});
  EXPECT_EQ(custom.out.rounds[0].defender_strength, 3);
  auto ambush3 = dark_age_fight("move", 10, {{"armies", 6}}, true, {{"ambush_multiplier", 3}});
  EXPECT_EQ(ambush3.out.attacker_losses, 9);
}

TEST(DarkAgeOpenQuestions, PopulationOnlyDefenceFightsOneRound) {
  // OQ-6: no armies but population: the attacker takes its losses, then wins.
  auto f = dark_age_fight("assault", 4, {{"armies", 0}, {"population", 3}});
  EXPECT_TRUE(f.out.attacker_wins);
  EXPECT_EQ(f.out.attacker_losses, 1);
  EXPECT_EQ(f.out.rounds.size(), 1u);
}

}  // namespace
}  // namespace adj
