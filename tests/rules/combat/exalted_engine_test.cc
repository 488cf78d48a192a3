// Exalted mass combat engine: the worked examples of seed_rules.md §5.4 with their dice fed
// through a scripted stream, dice statistics, health-level bookkeeping, option and profile
// validation, the bundled scenario and a full turn.
#include <gtest/gtest.h>

#include "rules/combat/engine_registry.h"
#include "rules/combat/exalted_engine.h"
#include "rules/combat/local_world.h"
#include "rules/game/scenario.h"
#include "rules/orders/validator.h"
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
  ASSERT_EQ(out->rounds.size(), 1u);  // no counterattack from a destroyed unit
  EXPECT_EQ(out->rounds[0].detail["war_dv"], 4);
  EXPECT_EQ(out->rounds[0].detail["health_levels"], 4);
  EXPECT_EQ(out->rounds[0].attacker_dice,
            (std::vector<int>{10, 9, 7, 7, 6, 5, 4, 3, 2, 1, 10, 8, 3, 7}));
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

GameState bundled_state() {
  auto j = bundled_scenario("exalted-scavenger-lands");
  EXPECT_TRUE(j.ok());
  auto st = state_from_scenario(*j, 7);
  EXPECT_TRUE(st.ok()) << st.status().to_string();
  return *st;
}

TEST(ExaltedScenario, BundledScenarioValidates) {
  auto j = bundled_scenario("exalted-scavenger-lands");
  ASSERT_TRUE(j.ok());
  EXPECT_EQ(format_errors(validate_scenario(*j)), "");
  EXPECT_GE((*j)["areas"].size(), 10u);
  EXPECT_LE((*j)["areas"].size(), 20u);
}

TEST(ExaltedCheckGame, ErrorsNameThePath) {
  GameState st = bundled_state();
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
  Json scen = *bundled_scenario("exalted-scavenger-lands");
  // Players are listed by code in the bundled file, so state indices are document indices.
  ASSERT_EQ(scen["players"][2]["code"], "RLM");
  scen["players"][2]["engine_state"]["profile"]["unit"]["might"] = 9;
  auto errs = validate_scenario(scen);
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs[0].path, "/players/2/engine_state/profile/unit/might");
}

OrderAck ack(const GameState& st, const std::string& player, const std::string& secret,
             const std::string& lines) {
  const std::string text = "GAME " + st.game_id + "\nPLAYER " + player + " " + secret + "\nTURN " +
                           std::to_string(st.turn) + "\n" + lines + "END\n";
  return check_order_file(text, st, find_engine(st.engine.name));
}

TEST(ExaltedTurn, BattlesRecordDiceAndWoundsPersistConsistently) {
  GameState st = bundled_state();
  auto l = ack(st, "LKS", "seventh", "1. ASSAULT LOK GTH 4\n2. MOVE MAR GRT 2\n");
  auto r = ack(st, "RLM", "dragonblood", "1. DEFEND GTH\n2. PROBE CAL THR 1 CARD 1\n");
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
