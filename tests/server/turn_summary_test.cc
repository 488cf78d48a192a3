// turn_summary_text (server/app/turn_summary.h) against the tree it replaces: byte for byte on a
// grid turn, with and without draws and an ending, and on strings that need escaping or are not
// UTF-8.
#include "server/app/turn_summary.h"

#include <gtest/gtest.h>

#include "rules/combat/engine_registry.h"
#include "rules/game/scenario.h"
#include "rules/orders/validator.h"
#include "rules/report/report.h"
#include "tests/support/grid_world.h"

namespace adj {
namespace {

namespace gw = testing::grid_world;

struct SummaryRun {
  TurnResult result;
  Json roundup;
  std::string digest;
  std::vector<std::string> without{"P0003", "P0007"};
  std::set<std::string> draws;
  std::optional<Ending> ending;

  TurnSummaryParts parts() const {
    return {&digest, &roundup, &without, &result.orders, &result.actions, &draws, &ending};
  }
};

SummaryRun grid_run() {
  SummaryRun r;
  Result<GameState> start = state_from_scenario(gw::world("sum", {40, 20}), 7);
  EXPECT_TRUE(start.ok()) << start.status().to_string();
  const CombatEngine* engine = find_engine(start->engine.name);
  OrderBook book;
  for (int p = 0; p < 40; ++p) {
    OrderAck ack = check_order_file(gw::orders_for(p, "sum", {40, 20}), *start, engine);
    EXPECT_FALSE(ack.refused) << ack.refusal;
    book[ack.player] = ack.orders;
  }
  Result<TurnResult> res = resolve_turn(*start, std::move(book), *engine);
  EXPECT_TRUE(res.ok()) << res.status().to_string();
  r.result = std::move(res).value();
  r.roundup = build_roundup(r.result);
  r.digest = r.result.digest;
  return r;
}

TEST(TurnSummary, TextIsTheTreesDumpByteForByte) {
  SummaryRun r = grid_run();
  ASSERT_GT(r.result.actions.size(), 100u);
  EXPECT_EQ(turn_summary_text(r.parts()), turn_summary(r.parts()).dump());

  r.draws = {"P0001", "P0002"};
  Ending e;
  e.kind = "draw";
  e.turn = 1;
  e.reason = "Every kingdom proposed a draw \xC3\xA9.";
  e.winners = {"P0001", "P0002"};
  e.standings.push_back({1, "P0001", "One \"first\"", 3, 5, 9, "drawn"});
  r.ending = e;
  r.result.orders["Z\"odd\\"];  // a key that needs escaping, with no lines
  r.result.actions[0].message = "tab\there \x01 and \xE2\x82\xAC";
  r.result.actions[1].battle = "1.2.P0000";
  const std::string text = turn_summary_text(r.parts());
  EXPECT_EQ(text, turn_summary(r.parts()).dump());
  EXPECT_NE(text.find("\"ending\":{"), std::string::npos);
  EXPECT_NE(text.find("\"draw\":[\"P0001\",\"P0002\"]"), std::string::npos);
}

TEST(TurnSummary, InvalidUtf8FailsAsDumpDoes) {
  SummaryRun r = grid_run();
  r.result.actions[3].text = "bad \xFF";
  EXPECT_THROW(turn_summary(r.parts()).dump(), Json::type_error);
  EXPECT_THROW(turn_summary_text(r.parts()), Json::type_error);
}

}  // namespace
}  // namespace adj
