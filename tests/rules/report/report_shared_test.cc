// render_report (each battle made once, spliced into its two reports) against the plain path:
// build_report + add_rejected_lines, Json::dump and render_report_text.
#include "rules/report/report_shared.h"

#include <gtest/gtest.h>

#include "rules/combat/engine_registry.h"
#include "rules/game/scenario.h"
#include "rules/orders/validator.h"
#include "rules/turn/turn_resolver.h"
#include "tests/support/grid_world.h"

namespace adj {
namespace {

using namespace testing::grid_world;

constexpr const char* kGame = "shared";

struct SharedTurn {
  GameState start;
  TurnResult result;
  std::map<std::string, std::vector<LineResult>> rejected;
};

// A 40-player grid turn; every player's file is checked by the real validator. Player p in
// `own` sends those lines instead of the grid's.
SharedTurn run_grid(const Json& scenario, const std::map<int, std::string>& own = {}) {
  SharedTurn t;
  auto st = state_from_scenario(scenario, 7);
  EXPECT_TRUE(st.ok()) << st.status().to_string();
  t.start = std::move(st).value();
  const CombatEngine* engine = find_engine(t.start.engine.name);
  OrderBook book;
  const Size size{40, 20};
  for (int p = 0; p < size.players; ++p) {
    std::string text = orders_for(p, kGame, size);
    if (auto it = own.find(p); it != own.end())
      text = std::string("GAME ") + kGame + "\nPLAYER " + player(p) + " s\n" + it->second;
    OrderAck ack = check_order_file(text, t.start, engine);
    EXPECT_FALSE(ack.refused) << ack.refusal;
    book[ack.player] = ack.orders;
    t.rejected[ack.player] = ack.lines;
  }
  auto res = resolve_turn(t.start, book, *engine);
  EXPECT_TRUE(res.ok()) << res.status().to_string();
  t.result = std::move(res).value();
  return t;
}

std::vector<ReportBattle> shown(const TurnResult& r) {
  std::vector<ReportBattle> out;
  for (const BattleLog& b : r.battles) out.push_back(report_battle(b, r.next_state));
  return out;
}

// Every player's report both ways; returns how many showed a battle they defended.
int expect_same_reports(const SharedTurn& t) {
  const ReportIndex index(t.result);
  const std::vector<ReportBattle> battles = shown(t.result);
  int defended = 0;
  for (const Player& p : t.start.players) {
    const auto lines = t.rejected.find(p.code);
    const std::vector<LineResult>* rejected = lines == t.rejected.end() ? nullptr : &lines->second;
    Json plain = build_report(t.start, t.result, p.code, index);
    if (rejected) add_rejected_lines(plain, *rejected);
    const RenderedReport made = render_report(t.start, t.result, p.code, index, battles, rejected);
    EXPECT_EQ(made.json_text, plain.dump()) << p.code;
    EXPECT_EQ(made.text, render_report_text(plain)) << p.code;
    if (!plain["attacks_on_you"].empty()) ++defended;
  }
  return defended;
}

TEST(ReportShared, EveryReportOfAGridTurnIsByteForBytePlain) {
  Json scenario = world(kGame, {40, 20});
  // Escaped and non-ASCII text in names, and player state with keys that need escaping.
  scenario["areas"][0]["name"] = "\xC3\x96xford \"the \\ old\"";
  scenario["areas"][20]["name"] = "Tab\there\x01";
  scenario["players"][1]["nation"] = "Irish";  // a Gaelic kingdom may INVADE
  SharedTurn t = run_grid(scenario, {{0, "MOVE ZZZZ A0000 1\nRAID A0000 A0020\n"},
                                     {1, "INVADE A0005 A0025 -\nLEVY\n"}});
  t.result.next_state.players[2].engine_state = {{"odd key \"\xC3\xA9\"\n", 1.5},
                                                 {"plain", {1, "two", nullptr, true}}};
  // Cities, engine state in areas, defence settings, gifts and a player without orders, set on
  // the result both paths read.
  GameState& next = t.result.next_state;
  for (std::size_t i = 0; i < next.areas.size(); i += 9) {
    Area& a = next.areas[i];
    a.kind = AreaKind::kCity;
    a.hinterland = next.areas[(i + 1) % next.areas.size()].code;
    a.trade = static_cast<int>(i % 4);
  }
  for (std::size_t i = 0; i < next.areas.size(); i += 4) {
    Area& a = next.areas[i];
    a.engine_state = {{"units", {{"tank", 2}}}};
    a.mode = i % 8 ? DefenceMode::kAmbush : DefenceMode::kRetreat;
    if (i % 12 == 0) a.retreat_to.reset();
    if (i % 16 == 0) a.ambush_against = next.areas[i + 1].code;
  }
  t.result.gifts.push_back({"P0003", "P0004", 3, 2});
  t.result.gifts.push_back({"P0005", "P0004", 0, 5});
  t.result.gifts.push_back({"P0004", "P0006", 1, 7});
  t.result.orders.erase("P0007");
  bool raid = false, invade = false;
  for (const BattleLog& b : t.result.battles) {
    raid = raid || b.dark_age_action == DarkAgeAction::kRaid;
    invade = invade || b.dark_age_action == DarkAgeAction::kInvade;
  }
  EXPECT_TRUE(raid);
  EXPECT_TRUE(invade);
  EXPECT_GT(expect_same_reports(t), 20);
  EXPECT_FALSE(rejected_lines_json(t.rejected.at("P0000")).empty());
}

// report_battle writes each battle from its log; the tree path (battle_for_report, dumped and
// rendered) is the reference. Names that need escaping, areas without a name or missing from the
// world (the code is shown), raids and invasions.
TEST(ReportShared, EveryBattleFromItsLogIsTheTreesBytes) {
  Json scenario = world(kGame, {40, 20});
  scenario["areas"][0]["name"] = "\xC3\x96xford \"the \\ old\"";
  scenario["areas"][20]["name"] = "Tab\there\x01";
  scenario["players"][1]["nation"] = "Irish";
  SharedTurn t = run_grid(scenario, {{0, "MOVE ZZZZ A0000 1\nRAID A0000 A0020\n"},
                                     {1, "INVADE A0005 A0025 -\nLEVY\n"}});
  GameState& world = t.result.next_state;
  for (std::size_t i = 0; i < world.areas.size(); i += 7) world.areas[i].name.clear();
  ASSERT_GT(t.result.battles.size(), 20u);
  t.result.battles[1].to = "NOWHERE";  // not in the world: shown by its code
  // Combined attacks (a second force that went back, a third that retreated elsewhere), a
  // withdrawal and the Gaelic conversion, on logs of the turn.
  for (std::size_t i = 2; i < t.result.battles.size(); i += 3) {
    BattleLog& b = t.result.battles[i];
    if (b.groups.empty()) continue;
    BattleGroupLog back = b.groups[0];
    back.from = world.areas[20].code;
    back.returned_to = back.from;
    back.armies = 3;
    back.losses = 1;
    back.advanced = i % 2;
    b.groups.push_back(back);
    if (i % 4 == 0) {
      back.from = world.areas[0].code;
      back.returned_to = world.areas[1].code;
      b.groups.push_back(back);
    }
    if (i % 5 == 0) {
      b.defender_withdrew_to = world.areas[2].code;
      b.withdrawn_armies = 2;
      b.converted_population = 1;
    }
  }
  int combined = 0;
  for (const BattleLog& b : t.result.battles) {
    combined += b.groups.size() > 1;
    const Json tree = battle_for_report(b, world);
    const ReportBattle shown = report_battle(b, world);
    EXPECT_EQ(shown.json_text, tree.dump()) << b.id;
    EXPECT_EQ(shown.text, report_detail::render_battle_text(tree)) << b.id;
  }
  Area* fought = world.find_area(t.result.battles[0].to);
  ASSERT_NE(fought, nullptr);
  fought->name = "bad \xFF name";
  int bad = 0;
  for (const BattleLog& b : t.result.battles) {
    if (b.to != fought->code && b.from != fought->code) continue;
    ++bad;
    EXPECT_THROW(report_battle(b, world), Json::type_error) << b.id;
  }
  EXPECT_GT(bad, 0);
  EXPECT_GT(combined, 0);
}

TEST(ReportShared, ABattleIsTheSameTextInBothItsReports) {
  SharedTurn t = run_grid(world(kGame, {40, 20}));
  const ReportIndex index(t.result);
  const std::vector<ReportBattle> battles = shown(t.result);
  const BattleLog* fought = nullptr;
  for (const BattleLog& b : t.result.battles)
    if (b.defender && *b.defender != b.attacker) fought = &b;
  ASSERT_NE(fought, nullptr);
  const ReportBattle& one = battles[index.battle_by_id.at(fought->id)];
  ASSERT_FALSE(one.text.empty());
  for (const std::string& who : {fought->attacker, *fought->defender}) {
    const RenderedReport r = render_report(t.start, t.result, who, index, battles, nullptr);
    EXPECT_NE(r.text.find(one.text), std::string::npos) << who;
    EXPECT_NE(r.json_text.find(one.json_text), std::string::npos) << who;
  }
}

TEST(ReportShared, InvalidUtf8FailsAsDumpDoes) {
  auto st = state_from_scenario(world(kGame, {40, 20}), 7);
  ASSERT_TRUE(st.ok()) << st.status().to_string();
  auto res = resolve_turn(*st, {}, *find_engine(st->engine.name));
  ASSERT_TRUE(res.ok()) << res.status().to_string();
  res->next_state.areas[0].name = "bad \xFF name";  // as an engine's or script's data might be
  const ReportIndex index(*res);
  EXPECT_THROW(build_report(*st, *res, "P0000", index).dump(), Json::type_error);
  EXPECT_THROW(render_report(*st, *res, "P0000", index, {}, nullptr), Json::type_error);
  // Another player's report does not show that area.
  const RenderedReport other = render_report(*st, *res, "P0020", index, {}, nullptr);
  EXPECT_EQ(other.json_text, build_report(*st, *res, "P0020", index).dump());
}

}  // namespace
}  // namespace adj
