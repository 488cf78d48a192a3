// ReportBattleStream (server/app/battle_stream.h): each battle of a turn shown in reports while
// the turn is resolved, the same bytes as report_battle against the next state, and each error
// where report_battle throws.
#include "server/app/battle_stream.h"

#include <gtest/gtest.h>

#include <thread>

#include "rules/combat/engine_registry.h"
#include "rules/game/scenario.h"
#include "rules/orders/validator.h"
#include "tests/support/grid_world.h"

namespace adj {
namespace {

using namespace testing::grid_world;

TEST(ReportBattleStream, ShowsEveryBattleAsReportBattleDoesOnTheNextState) {
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "one core: the stream is not used";
  const Size size{60, 20};
  const GameState start = std::move(state_from_scenario(world("stream", size), 7)).value();
  const CombatEngine* engine = find_engine(start.engine.name);
  OrderBook book;
  for (int p = 0; p < size.players; ++p)
    book[player(p)] = check_order_file(orders_for(p, "stream", size), start, engine).orders;

  ReportBattleStream stream(start);
  Result<TurnResult> r = resolve_turn(start, std::move(book), *engine, &stream);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  ASSERT_GT(r->battles.size(), 200u);  // several batches, and a part batch at close()
  ASSERT_TRUE(stream.complete());
  const std::vector<ReportBattle> shown = stream.take_shown();
  const std::vector<std::string> errors = stream.take_errors();
  ASSERT_EQ(shown.size(), r->battles.size());
  ASSERT_EQ(errors.size(), r->battles.size());
  for (std::size_t i = 0; i < shown.size(); ++i) {
    const ReportBattle want = report_battle(r->battles[i], r->next_state);
    EXPECT_EQ(errors[i], "") << i;
    EXPECT_EQ(shown[i].json_text, want.json_text) << i;
    EXPECT_EQ(shown[i].text, want.text) << i;
  }
  EXPECT_NE(shown.front().text.find(r->battles.front().to), std::string::npos);
}

TEST(ReportBattleStream, KeepsEachBattlesErrorInItsPlace) {
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "one core: the stream is not used";
  const GameState start = std::move(state_from_scenario(world("stream", {2, 10}), 7)).value();
  std::vector<BattleLog> logs(3);
  for (std::size_t i = 0; i < logs.size(); ++i) {
    logs[i].id = "1.1.P000" + std::to_string(i);
    logs[i].attacker = player(0);
    logs[i].from = area(0);
    logs[i].to = area(1);
    logs[i].outcome.rounds.push_back(BattleRound{});
  }
  logs[1].attacker = "P\xff";  // not UTF-8: Json::dump would throw, and so does report_battle
  std::string want_error;
  try {
    (void)report_battle(logs[1], start);
  } catch (const Json::exception& e) {
    want_error = e.what();
  }
  ASSERT_FALSE(want_error.empty());

  ReportBattleStream stream(start);
  for (const BattleLog& b : logs) stream.battle(b);
  stream.close();
  stream.close();  // once is enough; again does nothing
  ASSERT_TRUE(stream.complete());
  const std::vector<ReportBattle> shown = stream.take_shown();
  const std::vector<std::string> errors = stream.take_errors();
  ASSERT_EQ(shown.size(), 3u);
  EXPECT_EQ(errors[0], "");
  EXPECT_EQ(errors[1], want_error);
  EXPECT_EQ(errors[2], "");
  EXPECT_EQ(shown[2].text, report_battle(logs[2], start).text);
  EXPECT_TRUE(shown[1].text.empty());
}

TEST(ReportBattleStream, DestroyedUnclosedOrEmptyItEndsItsThread) {
  const GameState start = std::move(state_from_scenario(world("stream", {2, 10}), 7)).value();
  { ReportBattleStream idle(start); }
  ReportBattleStream closed(start);
  closed.close();
  EXPECT_TRUE(closed.take_shown().empty());
}

}  // namespace
}  // namespace adj
