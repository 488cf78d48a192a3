// Resolving a turn: a pure function from the open turn's starting state and the players' accepted
// orders to the next state, with every action's result and every battle's log.
//
// Order of processing (docs/rules/dark-age.md §1.3): action 1 of every player in the turn's order
// of play, then action 2, ..., action N. The order of play is a seeded permutation on turn 1 and
// afterwards the result of the previous turn's ORDER bids. Then the end of turn: leftover BPs,
// income, trade, reserves and the next order of play.
//
// Determinism: the same state and orders give byte-identical results. Randomness comes only from
// streams derived from state.seed ("turn:N", then "battle:<id>" and "order-of-play:N").
#pragma once

#include <map>
#include <string>
#include <vector>

#include "rules/combat/combat_engine.h"
#include "rules/turn/turn_result.h"

namespace adj {

using OrderBook = std::map<std::string, std::vector<Order>>;  // player code -> accepted orders

// Sees each battle of a resolve_turn() call as soon as its log is final: on the resolving thread,
// once per battle, in the order of TurnResult::battles. The log passed to battle() stays at the
// same address, unchanged, until close() returns; the run calls close() once after its last
// battle (also when it fails or throws), before the logs move into TurnResult::battles. A run that
// throws before it begins (out of memory copying the state) shows no battle and does not call
// close(): the sink's owner closes it. A caller may so work on each battle (on a thread of its
// own) while the turn is still being resolved.
class BattleSink {
 public:
  virtual ~BattleSink() = default;
  virtual void battle(const BattleLog& log) = 0;
  // Returns once the sink reads no log any more.
  virtual void close() = 0;
};

// REQUIRES: `state` is valid (scenario-checked) and `engine` is the game's engine.
Result<TurnResult> resolve_turn(const GameState& state, const OrderBook& orders,
                                const CombatEngine& engine);
// The same, taking the orders (TurnResult::orders) instead of copying them: a big turn's book
// holds 160,000 orders.
Result<TurnResult> resolve_turn(const GameState& state, OrderBook&& orders,
                                const CombatEngine& engine);
// The same, showing each battle to `sink` (null: none) as it is logged. The result is the same.
Result<TurnResult> resolve_turn(const GameState& state, OrderBook&& orders,
                                const CombatEngine& engine, BattleSink* sink);

// The seed of turn `turn` of a game.
Seed turn_seed(Seed game_seed, int turn);

}  // namespace adj
