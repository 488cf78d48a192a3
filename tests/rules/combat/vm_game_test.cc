// Virtuti Militari in a game: the bundled scenario, check_game and check_order with their
// messages, whole turns (cards spent, standing choices kept, SUPPORT) and the odds of trials.
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

TEST(VmScenario, BundledScenarioValidates) {
  auto j = bundled_scenario_published("virtuti-militari-1939");
  ASSERT_TRUE(j.ok());
  EXPECT_EQ(format_errors(validate_scenario(*j)), "");
  EXPECT_GE((*j)["areas"].size(), 10u);
  EXPECT_LE((*j)["areas"].size(), 20u);
  for (const auto& a : (*j)["areas"]) EXPECT_TRUE(a.contains("x") && a.contains("y"));
}

Status check_with_options(Json options) {
  GameState st = vm_bundled_state();
  st.engine.options = std::move(options);
  return find_engine("virtuti-militari")->check_game(st);
}

TEST(VmCheckGame, ErrorsNameThePath) {
  EXPECT_TRUE(check_with_options(Json::object()).ok());
  auto msg = [](Status s) { return s.message(); };
  EXPECT_EQ(msg(check_with_options({{"colour", 1}})).rfind("/engine/options/colour: unknown", 0),
            0u);
  Json bad_die = example_data();
  bad_die["units"]["army"]["levels"][0]["die"] = "red";
  EXPECT_EQ(msg(check_with_options({{"data", bad_die}})),
            "/engine/options/data/units/army/levels/0/die: \"red\" is not one of the dice");
  Json bad_hp = example_data();
  bad_hp["units"]["army"]["levels"].push_back(
      {{"attack", 4}, {"defense", 4}, {"hp", 3}, {"die", "t"}});
  EXPECT_EQ(msg(check_with_options({{"data", bad_hp}}))
                .rfind("/engine/options/data/units/army/levels/1/hp: hit points must increase", 0),
            0u);
  Json five_faces = example_data();
  five_faces["dice"]["t"] = {0, 1, 2, 3, 4};
  EXPECT_EQ(msg(check_with_options({{"data", five_faces}})).rfind("/engine/options/data/dice/t", 0),
            0u);
  EXPECT_EQ(msg(check_with_options({{"data", "nope"}})),
            "/engine/options/data: no bundled table \"nope\"");
  EXPECT_EQ(msg(check_with_options({{"weather", "snow"}})),
            "/engine/options/weather: must be clear, mud or frozen");
  EXPECT_EQ(msg(check_with_options({{"order_bonus", {{"charge", 1}}}}))
                .rfind("/engine/options/order_bonus/charge: unknown", 0),
            0u);
  // A scenario's unit of an unknown type and a card with an unknown die.
  Json scen = *bundled_scenario_published("virtuti-militari-1939");
  for (auto& a : scen["areas"])
    if (a["code"] == "POM") a["engine_state"]["units"][0]["type"] = "zeppelin";
  auto errs = validate_scenario(scen);
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_NE(errs[0].message.find("unknown unit type \"zeppelin\""), std::string::npos);
  scen = *bundled_scenario_published("virtuti-militari-1939");
  scen["players"][0]["engine_state"]["hand"][0]["dice"] = {"red"};
  errs = validate_scenario(scen);
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs[0].path, "/players/0/engine_state/hand/0/dice/0");
}

TEST(VmCheckOrder, AcceptsCardAndAirAndRejectsOthers) {
  GameState st = vm_bundled_state();
  auto a = vm_ack(st, "GER", "blitz",
                  "1. MOVE SIL KRK 2 CARD 3 AIR 3\n2. MOVE POM POZ CARD 4\n3. MOVE POM POZ AIR 4\n"
                  "4. MOVE POM POZ FLANK 1\n5. LEVY POM 1 CARD 1\n6. DEFEND EPR CARD 2 AIR 1\n");
  ASSERT_EQ(a.lines.size(), 6u);
  EXPECT_TRUE(a.lines[0].accepted) << a.lines[0].reason;
  EXPECT_EQ(a.lines[1].reason, "CARD must be 1..3 (the cards in your hand)");
  EXPECT_EQ(a.lines[2].reason, "you have 3 air support tokens (AIR 0..3)");
  EXPECT_NE(a.lines[3].reason.find("FLANK is not part of the orders"), std::string::npos);
  EXPECT_FALSE(a.lines[4].accepted);
  EXPECT_TRUE(a.lines[5].accepted) << a.lines[5].reason;
}

TEST(VmTurn, CardsSpentStandingChoicesKeptExhaustionLifted) {
  GameState st = vm_bundled_state();
  OrderBook book;
  auto g = vm_ack(st, "GER", "blitz", "1. ASSAULT SIL KRK 3 CARD 1 AIR 2\n2. MOVE POM POZ 3\n");
  auto p = vm_ack(st, "POL", "husaria", "1. DEFEND WAR CARD 1 AIR 1\n2. DEFEND KRK\n");
  ASSERT_EQ(g.rejected_count(), 0);
  ASSERT_EQ(p.rejected_count(), 0);
  book["GER"] = g.orders;
  book["POL"] = p.orders;
  auto res = resolve_turn(st, book, *find_engine("virtuti-militari"));
  ASSERT_TRUE(res.ok()) << res.status().to_string();
  const GameState& next = res->next_state;
  // The played card left Germany's hand; the 2 air tokens used returned to the pool (seed 002
  // step 3: "Used Air Support Tokens return to Faction's Air Support Token pool"). The bundled
  // scenario grants none per turn (air_tokens_per_turn 0), so the pool stays at 3.
  const Json& ger = next.find_player("GER")->engine_state;
  ASSERT_EQ(ger["hand"].size(), 2u);
  EXPECT_EQ(ger["hand"][0]["id"], "stuka");
  EXPECT_EQ(ger["air"], 3);
  // Poland's standing choice for Warsaw is kept by card id.
  EXPECT_EQ(next.find_area("WAR")->engine_state["defence"]["card"], "last-stand");
  // Both battles had a loser who was exhausted; nobody is exhausted after end_turn.
  ASSERT_EQ(res->battles.size(), 2u);
  int exhausted_in_battle = 0;
  for (const auto& b : res->battles) {
    EXPECT_FALSE(b.draws.empty());
    for (const Json* side : {&b.outcome.attacker_units, &b.outcome.defender_units})
      if (side->contains("units"))
        for (const auto& u : (*side)["units"]) exhausted_in_battle += u.value("exhausted", false);
  }
  EXPECT_GT(exhausted_in_battle, 0);
  for (const Area& a : next.areas) {
    if (!a.engine_state.contains("units")) continue;
    EXPECT_LE(a.engine_state["units"].size(), static_cast<std::size_t>(a.armies)) << a.code;
    for (const auto& u : a.engine_state["units"]) EXPECT_FALSE(u.contains("exhausted")) << a.code;
  }
  EXPECT_TRUE(find_engine("virtuti-militari")->check_game(next).ok());
}

TEST(VmTurn, SupportHoldsKrakowAndEndsWithTheTurn) {
  GameState st = vm_bundled_state();
  OrderBook book;
  // Poland supports Krakow from Lodz and Lwow (actions 1 and 2) before Germany's attack from
  // Silesia (action 3; actions run round-robin by number).
  auto p =
      vm_ack(st, "POL", "husaria", "1. SUPPORT LOD KRK\n2. SUPPORT LWO KRK\n3. SUPPORT WAR KRK\n");
  ASSERT_EQ(p.lines.size(), 3u);
  EXPECT_TRUE(p.lines[0].accepted) << p.lines[0].reason;
  EXPECT_TRUE(p.lines[1].accepted) << p.lines[1].reason;
  EXPECT_EQ(p.lines[2].reason, "WAR and KRK are not adjacent");
  auto g = vm_ack(st, "GER", "blitz", "3. ASSAULT SIL KRK 3\n");
  ASSERT_EQ(g.rejected_count(), 0);
  book["POL"] = p.orders;
  book["GER"] = g.orders;
  auto res = resolve_turn(st, book, *find_engine("virtuti-militari"));
  ASSERT_TRUE(res.ok()) << res.status().to_string();
  ASSERT_EQ(res->battles.size(), 1u);
  const Json& detail = res->battles[0].outcome.rounds.at(0).detail;
  ASSERT_EQ(detail["defender_support"].size(), 2u) << detail.dump();
  EXPECT_EQ(detail["defender_support"][0]["area"], "LOD");
  EXPECT_EQ(detail["defender_support"][1]["area"], "LWO");
  EXPECT_EQ(detail["winner"], "defender");  // 11 v 15 with the support (11 v 11 without)
  EXPECT_EQ(*res->next_state.find_area("KRK")->owner, "POL");
  for (const auto& a : res->actions)
    if (a.player == "POL" && a.action <= 2) {
      EXPECT_TRUE(a.ok) << a.message;
      EXPECT_NE(a.message.find("support battles in KRK"), std::string::npos) << a.message;
    }
  // SUPPORT lasts the turn.
  for (const Area& a : res->next_state.areas)
    EXPECT_FALSE(a.engine_state.is_object() && a.engine_state.contains("support")) << a.code;
}

TEST(VmCheckOrder, SupportOnlyWhereTheRulesHaveIt) {
  GameState st = vm_bundled_state();
  auto a = vm_ack(st, "POL", "husaria", "1. SUPPORT LOD KRK CARD 1\n2. SUPPORT KRK KRK\n");
  EXPECT_FALSE(a.lines[0].accepted);
  EXPECT_EQ(a.lines[1].reason, "an area cannot support itself (KRK)");
  // Under Dark Age rules SUPPORT is refused with the rules named.
  st.engine.name = "dark-age";
  const OrderAck da =
      check_order_file("GAME " + st.game_id + "\nPLAYER POL husaria\n1. SUPPORT LOD KRK\n", st,
                       find_engine("dark-age"));
  ASSERT_EQ(da.lines.size(), 1u);
  EXPECT_EQ(da.lines[0].reason, "SUPPORT is not part of this game's rules (dark-age)");
}

TEST(VmTrials, OddsAreComputed) {
  auto b = prepare_battle(example_battle(), "");
  ASSERT_TRUE(b.ok());
  auto t = battle_trials(**b, 200);
  ASSERT_TRUE(t.ok());
  // 11 v 9: the attacker wins on strength unless the defender's dice destroy both its units.
  EXPECT_GT((*t)["attacker_win_probability"].get<double>(), 0.5);
  EXPECT_LT((*t)["attacker_win_probability"].get<double>(), 1.0);
}

// ---- Issue 12: the seed's sentences (fleets, shore bombardment, air, ties, points, OVERRUN,
// combined attacks). Dice of the "t" die: face f shows f - 1 pips.

}  // namespace
}  // namespace adj
