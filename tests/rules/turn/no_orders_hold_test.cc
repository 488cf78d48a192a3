// A player without orders (missed the turn, or a position in civil disorder) holds: none of their
// armies moves, they act in no slot, and their standing defences (defence mode, ambush target,
// retreat destination) carry over to the next turn unchanged.
#include <gtest/gtest.h>

#include "rules/turn/turn_resolver.h"
#include "tests/rules/combat/engine_world.h"

namespace adj {
namespace {

// No battle may happen in these turns.
class NoBattleEngine : public CombatEngine {
 public:
  const EngineTraits& traits() const override {
    static constexpr EngineTraits kTraits{
        .name = "no-battle", .summary = "test engine", .deterministic = true};
    return kTraits;
  }
  Result<BattleOutcome> resolve(const BattleInput&, Rng&) const override {
    ADD_FAILURE() << "no battle expected";
    return Status::Internal("no battle expected");
  }
};

GameState hold_world() {
  GameState s =
      testing::engine_world("no-battle", {"AAA", "BBB"},
                            {{"AHM", "AAA", 3},
                             {"AEX", "AAA", 0},
                             {"BHM", "BBB", 5},
                             {"BFW", "BBB", 2},
                             {"BRT", "BBB", 1}},
                            {{"AHM", "AEX"}, {"BHM", "BFW"}, {"BFW", "BRT"}, {"AEX", "BRT"}});
  for (Player& p : s.players) p.bp = 10;
  Area* fw = s.find_area("BFW");
  fw->mode = DefenceMode::kAmbush;
  fw->ambush_against = "BRT";
  Area* hm = s.find_area("BHM");
  hm->mode = DefenceMode::kDefend;
  Area* rt = s.find_area("BRT");
  rt->mode = DefenceMode::kRetreat;
  rt->retreat_to = "BFW";
  s.order_of_play = {"AAA", "BBB"};
  s.turn = 3;
  return s;
}

TEST(NoOrdersHold, APlayerWithoutOrdersKeepsEveryAreaAndStandingDefence) {
  const GameState before = hold_world();
  Order move;
  move.line = 1;
  move.action = 1;
  move.verb = Verb::kMove;
  move.from = "AHM";
  move.to = "AEX";
  move.qty = {Quantity::Kind::kExact, 2};
  move.text = "MOVE AHM AEX 2";
  const OrderBook book = {{"AAA", {move}}};  // BBB sent nothing

  NoBattleEngine engine;
  Result<TurnResult> r = resolve_turn(before, book, engine);
  ASSERT_TRUE(r.ok()) << r.status().to_string();

  for (const ActionResult& a : r->actions) EXPECT_NE(a.player, "BBB") << a.text;
  const GameState& next = r->next_state;
  for (const char* code : {"BHM", "BFW", "BRT"}) {
    const Area* was = before.find_area(code);
    const Area* now = next.find_area(code);
    ASSERT_NE(now, nullptr);
    EXPECT_EQ(now->owner, was->owner) << code;
    EXPECT_EQ(now->armies, was->armies) << code;
    EXPECT_EQ(now->mode, was->mode) << code;
    EXPECT_EQ(now->ambush_against, was->ambush_against) << code;
    EXPECT_EQ(now->retreat_to, was->retreat_to) << code;
  }
  // The other player's orders were carried out (the turn did run).
  EXPECT_EQ(next.find_area("AEX")->armies, 2);
  EXPECT_EQ(next.find_area("AHM")->armies, 1);
}

}  // namespace
}  // namespace adj
