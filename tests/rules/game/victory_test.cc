// Victory conditions: their validation with the scenario, the standings and the pure end check
// (rules/game/victory.h), and DRAW in order files (parser and validator).
#include "rules/game/victory.h"

#include <gtest/gtest.h>

#include "rules/combat/engine_registry.h"
#include "rules/game/scenario.h"
#include "rules/orders/validator.h"
#include "rules/report/report.h"
#include "rules/turn/turn_resolver.h"

namespace adj {
namespace {

// Three kingdoms; GLD is an empty neutral area worth 5 victory points next to Alba.
Json scenario(const Json& victory) {
  Json j = Json::parse(R"({
    "id": "end-1", "name": "Ending", "engine": {"name": "dark-age"},
    "players": [{"code": "AAA", "name": "Alba", "secret": "alpha-secret", "bp": 10},
                {"code": "BBB", "name": "Bernicia", "secret": "bravo-secret", "bp": 10},
                {"code": "CCC", "name": "Cornwall", "secret": "charlie-secret", "bp": 10}],
    "areas": [{"code": "AHM", "kind": "land", "owner": "AAA", "armies": 5, "population": 2},
              {"code": "BHM", "kind": "land", "owner": "BBB", "armies": 5, "population": 2},
              {"code": "CHM", "kind": "land", "owner": "CCC", "armies": 4, "population": 2},
              {"code": "GLD", "kind": "land", "population": 0, "features": {"vp": 5}}],
    "adjacency": [["AHM", "GLD"], ["BHM", "GLD"], ["CHM", "GLD"]]
  })");
  if (!victory.is_null()) j["victory"] = victory;
  return j;
}

GameState state(const Json& victory) {
  auto st = state_from_scenario(scenario(victory), 7);
  EXPECT_TRUE(st.ok()) << st.status().to_string();
  return st.ok() ? *st : GameState{};
}

std::string victory_first_error(const Json& doc) {
  auto errors = validate_scenario(doc);
  return errors.empty() ? "(valid)" : errors[0].path + ": " + errors[0].message;
}

TEST(Victory, ConditionsAreValidatedWithTheScenario) {
  EXPECT_EQ(victory_first_error(scenario(Json{{"vp", 5}, {"draw", true}})), "(valid)");
  EXPECT_EQ(victory_first_error(scenario(Json::object())).substr(0, 9), "/victory:");
  EXPECT_NE(victory_first_error(scenario(Json::object())).find("no way to end the game"),
            std::string::npos);
  EXPECT_EQ(victory_first_error(scenario(Json{{"vp", 0}})).substr(0, 12), "/victory/vp:");
  EXPECT_NE(victory_first_error(scenario(Json{{"turns", 3}})).find("turns"), std::string::npos);
  Json bad = scenario(Json{{"draw", true}});
  bad["areas"][3]["features"]["vp"] = "five";
  EXPECT_EQ(victory_first_error(bad),
            "/areas/3/features/vp: victory points of an area must be a whole "
            "number from 0 to 1000000");
  // Kept in the state, read back by victory_of.
  const VictoryConditions v = victory_of(state(Json{{"vp", 9}, {"last_turn", 4}}));
  EXPECT_EQ(v.vp, 9);
  EXPECT_EQ(v.last_turn, 4);
  EXPECT_FALSE(v.draw);
  EXPECT_FALSE(victory_of(state(nullptr)).any());
}

TEST(Victory, EveryBundledScenarioCanEnd) {
  for (const std::string& name : bundled_scenarios()) {
    auto doc = bundled_scenario_published(name);
    ASSERT_TRUE(doc.ok()) << name;
    auto st = state_from_scenario(*doc, 1);
    ASSERT_TRUE(st.ok()) << name << ": " << st.status().to_string();
    const VictoryConditions v = victory_of(*st);
    EXPECT_TRUE(v.last_turn && v.last_standing && v.draw) << name;
  }
}

TEST(Victory, StandingsRankByPointsThenAreasThenArmiesAndShareTies) {
  GameState st = state(nullptr);
  st.find_area("GLD")->owner = "CCC";  // Cornwall: 5 points, 2 areas
  const auto table = rank_players(st);
  ASSERT_EQ(table.size(), 3u);
  EXPECT_EQ(table[0].code, "CCC");
  EXPECT_EQ(table[0].vp, 5);
  EXPECT_EQ(table[0].areas, 2);
  // Alba and Bernicia are equal on points, areas and armies: one rank, listed by code.
  EXPECT_EQ(table[1].code, "AAA");
  EXPECT_EQ(table[2].code, "BBB");
  EXPECT_EQ(table[1].rank, 2);
  EXPECT_EQ(table[2].rank, 2);
  st.find_area("BHM")->armies = 6;
  EXPECT_EQ(rank_players(st)[1].code, "BBB");
  EXPECT_EQ(rank_players(st)[2].rank, 3);
}

TEST(Victory, ReportsAndTheRoundupCountTheStandingsPoints) {
  // Alba holds Glendale (5 points) and has 2 of its own: 7 in the standings, the player's
  // report and the roundup alike.
  GameState st = state(nullptr);
  st.find_area("GLD")->owner = "AAA";
  st.find_player("AAA")->vp = 2;
  EXPECT_EQ(area_vp(*st.find_area("GLD")), 5);
  EXPECT_EQ(area_vp(*st.find_area("AHM")), 0);
  EXPECT_EQ(kingdom_vp(st, *st.find_player("AAA")), 7);
  const CombatEngine* engine = find_engine(st.engine.name);
  ASSERT_NE(engine, nullptr);
  auto turn = resolve_turn(st, OrderBook{}, *engine);
  ASSERT_TRUE(turn.ok()) << turn.status().to_string();
  const std::vector<Standing> table = rank_players(turn->next_state);
  ASSERT_EQ(table[0].code, "AAA");
  EXPECT_EQ(table[0].vp, 7);
  EXPECT_EQ(build_report(st, *turn, "AAA")["economy"]["vp"], 7);
  const Json roundup = build_roundup(*turn);
  int seen = 0;
  for (const Json& k : roundup["kingdoms"])
    for (const Standing& s : table)
      if (s.code == k["code"]) {
        EXPECT_EQ(k["vp"], s.vp) << s.code;
        ++seen;
      }
  EXPECT_EQ(seen, 3);
}

TEST(Victory, VictoryPointsWin) {
  GameState st = state(Json{{"vp", 5}, {"last_turn", 10}});
  EXPECT_FALSE(check_ending(st, 1, {}));
  st.find_area("GLD")->owner = "AAA";
  auto e = check_ending(st, 2, {});
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind, "vp");
  EXPECT_EQ(e->turn, 2);
  EXPECT_EQ(e->winners, std::vector<std::string>{"AAA"});
  EXPECT_EQ(e->standings[0].result, "won");
  EXPECT_EQ(e->standings[1].result, "lost");
  EXPECT_NE(e->reason.find("Alba (AAA) reached 5 victory points"), std::string::npos) << e->reason;
  // Round trip through the stored form.
  auto back = ending_from_json(to_json(*e));
  ASSERT_TRUE(back);
  EXPECT_EQ(to_json(*back), to_json(*e));
}

TEST(Victory, LastKingdomStandingWins) {
  GameState st = state(Json{{"last_standing", true}});
  st.find_area("BHM")->owner = "AAA";
  EXPECT_FALSE(check_ending(st, 3, {})) << "Cornwall still holds an area";
  st.find_area("CHM")->owner = std::nullopt;
  auto e = check_ending(st, 3, {});
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind, "last_standing");
  EXPECT_EQ(e->winners, std::vector<std::string>{"AAA"});
}

TEST(Victory, DrawNeedsEverySurvivorAndIsOnlyWhereAllowed) {
  GameState st = state(Json{{"draw", true}});
  EXPECT_FALSE(check_ending(st, 1, {"AAA", "BBB"}));
  // Cornwall is out: the two survivors suffice.
  st.find_area("CHM")->owner = "BBB";
  auto e = check_ending(st, 1, {"AAA", "BBB"});
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind, "draw");
  EXPECT_EQ(e->winners, (std::vector<std::string>{"AAA", "BBB"}));
  for (const auto& s : e->standings) EXPECT_EQ(s.result, s.code == "CCC" ? "lost" : "drawn");
  // Without "draw" in the conditions, DRAW orders end nothing.
  GameState no = state(Json{{"last_turn", 9}});
  EXPECT_FALSE(check_ending(no, 1, {"AAA", "BBB", "CCC"}));
}

TEST(Victory, LastTurnMakesTheLeaderWinOrTheLeadersDraw) {
  GameState st = state(Json{{"last_turn", 3}});
  EXPECT_FALSE(check_ending(st, 2, {}));
  auto tied = check_ending(st, 3, {});
  ASSERT_TRUE(tied);
  EXPECT_EQ(tied->kind, "last_turn");
  EXPECT_EQ(tied->winners, (std::vector<std::string>{"AAA", "BBB"}));  // equal first; CCC has 4
  EXPECT_EQ(tied->standings[0].result, "drawn");
  EXPECT_EQ(tied->standings[2].result, "lost");
  st.find_area("AHM")->armies = 9;
  auto won = check_ending(st, 3, {});
  ASSERT_TRUE(won);
  EXPECT_EQ(won->winners, std::vector<std::string>{"AAA"});
  EXPECT_EQ(won->standings[0].result, "won");
}

TEST(Victory, VictoryPointsComeBeforeALastTurnAndADraw) {
  GameState st = state(Json{{"vp", 5}, {"last_turn", 1}, {"draw", true}});
  st.find_area("GLD")->owner = "BBB";
  auto e = check_ending(st, 1, {"AAA", "BBB", "CCC"});
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind, "vp");
  EXPECT_EQ(e->winners, std::vector<std::string>{"BBB"});
}

OrderAck victory_check(const GameState& st, const std::string& body) {
  return check_order_file("GAME end-1\nPLAYER AAA alpha-secret\n" + body, st,
                          find_engine(st.engine.name));
}

TEST(Victory, DrawIsAnOrderLineThatProposesADraw) {
  const GameState st = state(Json{{"draw", true}});
  OrderAck ack = victory_check(st, "MOVE AHM GLD 2\ndraw\n");
  ASSERT_FALSE(ack.refused) << ack.refusal;
  EXPECT_TRUE(ack.draw);
  ASSERT_EQ(ack.lines.size(), 2u);
  EXPECT_EQ(ack.lines[1].text, "DRAW");
  EXPECT_TRUE(ack.lines[1].accepted);
  EXPECT_FALSE(ack.lines[1].action);
  EXPECT_EQ(ack.orders.size(), 1u) << "DRAW is not an action";
  EXPECT_NE(render_ack_text(ack).find("DRAW: you propose a draw"), std::string::npos);
  auto back = ack_from_json(to_json(ack));
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(back->draw);

  // Where draws are not allowed, the line is rejected and says why.
  const GameState no = state(Json{{"last_turn", 5}});
  ack = victory_check(no, "DRAW\n");
  EXPECT_FALSE(ack.draw);
  ASSERT_EQ(ack.lines.size(), 1u);
  EXPECT_FALSE(ack.lines[0].accepted);
  EXPECT_NE(ack.lines[0].reason.find("does not allow draws"), std::string::npos);

  // DRAW takes nothing and no action number.
  ack = victory_check(st, "DRAW now\n2. DRAW\n");
  EXPECT_FALSE(ack.draw);
  ASSERT_EQ(ack.lines.size(), 2u);
  EXPECT_NE(ack.lines[0].reason.find("DRAW takes nothing after it"), std::string::npos);
  EXPECT_NE(ack.lines[1].reason.find("takes no action number"), std::string::npos);

  // A refused file proposes nothing.
  ack = check_order_file("GAME end-1\nPLAYER AAA wrong-secret\nDRAW\n", st,
                         find_engine(st.engine.name));
  EXPECT_TRUE(ack.refused);
  EXPECT_FALSE(ack.draw);
}

}  // namespace
}  // namespace adj
