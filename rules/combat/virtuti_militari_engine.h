// Virtuti Militari (seed 002, docs/rules/virtuti-militari.md §3): strength decides the winner, dice
// decide losses.
//
// Units. Each army of the map is one VM unit {type, level 1-3, hp, exhausted}. An area's units
// live in Area::engine_state as {"units": [...]} (missing entries = fresh units of the data's
// default_unit at level 1); the attacking force travels as the same {"units": [...]} object.
// Unit types, levels (attack, defence, hit points, die), the dice faces and the air token are
// data (schemas/vm_data.schema.json): the bundled PLACEHOLDER table schemas/tables/vm-default.json
// unless engine options give "data" (an object, or the name of a bundled table such as
// "vm-default"). Strength is counted in half-points (OQ-VM1), so a river halves exactly.
//
// The seven steps, per battle (one Move order in VM terms; a combined attack is one battle of
// several attack groups, each from its own area):
//  1. Strength: attacker = Σ attack of its non-exhausted units, each group's halved across its
//     own edge when that is an unfrozen river (edge feature "river" and neither area's weather
//     "frozen", nor edge feature "frozen") + the order bonus of the attack kind (options
//     order_bonus: move 1, assault 2, overrun 1, probe 0). Defender = Σ defence of its
//     non-exhausted units + the defence-mode bonus (DEFEND = the Defense order,
//     order_bonus.defend 1; AMBUSH against an attack group's origin = order_bonus.ambush 2;
//     otherwise 0) + fort level × fort_strength (1). Bonuses never halve (OQ-VM6). Support: each
//     area next to the battle (not an attack group's origin) with a standing
//     `SUPPORT <area> <battle area>` given by its current owner adds, to that owner's side if it
//     is the attacker or the defender, the attack (resp. defence) of its non-exhausted fighting
//     units, halved across an unfrozen river, + order_bonus.support (1) when it holds fighting
//     units; no dice (OQ-VM2). Its Fleets, in a land battle, give Shore Bombardment instead:
//     shore_bombardment (1) per non-exhausted Fleet. Stored in the area's engine_state
//     {"support": {"to", "by"}} and cleared by end_turn.
//     Fleets (units whose type is "naval" in the data) do not fight in a land battle: no
//     strength, no dice, no losses; an attacking force's Fleets ride along with it.
//  2. Cards: the attacker plays `CARD n` (1-based index into its hand, Player::engine_state
//     {"hand": [{"id","name"?,"strength","dice":[die...],"hp"}], "air": tokens}); the defender
//     plays the card chosen by its standing order `DEFEND|AMBUSH|RETREAT <area> CARD n AIR m`
//     (stored by card id in the area's engine_state "defence"). A played card leaves the hand.
//  3. Air: each committed token (`AIR m`, at most the player's tokens) adds the air token's
//     strength and one die; skipped (nothing committed) when the defended area is sea or its
//     weather is "mud". Used tokens return to the pool (option air_tokens_spent, default false).
//  4. Winner: the higher total; a tie goes to the side higher on the initiative track: options
//     "initiative" (player codes or nations) when given, else the turn's order of play
//     (GameState::order_of_play, earlier = higher); when neither side is ranked the defender
//     wins the tie.
//  5. Losses: each side rolls one die per non-exhausted fighting unit in the battle (its unit
//     die), plus card dice and air-token dice; damage = Σ pips. Defender absorbs first: each fort
//     level absorbs 1 (and is used up: forts_used_up, default true), each card HP symbol 1; then
//     the attacker with its card HP symbols. The rest hits units (OQ-VM4), never destroying a
//     unit while another can take a point: one unit at a time takes damage down to 1 HP, the unit
//     with the most hit points left first (ties: the stronger unit, then list order); when all
//     are at 1 HP each point destroys one, the weakest first. A unit whose HP falls to or below
//     the HP of the level below drops to that level. The attacker's units of all groups take
//     damage as one force; group_losses/group_units say whose units were lost.
//  6. The loser retreats. Attacker: each group home to its own origin (attacker_wins = false).
//     Defender: to one adjacent area its owner holds (land battle: a land area; naval battle: a
//     sea area or a port, area feature "port"): its standing RETREAT location if that qualifies,
//     else the one with the most armies, ties by code; none ⇒ every survivor is eliminated.
//     Retreated units are exhausted until end_turn (strength 0, no dice); detach_units moves
//     fresh units first.
//  7. A winning attacker advances with all its survivors (advancing = all) and captures; the
//     area's forts are removed (fort_after 0); the defender's Fleets in the area (its port) are
//     destroyed (counted in defender_losses).
// Attack kinds: MOVE is a Move order; ASSAULT is a Move order with the larger bonus whose
// survivors stop; OVERRUN (seed 001 5.5) is a Move order whose winner takes half the defender's
// damage (overrun_halves_losses) and whose failure destroys the attackers (overrun_failed
// "eliminated"; "retreat" = as MOVE); PROBE is a raid: steps 1-5 only, nobody retreats or
// advances, the attacker goes home (not exhausted) and stops. An area with no defending units
// that fight is taken without a battle (its Fleets destroyed). RETREAT defence mode withdraws
// before the battle when the attacker's step-1 strength exceeds the defender's.
// Strengths are counted in half-points; rounds keep them so, and detail.<side>_strength_points
// (round and outcome) gives them in points as text ("7.5") for reports.
// The engine is three files: its data (vm_data.h: tables, units, options, cards), its numbers
// (vm_numbers.h: strengths, initiative, dice, damage) and its resolution (this file's .cc: the
// seven steps applied to a battle).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "rules/combat/combat_engine.h"
#include "rules/combat/vm_data.h"

namespace adj {

class VirtutiMilitariEngine final : public CombatEngine {
 public:
  const EngineTraits& traits() const override;  // with SUPPORT orders
  Status check_game(const GameState& state) const override;
  EngineVocabulary vocabulary(const Json&, const RulesConfig&) const override {
    return vm_vocabulary();
  }
  Status check_order(const Order& order, const GameState& state) const override;
  bool retreat_triggers(const BattleInput& in) const override;
  Result<BattleOutcome> resolve(const BattleInput& in, Rng& rng) const override;
  Json detach_units(Json& area_units, int area_armies, int n) const override;
  // Fleets in a land area stay in its port when the other units withdraw.
  Json withdraw_units(Area& area, const Json& options, int& n) const override;
  // Exhausted units may not move (step 8).
  int movable_armies(const Area& area) const override;
  void merge_units(Json& area_units, int area_armies, const Json& incoming, int n) const override;
  void standing_order(const Order& order, Area& area, Player& player) const override;
  void end_turn(GameState& state) const override;
};

}  // namespace adj
