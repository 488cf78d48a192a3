// The turn resolver and BattleOutcome::attacker_retreats_to: a failed attacker's survivors go
// where the engine retreats them (an own or empty area), stop there, and the action says so.
#include <gtest/gtest.h>

#include "rules/turn/turn_resolver.h"
#include "tests/rules/combat/engine_world.h"

namespace adj {
namespace {

// Every battle: the attack fails, one attacker is lost, the rest retreat to `dest`.
class RetreatingEngine : public CombatEngine {
 public:
  explicit RetreatingEngine(std::string dest) : dest_(std::move(dest)) {}
  const EngineTraits& traits() const override {
    static constexpr EngineTraits kTraits{
        .name = "retreating", .summary = "test engine", .deterministic = true};
    return kTraits;
  }
  Result<BattleOutcome> resolve(const BattleInput& in, Rng&) const override {
    BattleOutcome out;
    out.attacker_losses = 1;
    out.attacker_retreats_to = dest_;
    out.rounds.push_back(BattleRound{});
    (void)in;
    return out;
  }

 private:
  std::string dest_;
};

GameState retreat_map() {
  GameState s = testing::engine_world(
      "retreating", {"AAA", "BBB"},
      {{"HOM", "AAA", 0}, {"ATT", "AAA", 4}, {"TGT", "BBB", 2}, {"EMP", std::nullopt, 0}},
      {{"HOM", "ATT"}, {"ATT", "TGT"}, {"ATT", "EMP"}});
  for (Player& p : s.players) p.bp = 10;
  s.order_of_play = {"AAA", "BBB"};
  s.turn = 2;
  return s;
}

OrderBook attack_then_move_on(const std::string& then_from) {
  Order attack;
  attack.line = 1;
  attack.action = 1;
  attack.verb = Verb::kMove;
  attack.from = "ATT";
  attack.to = "TGT";
  attack.qty = {Quantity::Kind::kExact, 3};
  attack.text = "MOVE ATT TGT 3";
  Order again = attack;
  again.line = 2;
  again.action = 2;
  again.from = then_from;
  again.to = "ATT";
  again.qty = {Quantity::Kind::kAll, 0};
  again.text = "MOVE " + then_from + " ATT";
  return {{"AAA", {attack, again}}};
}

TEST(AttackerRetreat, SurvivorsGoWhereTheEngineSaysAndStop) {
  const RetreatingEngine engine("HOM");
  auto res = resolve_turn(retreat_map(), attack_then_move_on("HOM"), engine);
  ASSERT_TRUE(res.ok()) << res.status().to_string();
  const GameState& next = res->next_state;
  EXPECT_EQ(next.find_area("HOM")->armies, 2);  // 3 attacked, 1 lost, 2 retreated (and stopped)
  EXPECT_EQ(next.find_area("ATT")->armies, 1);  // the one left behind
  EXPECT_EQ(next.find_area("TGT")->armies, 2);
  ASSERT_GE(res->actions.size(), 2u);
  EXPECT_FALSE(res->actions[0].ok);
  EXPECT_EQ(res->actions[0].message, "the attack failed: 2 armies retreated to HOM");
  EXPECT_FALSE(res->actions[1].ok) << res->actions[1].message;  // retreated armies stay put
}

TEST(AttackerRetreat, IntoAnEmptyAreaTakesIt) {
  const RetreatingEngine engine("EMP");
  auto res = resolve_turn(retreat_map(), attack_then_move_on("HOM"), engine);
  ASSERT_TRUE(res.ok()) << res.status().to_string();
  const Area* emp = res->next_state.find_area("EMP");
  EXPECT_EQ(emp->armies, 2);
  ASSERT_TRUE(emp->owner);
  EXPECT_EQ(*emp->owner, "AAA");
}

}  // namespace
}  // namespace adj
