// Virtuti Militari engine: the worked examples of docs/rules/virtuti-militari.md §3.4 (with the
// illustrative unit numbers built into the test data and the examples' dice fed through a scripted
// stream), unit bookkeeping, dice statistics, ties, overruns, combined attacks and replays.
// The game-level tests are in vm_game_test.cc, the Fleets' in vm_fleets_test.cc.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "rules/combat/engine_registry.h"
#include "rules/combat/local_world.h"
#include "rules/combat/virtuti_militari_engine.h"
#include "rules/combat/vm_numbers.h"
#include "rules/game/scenario.h"
#include "rules/orders/validator.h"
#include "rules/report/report.h"
#include "rules/turn/turn_resolver.h"
#include "tests/rules/combat/vm_test_data.h"
#include "tests/support/scripted_rng.h"

namespace adj {
namespace {

TEST(VmExample1, AttackerWinsElevenToNine) {
  // Attacker dice 0,1,2,1 (Army, Armored Corps, card, air); defender 1,1 (Army, card).
  Fought f = vm_fight(example_battle(), {1, 2, 3, 2, 2, 2});
  EXPECT_EQ(f.left, 0u);
  ASSERT_EQ(f.out.rounds.size(), 1u);
  const BattleRound& r = f.out.rounds[0];
  EXPECT_EQ(r.attacker_strength, 22);  // 11 points in half-points
  EXPECT_EQ(r.defender_strength, 18);  // 9
  EXPECT_EQ(r.attacker_dice, (std::vector<int>{0, 1, 2, 1}));
  EXPECT_EQ(r.defender_dice, (std::vector<int>{1, 1}));
  EXPECT_EQ(r.detail["fort_absorbed"], 2);
  EXPECT_TRUE(f.out.attacker_wins);
  EXPECT_EQ(f.out.attacker_losses, 0);
  EXPECT_EQ(f.out.defender_losses, 0);
  // The Army takes 2 (HP 3 -> 1), retreats to FRN and is exhausted.
  ASSERT_TRUE(f.out.defender_retreats_to);
  EXPECT_EQ(*f.out.defender_retreats_to, "FRN");
  EXPECT_EQ(unit(f.out.defender_units, 0)["hp"], 1);
  EXPECT_EQ(unit(f.out.defender_units, 0)["exhausted"], true);
  // The Armored Corps takes the attacker's 2 (HP 3 -> 1); the Army is untouched.
  EXPECT_EQ(unit(f.out.attacker_units, 0)["type"], "army");
  EXPECT_EQ(unit(f.out.attacker_units, 0)["hp"], 3);
  EXPECT_EQ(unit(f.out.attacker_units, 1)["type"], "armored_corps");
  EXPECT_EQ(unit(f.out.attacker_units, 1)["hp"], 1);
  EXPECT_FALSE(unit(f.out.attacker_units, 1).contains("exhausted"));
  // Forts removed; cards spent. "Used Air Support Tokens return to Faction's Air Support Token
  // pool": the attacker keeps its 1 token.
  ASSERT_TRUE(f.out.fort_after);
  EXPECT_EQ(*f.out.fort_after, 0);
  ASSERT_TRUE(f.out.attacker_player_state);
  EXPECT_TRUE((*f.out.attacker_player_state)["hand"].empty());
  EXPECT_EQ((*f.out.attacker_player_state)["air"], 1);
  ASSERT_TRUE(f.out.defender_player_state);
  EXPECT_TRUE((*f.out.defender_player_state)["hand"].empty());
}

Json tie_battle(std::vector<std::string> initiative) {
  Json doc = example_battle();
  doc["attacker"]["extras"] = {{"CARD", 1}};                     // no air
  doc["players"][0]["engine_state"]["hand"][0]["strength"] = 1;  // 3 + 4 + 1 + 1 = 9
  doc["engine"]["options"]["initiative"] = initiative;
  return doc;
}

TEST(VmExample2, TieGoesToTheAttackerHigherOnInitiative) {
  Fought f = vm_fight(tie_battle({"Axis", "Allies"}), {1, 1, 1, 1, 1});
  EXPECT_EQ(f.out.rounds[0].attacker_strength, 18);
  EXPECT_EQ(f.out.rounds[0].defender_strength, 18);
  EXPECT_TRUE(f.out.attacker_wins);
  EXPECT_EQ(f.out.rounds[0].detail["tie_by_initiative"], true);
}

TEST(VmExample2, TieGoesToTheDefenderHigherOnInitiative) {
  Fought f = vm_fight(tie_battle({"ALL", "AXI"}), {1, 1, 1, 1, 1});
  EXPECT_FALSE(f.out.attacker_wins);
  EXPECT_FALSE(f.out.defender_retreats_to);
  // The attacker's survivors go home exhausted.
  for (const auto& u : f.out.attacker_units["units"]) EXPECT_EQ(u["exhausted"], true);
}

TEST(VmExample3, UnfrozenRiverHalvesTheAttackingUnits) {
  Json doc = example_battle();
  doc["adjacency"][0] = Json::array({"ATT", "TGT", {{"river", true}}});
  Fought f = vm_fight(doc, {1, 2, 3, 2, 2, 2});
  EXPECT_EQ(f.out.rounds[0].attacker_strength, 15);  // 3.5 + 1 + 2 + 1 = 7.5
  EXPECT_EQ(f.out.rounds[0].detail["attacker_total_points"], 7.5);
  EXPECT_FALSE(f.out.attacker_wins);
  for (const auto& u : f.out.attacker_units["units"]) EXPECT_EQ(u["exhausted"], true);
  // A frozen river does not halve.
  doc["areas"][1]["features"] = {{"weather", "frozen"}};
  f = vm_fight(doc, {1, 2, 3, 2, 2, 2});
  EXPECT_EQ(f.out.rounds[0].attacker_strength, 22);
  EXPECT_TRUE(f.out.attacker_wins);
}

// example_battle() with a SUPPORT area next to TGT: owner, units, the player who gave the order.
Json with_supporter(Json doc, const std::string& owner, const std::string& type,
                    const std::string& by, Json edge_features = Json::object()) {
  doc["areas"].push_back(
      {{"code", "SUP"},
       {"name", "SUP"},
       {"owner", owner},
       {"armies", 1},
       {"engine_state",
        {{"units", {{{"type", type}}}}, {"support", {{"to", "TGT"}, {"by", by}}}}}});
  doc["adjacency"].push_back(Json::array({"SUP", "TGT", edge_features}));
  return doc;
}

TEST(VmSupport, AdjacentSupportAddsStrengthButNoDice) {
  // The defender's Army next door (defence 3, +1 for the order) turns 11 v 9 into 11 v 13; the
  // same dice are drawn (supporters roll none: OQ-VM2).
  Fought f = vm_fight(with_supporter(example_battle(), "ALL", "army", "ALL"), {1, 2, 3, 2, 2, 2});
  EXPECT_EQ(f.left, 0u);
  const BattleRound& r = f.out.rounds[0];
  EXPECT_EQ(r.attacker_strength, 22);
  EXPECT_EQ(r.defender_strength, 26);
  EXPECT_EQ(r.attacker_dice.size(), 4u);
  EXPECT_EQ(r.defender_dice.size(), 2u);
  EXPECT_FALSE(f.out.attacker_wins);
  ASSERT_EQ(r.detail["defender_support"].size(), 1u);
  EXPECT_EQ(r.detail["defender_support"][0]["area"], "SUP");
  EXPECT_EQ(r.detail["defender_support"][0]["points"], 4.0);
  EXPECT_TRUE(r.detail["attacker_support"].empty());
}

TEST(VmSupport, SidesRiversAndStaleOrders) {
  // On the attacker's side: an Armored Corps adds attack 4 + 1.
  Fought f =
      vm_fight(with_supporter(example_battle(), "AXI", "armored_corps", "AXI"), {1, 2, 3, 2, 2, 2});
  EXPECT_EQ(f.out.rounds[0].attacker_strength, 22 + 10);
  EXPECT_TRUE(f.out.attacker_wins);
  // Across an unfrozen river the units count half (the order's +1 does not): 1.5 + 1.
  f = vm_fight(with_supporter(example_battle(), "ALL", "army", "ALL", {{"river", true}}),
               {1, 2, 3, 2, 2, 2});
  EXPECT_EQ(f.out.rounds[0].defender_strength, 18 + 5);
  EXPECT_EQ(f.out.rounds[0].detail["defender_support"][0]["points"], 2.5);
  // An order given by someone who no longer holds the area counts for nobody.
  f = vm_fight(with_supporter(example_battle(), "ALL", "army", "AXI"), {1, 2, 3, 2, 2, 2});
  EXPECT_EQ(f.out.rounds[0].attacker_strength, 22);
  EXPECT_EQ(f.out.rounds[0].defender_strength, 18);
  // A third party's support is for neither side.
  Json third = with_supporter(example_battle(), "NEU", "army", "NEU");
  third["players"].push_back({{"code", "NEU"}, {"name", "Neutral"}, {"nation", "Neutral"}});
  f = vm_fight(third, {1, 2, 3, 2, 2, 2});
  EXPECT_EQ(f.out.rounds[0].defender_strength, 18);
  // Exhausted units add nothing; the order's bonus still counts.
  Json tired = with_supporter(example_battle(), "ALL", "army", "ALL");
  tired["areas"].back()["engine_state"]["units"][0]["exhausted"] = true;
  f = vm_fight(tired, {1, 2, 3, 2, 2, 2});
  EXPECT_EQ(f.out.rounds[0].defender_strength, 18 + 2);
}

TEST(VmExample4, MudSkipsAirSupport) {
  Json doc = example_battle();
  doc["areas"][1]["features"] = {{"weather", "mud"}};
  // No air die: attacker 3 dice, defender 2.
  Fought f = vm_fight(doc, {1, 2, 3, 2, 2});
  EXPECT_EQ(f.left, 0u);
  EXPECT_EQ(f.out.rounds[0].attacker_strength, 20);  // 10 v 9
  EXPECT_TRUE(f.out.attacker_wins);
  EXPECT_EQ((*f.out.attacker_player_state)["air"], 1);  // the token was not spent
}

TEST(VmExample5, DefenderWithNoFriendlyNeighbourIsEliminated) {
  Json doc = example_battle();
  doc["areas"][2]["owner"] = "AXI";
  Fought f = vm_fight(doc, {1, 2, 3, 2, 2, 2});
  EXPECT_TRUE(f.out.attacker_wins);
  EXPECT_FALSE(f.out.defender_retreats_to);
  EXPECT_EQ(f.out.defender_losses, 1);
  EXPECT_FALSE(f.out.defender_units.contains("units"));
}

TEST(VmEngine, ProbeInflictsLossesButNobodyMoves) {
  Json doc = example_battle();
  doc["kind"] = "probe";
  Fought f = vm_fight(doc, {6, 6, 6, 6, 1, 1});  // attacker 5+5+5+5 = 20 damage
  EXPECT_FALSE(f.out.attacker_wins);
  EXPECT_TRUE(f.out.attacker_stops);
  EXPECT_FALSE(f.out.defender_retreats_to);
  EXPECT_EQ(f.out.defender_losses, 1);  // 2 absorbed by forts, 18 destroy the Army
  ASSERT_TRUE(f.out.fort_after);
  EXPECT_EQ(*f.out.fort_after, 0);  // the forts were used up absorbing
  for (const auto& u : f.out.attacker_units["units"]) EXPECT_FALSE(u.contains("exhausted"));
}

TEST(VmEngine, DamageAllocationKeepsUnitsAliveAndDropsLevels) {
  auto data = vm_parse_data(Json("vm-default"), "/data");
  ASSERT_TRUE(data.ok()) << data.status().to_string();
  std::vector<VmUnit> us = {data->fresh("army"), data->fresh("army")};
  us[0].level = 3;
  us[0].hp = 7;
  // 3 points: all on the level-3 Army (most HP) -> HP 4, which is within level 2 (HP 5).
  EXPECT_EQ(vm_apply_damage(us, 3, *data), 0);
  EXPECT_EQ(us[0].hp, 4);
  EXPECT_EQ(us[0].level, 2);
  EXPECT_EQ(us[1].hp, 3);
  // 5 more: both brought to 1 HP (3 + 2), nobody destroyed.
  EXPECT_EQ(vm_apply_damage(us, 5, *data), 0);
  EXPECT_EQ(us[0].hp, 1);
  EXPECT_EQ(us[0].level, 1);
  EXPECT_EQ(us[1].hp, 1);
  EXPECT_EQ(vm_apply_damage(us, 1, *data), 1);
  EXPECT_EQ(us.size(), 1u);
}

TEST(VmEngine, DetachMovesFreshUnitsFirstAndMergeAppends) {
  const CombatEngine& e = *find_engine("virtuti-militari");
  Json area = {{"units", {{{"type", "army"}, {"exhausted", true}}, {{"type", "corps"}}}},
               {"defence", {{"air", 1}}}};
  Json moving = e.detach_units(area, 3, 2);  // the third army is a fresh default unit
  ASSERT_EQ(area["units"].size(), 1u);
  EXPECT_EQ(area["units"][0]["exhausted"], true);
  EXPECT_EQ(area["defence"]["air"], 1);
  ASSERT_EQ(moving["units"].size(), 2u);
  EXPECT_EQ(moving["units"][0]["type"], "corps");
  Json dest = Json::object();
  e.merge_units(dest, 1, moving, 2);
  ASSERT_EQ(dest["units"].size(), 3u);
  EXPECT_TRUE(dest["units"][0].empty());
  e.merge_units(dest, 3, Json(), 2);  // levies: fresh default units
  EXPECT_EQ(dest["units"].size(), 5u);
}

// Every die of the default (placeholder) data rolls each face 1/6 of the time and shows the
// table's pips, over many seeded battles.
TEST(VmDiceStatistics, FacesAreUniformAndPipsFollowTheData) {
  auto data = vm_parse_data(Json("vm-default"), "/data");
  ASSERT_TRUE(data.ok());
  Json units = Json::array({{{"type", "army"}},
                            {{"type", "armored_corps"}, {"level", 3}},
                            {{"type", "artillery"}, {"level", 3}},
                            {{"type", "fleet"}, {"level", 3}}});
  Json doc = {{"engine", "virtuti-militari"}, {"kind", "probe"}};
  doc["attacker"] = {{"armies", 4}, {"units", {{"units", units}}}};
  doc["defender"] = {{"armies", 3}, {"kind", "sea"}};  // a naval battle: the Fleet rolls too
  auto b = prepare_battle(doc, "");
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  std::map<std::string, std::array<int, 6>> faces;
  std::map<std::string, double> pips;
  const int trials = 20000;
  for (int i = 0; i < trials; ++i) {
    Xoshiro256 rng(derive_seed(42, "vm:" + std::to_string(i)));
    auto out = (*b)->engine->resolve((*b)->input, rng);
    ASSERT_TRUE(out.ok());
    for (const char* side : {"attacker_rolls", "defender_rolls"})
      for (const auto& roll : out->rounds[0].detail[side]) {
        const std::string die = roll["die"];
        const int face = roll["face"];
        ASSERT_EQ(roll["pips"].get<int>(), data->dice.at(die)[face - 1]);
        faces[die][face - 1]++;
        pips[die] += roll["pips"].get<int>();
      }
  }
  // white (army, defenders), blue (armored corps L3), purple (artillery L3), black (fleet L3).
  for (const char* die : {"white", "blue", "purple", "black"}) {
    const auto& f = faces.at(die);
    int n = 0;
    for (int c : f) n += c;
    for (int c : f) EXPECT_NEAR(static_cast<double>(c) / n, 1.0 / 6, 0.01) << die;
    double expected = 0;
    for (int p : data->dice.at(die)) expected += p / 6.0;
    EXPECT_NEAR(pips[die] / n, expected, 0.03) << die;
  }
}

TEST(VmTie, WithNoInitiativeTrackTheOrderOfPlayDecides) {
  // Seed step 4: "In case of a tie, the winner is a Faction higher on the Initiative Track." No
  // track configured: the turn's order of play (earlier = higher). 9 v 9.
  Json doc = tie_battle({});
  doc["engine"]["options"].erase("initiative");
  doc["order_of_play"] = {"AXI", "ALL"};
  Fought f = vm_fight(doc, {1, 1, 1, 1, 1});
  EXPECT_TRUE(f.out.attacker_wins);
  EXPECT_EQ(f.out.rounds[0].detail["tie_break"], "order of play");
  doc["order_of_play"] = {"ALL", "AXI"};
  f = vm_fight(doc, {1, 1, 1, 1, 1});
  EXPECT_FALSE(f.out.attacker_wins);
  // Nobody ranked (no order of play yet): the defender holds.
  doc.erase("order_of_play");
  f = vm_fight(doc, {1, 1, 1, 1, 1});
  EXPECT_FALSE(f.out.attacker_wins);
  EXPECT_EQ(f.out.rounds[0].detail["tie_break"], "default (neither side is ranked)");
}

TEST(VmPoints, ReportsShowPointsNotHalfPoints) {
  // Example 3: 3.5 + 1 + 2 + 1 = 7.5 v 9; the log keeps half-points (15, 18) and the points.
  Json doc = example_battle();
  doc["adjacency"][0] = Json::array({"ATT", "TGT", {{"river", true}}});
  Fought f = vm_fight(doc, {1, 2, 3, 2, 2, 2});
  EXPECT_EQ(f.out.rounds[0].attacker_strength, 15);
  EXPECT_EQ(f.out.rounds[0].detail["attacker_strength_points"], "7.5");
  EXPECT_EQ(f.out.rounds[0].detail["defender_strength_points"], "9");
}

TEST(VmOverrun, AWinningOverrunTakesHalfTheDamage) {
  // Seed 001 5.5: "If successful the attacker will suffer a minimum of losses". Example 1 as an
  // OVERRUN (bonus 1, as MOVE): 11 v 9, the defender rolls 1 + 1 = 2, halved: 1 reaches the
  // Armored Corps (HP 3 -> 2).
  Json doc = example_battle();
  doc["kind"] = "overrun";
  Fought f = vm_fight(doc, {1, 2, 3, 2, 2, 2});
  EXPECT_TRUE(f.out.attacker_wins);
  EXPECT_EQ(f.out.rounds[0].detail["overrun_spared"], 1);
  EXPECT_EQ(unit(f.out.attacker_units, 1)["hp"], 2);
  EXPECT_EQ(*f.out.defender_retreats_to, "FRN");  // "the defender will be routed"
}

TEST(VmOverrun, AFailedOverrunFightsToTheFinish) {
  // "If unsuccessful the attacker will be thrown into confusion and forced to fight to the
  // finish": example 3 (7.5 v 9) as an OVERRUN: both attacking units are destroyed.
  Json doc = example_battle();
  doc["kind"] = "overrun";
  doc["adjacency"][0] = Json::array({"ATT", "TGT", {{"river", true}}});
  Fought f = vm_fight(doc, {1, 2, 3, 2, 2, 2});
  EXPECT_FALSE(f.out.attacker_wins);
  EXPECT_EQ(f.out.attacker_losses, 2);
  EXPECT_FALSE(f.out.attacker_units.contains("units") && !f.out.attacker_units["units"].empty());
  // Option overrun_failed "retreat": a failed OVERRUN goes home like a MOVE.
  doc["engine"]["options"]["overrun_failed"] = "retreat";
  f = vm_fight(doc, {1, 2, 3, 2, 2, 2});
  EXPECT_EQ(f.out.attacker_losses, 0);
  EXPECT_EQ(f.out.attacker_units["units"].size(), 2u);
}

// Example 1 as a combined attack: the Army from ATT, the Armored Corps from ATT2 across an
// unfrozen river (ATT2-TGT).
Json combined_battle() {
  Json doc = example_battle();
  doc["areas"].push_back({{"code", "ATT2"}, {"name", "ATT2"}, {"owner", "AXI"}, {"armies", 0}});
  doc["adjacency"].push_back(Json::array({"ATT2", "TGT", {{"river", true}}}));
  doc["groups"] = {
      {{"player", "AXI"}, {"from", "ATT"}, {"armies", 1}, {"units", units_json({"army"})}},
      {{"player", "AXI"},
       {"from", "ATT2"},
       {"armies", 1},
       {"units", units_json({"armored_corps"})}}};
  return doc;
}

TEST(VmCombined, RiverHalvingPerGroupAndLossesPerGroup) {
  // "Units attacking / supporting across rivers suffer 50% strength penalty": only the Armored
  // Corps crosses: 3 + 4/2 + 1 + 2 + 1 = 9 v 9, a tie won by the Axis (initiative track).
  // Defender dice 5 (face 6) + 0: Armored Corps 3 -> 1, Army 3 -> 1, the last point destroys the
  // weaker Army (group 0).
  Fought f = vm_fight(combined_battle(), {1, 2, 3, 2, 6, 1});
  EXPECT_EQ(f.left, 0u);
  const BattleRound& r = f.out.rounds[0];
  EXPECT_EQ(r.attacker_strength, 18);
  EXPECT_EQ(r.detail["groups"][0]["units_points"], 3.0);
  EXPECT_EQ(r.detail["groups"][1]["units_points"], 2.0);
  EXPECT_EQ(r.detail["groups"][1]["river_halved"], true);
  EXPECT_TRUE(f.out.attacker_wins);
  EXPECT_FALSE(f.out.advancing);  // "all attacking units which survived the combat advance"
  EXPECT_EQ(f.out.attacker_losses, 1);
  EXPECT_EQ(f.out.group_losses, (std::vector<int>{1, 0}));
  ASSERT_EQ(f.out.group_units.size(), 2u);
  EXPECT_TRUE(f.out.group_units[0]["units"].empty());
  EXPECT_EQ(f.out.group_units[1]["units"][0]["hp"], 1);
}

TEST(VmCombined, LosingGroupsGoHomeEachToItsOwnArea) {
  // "If attacker lost, they retreat to an area from which they attacked": the Allies are first
  // on the track, so the 9 v 9 tie is theirs; each group's survivors are its own, exhausted.
  Json doc = combined_battle();
  doc["engine"]["options"]["initiative"] = {"Allies", "Axis"};
  Fought f = vm_fight(doc, {1, 2, 3, 2, 2, 2});
  EXPECT_FALSE(f.out.attacker_wins);
  ASSERT_EQ(f.out.group_units.size(), 2u);
  EXPECT_EQ(f.out.group_units[0]["units"][0]["type"], "army");
  EXPECT_EQ(f.out.group_units[0]["units"][0]["exhausted"], true);
  EXPECT_EQ(f.out.group_units[1]["units"][0]["type"], "armored_corps");
  EXPECT_EQ(f.out.group_units[1]["units"][0]["exhausted"], true);
  EXPECT_EQ(f.out.group_losses, (std::vector<int>{0, 0}));
}

TEST(VmReplay, BattleLogsKeepTheOrderOfPlayAndReplay) {
  // No initiative option: ties read the order of play, so the battle log's world carries it (of
  // the battle's players) and a replay of every logged battle gives the same outcome.
  GameState st = vm_bundled_state();
  st.engine.options.erase("initiative");
  st.order_of_play = {"POL", "GER", "SOV"};
  OrderBook book;
  auto g = vm_ack(st, "GER", "blitz", "1. ASSAULT SIL KRK 3 CARD 1 AIR 2\n2. MOVE POM POZ 3\n");
  auto p = vm_ack(st, "POL", "husaria", "1. DEFEND WAR CARD 1 AIR 1\n2. DEFEND KRK\n");
  book["GER"] = g.orders;
  book["POL"] = p.orders;
  auto res = resolve_turn(st, book, *find_engine("virtuti-militari"));
  ASSERT_TRUE(res.ok()) << res.status().to_string();
  ASSERT_FALSE(res->battles.empty());
  for (const auto& b : res->battles) {
    // The battle's players only (the log does not grow with the game), in the order of play.
    const Json input = Json::parse(b.input);
    std::vector<std::string> kept = input["order_of_play"];
    EXPECT_TRUE(std::is_sorted(kept.begin(), kept.end(), [](const auto& x, const auto& y) {
      const std::vector<std::string> order = {"POL", "GER", "SOV"};
      return std::find(order.begin(), order.end(), x) < std::find(order.begin(), order.end(), y);
    }));
    EXPECT_EQ(std::set<std::string>(kept.begin(), kept.end()).size(), kept.size());
    EXPECT_NE(std::find(kept.begin(), kept.end(), "GER"), kept.end());
    EXPECT_NE(std::find(kept.begin(), kept.end(), "POL"), kept.end());
    auto prepared = prepare_battle(input, "");
    ASSERT_TRUE(prepared.ok()) << prepared.status().to_string();
    Xoshiro256 rng(b.seed);
    auto out = (*prepared)->engine->resolve((*prepared)->input, rng);
    ASSERT_TRUE(out.ok());
    EXPECT_EQ(to_json(*out), to_json(b.outcome));
  }
}

TEST(VmPoints, TheReportPrintsPoints) {
  // WAR -> EPR crosses the Narew: Army L2 4 + Army 3 + Artillery 2 = 9, halved 4.5, + Move 1 =
  // 5.5 points (11 half-points in the log).
  GameState st = vm_bundled_state();
  OrderBook book;
  auto p = vm_ack(st, "POL", "husaria", "1. MOVE WAR EPR 3\n");
  ASSERT_EQ(p.rejected_count(), 0) << p.lines[0].reason;
  book["POL"] = p.orders;
  auto res = resolve_turn(st, book, *find_engine("virtuti-militari"));
  ASSERT_TRUE(res.ok()) << res.status().to_string();
  ASSERT_EQ(res->battles.size(), 1u);
  EXPECT_EQ(res->battles[0].outcome.rounds[0].attacker_strength, 11);
  const std::string text = render_report_text(build_report(st, *res, "POL"));
  EXPECT_NE(text.find("(strength 5.5) v defenders"), std::string::npos) << text;
}

}  // namespace
}  // namespace adj

namespace adj {
namespace {

// A RETREAT-mode withdrawal takes the land units only and leaves the area's other state (its
// standing CARD/AIR choice) in place.
TEST(VmWithdraw, FleetsStayInPortAndStandingChoicesStay) {
  Area a;
  a.code = "GDA";
  a.armies = 2;
  a.engine_state = {{"units", {{{"type", "army"}}, {{"type", "fleet"}}}},
                    {"defence", {{"card", "last-stand"}}}};
  int n = -1;
  const Json moving = VirtutiMilitariEngine().withdraw_units(a, Json::object(), n);
  EXPECT_EQ(n, 1);
  ASSERT_TRUE(moving.contains("units"));
  EXPECT_EQ(moving["units"][0]["type"], "army");
  EXPECT_EQ(a.engine_state["units"][0]["type"], "fleet");
  EXPECT_EQ(a.engine_state["defence"]["card"], "last-stand");
}

}  // namespace
}  // namespace adj
