// The bundled Path of War and CRT scenarios: they validate, and a turn through resolve_turn keeps
// damaged tanks (Path of War) and moves a retreating defender (CRT).
#include <gtest/gtest.h>

#include "rules/combat/engine_registry.h"
#include "rules/game/scenario.h"
#include "rules/turn/turn_resolver.h"

namespace adj {
namespace {

GameState scenarios_bundled_state(const std::string& name) {
  Result<Json> doc = bundled_scenario_published(name);
  EXPECT_TRUE(doc.ok()) << name;
  Result<GameState> st = state_from_scenario(doc.value(), 1);
  EXPECT_TRUE(st.ok()) << st.status().message();
  return st.value();
}

Order order(int action, Verb verb, const std::string& from, const std::string& to) {
  Order o;
  o.line = action;
  o.action = action;
  o.verb = verb;
  o.from = from;
  o.to = to;
  o.text = std::string(verb_name(verb)) + " " + from + " " + to;
  return o;
}

TEST(PathOfWarScenario, ArdennesValidates) {
  Result<Json> doc = bundled_scenario_published("path-of-war-ardennes");
  ASSERT_TRUE(doc.ok());
  EXPECT_EQ(format_errors(validate_scenario(doc.value())), "");
  EXPECT_EQ((*doc)["engine"]["name"], "path-of-war");
  Json bad = doc.value();
  bad["engine"]["options"]["variant"] = "arcade";
  const auto errors = validate_scenario(bad);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].path, "/engine/options/variant");
  EXPECT_EQ(errors[0].message, "must be one of boardgame, videogamer, no-luck");
}

TEST(CrtScenario, RiverCrossingValidates) {
  Result<Json> doc = bundled_scenario_published("crt-river-crossing");
  ASSERT_TRUE(doc.ok());
  EXPECT_EQ(format_errors(validate_scenario(doc.value())), "");
  Json bad = doc.value();
  bad["engine"]["options"]["table"] = "no-such-table";
  const auto errors = validate_scenario(bad);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].path, "/engine/options/table");
}

// GER attacks Spa from Monschau (no-luck, so the numbers are exact): 3 shots against 2 tanks and
// 2 + 1 (flanking from Malmedy) shots back. Both sides keep a damaged tank into turn 2.
TEST(PathOfWarScenario, DamagedTanksPersistAcrossTurns) {
  GameState s = scenarios_bundled_state("path-of-war-ardennes");
  s.engine.options["variant"] = "no-luck";
  const CombatEngine& engine = *find_engine("path-of-war");
  OrderBook book;
  book["GER"] = {order(1, Verb::kMove, "MON", "SPA")};
  Result<TurnResult> r = resolve_turn(s, book, engine);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->battles.size(), 1u);
  EXPECT_TRUE(r->battles[0].draws.empty());
  const GameState& next = r->next_state;
  const Area* spa = next.find_area("SPA");
  const Area* mon = next.find_area("MON");
  EXPECT_EQ(spa->owner, "USA");
  EXPECT_EQ(spa->armies, 1);
  EXPECT_EQ(spa->engine_state, (Json{{"hp", {5}}}));
  EXPECT_EQ(mon->armies, 2);
  EXPECT_EQ(mon->engine_state, (Json{{"hp", {5}}}));

  // Turn 2: the damaged tank in Spa dies to a single shot.
  OrderBook book2;
  book2["GER"] = {order(1, Verb::kAssault, "MON", "SPA")};
  Result<TurnResult> r2 = resolve_turn(next, book2, engine);
  ASSERT_TRUE(r2.ok());
  ASSERT_EQ(r2->battles.size(), 1u);
  EXPECT_EQ(r2->battles[0].outcome.defender_losses, 1);
  EXPECT_EQ(r2->battles[0].outcome.rounds.at(0).attacker_strength, 2);
}

TEST(PathOfWarScenario, BoardgameTurnLogsEveryDie) {
  GameState s = scenarios_bundled_state("path-of-war-ardennes");
  const CombatEngine& engine = *find_engine("path-of-war");
  OrderBook book;
  book["GER"] = {order(1, Verb::kAssault, "PRU", "CLV"), order(2, Verb::kMove, "SCH", "STV")};
  book["USA"] = {order(1, Verb::kProbe, "HOU", "MAR")};
  Result<TurnResult> r = resolve_turn(s, book, engine);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->battles.size(), 3u);
  for (const BattleLog& b : r->battles) {
    std::size_t dice = 0;
    for (const BattleRound& round : b.outcome.rounds)
      dice += round.attacker_dice.size() + round.defender_dice.size();
    EXPECT_EQ(dice, b.draws.size()) << b.id;
    EXPECT_FALSE(b.draws.empty()) << b.id;
  }
  // Same state, same orders: the same turn.
  Result<TurnResult> again = resolve_turn(s, book, engine);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->digest, r->digest);
}

// BLU crosses the Old Bridge with 14 armies against 2 in the clear: differential 12 is always a
// retreat (DR or DR2). East Ford and Millford are next to Blue's forces, so Red falls back through
// East Wood (to Red Fort on a DR2) and Blue enters Old Bridge.
TEST(CrtScenario, RetreatMovesTheDefender) {
  GameState s = scenarios_bundled_state("crt-river-crossing");
  s.find_area("WBR")->armies = 14;
  const CombatEngine& engine = *find_engine("crt");
  OrderBook book;
  book["BLU"] = {order(1, Verb::kMove, "WBR", "EBR")};
  Result<TurnResult> r = resolve_turn(s, book, engine);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->battles.size(), 1u);
  const BattleOutcome& o = r->battles[0].outcome;
  ASSERT_TRUE(o.defender_retreats_to.has_value());
  const std::string result = o.detail["result"];
  EXPECT_EQ(*o.defender_retreats_to, result == "DR2" ? "RFT" : "EWD");
  const GameState& next = r->next_state;
  EXPECT_EQ(next.find_area("EBR")->owner, "BLU");
  // Seed 003: "one of the attacking units may enter the hexagon" (option advance, default 1);
  // the other 13 stay in WBR, where they attacked from.
  EXPECT_EQ(next.find_area("EBR")->armies, 1);
  EXPECT_EQ(next.find_area("WBR")->armies, 13);
  const Area* dest = next.find_area(*o.defender_retreats_to);
  EXPECT_EQ(dest->armies, s.find_area(dest->code)->armies + 2);
  EXPECT_EQ(r->battles[0].draws.size(), 1u);
}

TEST(CrtScenario, RiverAttackIsHarder) {
  GameState s = scenarios_bundled_state("crt-river-crossing");
  const CombatEngine& engine = *find_engine("crt");
  OrderBook book;
  book["BLU"] = {order(1, Verb::kMove, "WFD", "EFD")};
  Result<TurnResult> r = resolve_turn(s, book, engine);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->battles.size(), 1u);
  const BattleRound& round = r->battles[0].outcome.rounds.at(0);
  EXPECT_EQ(round.detail["shifts"], (Json{{"river", 3}}));
  EXPECT_EQ(round.detail["column_before_shifts"], "4-5");  // 6 v 2
  EXPECT_EQ(round.detail["column"], "0");
}

}  // namespace
}  // namespace adj
