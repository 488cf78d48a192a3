// Path of War: the worked examples of docs/rules/path-of-war.md §2.4 with scripted dice, options,
// unit bookkeeping and dice statistics.
#include <gtest/gtest.h>

#include "rules/combat/path_of_war_engine.h"
#include "rules/game/scenario.h"
#include "rules/orders/validator.h"
#include "rules/report/report.h"
#include "rules/turn/turn_resolver.h"
#include "tests/rules/combat/engine_world.h"
#include "tests/support/scripted_rng.h"

namespace adj {
namespace {

using testing::ScriptedRng;

struct PowArea {
  std::string code, owner, terrain;
  int armies = 0;
  Json features = Json::object();
  Json units = Json::object();
};

GameState pow_world(const std::vector<PowArea>& areas,
                    const std::vector<std::tuple<std::string, std::string, Json>>& edges,
                    Json options = Json::object()) {
  std::vector<testing::WorldArea> as;
  for (const auto& a : areas)
    as.push_back({a.code, a.owner, a.armies, a.terrain, 0, a.features, a.units});
  std::vector<testing::WorldEdge> es;
  for (const auto& [a, b, f] : edges) es.push_back({a, b, f});
  return testing::engine_world("path-of-war", {"AAA", "BBB"}, as, es, std::move(options));
}

BattleInput pow_battle(const GameState& w, AttackKind kind, const std::string& from,
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

const PathOfWarEngine kPowEngine;
const Json kNone = Json::object();

// §2.4 example 1: 4 tanks on hills attack 3 in a forest; the forest unit fires back.
TEST(PathOfWarWorkedExample, OneHillsAgainstForest) {
  GameState w =
      pow_world({{"HIL", "AAA", "hills", 0}, {"FOR", "BBB", "forest", 3}}, {{"HIL", "FOR", kNone}});
  ScriptedRng rng({6, 5, 2, 5, /* defender */ 1, 5, 3});
  auto out = kPowEngine.resolve(pow_battle(w, AttackKind::kMove, "HIL", "FOR", 4), rng);
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
  GameState w = pow_world(
      {{"RD", "AAA", "clear", 0, {{"road", true}}}, {"RL", "BBB", "clear", 6, {{"rails", true}}}},
      {{"RD", "RL", kNone}});
  ScriptedRng rng({1, 1, 1, /* defender: 6 +1 (target on road) */ 1, 1, 1, 1, 1, 1, 1});
  auto out = kPowEngine.resolve(pow_battle(w, AttackKind::kMove, "RD", "RL", 2), rng);
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
  GameState w = pow_world({{"ATT", "AAA", "clear", 0},
                           {"CAS", "BBB", "clear", 1, {{"castle", true}}},
                           {"MTN", "AAA", "clear", 1}},
                          {{"ATT", "CAS", kNone}, {"MTN", "CAS", {{"sidemountain", true}}}});
  ScriptedRng rng({5, /* defender */ 1});
  auto out = kPowEngine.resolve(pow_battle(w, AttackKind::kMove, "ATT", "CAS", 1), rng);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->rounds.at(0).attacker_strength, 1);  // 1 − 2 → at least one die
  EXPECT_EQ(out->rounds.at(0).detail["attacker_modifiers"]["minimum"], 2);
  EXPECT_FALSE(out->rounds.at(0).detail["attacker_modifiers"].contains("flanking"))
      << "no flanking help from behind a sidemountain";
  EXPECT_TRUE(out->attacker_wins);

  ScriptedRng none({});
  auto blocked = kPowEngine.resolve(pow_battle(w, AttackKind::kAssault, "MTN", "CAS", 1), none);
  ASSERT_TRUE(blocked.ok());
  EXPECT_TRUE(blocked->rounds.empty());
  EXPECT_FALSE(blocked->attacker_wins);
  EXPECT_EQ(blocked->attacker_losses, 0);

  Order o;
  o.verb = Verb::kOverrun;
  o.from = "MTN";
  o.to = "CAS";
  EXPECT_FALSE(kPowEngine.check_order(o, w).ok());
  o.from = "ATT";
  EXPECT_TRUE(kPowEngine.check_order(o, w).ok());
}

// §2.4 example 4: No Luck, 5 shots against HP 5,10,10 destroy the unit; 4 shots leave one at 5.
TEST(PathOfWarWorkedExample, FourNoLuck) {
  GameState w =
      pow_world({{"ATT", "AAA", "clear", 0}, {"TGT", "BBB", "clear", 3, kNone, {{"hp", {5}}}}},
                {{"ATT", "TGT", kNone}}, {{"variant", "no-luck"}});
  ScriptedRng rng({});
  auto five = kPowEngine.resolve(pow_battle(w, AttackKind::kMove, "ATT", "TGT", 5), rng);
  ASSERT_TRUE(five.ok());
  EXPECT_EQ(five->defender_losses, 3);
  EXPECT_TRUE(five->attacker_wins);
  // The defender's 3 shots: one fresh tank destroyed, one damaged.
  EXPECT_EQ(five->attacker_losses, 1);
  EXPECT_EQ(five->attacker_units, (Json{{"hp", {5}}}));

  auto four = kPowEngine.resolve(pow_battle(w, AttackKind::kMove, "ATT", "TGT", 4), rng);
  ASSERT_TRUE(four.ok());
  EXPECT_EQ(four->defender_losses, 2);
  EXPECT_EQ(four->defender_units, (Json{{"hp", {5}}}));
  EXPECT_FALSE(four->attacker_wins);
  EXPECT_EQ(rng.draw_count(), 0u);
}

// §2.4 example 5: Videogamer, 3 tanks + flanking = 4 shots against 2 fresh tanks.
TEST(PathOfWarWorkedExample, FiveVideogamer) {
  GameState w = pow_world(
      {{"ATT", "AAA", "clear", 0}, {"FLK", "AAA", "clear", 1}, {"TGT", "BBB", "clear", 2}},
      {{"ATT", "TGT", kNone}, {"FLK", "TGT", kNone}}, {{"variant", "videogamer"}});
  // Faces index {1,2,4,6,9,12}: 4 → 3, 12 → 6, 1 → 1, 9 → 5. The defender's two shots: 1, 1.
  ScriptedRng rng({3, 6, 1, 5, 1, 1});
  auto out = kPowEngine.resolve(pow_battle(w, AttackKind::kMove, "ATT", "TGT", 3), rng);
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
  GameState w = pow_world({{"ATT", "AAA", "clear", 0},
                           {"TGT", "BBB", "clear", 1},
                           {"BFL", "BBB", "clear", 2},
                           {"AFL", "AAA", "clear", 2}},
                          {{"ATT", "TGT", kNone}, {"AFL", "TGT", kNone}, {"BFL", "ATT", kNone}},
                          {{"variant", "no-luck"}});
  ScriptedRng rng({});
  auto out = kPowEngine.resolve(pow_battle(w, AttackKind::kProbe, "ATT", "TGT", 4), rng);
  ASSERT_TRUE(out.ok());
  const BattleRound& r = out->rounds.at(0);
  // Every modifier sums first, a PROBE halves the sum (rounded down), the floor comes last.
  EXPECT_EQ(r.detail["attacker_modifiers"], (Json{{"flanking", 1}, {"probe: half", -3}}));
  EXPECT_EQ(r.detail["defender_modifiers"],
            (Json{{"flanking", 1}, {"outnumbered", -1}, {"probe: half", -1}, {"minimum", 1}}));
  EXPECT_EQ(r.attacker_strength, 2);  // PROBE: (4 + 1) / 2
  EXPECT_EQ(r.defender_strength, 1);  // (1 + 1 − 1) / 2 = 0 → at least 1
  EXPECT_TRUE(out->attacker_stops);
}

TEST(PathOfWarEngine, AssaultFightsToTheFinishAndAmbushFiresFirst) {
  GameState w = pow_world({{"ATT", "AAA", "clear", 0}, {"TGT", "BBB", "clear", 2}},
                          {{"ATT", "TGT", kNone}}, {{"variant", "no-luck"}});
  BattleInput in = pow_battle(w, AttackKind::kAssault, "ATT", "TGT", 3);
  in.ambush = true;
  ScriptedRng rng({});
  auto out = kPowEngine.resolve(in, rng);
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

// Seed 001 5.5, OVERRUN: "If successful the attacker will suffer a minimum of losses, and the
// defender will be routed." The attacker fires first and alone: 3 dice 5, 6, 1 = 2 hits destroy
// both defending tanks, which never fire back. No assault follows and the attacker may move on.
TEST(PathOfWarOverrun, AttackerFiresFirstAndAlone) {
  GameState w =
      pow_world({{"ATT", "AAA", "clear", 0}, {"TGT", "BBB", "clear", 2}}, {{"ATT", "TGT", kNone}});
  ScriptedRng rng({5, 6, 1});
  auto out = kPowEngine.resolve(pow_battle(w, AttackKind::kOverrun, "ATT", "TGT", 3), rng);
  ASSERT_TRUE(out.ok());
  ASSERT_EQ(out->rounds.size(), 1u);
  EXPECT_EQ(out->rounds[0].phase, "overrun");
  EXPECT_EQ(out->rounds[0].attacker_strength, 3);
  EXPECT_EQ(out->rounds[0].defender_strength, 0);
  EXPECT_TRUE(out->rounds[0].defender_dice.empty());
  EXPECT_EQ(out->attacker_losses, 0);
  EXPECT_EQ(out->defender_losses, 2);
  EXPECT_TRUE(out->attacker_wins);
  EXPECT_FALSE(out->attacker_stops);
  EXPECT_EQ(rng.remaining(), 0u);
}

// Seed 001 5.5: "If unsuccessful the attacker will be thrown into confusion and forced to fight to
// the finish" ... "the attack continues as an ASSAULT, except that the attacker loses one extra
// army in each round of the battle". No-luck, 4 fresh tanks against 3:
//   overrun:    4 shots destroy 2 tanks (2 each); 1 defender left, it has not fired.
//   exchange 1: 4 shots destroy it; it answers with 1 − 1 (outnumbered: 4 − 1 ≥ 3) → 1 shot,
//               which damages an attacking tank (HP 5); confusion: the most damaged tank is lost.
// The attacker takes the area with 3 fresh tanks and stops. (A MOVE with the same forces fails:
// 3 answering shots destroy one tank and damage another, and one defender survives.)
TEST(PathOfWarOverrun, SurvivorsMakeItAnAssaultInConfusion) {
  GameState w = pow_world({{"ATT", "AAA", "clear", 0}, {"TGT", "BBB", "clear", 3}},
                          {{"ATT", "TGT", kNone}}, {{"variant", "no-luck"}});
  ScriptedRng rng({});
  auto out = kPowEngine.resolve(pow_battle(w, AttackKind::kOverrun, "ATT", "TGT", 4), rng);
  ASSERT_TRUE(out.ok());
  ASSERT_EQ(out->rounds.size(), 2u);
  EXPECT_EQ(out->rounds[0].defender_losses, 2);
  EXPECT_EQ(out->rounds[0].attacker_losses, 0);
  EXPECT_EQ(out->rounds[1].phase, "exchange 1");
  EXPECT_EQ(out->rounds[1].defender_strength, 1);
  EXPECT_EQ(out->rounds[1].detail["confusion_losses"], 1);
  EXPECT_EQ(out->attacker_losses, 1);
  EXPECT_EQ(out->attacker_units, Json::object());  // the damaged tank was the one lost
  EXPECT_EQ(out->defender_losses, 3);
  EXPECT_TRUE(out->attacker_wins);
  EXPECT_TRUE(out->attacker_stops);

  auto move = kPowEngine.resolve(pow_battle(w, AttackKind::kMove, "ATT", "TGT", 4), rng);
  ASSERT_TRUE(move.ok());
  EXPECT_EQ(move->defender_losses, 2);
  EXPECT_EQ(move->attacker_losses, 1);
  EXPECT_EQ(move->attacker_units, (Json{{"hp", {5}}}));
  EXPECT_FALSE(move->attacker_wins);
  EXPECT_EQ(rng.draw_count(), 0u);
}

// The confusion as options: no extra losses, one die fewer. No-luck, 3 fresh tanks against 3:
//   overrun:    3 shots: 2 destroy a tank, 1 damages another → defender 10, 5.
//   exchange 1: 3 − 1 (confusion) = 2 shots: one destroys the damaged tank, one damages the
//               fresh one (5); the defender's 2 shots destroy one attacker → attacker 10, 10.
//   exchange 2: 2 − 1 = 1 shot destroys the damaged defender; its 1 shot damages an attacker.
TEST(PathOfWarOverrun, ConfusionIsConfigurable) {
  GameState w = pow_world(
      {{"ATT", "AAA", "clear", 0}, {"TGT", "BBB", "clear", 3}}, {{"ATT", "TGT", kNone}},
      {{"variant", "no-luck"}, {"overrun_confusion_losses", 0}, {"overrun_confusion_dice", 1}});
  ScriptedRng rng({});
  auto out = kPowEngine.resolve(pow_battle(w, AttackKind::kOverrun, "ATT", "TGT", 3), rng);
  ASSERT_TRUE(out.ok());
  ASSERT_EQ(out->rounds.size(), 3u);
  EXPECT_EQ(out->rounds[1].attacker_strength, 2);
  EXPECT_EQ(out->rounds[1].detail["attacker_modifiers"], (Json{{"confusion", -1}}));
  EXPECT_EQ(out->rounds[2].attacker_strength, 1);
  EXPECT_EQ(out->attacker_losses, 1);
  EXPECT_EQ(out->attacker_units, (Json{{"hp", {5}}}));
  EXPECT_EQ(out->defender_losses, 3);
  EXPECT_TRUE(out->attacker_wins);
  EXPECT_TRUE(out->attacker_stops);
}

// The old option keeps old games adjudicating as before: one simultaneous first exchange with the
// defender's extra die, then an assault without confusion. Its extra die sums with the other
// modifiers before the floor: 1 tank in a village answers with 1 − 1 (from village) + 1 = 1 die
// (the old engine floored first: 1, then +1 = 2).
TEST(PathOfWarOverrun, OldDefenderBonusOptionStillLoads) {
  GameState w =
      pow_world({{"ATT", "AAA", "clear", 0}, {"TGT", "BBB", "clear", 1}}, {{"ATT", "TGT", kNone}},
                {{"variant", "no-luck"}, {"overrun_defender_bonus", 1}});
  ASSERT_TRUE(kPowEngine.check_game(w).ok());
  ScriptedRng rng({});
  auto quick = kPowEngine.resolve(pow_battle(w, AttackKind::kOverrun, "ATT", "TGT", 3), rng);
  ASSERT_TRUE(quick.ok());
  ASSERT_EQ(quick->rounds.size(), 1u);
  EXPECT_EQ(quick->rounds[0].defender_strength, 2);  // 1 tank + 1 overrun die
  EXPECT_EQ(quick->attacker_losses, 1);              // its 2 shots destroy a fresh tank
  EXPECT_TRUE(quick->attacker_wins);
  EXPECT_FALSE(quick->attacker_stops);

  w.find_area("TGT")->terrain = "village";
  auto village = kPowEngine.resolve(pow_battle(w, AttackKind::kOverrun, "ATT", "TGT", 3), rng);
  ASSERT_TRUE(village.ok());
  EXPECT_EQ(village->rounds.at(0).defender_strength, 1);

  w.engine.options["overrun_confusion_losses"] = 1;
  EXPECT_EQ(kPowEngine.check_game(w).message().rfind("/engine/options/overrun_defender_bonus: ", 0),
            0u);
}

// Seed 000: "attack always possible with at least one die": the floor applies once, after every
// modifier. 1 tank from a village against a castle on rails: 1 − 1 − 2 + 2 = 0 → 1 die (a floor
// taken before the rails bonus would give 3).
TEST(PathOfWarFloor, ModifiersSumBeforeTheFloor) {
  GameState w = pow_world({{"VIL", "AAA", "village", 0},
                           {"CAS", "BBB", "clear", 3, {{"castle", true}, {"rails", true}}}},
                          {{"VIL", "CAS", kNone}}, {{"variant", "no-luck"}});
  ScriptedRng rng({});
  auto out = kPowEngine.resolve(pow_battle(w, AttackKind::kMove, "VIL", "CAS", 1), rng);
  ASSERT_TRUE(out.ok());
  const BattleRound& r = out->rounds.at(0);
  EXPECT_EQ(r.attacker_strength, 1);
  EXPECT_EQ(
      r.detail["attacker_modifiers"],
      (Json{{"from village", -1}, {"against castle", -2}, {"target on rails", 2}, {"minimum", 1}}));
  // The castle's answer: 3 − 1 (against village) = 2 shots destroy the lone tank.
  EXPECT_EQ(r.defender_strength, 2);
  EXPECT_EQ(out->attacker_losses, 1);

  // OVERRUN confusion dice sum in too: 1 − 1 − 2 + 2 − 1 = −1 → 1 die.
  w.engine.options["overrun_confusion_dice"] = 1;
  w.engine.options["overrun_confusion_losses"] = 0;
  auto ov = kPowEngine.resolve(pow_battle(w, AttackKind::kOverrun, "VIL", "CAS", 1), rng);
  ASSERT_TRUE(ov.ok());
  ASSERT_GE(ov->rounds.size(), 2u);
  EXPECT_EQ(ov->rounds[1].attacker_strength, 1);
  EXPECT_EQ(ov->rounds[1].detail["attacker_modifiers"]["minimum"], 2);
}

// Seed 000, no luck: "attacking a damaged (=half strength) enemy tank surely destroys it" / "a
// single hit required to destroy a damaged tank". Any tank below full HP is damaged: HP 1 and HP 9
// each die to one shot; the third shot damages the fresh tank (HP 5). (Before, HP 9 took two.)
TEST(PathOfWarNoLuck, AnyDamagedTankDiesToOneShot) {
  GameState w =
      pow_world({{"ATT", "AAA", "clear", 0}, {"TGT", "BBB", "clear", 3, kNone, {{"hp", {9, 1}}}}},
                {{"ATT", "TGT", kNone}}, {{"variant", "no-luck"}});
  ScriptedRng rng({});
  auto out = kPowEngine.resolve(pow_battle(w, AttackKind::kMove, "ATT", "TGT", 3), rng);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->defender_losses, 2);
  EXPECT_EQ(out->defender_units, (Json{{"hp", {5}}}));

  // With 20 HP tanks (shots of 10), a tank at 15 still dies to one shot, a fresh one to two.
  w.engine.options["hit_points"] = 20;
  w.find_area("TGT")->engine_state = {{"hp", {15}}};
  auto big = kPowEngine.resolve(pow_battle(w, AttackKind::kMove, "ATT", "TGT", 3), rng);
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(big->defender_losses, 2);
  EXPECT_EQ(big->defender_units, Json::object());
  EXPECT_EQ(rng.draw_count(), 0u);
}

// A combined attack: two groups are two attacking units. "If friend on your side: both roll one
// more die (flanking)"; terrain and road count from each group's own area. Boardgame; the target
// is a forest on a road with 3 tanks.
//   HIL group (2 tanks, hills): 2 + 1 (from hills) − 1 (against forest) + 1 (flanking)
//                               + 1 (target on road) = 4 dice: 5, 6, 5, 1 = 3 hits.
//   RD group (1 tank, on a road): 1 − 1 (against forest) + 1 (flanking) = 1 die: 6 = 1 hit.
//   Hits are capped at the 3 tanks. The defender answers each group with its full strength:
//   at HIL: 3 + 1 (from forest) − 1 (against hills) = 3 dice: 6, 1, 1 = 1 hit;
//   at RD:  3 + 1 (from forest) = 4 dice (both on the road: no road bonus): 1, 2, 3, 4 = 0 hits.
// "Combat is actually simultaneous ... casualties are removed after combat": the destroyed
// defender still fires; HIL loses a tank.
TEST(PathOfWarGroups, EachGroupFiresWithItsOwnModifiers) {
  GameState w = pow_world({{"HIL", "AAA", "hills", 0},
                           {"RD", "AAA", "clear", 0, {{"road", true}}},
                           {"TGT", "BBB", "forest", 3, {{"road", true}}}},
                          {{"HIL", "TGT", kNone}, {"RD", "TGT", kNone}});
  BattleInput in = pow_battle(w, AttackKind::kMove, "HIL", "TGT", 3);
  in.groups = {{"AAA", "HIL", 2, Json::object(), 1, 1}, {"AAA", "RD", 1, Json::object(), 1, 2}};
  ScriptedRng rng({5, 6, 5, 1, /* RD */ 6, /* answer HIL */ 6, 1, 1, /* answer RD */ 1, 2, 3, 4});
  auto out = kPowEngine.resolve(in, rng);
  ASSERT_TRUE(out.ok());
  ASSERT_EQ(out->rounds.size(), 1u);
  const BattleRound& r = out->rounds[0];
  const Json& g = r.detail["groups"];
  EXPECT_EQ(
      g[0]["modifiers"],
      (Json{{"from hills", 1}, {"against forest", -1}, {"flanking", 1}, {"target on road", 1}}));
  EXPECT_EQ(g[1]["modifiers"], (Json{{"against forest", -1}, {"flanking", 1}}));
  EXPECT_EQ(g[0]["defender_dice"], 3);
  EXPECT_EQ(g[1]["defender_dice"], 4);
  EXPECT_EQ(r.attacker_strength, 5);
  EXPECT_EQ(r.defender_strength, 7);
  EXPECT_EQ(out->defender_losses, 3);
  EXPECT_EQ(out->attacker_losses, 1);
  EXPECT_EQ(out->group_losses, (std::vector<int>{1, 0}));
  ASSERT_EQ(out->group_units.size(), 2u);
  EXPECT_TRUE(out->attacker_wins);
  EXPECT_EQ(rng.remaining(), 0u);
}

// No-luck, MOVE, two groups of 2 against 2 fresh tanks; A1's tanks are 10 and 5 HP.
//   A1: 2 + 1 (flanking) = 3 shots; A2: 3 shots. Defender: 2 shots at each group.
//   At A1 (10, 5): one destroys the damaged tank, one damages the other → A1 keeps one at 5.
//   At A2 (10, 10): two destroy one tank → A2 keeps one fresh tank.
//   A1's 3 shots: two destroy a tank, one damages the other (5); A2's shots then find it damaged:
//   one shot destroys it. Everyone fired from the start of the exchange.
TEST(PathOfWarGroups, PerGroupLossesAndHitPoints) {
  GameState w =
      pow_world({{"A1", "AAA", "clear", 0}, {"A2", "AAA", "clear", 0}, {"TGT", "BBB", "clear", 2}},
                {{"A1", "TGT", kNone}, {"A2", "TGT", kNone}}, {{"variant", "no-luck"}});
  BattleInput in = pow_battle(w, AttackKind::kMove, "A1", "TGT", 4, {{"hp", {5}}});
  in.groups = {{"AAA", "A1", 2, {{"hp", {5}}}, 1, 1}, {"AAA", "A2", 2, Json::object(), 1, 2}};
  ScriptedRng rng({});
  auto out = kPowEngine.resolve(in, rng);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->rounds.at(0).attacker_strength, 6);
  EXPECT_EQ(out->rounds.at(0).defender_strength, 4);
  EXPECT_EQ(out->defender_losses, 2);
  EXPECT_TRUE(out->attacker_wins);
  EXPECT_EQ(out->group_losses, (std::vector<int>{1, 1}));
  EXPECT_EQ(out->group_units, (std::vector<Json>{{{"hp", {5}}}, Json::object()}));
  EXPECT_EQ(out->attacker_losses, 2);
  EXPECT_EQ(out->attacker_units, (Json{{"hp", {5}}}));
}

// "if enemy outnumbers you by 3 or more: roll one less die", per attacking unit (OQ-PW4): against
// 4 tanks, a group of 3 is not outnumbered and a group of 1 is. No-luck:
//   A1: 3 + 1 (flanking) = 4; A2: 1 + 1 (flanking) − 1 (outnumbered) = 1.
//   The defender answers A1 with 4 shots and A2 with 4 (4 − 1 = 3: A2 does not outnumber it).
TEST(PathOfWarGroups, OutnumberedComparesEachGroup) {
  GameState w =
      pow_world({{"A1", "AAA", "clear", 0}, {"A2", "AAA", "clear", 0}, {"TGT", "BBB", "clear", 4}},
                {{"A1", "TGT", kNone}, {"A2", "TGT", kNone}}, {{"variant", "no-luck"}});
  BattleInput in = pow_battle(w, AttackKind::kMove, "A1", "TGT", 4);
  in.groups = {{"AAA", "A1", 3, Json::object(), 1, 1}, {"AAA", "A2", 1, Json::object(), 1, 2}};
  ScriptedRng rng({});
  auto out = kPowEngine.resolve(in, rng);
  ASSERT_TRUE(out.ok());
  const Json& g = out->rounds.at(0).detail["groups"];
  EXPECT_EQ(g[0]["dice"], 4);
  EXPECT_EQ(g[1]["dice"], 1);
  EXPECT_EQ(g[1]["modifiers"], (Json{{"flanking", 1}, {"outnumbered", -1}}));
  EXPECT_EQ(g[0]["defender_dice"], 4);
  EXPECT_EQ(g[1]["defender_dice"], 4);
  // 5 shots: two tanks destroyed, one damaged. A1 loses 2 tanks, A2 its only one.
  EXPECT_EQ(out->defender_losses, 2);
  EXPECT_EQ(out->defender_units, (Json{{"hp", {5}}}));
  EXPECT_EQ(out->group_losses, (std::vector<int>{2, 1}));
  EXPECT_FALSE(out->attacker_wins);
}

// "cannot attack across sidemountain; no flanking help if friend behind sidemountain": a group
// across a sidemountain neither fights nor helps the other. No-luck: A1 fires 2 shots, no flanking.
TEST(PathOfWarGroups, GroupAcrossSidemountainNeitherFightsNorFlanks) {
  GameState w = pow_world(
      {{"A1", "AAA", "clear", 0}, {"MTN", "AAA", "clear", 0}, {"TGT", "BBB", "clear", 1}},
      {{"A1", "TGT", kNone}, {"MTN", "TGT", {{"sidemountain", true}}}}, {{"variant", "no-luck"}});
  BattleInput in = pow_battle(w, AttackKind::kMove, "A1", "TGT", 5);
  in.groups = {{"AAA", "A1", 2, Json::object(), 1, 1}, {"AAA", "MTN", 3, Json::object(), 1, 2}};
  ScriptedRng rng({});
  auto out = kPowEngine.resolve(in, rng);
  ASSERT_TRUE(out.ok());
  const Json& g = out->rounds.at(0).detail["groups"];
  EXPECT_EQ(g[0]["modifiers"], Json::object());
  EXPECT_EQ(g[0]["dice"], 2);
  EXPECT_FALSE(g[1].contains("dice"));
  EXPECT_FALSE(g[1].contains("defender_dice"));
  EXPECT_EQ(out->group_losses, (std::vector<int>{0, 0}));  // A1: the answer only damages a tank
  EXPECT_TRUE(out->attacker_wins);
}

// An ambush is set against one area: its volley goes to the group from there only. No-luck; each
// group has 2 tanks, the target 1 (ambush against A2).
//   ambush: 1 shot damages an A2 tank.
//   exchange: A1 3 shots destroy the defender; it still answers each group with 1 shot: an A1
//   tank is damaged, A2's damaged tank is destroyed.
TEST(PathOfWarGroups, AmbushFiresAtTheGroupFromTheAmbushedArea) {
  GameState w =
      pow_world({{"A1", "AAA", "clear", 0}, {"A2", "AAA", "clear", 0}, {"TGT", "BBB", "clear", 1}},
                {{"A1", "TGT", kNone}, {"A2", "TGT", kNone}}, {{"variant", "no-luck"}});
  Area& t = *w.find_area("TGT");
  t.mode = DefenceMode::kAmbush;
  t.ambush_against = "A2";
  BattleInput in = pow_battle(w, AttackKind::kMove, "A1", "TGT", 4);
  in.groups = {{"AAA", "A1", 2, Json::object(), 1, 1}, {"AAA", "A2", 2, Json::object(), 1, 2}};
  ScriptedRng rng({});
  auto out = kPowEngine.resolve(in, rng);
  ASSERT_TRUE(out.ok());
  ASSERT_EQ(out->rounds.size(), 2u);
  EXPECT_EQ(out->rounds[0].phase, "ambush");
  EXPECT_EQ(out->rounds[0].defender_strength, 1);
  EXPECT_FALSE(out->rounds[0].detail["groups"][0].contains("defender_dice"));
  EXPECT_EQ(out->rounds[0].detail["groups"][1]["hp"], (Json{10, 5}));
  EXPECT_TRUE(out->attacker_wins);
  EXPECT_EQ(out->group_losses, (std::vector<int>{0, 1}));
  EXPECT_EQ(out->group_units, (std::vector<Json>{{{"hp", {5}}}, Json::object()}));
}

// The report shows the confusion: the overrun's first volley (the defender's strength 0: it did
// not fire) and, in the assault, how many of the attacker's losses were the confusion's.
// Same battle as SurvivorsMakeItAnAssaultInConfusion, through a turn.
TEST(PathOfWarOverrun, ReportShowsTheConfusion) {
  const Json scenario = {
      {"id", "pow"},
      {"name", "pow"},
      {"seed", "1"},
      {"engine", {{"name", "path-of-war"}, {"options", {{"variant", "no-luck"}}}}},
      {"players",
       {{{"code", "WSX"}, {"name", "WSX"}, {"secret", "pw"}, {"bp", 20}},
        {{"code", "MRC"}, {"name", "MRC"}, {"secret", "pw"}, {"bp", 20}}}},
      {"areas",
       {{{"code", "HRS"},
         {"name", "HRS"},
         {"kind", "land"},
         {"terrain", "clear"},
         {"owner", "WSX"},
         {"armies", 4}},
        {{"code", "BDS"},
         {"name", "BDS"},
         {"kind", "land"},
         {"terrain", "clear"},
         {"owner", "MRC"},
         {"armies", 3}}}},
      {"adjacency", Json::array({Json::array({"HRS", "BDS"})})}};
  Result<GameState> state = state_from_scenario(scenario, 1);
  ASSERT_TRUE(state.ok()) << state.status().to_string();
  OrderAck ack =
      check_order_file("GAME pow\nPLAYER WSX pw\nOVERRUN HRS BDS\n", *state, &kPowEngine);
  ASSERT_EQ(ack.rejected_count(), 0);
  auto res = resolve_turn(*state, OrderBook{{"WSX", ack.orders}}, kPowEngine);
  ASSERT_TRUE(res.ok()) << res.status().to_string();
  const std::string text = render_report_text(build_report(*state, *res, "WSX"));
  EXPECT_NE(text.find("overrun   attackers 4 (strength 4) v defenders 3 (strength 0): attacker "
                      "lost 0, defender lost 2"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("attacker lost 1, defender lost 1 (overrun in confusion: 1 of the "
                      "attacker's losses)"),
            std::string::npos)
      << text;
}

// Option return_fire false (docs/rules/path-of-war.md OQ-PW1: no automatic return fire). No-luck,
// MOVE, 2 tanks against 3: 2 shots destroy one; the defender does not answer. An ambush still
// fires.
TEST(PathOfWarEngine, ReturnFireIsAnOption) {
  GameState w =
      pow_world({{"ATT", "AAA", "clear", 0}, {"TGT", "BBB", "clear", 3}}, {{"ATT", "TGT", kNone}},
                {{"variant", "no-luck"}, {"return_fire", false}});
  ScriptedRng rng({});
  BattleInput in = pow_battle(w, AttackKind::kMove, "ATT", "TGT", 2);
  auto out = kPowEngine.resolve(in, rng);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->rounds.at(0).defender_strength, 0);
  EXPECT_EQ(out->attacker_losses, 0);
  EXPECT_EQ(out->defender_losses, 1);
  in.ambush = true;  // the volley: 3 shots destroy one tank and damage the other
  auto ambushed = kPowEngine.resolve(in, rng);
  ASSERT_TRUE(ambushed.ok());
  EXPECT_EQ(ambushed->rounds.at(0).phase, "ambush");
  EXPECT_EQ(ambushed->attacker_losses, 1);
  EXPECT_EQ(ambushed->attacker_units, (Json{{"hp", {5}}}));
  w.engine.options["return_fire"] = 1;
  EXPECT_EQ(kPowEngine.check_game(w).message(),
            "/engine/options/return_fire: must be true or false");
}

TEST(PathOfWarEngine, DetachSendsHealthiestAndMergePools) {
  Json area = {{"hp", {3, 7}}};  // 4 armies: 10, 10, 7, 3
  Json moving = kPowEngine.detach_units(area, 4, 3);
  EXPECT_EQ(moving, (Json{{"hp", {7}}}));
  EXPECT_EQ(area, (Json{{"hp", {3}}}));
  Json fresh = Json::object();
  EXPECT_EQ(kPowEngine.detach_units(fresh, 3, 2), Json::object());
  kPowEngine.merge_units(area, 1, moving, 3);
  EXPECT_EQ(area, (Json{{"hp", {7, 3}}}));
  kPowEngine.merge_units(area, 4, Json(), 2);  // levies are fresh
  EXPECT_EQ(area, (Json{{"hp", {7, 3}}}));
  EXPECT_EQ(pow_hp_list(area, 4, 10), (std::vector<int>{10, 10, 7, 3}));
  EXPECT_EQ(pow_units_json({10, 10, 4}, 10), (Json{{"hp", {4}}}));
}

TEST(PathOfWarEngine, CheckGameNamesThePath) {
  GameState w =
      pow_world({{"A", "AAA", "clear", 1}, {"B", "BBB", "clear", 1}}, {{"A", "B", kNone}});
  EXPECT_TRUE(kPowEngine.check_game(w).ok());
  w.engine.options = {{"variant", "lucky"}};
  EXPECT_EQ(kPowEngine.check_game(w).message(),
            "/engine/options/variant: must be one of boardgame, videogamer, no-luck");
  w.engine.options = {{"hit_points", 0}};
  EXPECT_EQ(kPowEngine.check_game(w).message().rfind("/engine/options/hit_points: ", 0), 0u);
  w.engine.options = {{"terrain", {{"swamp", {{"against", -3}}}}}};
  EXPECT_TRUE(kPowEngine.check_game(w).ok());
  w.engine.options = {{"terrain", {{"swamp", {{"agianst", -3}}}}}};
  EXPECT_EQ(kPowEngine.check_game(w).message().rfind("/engine/options/terrain/swamp/agianst: ", 0),
            0u);
  w.engine.options = {{"colour", "green"}};
  EXPECT_EQ(kPowEngine.check_game(w).message().rfind("/engine/options/colour: ", 0), 0u);
  w.engine.options = Json::object();
  w.areas[0].engine_state = {{"hp", {4, 4}}};  // more HP entries than armies
  EXPECT_FALSE(kPowEngine.check_game(w).ok());
}

TEST(PathOfWarEngine, TerrainTableIsAnOption) {
  GameState w = pow_world(
      {{"ATT", "AAA", "swamp", 0}, {"TGT", "BBB", "forest", 2}}, {{"ATT", "TGT", kNone}},
      {{"variant", "no-luck"}, {"terrain", {{"swamp", {{"from", -2}}}, {"forest", nullptr}}}});
  ScriptedRng rng({});
  auto out = kPowEngine.resolve(pow_battle(w, AttackKind::kMove, "ATT", "TGT", 4), rng);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->rounds.at(0).attacker_strength, 2);  // 4 − 2 from swamp; forest removed
}

TEST(PathOfWarEngine, RetreatModeWithdrawsWhenOutnumbered) {
  GameState w =
      pow_world({{"ATT", "AAA", "clear", 0}, {"TGT", "BBB", "clear", 2}}, {{"ATT", "TGT", kNone}});
  EXPECT_TRUE(kPowEngine.retreat_triggers(pow_battle(w, AttackKind::kMove, "ATT", "TGT", 3)));
  EXPECT_FALSE(kPowEngine.retreat_triggers(pow_battle(w, AttackKind::kMove, "ATT", "TGT", 2)));
}

// Statistics over seeded streams: the boardgame hit rate is 1/3 (60,000 dice).
TEST(PathOfWarStatistics, BoardgameHitRateIsOneThird) {
  GameState w =
      pow_world({{"ATT", "AAA", "clear", 0}, {"TGT", "BBB", "clear", 10}}, {{"ATT", "TGT", kNone}});
  const BattleInput in = pow_battle(w, AttackKind::kMove, "ATT", "TGT", 10);
  long dice = 0, hits = 0;
  for (int i = 0; i < 3000; ++i) {
    Xoshiro256 rng(derive_seed(42, "pow-stats:" + std::to_string(i)));
    auto out = kPowEngine.resolve(in, rng);
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
  GameState w = pow_world({{"ATT", "AAA", "clear", 0}, {"TGT", "BBB", "clear", 10}},
                          {{"ATT", "TGT", kNone}}, {{"variant", "videogamer"}});
  const BattleInput in = pow_battle(w, AttackKind::kMove, "ATT", "TGT", 10);
  double sum = 0;
  long shots = 0;
  std::map<int, long> counts;
  for (int i = 0; i < 3000; ++i) {
    Xoshiro256 rng(derive_seed(7, "pow-video:" + std::to_string(i)));
    auto out = kPowEngine.resolve(in, rng);
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
