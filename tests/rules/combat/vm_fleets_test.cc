// Virtuti Militari's Fleets: they do not fight on land, die in a captured port, fight at sea
// (where air is skipped and losers retreat by sea), and give Shore Bombardment when supporting.
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

TEST(VmFleets, AFleetDoesNotDefendALandAreaAndDiesInTheCapturedPort) {
  // Seed 002 step 7: "If captured area has a port with enemy Fleets in it, they are destroyed."
  // TGT (a port) holds the Army and a Fleet. The Fleet adds no strength (else 11 v 11) and rolls
  // no die: attacker 3 + 4 + 1 + 2 + 1 = 11 v defender 3 + 1 + 2 + 3 = 9. Dice: attacker
  // 0,1,2,1; defender 1 (Army), 1 (card) - two dice, not three.
  Json doc = example_battle();
  doc["areas"][1]["armies"] = 2;
  doc["areas"][1]["features"] = {{"port", true}};
  doc["areas"][1]["engine_state"]["units"] = units_json({"army", "fleet"})["units"];
  Fought f = vm_fight(doc, {1, 2, 3, 2, 2, 2});
  EXPECT_EQ(f.left, 0u);
  const BattleRound& r = f.out.rounds[0];
  EXPECT_EQ(r.defender_strength, 18);
  EXPECT_EQ(r.defender_dice.size(), 2u);
  EXPECT_TRUE(f.out.attacker_wins);
  // The Army (HP 3 -> 1) retreats overland to FRN; the Fleet does not: it is destroyed.
  ASSERT_TRUE(f.out.defender_retreats_to);
  EXPECT_EQ(*f.out.defender_retreats_to, "FRN");
  EXPECT_EQ(f.out.defender_losses, 1);
  EXPECT_EQ(f.out.detail["fleets_destroyed_in_port"], 1);
  ASSERT_EQ(f.out.defender_units["units"].size(), 1u);
  EXPECT_EQ(unit(f.out.defender_units, 0)["type"], "army");
}

TEST(VmFleets, AFleetTakesNoLossesAndStaysWhenTheDefenceHolds) {
  // Example 3 (river: 7.5 v 9, the defender wins) with a Fleet in TGT: attacker damage 4, 2
  // absorbed by the forts, 2 on the Army (HP 3 -> 1); the Fleet is untouched and stays.
  Json doc = example_battle();
  doc["adjacency"][0] = Json::array({"ATT", "TGT", {{"river", true}}});
  doc["areas"][1]["armies"] = 2;
  doc["areas"][1]["engine_state"]["units"] = units_json({"army", "fleet"})["units"];
  Fought f = vm_fight(doc, {1, 2, 3, 2, 2, 2});
  EXPECT_FALSE(f.out.attacker_wins);
  EXPECT_FALSE(f.out.defender_retreats_to);
  EXPECT_EQ(f.out.defender_losses, 0);
  EXPECT_EQ(unit(f.out.defender_units, 0)["hp"], 1);
  EXPECT_EQ(unit(f.out.defender_units, 1)["type"], "fleet");
  EXPECT_EQ(unit(f.out.defender_units, 1)["hp"], 3);
}

TEST(VmFleets, APortHeldOnlyByFleetsFallsWithoutABattle) {
  Json doc = example_battle();
  doc["areas"][1]["engine_state"]["units"] = units_json({"fleet"})["units"];
  Fought f = vm_fight(doc, {1, 2, 3});
  EXPECT_EQ(f.left, 3u);  // no dice
  EXPECT_EQ(f.out.rounds[0].phase, "unopposed");
  EXPECT_TRUE(f.out.attacker_wins);
  EXPECT_EQ(f.out.defender_losses, 1);
  EXPECT_FALSE(f.out.defender_units.contains("units"));
}

TEST(VmFleets, AttackingFleetsAddNothingOnLandAndTakeNoLosses) {
  // Army + Armored Corps + Fleet attack: still 11 (not 13), four dice (not five). The defender's
  // 2 damage go to the Armored Corps; the Fleet advances with the others.
  Json doc = example_battle();
  doc["attacker"]["armies"] = 3;
  doc["attacker"]["units"] = units_json({"army", "armored_corps", "fleet"});
  Fought f = vm_fight(doc, {1, 2, 3, 2, 2, 2});
  EXPECT_EQ(f.left, 0u);
  EXPECT_EQ(f.out.rounds[0].attacker_strength, 22);
  EXPECT_EQ(f.out.rounds[0].attacker_dice.size(), 4u);
  EXPECT_TRUE(f.out.attacker_wins);
  EXPECT_EQ(f.out.attacker_losses, 0);
  ASSERT_EQ(f.out.attacker_units["units"].size(), 3u);
  EXPECT_EQ(unit(f.out.attacker_units, 2)["hp"], 3);
}

// A naval battle in the sea area SEA: two Fleets (2 + 2) + Move 1 + card 2 = 7 against one Fleet
// 2 + card 3 = 5; "Air Support step is skipped in naval battles".
Json naval_battle() {
  Json doc = example_battle();
  doc["attacker"]["units"] = units_json({"fleet", "fleet"});
  doc["areas"][1] = {
      {"code", "TGT"},
      {"name", "TGT"},
      {"kind", "sea"},
      {"owner", "ALL"},
      {"armies", 1},
      {"engine_state", {{"units", units_json({"fleet"})["units"]}, {"defence", {{"card", "d3"}}}}}};
  return doc;
}

TEST(VmNaval, AirIsSkippedAndLosersRetreatOnlyBySea) {
  // Dice: attacker 0, 0 (Fleets), 0 (card) - no air die; defender 0, 0. 7 v 5.
  Json doc = naval_battle();
  doc["areas"][2]["features"] = {{"port", true}};  // FRN is a friendly port
  Fought f = vm_fight(doc, {1, 1, 1, 1, 1});
  EXPECT_EQ(f.left, 0u);
  EXPECT_EQ(f.out.rounds[0].attacker_strength, 14);
  EXPECT_EQ(f.out.rounds[0].defender_strength, 10);
  EXPECT_EQ(f.out.rounds[0].detail["air_skipped"], true);
  EXPECT_EQ(f.out.rounds[0].attacker_dice.size(), 3u);
  ASSERT_TRUE(f.out.defender_retreats_to);
  EXPECT_EQ(*f.out.defender_retreats_to, "FRN");
  // FRN without a port: no way by sea, so the Fleet is eliminated.
  f = vm_fight(naval_battle(), {1, 1, 1, 1, 1});
  EXPECT_FALSE(f.out.defender_retreats_to);
  EXPECT_EQ(f.out.defender_losses, 1);
}

TEST(VmAir, AnOptionKeepsSpendingTheTokens) {
  Json doc = example_battle();
  doc["engine"]["options"]["air_tokens_spent"] = true;
  Fought f = vm_fight(doc, {1, 2, 3, 2, 2, 2});
  EXPECT_EQ((*f.out.attacker_player_state)["air"], 0);
}

TEST(VmShoreBombardment, FleetsInASupportingAreaAddOnePointEach) {
  // Seed step 1: "Bonus values from Move, Defense, Support and Shore Bombardment Orders". A
  // SUPPORT order from SUP holding one attacking Fleet: the Fleet does not fight on land; it
  // bombards: +1 (shore_bombardment), no Support bonus (no land unit), no die. 11 + 1 = 12.
  Json doc = with_supporter(example_battle(), "AXI", "fleet", "AXI");
  Fought f = vm_fight(doc, {1, 2, 3, 2, 2, 2});
  EXPECT_EQ(f.left, 0u);
  EXPECT_EQ(f.out.rounds[0].attacker_strength, 24);
  EXPECT_EQ(f.out.rounds[0].detail["attacker_support"][0]["shore_bombardment"], 1.0);
  // Across an unfrozen river the bombardment is a bonus and is not halved (OQ-VM6); option 2.
  doc = with_supporter(example_battle(), "AXI", "fleet", "AXI", {{"river", true}});
  doc["engine"]["options"]["shore_bombardment"] = 2;
  f = vm_fight(doc, {1, 2, 3, 2, 2, 2});
  EXPECT_EQ(f.out.rounds[0].attacker_strength, 22 + 4);
  // A defending port with an Army and a Fleet: Army 3 + Support 1 + bombardment 1 = 5.
  doc = with_supporter(example_battle(), "ALL", "army", "ALL");
  doc["areas"].back()["armies"] = 2;
  doc["areas"].back()["engine_state"]["units"] = units_json({"army", "fleet"})["units"];
  f = vm_fight(doc, {1, 2, 3, 2, 2, 2});
  EXPECT_EQ(f.out.rounds[0].defender_strength, 18 + 10);
}

}  // namespace
}  // namespace adj
