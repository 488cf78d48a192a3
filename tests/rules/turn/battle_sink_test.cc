// resolve_turn's BattleSink: every battle shown once, in the order of TurnResult::battles, at an
// address that holds the same log until close(); close() once, also when the run fails; and the
// same result as a run without a sink.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "rules/combat/engine_registry.h"
#include "rules/game/scenario.h"
#include "rules/orders/validator.h"
#include "rules/turn/turn_resolver.h"
#include "tests/support/grid_world.h"

namespace adj {
namespace {

using namespace testing::grid_world;

// Remembers each log's address and id as shown; at close(), checks that every address still
// holds the log it was shown with.
class RecordingSink : public BattleSink {
 public:
  void battle(const BattleLog& log) override {
    EXPECT_EQ(closes, 0) << "a battle after close()";
    seen.push_back({&log, log.id, log.to, log.input.size()});
  }
  void close() override {
    ++closes;
    for (const Seen& s : seen) {
      EXPECT_EQ(s.log->id, s.id);
      EXPECT_EQ(s.log->to, s.to);
      EXPECT_EQ(s.log->input.size(), s.input_bytes);
    }
  }
  struct Seen {
    const BattleLog* log;
    std::string id, to;
    std::size_t input_bytes;
  };
  std::vector<Seen> seen;
  int closes = 0;
};

struct SinkTurn {
  GameState start;
  OrderBook book;
  const CombatEngine* engine = nullptr;
};

SinkTurn grid_turn(int players) {
  SinkTurn t;
  const Size size{players, 20};
  t.start = std::move(state_from_scenario(world("sink", size), 7)).value();
  t.engine = find_engine(t.start.engine.name);
  for (int p = 0; p < players; ++p) {
    OrderAck ack = check_order_file(orders_for(p, "sink", size), t.start, t.engine);
    EXPECT_FALSE(ack.refused) << player(p);
    t.book[ack.player] = ack.orders;
  }
  return t;
}

TEST(BattleSink, SeesEveryBattleOnceInOrderAtAStableAddressAndChangesNothing) {
  const SinkTurn t = grid_turn(40);
  Result<TurnResult> plain = resolve_turn(t.start, t.book, *t.engine);
  ASSERT_TRUE(plain.ok()) << plain.status().to_string();
  ASSERT_GT(plain->battles.size(), 100u);  // enough that the logs' container grew many times

  RecordingSink sink;
  Result<TurnResult> sunk = resolve_turn(t.start, OrderBook(t.book), *t.engine, &sink);
  ASSERT_TRUE(sunk.ok()) << sunk.status().to_string();
  EXPECT_EQ(sink.closes, 1);
  EXPECT_EQ(sunk->digest, plain->digest);
  ASSERT_EQ(sink.seen.size(), sunk->battles.size());
  ASSERT_EQ(sunk->battles.size(), plain->battles.size());
  for (std::size_t i = 0; i < sunk->battles.size(); ++i) {
    EXPECT_EQ(sink.seen[i].id, sunk->battles[i].id) << i;
    EXPECT_EQ(sunk->battles[i].id, plain->battles[i].id) << i;
    EXPECT_EQ(sunk->battles[i].input, plain->battles[i].input) << i;
    EXPECT_EQ(sunk->battles[i].outcome.attacker_losses, plain->battles[i].outcome.attacker_losses);
  }
}

TEST(BattleSink, ClosedOnceWhenTheRunFails) {
  SinkTurn t = grid_turn(2);
  t.book["NOBODY"] = t.book.begin()->second;  // orders for a player not in the game
  RecordingSink sink;
  Result<TurnResult> r = resolve_turn(t.start, std::move(t.book), *t.engine, &sink);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(sink.closes, 1);
  EXPECT_TRUE(sink.seen.empty());
}

}  // namespace
}  // namespace adj
