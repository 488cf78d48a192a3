// Path of War: the worked examples of seed_rules.md §2.4 with scripted dice, options, unit
// bookkeeping and dice statistics.
#include <gtest/gtest.h>

#include "rules/combat/path_of_war_engine.h"
#include "tests/rules/combat/engine_world.h"
#include "tests/support/scripted_rng.h"

namespace adj {
namespace {

using testing::ScriptedRng;

struct AreaSpec {
  std::string code, owner, terrain;
  int armies = 0;
  Json features = Json::object();
  Json units = Json::object();
};

GameState world(const std::vector<AreaSpec>& areas,
                const std::vector<std::tuple<std::string, std::string, Json>>& edges,
                Json options = Json::object()) {
  std::vector<testing::WorldArea> as;
  for (const auto& a : areas)
    as.push_back({a.code, a.owner, a.armies, a.terrain, 0, a.features, a.units});
  std::vector<testing::WorldEdge> es;
  for (const auto& [a, b, f] : edges) es.push_back({a, b, f});
  return testing::engine_world("path-of-war", {"AAA", "BBB"}, as, es, std::move(options));
}

BattleInput battle(const GameState& w, AttackKind kind, const std::string& from,
                   const std::string& to, int armies, Json units = Json::object()) {
  BattleInput in;
  in.id = "test";
  in.kind = kind;
  in.world = &w;
  in.attacker = "AAA";
  in.from = from;
  in.to = to;
  in.attacker_armies = armies;
  in.attacker_units = std::move(units);
  in.options = &w.engine.options;
  return in;
}

const PathOfWarEngine kEngine;
const Json kNone = Json::object();

// §2.4 example 1: 4 tanks on hills attack 3 in a forest; the forest unit fires back.
TEST(PathOfWarWorkedExample, OneHillsAgainstForest) {
  GameState w =
      world({{"HIL", "AAA", "hills", 0}, {"FOR", "BBB", "forest", 3}}, {{"HIL", "FOR", kNone}});
  ScriptedRng rng({6, 5, 2, 5, /* defender */ 1, 5, 3});
  auto out = kEngine.resolve(battle(w, AttackKind::kMove, "HIL", "FOR", 4), rng);
  ASSERT_TRUE(out.ok());
  ASSERT_EQ(out->rounds.size(), 1u);
  const BattleRound& r = out->rounds[0];
  EXPECT_EQ(r.attacker_strength, 4);  // 4 +1 from hills −1 against forest
  EXPECT_EQ(r.defender_strength, 3);  // 3 +1 from forest −1 against hills
  EXPECT_EQ(r.attacker_dice, (std::vector<int>{6, 5, 2, 5}));
  EXPECT_EQ(r.defender_dice, (std::vector<int>{1, 5, 3}));
  EXPECT_EQ(out->defender_losses, 3);  // 3 hits, capped at 3
  EXPECT_EQ(out->attacker_losses, 1);  // the destroyed unit still fired
  EXPECT_TRUE(out->attacker_wins);
  EXPECT_EQ(rng.remaining(), 0u);
}

// §2.4 example 2: 2 tanks on a road against 6 on a railroad: 2 −1 +2 = 3 dice.
TEST(PathOfWarWorkedExample, TwoRoadAgainstRails) {
  GameState w = world(
      {{"RD", "AAA", "clear", 0, {{"road", true}}}, {"RL", "BBB", "clear", 6, {{"rails", true}}}},
      {{"RD", "RL", kNone}});
  ScriptedRng rng({1, 1, 1, /* defender: 6 +1 (target on road) */ 1, 1, 1, 1, 1, 1, 1});
  auto out = kEngine.resolve(battle(w, AttackKind::kMove, "RD", "RL", 2), rng);
  ASSERT_TRUE(out.ok());
  const BattleRound& r = out->rounds.at(0);
  EXPECT_EQ(r.attacker_strength, 3);
  EXPECT_EQ(r.detail["attacker_modifiers"], (Json{{"outnumbered", -1}, {"target on rails", 2}}));
  EXPECT_EQ(r.defender_strength, 7);
  EXPECT_EQ(out->attacker_losses, 0);
  EXPECT_EQ(out->defender_losses, 0);
  EXPECT_FALSE(out->attacker_wins);
}

// §2.4 example 3: 1 tank against a castle rolls one die; no attack across a sidemountain.
TEST(PathOfWarWorkedExample, ThreeCastleAndSidemountain) {
  GameState w = world({{"ATT", "AAA", "clear", 0},
                       {"CAS", "BBB", "clear", 1, {{"castle", true}}},
                       {"MTN", "AAA", "clear", 1}},
                      {{"ATT", "CAS", kNone}, {"MTN", "CAS", {{"sidemountain", true}}}});
  ScriptedRng rng({5, /* defender */ 1});
  auto out = kEngine.resolve(battle(w, AttackKind::kMove, "ATT", "CAS", 1), rng);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->rounds.at(0).attacker_strength, 1);  // 1 − 2 → at least one die
  EXPECT_EQ(out->rounds.at(0).detail["attacker_modifiers"]["minimum"], 2);
  EXPECT_FALSE(out->rounds.at(0).detail["attacker_modifiers"].contains("flanking"))
      << "no flanking help from behind a sidemountain";
  EXPECT_TRUE(out->attacker_wins);

  ScriptedRng none({});
  auto blocked = kEngine.resolve(battle(w, AttackKind::kAssault, "MTN", "CAS", 1), none);
  ASSERT_TRUE(blocked.ok());
  EXPECT_TRUE(blocked->rounds.empty());
  EXPECT_FALSE(blocked->attacker_wins);
  EXPECT_EQ(blocked->attacker_losses, 0);

  Order o;
  o.verb = Verb::kOverrun;
  o.from = "MTN";
  o.to = "CAS";
  EXPECT_FALSE(kEngine.check_order(o, w).ok());
  o.from = "ATT";
  EXPECT_TRUE(kEngine.check_order(o, w).ok());
}

// §2.4 example 4: No Luck, 5 shots against HP 5,10,10 destroy the unit; 4 shots leave one at 5.
TEST(PathOfWarWorkedExample, FourNoLuck) {
  GameState w =
      world({{"ATT", "AAA", "clear", 0}, {"TGT", "BBB", "clear", 3, kNone, {{"hp", {5}}}}},
            {{"ATT", "TGT", kNone}}, {{"variant", "no-luck"}});
  ScriptedRng rng({});
  auto five = kEngine.resolve(battle(w, AttackKind::kMove, "ATT", "TGT", 5), rng);
  ASSERT_TRUE(five.ok());
  EXPECT_EQ(five->defender_losses, 3);
  EXPECT_TRUE(five->attacker_wins);
  // The defender's 3 shots: one fresh tank destroyed, one damaged.
  EXPECT_EQ(five->attacker_losses, 1);
  EXPECT_EQ(five->attacker_units, (Json{{"hp", {5}}}));

  auto four = kEngine.resolve(battle(w, AttackKind::kMove, "ATT", "TGT", 4), rng);
  ASSERT_TRUE(four.ok());
  EXPECT_EQ(four->defender_losses, 2);
  EXPECT_EQ(four->defender_units, (Json{{"hp", {5}}}));
  EXPECT_FALSE(four->attacker_wins);
  EXPECT_EQ(rng.draw_count(), 0u);
}

// §2.4 example 5: Videogamer, 3 tanks + flanking = 4 shots against 2 fresh tanks.
TEST(PathOfWarWorkedExample, FiveVideogamer) {
  GameState w =
      world({{"ATT", "AAA", "clear", 0}, {"FLK", "AAA", "clear", 1}, {"TGT", "BBB", "clear", 2}},
            {{"ATT", "TGT", kNone}, {"FLK", "TGT", kNone}}, {{"variant", "videogamer"}});
  // Faces index {1,2,4,6,9,12}: 4 → 3, 12 → 6, 1 → 1, 9 → 5. The defender's two shots: 1, 1.
  ScriptedRng rng({3, 6, 1, 5, 1, 1});
  auto out = kEngine.resolve(battle(w, AttackKind::kMove, "ATT", "TGT", 3), rng);
  ASSERT_TRUE(out.ok());
  const BattleRound& r = out->rounds.at(0);
  EXPECT_EQ(r.attacker_strength, 4);
  EXPECT_EQ(r.attacker_dice, (std::vector<int>{4, 12, 1, 9}));
  EXPECT_EQ(out->defender_losses, 1);  // 12 destroys one, 9 leaves the other at 1 HP
  EXPECT_EQ(out->defender_units, (Json{{"hp", {1}}}));
  EXPECT_EQ(out->attacker_units, (Json{{"hp", {9, 9}}}));
  EXPECT_FALSE(out->attacker_wins);
}

TEST(PathOfWarEngine, OutnumberedAndFlankingOnBothSides) {
  GameState w = world({{"ATT", "AAA", "clear", 0},
                       {"TGT", "BBB", "clear", 1},
                       {"BFL", "BBB", "clear", 2},
                       {"AFL", "AAA", "clear", 2}},
                      {{"ATT", "TGT", kNone}, {"AFL", "TGT", kNone}, {"BFL", "ATT", kNone}},
                      {{"variant", "no-luck"}});
  ScriptedRng rng({});
  auto out = kEngine.resolve(battle(w, AttackKind::kProbe, "ATT", "TGT", 4), rng);
  ASSERT_TRUE(out.ok());
  const BattleRound& r = out->rounds.at(0);
  EXPECT_EQ(r.detail["attacker_modifiers"], (Json{{"flanking", 1}}));
  EXPECT_EQ(r.detail["defender_modifiers"], (Json{{"flanking", 1}, {"outnumbered", -1}}));
  EXPECT_EQ(r.attacker_strength, 2);  // PROBE: (4 + 1) / 2
  EXPECT_EQ(r.defender_strength, 1);  // (1 + 1 − 1) / 2 → at least 1
  EXPECT_TRUE(out->attacker_stops);
}

TEST(PathOfWarEngine, AssaultFightsToTheFinishAndAmbushFiresFirst) {
  GameState w = world({{"ATT", "AAA", "clear", 0}, {"TGT", "BBB", "clear", 2}},
                      {{"ATT", "TGT", kNone}}, {{"variant", "no-luck"}});
  BattleInput in = battle(w, AttackKind::kAssault, "ATT", "TGT", 3);
  in.ambush = true;
  ScriptedRng rng({});
  auto out = kEngine.resolve(in, rng);
  ASSERT_TRUE(out.ok());
  ASSERT_GE(out->rounds.size(), 2u);
  EXPECT_EQ(out->rounds[0].phase, "ambush");
  EXPECT_EQ(out->rounds[0].attacker_strength, 0);
  EXPECT_EQ(out->rounds[0].attacker_losses, 1);  // 2 shots destroy a fresh tank
  // Ambush leaves 2 attackers against 2; the exchanges wear both sides down to nothing.
  EXPECT_EQ(out->attacker_losses, 3);
  EXPECT_EQ(out->defender_losses, 2);
  EXPECT_FALSE(out->attacker_wins);
  EXPECT_TRUE(out->attacker_stops);
}

TEST(PathOfWarEngine, OverrunClearsOrTurnsIntoAssault) {
  GameState w = world({{"ATT", "AAA", "clear", 0}, {"TGT", "BBB", "clear", 1}},
                      {{"ATT", "TGT", kNone}}, {{"variant", "no-luck"}});
  ScriptedRng rng({});
  auto quick = kEngine.resolve(battle(w, AttackKind::kOverrun, "ATT", "TGT", 3), rng);
  ASSERT_TRUE(quick.ok());
  EXPECT_EQ(quick->rounds.size(), 1u);
  EXPECT_EQ(quick->rounds[0].defender_strength, 2);  // 1 tank + 1 overrun die
  EXPECT_TRUE(quick->attacker_wins);
  EXPECT_FALSE(quick->attacker_stops);

  w.find_area("TGT")->armies = 2;
  auto slow = kEngine.resolve(battle(w, AttackKind::kOverrun, "ATT", "TGT", 2), rng);
  ASSERT_TRUE(slow.ok());
  EXPECT_GT(slow->rounds.size(), 1u);
  EXPECT_TRUE(slow->attacker_stops);
}

TEST(PathOfWarEngine, DetachSendsHealthiestAndMergePools) {
  Json area = {{"hp", {3, 7}}};  // 4 armies: 10, 10, 7, 3
  Json moving = kEngine.detach_units(area, 4, 3);
  EXPECT_EQ(moving, (Json{{"hp", {7}}}));
  EXPECT_EQ(area, (Json{{"hp", {3}}}));
  Json fresh = Json::object();
  EXPECT_EQ(kEngine.detach_units(fresh, 3, 2), Json::object());
  kEngine.merge_units(area, 1, moving, 3);
  EXPECT_EQ(area, (Json{{"hp", {7, 3}}}));
  kEngine.merge_units(area, 4, Json(), 2);  // levies are fresh
  EXPECT_EQ(area, (Json{{"hp", {7, 3}}}));
  EXPECT_EQ(pow_hp_list(area, 4, 10), (std::vector<int>{10, 10, 7, 3}));
  EXPECT_EQ(pow_units_json({10, 10, 4}, 10), (Json{{"hp", {4}}}));
}

TEST(PathOfWarEngine, CheckGameNamesThePath) {
  GameState w = world({{"A", "AAA", "clear", 1}, {"B", "BBB", "clear", 1}}, {{"A", "B", kNone}});
  EXPECT_TRUE(kEngine.check_game(w).ok());
  w.engine.options = {{"variant", "lucky"}};
  EXPECT_EQ(kEngine.check_game(w).message(),
            "/engine/options/variant: must be one of boardgame, videogamer, no-luck");
  w.engine.options = {{"hit_points", 0}};
  EXPECT_EQ(kEngine.check_game(w).message().rfind("/engine/options/hit_points: ", 0), 0u);
  w.engine.options = {{"terrain", {{"swamp", {{"against", -3}}}}}};
  EXPECT_TRUE(kEngine.check_game(w).ok());
  w.engine.options = {{"terrain", {{"swamp", {{"agianst", -3}}}}}};
  EXPECT_EQ(kEngine.check_game(w).message().rfind("/engine/options/terrain/swamp/agianst: ", 0),
            0u);
  w.engine.options = {{"colour", "green"}};
  EXPECT_EQ(kEngine.check_game(w).message().rfind("/engine/options/colour: ", 0), 0u);
  w.engine.options = Json::object();
  w.areas[0].engine_state = {{"hp", {4, 4}}};  // more HP entries than armies
  EXPECT_FALSE(kEngine.check_game(w).ok());
}

TEST(PathOfWarEngine, TerrainTableIsAnOption) {
  GameState w = world(
      {{"ATT", "AAA", "swamp", 0}, {"TGT", "BBB", "forest", 2}}, {{"ATT", "TGT", kNone}},
      {{"variant", "no-luck"}, {"terrain", {{"swamp", {{"from", -2}}}, {"forest", nullptr}}}});
  ScriptedRng rng({});
  auto out = kEngine.resolve(battle(w, AttackKind::kMove, "ATT", "TGT", 4), rng);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->rounds.at(0).attacker_strength, 2);  // 4 − 2 from swamp; forest removed
}

TEST(PathOfWarEngine, RetreatModeWithdrawsWhenOutnumbered) {
  GameState w =
      world({{"ATT", "AAA", "clear", 0}, {"TGT", "BBB", "clear", 2}}, {{"ATT", "TGT", kNone}});
  EXPECT_TRUE(kEngine.retreat_triggers(battle(w, AttackKind::kMove, "ATT", "TGT", 3)));
  EXPECT_FALSE(kEngine.retreat_triggers(battle(w, AttackKind::kMove, "ATT", "TGT", 2)));
}

// Statistics over seeded streams: the boardgame hit rate is 1/3 (60,000 dice).
TEST(PathOfWarStatistics, BoardgameHitRateIsOneThird) {
  GameState w =
      world({{"ATT", "AAA", "clear", 0}, {"TGT", "BBB", "clear", 10}}, {{"ATT", "TGT", kNone}});
  const BattleInput in = battle(w, AttackKind::kMove, "ATT", "TGT", 10);
  long dice = 0, hits = 0;
  for (int i = 0; i < 3000; ++i) {
    Xoshiro256 rng(derive_seed(42, "pow-stats:" + std::to_string(i)));
    auto out = kEngine.resolve(in, rng);
    ASSERT_TRUE(out.ok());
    const BattleRound& r = out->rounds.at(0);
    int a_hits = 0, d_hits = 0;
    for (int d : r.attacker_dice) a_hits += d >= 5;
    for (int d : r.defender_dice) d_hits += d >= 5;
    EXPECT_EQ(out->defender_losses, a_hits);
    EXPECT_EQ(out->attacker_losses, d_hits);
    dice += static_cast<long>(r.attacker_dice.size() + r.defender_dice.size());
    hits += a_hits + d_hits;
  }
  ASSERT_EQ(dice, 60000);
  const double rate = static_cast<double>(hits) / static_cast<double>(dice);
  RecordProperty("boardgame_hit_rate", std::to_string(rate));
  EXPECT_NEAR(rate, 1.0 / 3.0, 0.01);
}

TEST(PathOfWarStatistics, VideogamerMeanDamage) {
  GameState w = world({{"ATT", "AAA", "clear", 0}, {"TGT", "BBB", "clear", 10}},
                      {{"ATT", "TGT", kNone}}, {{"variant", "videogamer"}});
  const BattleInput in = battle(w, AttackKind::kMove, "ATT", "TGT", 10);
  double sum = 0;
  long shots = 0;
  std::map<int, long> counts;
  for (int i = 0; i < 3000; ++i) {
    Xoshiro256 rng(derive_seed(7, "pow-video:" + std::to_string(i)));
    auto out = kEngine.resolve(in, rng);
    ASSERT_TRUE(out.ok());
    for (const auto* v : {&out->rounds[0].attacker_dice, &out->rounds[0].defender_dice})
      for (int d : *v) {
        sum += d;
        ++shots;
        ++counts[d];
      }
  }
  ASSERT_EQ(shots, 60000);
  const double mean = sum / static_cast<double>(shots);
  RecordProperty("videogamer_mean_damage", std::to_string(mean));
  EXPECT_NEAR(mean, 34.0 / 6.0, 0.06);
  EXPECT_EQ(counts.size(), 6u);
  for (const auto& [face, n] : counts) EXPECT_NEAR(n / 60000.0, 1.0 / 6.0, 0.01) << face;
}

}  // namespace
}  // namespace adj
