// Exalted mass combat engine: the worked examples of docs/rules/exalted-mass-combat.md §5.4 with
// their dice fed through a scripted stream, dice statistics, health-level bookkeeping, option and
// profile validation, the bundled scenario and a full turn.
#include <gtest/gtest.h>

#include "rules/combat/engine_registry.h"
#include "rules/combat/exalted_engine.h"
#include "rules/combat/local_world.h"
#include "rules/game/scenario.h"
#include "rules/orders/validator.h"
#include "rules/report/report.h"
#include "rules/turn/turn_resolver.h"
#include "tests/support/scripted_rng.h"

namespace adj {
namespace {

using testing::ScriptedRng;

// §5.4: commander Wits 3, War 4, Charisma 3; unit Magnitude 4, Accuracy 3, Damage 2, Might 1.
ExAttacker example_attacker() {
  ExAttacker a;
  a.magnitude = 4;
  a.pool = 3 + 4 + 3;
  a.damage = 3 + 2;
  a.might = 1;
  a.ping = 4;
  return a;
}
// Defender: Intelligence 3, War 3; Defense 2, Magnitude 3, Hardness 2, lethal soak 4.
ExTarget example_target() {
  ExTarget t;
  t.magnitude = 3;
  t.dv = exalted_war_dv(3, 3, 2, true);
  t.hardness = 2;
  t.soak = 4;
  return t;
}

TEST(ExaltedExample1, HitPingsToMagnitudeForFourLevels) {
  EXPECT_EQ(example_target().dv, 4);
  ScriptedRng rng({10, 9, 7, 7, 6, 5, 4, 3, 2, 1, /* damage */ 10, 8, 3, 7});
  ExCycle c = exalted_war_event(example_attacker(), example_target(), {}, rng);
  EXPECT_EQ(rng.remaining(), 0u);
  EXPECT_EQ(c.successes, 5);
  EXPECT_EQ(c.magnitude_diff, 1);
  EXPECT_EQ(c.remaining, 2);
  EXPECT_TRUE(c.hit);
  EXPECT_EQ(c.raw, 7);
  EXPECT_TRUE(c.pinged);
  EXPECT_EQ(c.pool, 4);
  EXPECT_EQ(c.damage_dice, (std::vector<int>{10, 8, 3, 7}));
  EXPECT_EQ(c.levels, 4);  // 3 successes (the 10 counts once) + Might 1
}

TEST(ExaltedExample2, ThreeSuccessesMiss) {
  ScriptedRng rng({9, 8, 7, 6, 5, 4, 3, 2, 1, 1});
  ExCycle c = exalted_war_event(example_attacker(), example_target(), {}, rng);
  EXPECT_EQ(rng.remaining(), 0u);  // no damage roll
  EXPECT_EQ(c.successes, 3);
  EXPECT_EQ(c.remaining, 0);
  EXPECT_FALSE(c.hit);
  EXPECT_EQ(c.levels, 0);
}

TEST(ExaltedExample3, HardnessEightStopsRawSeven) {
  ExTarget t = example_target();
  t.hardness = 8;
  ScriptedRng rng({10, 9, 7, 7, 6, 5, 4, 3, 2, 1});
  ExCycle c = exalted_war_event(example_attacker(), t, {}, rng);
  EXPECT_EQ(rng.remaining(), 0u);
  EXPECT_TRUE(c.hit);
  EXPECT_TRUE(c.hardness_stopped);
  EXPECT_EQ(c.levels, 0);  // Might is not added
}

TEST(ExaltedExample4, LowSoakRollsSixDice) {
  ExTarget t = example_target();
  t.soak = 1;
  ScriptedRng rng({10, 9, 7, 7, 6, 5, 4, 3, 2, 1, /* damage */ 9, 7, 7, 4, 2, 1});
  ExCycle c = exalted_war_event(example_attacker(), t, {}, rng);
  EXPECT_EQ(rng.remaining(), 0u);
  EXPECT_FALSE(c.pinged);
  EXPECT_EQ(c.pool, 6);
  EXPECT_EQ(c.levels, 4);
}

TEST(ExaltedExample5, SoloAttackerPingsToItsEssence) {
  ExAttacker a;
  a.solo = true;
  a.magnitude = 0;
  a.pool = 8;
  a.damage = 4;  // weapon damage
  a.ping = 3;    // max(Overwhelming 2, Essence 3)
  ScriptedRng rng({8, 8, 8, 8, 8, 8, 8, 8, /* damage */ 7, 2, 1});
  ExCycle c = exalted_war_event(a, example_target(), {}, rng);
  EXPECT_EQ(rng.remaining(), 0u);
  EXPECT_EQ(c.successes, 8);
  EXPECT_EQ(c.magnitude_diff, -3);
  EXPECT_EQ(c.remaining, 1);
  EXPECT_EQ(c.raw, 5);
  EXPECT_TRUE(c.pinged);
  EXPECT_EQ(c.pool, 3);
  EXPECT_EQ(c.levels, 1);
}

TEST(ExaltedEngine, MagnitudeAndDvRounding) {
  EXPECT_EQ(exalted_magnitude(1), 0);
  EXPECT_EQ(exalted_magnitude(10), 1);
  EXPECT_EQ(exalted_magnitude(75), 2);
  EXPECT_EQ(exalted_magnitude(100), 3);
  EXPECT_EQ(exalted_magnitude(200), 4);
  EXPECT_EQ(exalted_magnitude(5000), 8);
  EXPECT_EQ(exalted_magnitude(20000), 9);
  EXPECT_EQ(exalted_war_dv(3, 3, 3, true), 5);
  EXPECT_EQ(exalted_war_dv(3, 3, 3, false), 4);
}

TEST(ExaltedEngine, MagnitudeCapAndNegativeClamp) {
  ExAttacker a = example_attacker();
  a.magnitude = 9;
  ExCycleOptions o;
  o.magnitude_cap = 3;
  ScriptedRng rng({1, 1, 1, 1, 1, 1, 1, 1, 1, 1});
  ExCycle c = exalted_war_event(a, example_target(), o, rng);
  EXPECT_EQ(c.magnitude_diff, 3);
  EXPECT_TRUE(c.botch);  // logged only
  EXPECT_FALSE(c.hit);   // 0 + 3 - DV 4
}

TEST(ExaltedEngine, HealthLevelsBecomeArmiesLost) {
  int armies = 3;
  std::vector<int> wounds = {1};
  // Track 3: 4 levels fill the wounded army (2) and wound a fresh one (2).
  EXPECT_EQ(exalted_apply_levels(armies, wounds, 4, 3), 1);
  EXPECT_EQ(armies, 2);
  EXPECT_EQ(wounds, (std::vector<int>{2}));
  EXPECT_EQ(exalted_apply_levels(armies, wounds, 10, 3), 2);
  EXPECT_EQ(armies, 0);
  EXPECT_TRUE(wounds.empty());
}

TEST(ExaltedEngine, WoundedArmiesMoveLast) {
  const CombatEngine& e = *find_engine("exalted-mass-combat");
  Json area = {{"wounds", {2, 1}}};
  Json moving = e.detach_units(area, 4, 3);  // 2 fresh + the least wounded
  EXPECT_EQ(moving["wounds"], Json({1}));
  EXPECT_EQ(area["wounds"], Json({2}));
  e.merge_units(area, 1, moving, 3);
  EXPECT_EQ(area["wounds"], Json({2, 1}));
}

// Example 1 through the engine on a map: 2 armies of 100 (Magnitude 4) against 1 (Magnitude 3)
// with the §5.4 profiles; the defender's single army (track 3) falls to 4 levels.
TEST(ExaltedEngine, ExampleOneOnTheMap) {
  Json att = {{"commander", {{"wits", 3}, {"war", 4}, {"charisma", 3}, {"intelligence", 3}}},
              {"unit", {{"accuracy", 3}, {"damage", 2}, {"might", 1}, {"defense", 2}}}};
  Json def = {{"commander", {{"wits", 3}, {"war", 3}, {"charisma", 2}, {"intelligence", 3}}},
              {"unit", {{"defense", 2}, {"hardness", 2}, {"soak", {{"lethal", 4}}}}}};
  Json doc = {{"engine", "exalted-mass-combat"},
              {"kind", "move"},
              {"to", "TGT"},
              {"attacker", {{"player", "A"}, {"from", "ATT"}, {"armies", 2}}},
              {"players",
               {{{"code", "A"}, {"engine_state", {{"profile", att}}}},
                {{"code", "D"}, {"engine_state", {{"profile", def}}}}}},
              {"areas",
               {{{"code", "ATT"}, {"owner", "A"}, {"armies", 0}},
                {{"code", "TGT"}, {"owner", "D"}, {"armies", 1}, {"terrain", "lowlands"}}}},
              {"adjacency", Json::array({Json::array({"ATT", "TGT"})})}};
  auto b = prepare_battle(doc, "");
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  ScriptedRng rng({10, 9, 7, 7, 6, 5, 4, 3, 2, 1, 10, 8, 3, 7});
  auto out = (*b)->engine->resolve((*b)->input, rng);
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_EQ(rng.remaining(), 0u);
  EXPECT_TRUE(out->attacker_wins);
  EXPECT_EQ(out->defender_losses, 1);
  EXPECT_EQ(out->attacker_losses, 0);
  ASSERT_EQ(out->rounds.size(), 1u);  // no counterattack elected
  EXPECT_EQ(out->rounds[0].detail["war_dv"], 4);
  EXPECT_EQ(out->rounds[0].detail["health_levels"], 4);
  EXPECT_EQ(out->rounds[0].attacker_dice,
            (std::vector<int>{10, 9, 7, 7, 6, 5, 4, 3, 2, 1, 10, 8, 3, 7}));
}

// A battle on a map with the §5.4 profiles. Attacker A: Wits 3, War 4, Charisma 3, Intelligence
// 3; Accuracy 3, Damage 2, Might 1, Defense 2; built-in Hardness 0, lethal soak 1, track 3.
// Pool 3 + 4 + 3 = 10, damage 3 + 2 = 5, War DV ⌈(3 + 4 + 2)/2⌉ = 5.
// Defender D: Wits 3, War 3, Charisma 2, Intelligence 3; Accuracy 2, Damage 1, Defense 2,
// Hardness 2, lethal soak 4, Might 0, track 3. Pool 3 + 3 + 2 = 8, damage 2 + 1 = 3, War DV
// ⌈(3 + 3 + 2)/2⌉ = 4 (lowlands, no mode). 100 soldiers an army: 1 army Magnitude 3, 2 or 3
// armies Magnitude 4.
Json two_sided_battle(const std::string& kind, int att, int def, const Json& target_state,
                      const Json& options = Json::object()) {
  Json pa = {{"commander", {{"wits", 3}, {"war", 4}, {"charisma", 3}, {"intelligence", 3}}},
             {"unit", {{"accuracy", 3}, {"damage", 2}, {"might", 1}, {"defense", 2}}}};
  Json pd = {{"commander", {{"wits", 3}, {"war", 3}, {"charisma", 2}, {"intelligence", 3}}},
             {"unit",
              {{"accuracy", 2},
               {"damage", 1},
               {"defense", 2},
               {"hardness", 2},
               {"soak", {{"lethal", 4}}}}}};
  Json tgt = {{"code", "TGT"},
              {"owner", "D"},
              {"armies", def},
              {"terrain", "lowlands"},
              {"engine_state", target_state}};
  return {{"engine", {{"name", "exalted-mass-combat"}, {"options", options}}},
          {"kind", kind},
          {"to", "TGT"},
          {"attacker", {{"player", "A"}, {"from", "ATT"}, {"armies", att}}},
          {"players",
           {{{"code", "A"}, {"engine_state", {{"profile", pa}}}},
            {{"code", "D"}, {"engine_state", {{"profile", pd}}}}}},
          {"areas",
           {{{"code", "ATT"}, {"owner", "A"}, {"armies", 0}},
            {{"code", "AT2"}, {"owner", "A"}, {"armies", 0}},
            tgt}},
          {"adjacency", Json::array({Json::array({"ATT", "TGT"}),
                                     Json::array({"AT2", "TGT", {{"river", true}}})})}};
}

BattleOutcome exalted_run(const Json& doc, ScriptedRng& rng) {
  auto b = prepare_battle(doc, "");
  EXPECT_TRUE(b.ok()) << b.status().to_string();
  if (!b.ok()) return {};
  auto out = (*b)->engine->resolve((*b)->input, rng);
  EXPECT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_EQ(rng.remaining(), 0u);
  return out.ok() ? *out : BattleOutcome{};
}

const std::deque<int> kTenMisses(10, 1), kEightMisses(8, 1);
std::deque<int> concat(std::initializer_list<std::deque<int>> parts) {
  std::deque<int> all;
  for (const auto& p : parts) all.insert(all.end(), p.begin(), p.end());
  return all;
}

// Seed 004 Step 9: "If the defender elects to use any Counterattack effects, those are resolved
// at this point". No election, no counterattack: A (2 armies, Magnitude 4) moves on D (2 armies,
// Magnitude 4). Attack 10,9,7,7,6,5,4,3,2,1 = 5 successes + 0 − DV 4 = 1; raw 1 + 5 = 6 >
// Hardness 2; 6 − soak 4 = 2 < Magnitude 4 ⇒ ping 4 dice 10,8,3,7 = 3 + Might 1 = 4 levels:
// one army of D (track 3) lost, the other wounded 1. D does not strike back.
TEST(ExaltedCounterattack, NoneUnlessTheDefenderElectsIt) {
  ScriptedRng rng({10, 9, 7, 7, 6, 5, 4, 3, 2, 1, /* damage */ 10, 8, 3, 7});
  BattleOutcome out = exalted_run(two_sided_battle("move", 2, 2, Json::object()), rng);
  ASSERT_EQ(out.rounds.size(), 1u);
  EXPECT_EQ(out.rounds[0].phase, "exchange 1: attack");
  EXPECT_EQ(out.rounds[0].detail["health_levels"], 4);
  EXPECT_EQ(out.defender_losses, 1);
  EXPECT_EQ(out.attacker_losses, 0);
  EXPECT_FALSE(out.attacker_wins);
  EXPECT_EQ(out.defender_units["wounds"], Json({1}));
  EXPECT_EQ(out.detail["counterattacks_elected"], 0);
  EXPECT_EQ(out.group_losses, (std::vector<int>{0}));
}

// The same attack into an area with COUNTER 1 ("counter": 1). Step 9 reapplies Steps 1-8 with D
// striking A, and Step 10 applies "the damage and effects from any counterattack" together with
// the attack's: D counterattacks at its strength before the attack's damage (2 armies, Magnitude
// 4, not 1 army, Magnitude 3). Counter roll 10,10,10,1,1,1,1,1 = 6 + (4 − 4) − A's DV 5 = 1
// (with Magnitude 3 it would be 6 − 1 − 5 = 0, a miss); raw 1 + 3 = 4 > Hardness 0; 4 − soak 1
// = 3 < D's Magnitude 4 ⇒ ping 4 dice 9,9,9,1 = 3 levels + Might 0: one of A's armies lost.
TEST(ExaltedCounterattack, ElectedCounterattackStrikesAtPreDamageStrength) {
  ScriptedRng rng({10,
                   9,
                   7,
                   7,
                   6,
                   5,
                   4,
                   3,
                   2,
                   1,
                   10,
                   8,
                   3,
                   7,
                   /* counterattack */ 10,
                   10,
                   10,
                   1,
                   1,
                   1,
                   1,
                   1,
                   /* damage */ 9,
                   9,
                   9,
                   1});
  BattleOutcome out = exalted_run(two_sided_battle("move", 2, 2, {{"counter", 1}}), rng);
  ASSERT_EQ(out.rounds.size(), 2u);
  EXPECT_EQ(out.rounds[1].phase, "exchange 1: counterattack");
  EXPECT_EQ(out.rounds[1].detail["striker_magnitude"], 4);
  EXPECT_EQ(out.rounds[1].detail["war_dv"], 5);
  EXPECT_EQ(out.rounds[1].detail["remaining"], 1);
  EXPECT_EQ(out.rounds[1].detail["damage_pool"], 4);
  EXPECT_EQ(out.rounds[1].detail["health_levels"], 3);
  EXPECT_EQ(out.rounds[1].defender_dice, (std::vector<int>{10, 10, 10, 1, 1, 1, 1, 1, 9, 9, 9, 1}));
  EXPECT_EQ(out.defender_losses, 1);
  EXPECT_EQ(out.attacker_losses, 1);
  EXPECT_EQ(out.detail["counterattacks"], 1);
}

// COUNTER n allows at most n counterattacks per battle. ASSAULT with exchanges.assault 2 and
// defender_turns "never", COUNTER 1. Each exchange A hits: 10,9,7,7,6,5,4,3,2,1 = 5 − DV 4 = 1;
// raw 6; 6 − 4 = 2 < 4 ⇒ ping 1,1,1,1 = 0 + Might 1 = 1 level (D's armies wounded 1, then 2).
// Exchange 1: the counterattack (8 × 1, a miss); exchange 2: none left.
TEST(ExaltedCounterattack, CounterNLimitsCounterattacksPerBattle) {
  const std::deque<int> hit = {10, 9, 7, 7, 6, 5, 4, 3, 2, 1, 1, 1, 1, 1};
  ScriptedRng rng(concat({hit, kEightMisses, hit}));
  BattleOutcome out =
      exalted_run(two_sided_battle("assault", 2, 2, {{"counter", 1}},
                                   {{"exchanges", {{"assault", 2}}}, {"defender_turns", "never"}}),
                  rng);
  ASSERT_EQ(out.rounds.size(), 3u);
  EXPECT_EQ(out.rounds[1].phase, "exchange 1: counterattack");
  EXPECT_EQ(out.rounds[2].phase, "exchange 2: attack");
  EXPECT_EQ(out.rounds[2].detail["health_levels"], 1);
  EXPECT_EQ(out.defender_units["wounds"], Json({2}));
  EXPECT_EQ(out.detail["counterattacks"], 1);
  EXPECT_TRUE(out.attacker_stops);
}

// Step 5: "If no successes remain, the attack misses and this cycle of War Events ends"; Step 8A:
// "If Hardness rating equals or exceeds the raw damage, the target is struck but receives no
// damage. This cycle of War Events ends." Such a cycle never reaches Step 9: no counterattack.
TEST(ExaltedCounterattack, NoneAfterAMissOrHardness) {
  ScriptedRng miss_rng(kTenMisses);
  BattleOutcome miss = exalted_run(two_sided_battle("move", 2, 2, {{"counter", 1}}), miss_rng);
  EXPECT_EQ(miss.rounds.size(), 1u);
  EXPECT_EQ(miss.detail["counterattacks"], 0);
  // Hardness 8: 5 − 4 = 1 remains, raw 1 + 5 = 6 ≤ 8.
  Json doc = two_sided_battle("move", 2, 2, {{"counter", 1}});
  doc["players"][1]["engine_state"]["profile"]["unit"]["hardness"] = 8;
  ScriptedRng hard_rng({10, 9, 7, 7, 6, 5, 4, 3, 2, 1});
  BattleOutcome hard = exalted_run(doc, hard_rng);
  ASSERT_EQ(hard.rounds.size(), 1u);
  EXPECT_EQ(hard.rounds[0].detail["hardness_stopped"], true);
}

// Option counterattack "always" (the reading before issue 12): a counterattack after every
// attack, hit or miss, but never against a PROBE.
TEST(ExaltedCounterattack, AlwaysOptionCounterattacksEveryCycleButProbes) {
  const Json opts = {
      {"counterattack", "always"}, {"exchanges", {{"assault", 2}}}, {"defender_turns", "never"}};
  ScriptedRng rng(concat({kTenMisses, kEightMisses, kTenMisses, kEightMisses}));
  BattleOutcome out = exalted_run(two_sided_battle("assault", 2, 2, Json::object(), opts), rng);
  EXPECT_EQ(out.rounds.size(), 4u);
  EXPECT_EQ(out.detail["counterattacks_elected"], "always");
  ScriptedRng probe_rng(kTenMisses);
  BattleOutcome probe =
      exalted_run(two_sided_battle("probe", 2, 2, Json::object(), opts), probe_rng);
  EXPECT_EQ(probe.rounds.size(), 1u);
}

// ASSAULT is a fight to the finish (seed 001 5.3: "the battle continues until one side or the
// other is wiped out. Each side takes losses"): each exchange the attacker's cycle, then the
// defender's own War Event (Step 1: it declares its own attack), which is not a counterattack.
TEST(ExaltedAssault, DefenderTakesItsOwnTurnEachExchange) {
  ScriptedRng rng(concat({kTenMisses, kEightMisses}));
  BattleOutcome out = exalted_run(
      two_sided_battle("assault", 2, 2, Json::object(), {{"exchanges", {{"assault", 1}}}}), rng);
  ASSERT_EQ(out.rounds.size(), 2u);
  EXPECT_EQ(out.rounds[1].phase, "exchange 1: defender attacks");
  EXPECT_EQ(out.rounds[1].detail["striker"], "defender");
  EXPECT_FALSE(out.rounds[1].detail.contains("counterattack"));
}

// Seed 001 5.5: "If successful the attacker will suffer a minimum of losses, and the defender
// will be routed." The overrun's first strike gets no counterattack even when one is elected.
// Example 1 against D's single army (Magnitude 3): 5 + 1 − 4 = 2; raw 7; 7 − 4 = 3 < 4 ⇒ ping
// 10,8,3,7 = 3 + Might 1 = 4 levels ≥ track 3: D destroyed, A loses nothing and moves on.
// A MOVE into the same area is counterattacked (Step 10: the destroyed unit's counterattack
// still lands): 10,10,10,10,1,1,1,1 = 8 + (3 − 4) − 5 = 2; raw 2 + 3 = 5; 5 − 1 = 4 ≥ 3 ⇒ 4 dice
// 7,7,7,7 = 4 levels: one of A's armies lost, another wounded 1.
TEST(ExaltedOverrun, SuccessfulSweepTakesNoCounterattack) {
  ScriptedRng rng({10, 9, 7, 7, 6, 5, 4, 3, 2, 1, 10, 8, 3, 7});
  BattleOutcome out = exalted_run(two_sided_battle("overrun", 2, 1, {{"counter", 1}}), rng);
  ASSERT_EQ(out.rounds.size(), 1u);
  EXPECT_TRUE(out.attacker_wins);
  EXPECT_EQ(out.attacker_losses, 0);
  EXPECT_FALSE(out.attacker_stops);

  ScriptedRng move_rng({10,
                        9,
                        7,
                        7,
                        6,
                        5,
                        4,
                        3,
                        2,
                        1,
                        10,
                        8,
                        3,
                        7,
                        /* counter */ 10,
                        10,
                        10,
                        10,
                        1,
                        1,
                        1,
                        1,
                        /* damage */ 7,
                        7,
                        7,
                        7});
  BattleOutcome move = exalted_run(two_sided_battle("move", 2, 1, {{"counter", 1}}), move_rng);
  ASSERT_EQ(move.rounds.size(), 2u);
  EXPECT_EQ(move.rounds[1].detail["remaining"], 2);
  EXPECT_EQ(move.rounds[1].detail["health_levels"], 4);
  EXPECT_TRUE(move.attacker_wins);
  EXPECT_EQ(move.attacker_losses, 1);
  EXPECT_EQ(move.attacker_units["wounds"], Json({1}));
}

// Seed 001 5.5: "If unsuccessful the attacker will be thrown into confusion and forced to fight
// to the finish." exchanges.overrun 2, COUNTER 1, overrun_confusion 1 (default).
//  Exchange 1: A's strike alone, all 1s: a miss; D survives.
//  Exchange 2 (confusion): A rolls 10,9,7,7,7,1,1,1,1,1 = 6 + 0 − penalty 1 − DV 4 = 1 (2
//  without confusion); raw 1 + 5 = 6; 6 − 4 = 2 < 4 ⇒ ping 1,1,1,1 = 0 + Might 1 = 1 level. D's
//  counterattack against A's DV 5 − 1 = 4: 10,9,7,7,1,1,1,1 = 5 − 4 = 1 (0 without confusion);
//  raw 1 + 3 = 4; 4 − 1 = 3 < 4 ⇒ ping 9,9,9,1 = 3 levels: one A army lost. D's own turn against
//  A's single army (Magnitude 3): 8 × 1 = 0 + (4 − 3) − 4 < 1: a miss.
TEST(ExaltedOverrun, FailedSweepFightsOnInConfusion) {
  ScriptedRng rng(concat({kTenMisses,
                          {10, 9, 7, 7, 7, 1, 1, 1, 1, 1, 1, 1, 1, 1},
                          {10, 9, 7, 7, 1, 1, 1, 1, 9, 9, 9, 1},
                          kEightMisses}));
  BattleOutcome out = exalted_run(
      two_sided_battle("overrun", 2, 2, {{"counter", 1}}, {{"exchanges", {{"overrun", 2}}}}), rng);
  ASSERT_EQ(out.rounds.size(), 4u);
  EXPECT_EQ(out.rounds[0].phase, "exchange 1: attack");
  EXPECT_EQ(out.rounds[1].detail["external_penalty"], 1);
  EXPECT_EQ(out.rounds[1].detail["remaining"], 1);
  EXPECT_EQ(out.rounds[1].detail["health_levels"], 1);
  EXPECT_EQ(out.rounds[2].phase, "exchange 2: counterattack");
  EXPECT_EQ(out.rounds[2].detail["war_dv"], 4);
  EXPECT_EQ(out.rounds[2].detail["health_levels"], 3);
  EXPECT_EQ(out.rounds[3].phase, "exchange 2: defender attacks");
  EXPECT_EQ(out.rounds[3].detail["target_magnitude"], 3);
  EXPECT_EQ(out.attacker_losses, 1);
  EXPECT_EQ(out.defender_losses, 0);
  EXPECT_EQ(out.defender_units["wounds"], Json({1}));
  EXPECT_TRUE(out.attacker_stops);
}

// A combined attack (seed 003: "More than one unit may participate in a given attack"): with
// combined "units" each group is its own unit (Step 1: each "Unit Commander ... declares type of
// attack and target"), attacking in group order. G1: 2 armies from ATT (Magnitude 4); G2: 1 army
// from AT2 across a river (Magnitude 3). D (2 armies) elected COUNTER 1.
//  G1 attacks: 10,9,7,7,6,5,4,3,2,1 = 5 − 4 = 1; raw 6; 6 − 4 = 2 < 4 ⇒ ping 1,1,1,1 = Might 1:
//  one D army wounded 1. D counterattacks G1: 10,10,10,1,1,1,1,1 = 6 − 5 = 1; raw 4 − 1 = 3 < 4 ⇒
//  ping 9,9,9,1 = 3 levels: one G1 army lost. The one counterattack is used.
//  G2 attacks: 10,10,10,10,9,1,1,1,1,1 = 9 + (3 − 4) − river 1 − DV 4 = 3; raw 3 + 5 = 8 >
//  Hardness 2; 8 − 4 = 4 ≥ G2's Magnitude 3 ⇒ 4 dice 10,7,1,1 = 2 + Might 1 = 3 levels: the
//  wounded D army takes 2 and is lost, the other is wounded 1. No counterattack is left.
TEST(ExaltedCombined, EachGroupAttacksAsItsOwnUnit) {
  Json doc = two_sided_battle("move", 3, 2, {{"counter", 1}});
  doc["groups"] = {{{"from", "ATT"}, {"armies", 2}}, {{"from", "AT2"}, {"armies", 1}}};
  ScriptedRng rng(concat({{10, 9, 7, 7, 6, 5, 4, 3, 2, 1, 1, 1, 1, 1},
                          {10, 10, 10, 1, 1, 1, 1, 1, 9, 9, 9, 1},
                          {10, 10, 10, 10, 9, 1, 1, 1, 1, 1, 10, 7, 1, 1}}));
  BattleOutcome out = exalted_run(doc, rng);
  ASSERT_EQ(out.rounds.size(), 3u);
  EXPECT_EQ(out.rounds[0].phase, "exchange 1: attack ATT");
  EXPECT_EQ(out.rounds[1].phase, "exchange 1: counterattack on ATT");
  EXPECT_EQ(out.rounds[2].phase, "exchange 1: attack AT2");
  EXPECT_EQ(out.rounds[2].detail["striker_magnitude"], 3);
  EXPECT_EQ(out.rounds[2].detail["external_penalty"], 1);
  EXPECT_EQ(out.rounds[2].detail["remaining"], 3);
  EXPECT_EQ(out.rounds[2].detail["health_levels"], 3);
  EXPECT_EQ(out.group_losses, (std::vector<int>{1, 0}));
  ASSERT_EQ(out.group_units.size(), 2u);
  EXPECT_EQ(out.attacker_losses, 1);
  EXPECT_EQ(out.defender_losses, 1);
  EXPECT_EQ(out.defender_units["wounds"], Json({1}));
  EXPECT_EQ(out.detail["forces"].size(), 2u);
  EXPECT_EQ(out.detail["forces"][1]["river"], true);
}

// combined "one_unit": the groups form one unit of their total (300 soldiers, Magnitude 4); a
// river crossed by any group hampers its attack; the turn loop spreads the losses.
TEST(ExaltedCombined, OneUnitOptionMergesTheGroups) {
  Json doc = two_sided_battle("move", 3, 2, Json::object(), {{"combined", "one_unit"}});
  doc["groups"] = {{{"from", "ATT"}, {"armies", 2}}, {{"from", "AT2"}, {"armies", 1}}};
  ScriptedRng rng(kTenMisses);
  BattleOutcome out = exalted_run(doc, rng);
  ASSERT_EQ(out.rounds.size(), 1u);
  EXPECT_EQ(out.rounds[0].phase, "exchange 1: attack");
  EXPECT_EQ(out.rounds[0].detail["striker_magnitude"], 4);
  EXPECT_EQ(out.rounds[0].detail["external_penalty"], 1);
  EXPECT_TRUE(out.group_losses.empty());
}

// An ambush strikes the group attacking from the area it is set against, not the others.
TEST(ExaltedCombined, AmbushHitsTheGroupFromItsArea) {
  Json doc = two_sided_battle("move", 3, 2, Json::object());
  doc["areas"][2]["mode"] = "ambush";
  doc["areas"][2]["ambush_against"] = "AT2";
  doc["groups"] = {{{"from", "ATT"}, {"armies", 2}}, {{"from", "AT2"}, {"armies", 1}}};
  ScriptedRng rng(concat({kEightMisses, kTenMisses, kTenMisses}));
  BattleOutcome out = exalted_run(doc, rng);
  ASSERT_EQ(out.rounds.size(), 3u);
  EXPECT_EQ(out.rounds[0].phase, "ambush AT2");
  EXPECT_EQ(out.rounds[0].detail["target_magnitude"], 3);
}

// Attack dice average 0.5 successes per die, damage dice 0.4, over many seeded cycles.
TEST(ExaltedDiceStatistics, AttackHalfDamageTwoFifths) {
  ExAttacker a;
  a.pool = 10;
  a.damage = 10;
  ExTarget t;  // DV 0, no hardness or soak: every cycle with a success rolls damage
  double att_succ = 0, att_dice = 0, dmg_succ = 0, dmg_dice = 0;
  for (int i = 0; i < 20000; ++i) {
    Xoshiro256 rng(derive_seed(99, "ex:" + std::to_string(i)));
    ExCycle c = exalted_war_event(a, t, {}, rng);
    att_succ += c.successes;
    att_dice += c.attack_dice.size();
    dmg_succ += c.levels;  // Might 0
    dmg_dice += c.damage_dice.size();
  }
  EXPECT_NEAR(att_succ / att_dice, 0.5, 0.008);
  EXPECT_NEAR(dmg_succ / dmg_dice, 0.4, 0.005);
}

TEST(ExaltedEngine, RerollsAndStuntsAreOffByDefaultAndWorkWhenOn) {
  ExCycleOptions o;
  o.attacker_reroll = true;
  o.stunt_dice = 2;
  o.defender_reroll = true;
  // Attack: 10 dice, eight failures rerolled to 7s; stunt dice 1, 1 rerolled to 10, 1.
  ScriptedRng rng({10,
                   9,
                   1,
                   1,
                   1,
                   1,
                   1,
                   1,
                   1,
                   1,
                   7,
                   7,
                   7,
                   7,
                   7,
                   7,
                   7,
                   7,
                   1,
                   1,
                   10,
                   1,
                   /* damage: raw 6 + 5 = 11, - soak 4 */ 1,
                   1,
                   1,
                   1,
                   1,
                   1,
                   1});
  ExCycle c = exalted_war_event(example_attacker(), example_target(), o, rng);
  EXPECT_EQ(rng.remaining(), 0u);
  EXPECT_EQ(c.successes, 11);
  EXPECT_EQ(c.remaining, 11 + 1 - 4 - 2);
  EXPECT_EQ(c.stunt_reroll_dice, (std::vector<int>{10, 1}));
  EXPECT_EQ(c.levels, 1);  // no successes + Might 1
}

GameState exalted_bundled_state() {
  auto j = bundled_scenario_published("exalted-scavenger-lands");
  EXPECT_TRUE(j.ok());
  auto st = state_from_scenario(*j, 7);
  EXPECT_TRUE(st.ok()) << st.status().to_string();
  return *st;
}

TEST(ExaltedScenario, BundledScenarioValidates) {
  auto j = bundled_scenario_published("exalted-scavenger-lands");
  ASSERT_TRUE(j.ok());
  EXPECT_EQ(format_errors(validate_scenario(*j)), "");
  EXPECT_GE((*j)["areas"].size(), 10u);
  EXPECT_LE((*j)["areas"].size(), 20u);
}

TEST(ExaltedCheckGame, ErrorsNameThePath) {
  GameState st = exalted_bundled_state();
  const CombatEngine& e = *find_engine("exalted-mass-combat");
  EXPECT_TRUE(e.check_game(st).ok()) << e.check_game(st).message();
  st.engine.options = {{"soldiers", 5}};
  EXPECT_EQ(e.check_game(st).message().rfind("/engine/options/soldiers: unknown option", 0), 0u);
  st.engine.options = {{"dv_rounding", "sideways"}};
  EXPECT_EQ(e.check_game(st).message(), "/engine/options/dv_rounding: must be \"up\" or \"down\"");
  st.engine.options = {{"exchanges", {{"assault", 0}}}};
  EXPECT_EQ(e.check_game(st).message(),
            "/engine/options/exchanges/assault: must be an integer 1..100");
  st.engine.options = {{"default_profile", {{"commander", {{"war", 99}}}}}};
  EXPECT_EQ(e.check_game(st).message().rfind("/engine/options/default_profile/commander/war", 0),
            0u);
  Json scen = *bundled_scenario_published("exalted-scavenger-lands");
  // Players are listed by code in the bundled file, so state indices are document indices.
  ASSERT_EQ(scen["players"][2]["code"], "RLM");
  scen["players"][2]["engine_state"]["profile"]["unit"]["might"] = 9;
  auto errs = validate_scenario(scen);
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs[0].path, "/players/2/engine_state/profile/unit/might");
}

OrderAck exalted_ack(const GameState& st, const std::string& player, const std::string& secret,
                     const std::string& lines) {
  const std::string text = "GAME " + st.game_id + "\nPLAYER " + player + " " + secret + "\nTURN " +
                           std::to_string(st.turn) + "\n" + lines + "END\n";
  return check_order_file(text, st, find_engine(st.engine.name));
}

// COUNTER n is a standing choice of DEFEND, AMBUSH and RETREAT; the turn stores it in the area.
TEST(ExaltedTurn, CounterIsAStandingChoice) {
  GameState st = exalted_bundled_state();
  auto r = exalted_ack(
      st, "RLM", "dragonblood",
      "1. DEFEND GTH COUNTER 2\n2. MOVE CAL THR 1 COUNTER 1\n3. DEFEND CAL COUNTER 101\n");
  ASSERT_EQ(r.rejected_count(), 2);
  OrderBook book = {{"RLM", r.orders}};
  auto res = resolve_turn(st, book, *find_engine("exalted-mass-combat"));
  ASSERT_TRUE(res.ok()) << res.status().to_string();
  EXPECT_EQ(res->next_state.find_area("GTH")->engine_state["counter"], 2);
  const std::string text = render_report_text(build_report(st, *res, "RLM"));
  EXPECT_NE(text.find("GTH forces: counter"), std::string::npos) << text;
  EXPECT_NE(find_engine("exalted-mass-combat")->order_help().find("COUNTER <n>"),
            std::string::npos);
  EXPECT_TRUE(find_engine("exalted-mass-combat")->check_game(res->next_state).ok());
  GameState bad = st;
  bad.areas[0].engine_state = {{"counter", -1}};
  EXPECT_NE(
      find_engine("exalted-mass-combat")->check_game(bad).message().find("/engine_state/counter"),
      std::string::npos);
  bad.engine.options = {{"counterattack", "sometimes"}};
  bad.areas[0].engine_state = Json::object();
  EXPECT_EQ(find_engine("exalted-mass-combat")->check_game(bad).message(),
            "/engine/options/counterattack: must be \"elected\" or \"always\"");
}

TEST(ExaltedTurn, BattlesRecordDiceAndWoundsPersistConsistently) {
  GameState st = exalted_bundled_state();
  auto l = exalted_ack(st, "LKS", "seventh", "1. ASSAULT LOK GTH 4\n2. MOVE MAR GRT 2\n");
  auto r = exalted_ack(st, "RLM", "dragonblood", "1. DEFEND GTH\n2. PROBE CAL THR 1 CARD 1\n");
  ASSERT_EQ(l.rejected_count(), 0);
  EXPECT_EQ(r.rejected_count(), 1);  // no CARD in this engine
  OrderBook book = {{"LKS", l.orders}, {"RLM", r.orders}};
  auto res = resolve_turn(st, book, *find_engine("exalted-mass-combat"));
  ASSERT_TRUE(res.ok()) << res.status().to_string();
  ASSERT_EQ(res->battles.size(), 2u);
  for (const auto& b : res->battles) {
    EXPECT_FALSE(b.draws.empty());
    std::size_t dice = 0;
    for (const auto& round : b.outcome.rounds)
      dice += round.attacker_dice.size() + round.defender_dice.size();
    EXPECT_EQ(dice, b.draws.size()) << b.id;  // every draw is shown in the rounds
  }
  const GameState& next = res->next_state;
  EXPECT_TRUE(find_engine("exalted-mass-combat")->check_game(next).ok());
  // Determinism: the same turn again gives the same digest.
  auto again = resolve_turn(st, book, *find_engine("exalted-mass-combat"));
  EXPECT_EQ(again->digest, res->digest);
}

}  // namespace
}  // namespace adj
