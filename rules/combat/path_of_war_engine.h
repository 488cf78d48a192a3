// Path of War (seed 000, docs/rules/path-of-war.md §2): tanks, dice and simultaneous exchanges of
// fire.
//
// Units. Every army is a tank with `hit_points` HP (default 10). Per-area HP lives in
// Area::engine_state as {"hp": [h1, h2, ...]}: the HP of some of the area's tanks; the tanks not
// listed are fresh. The engine writes only damaged tanks, healthiest first, and an all-fresh force
// as {}. detach_units() sends the healthiest tanks (fresh ones first; the most damaged stay
// behind); merge_units() pools the lists. Neither needs the game's options.
//
// Groups. Each attacking group (BattleInput::groups; one unless several areas attack the area
// together) is a unit of its own: it fires its own dice with its own modifiers, and the defender
// answers each group with its full strength, computed against that group. All fire from the state
// at the start of the exchange; casualties are removed after it (a destroyed tank still fires).
// Each group's hits are capped at the target's tanks, and the groups' hits together never exceed
// them. The outcome gives group_losses and group_units.
// Fire. A force fires N dice (boardgame), shots (videogamer) or shots (no-luck):
//   N = tanks + Σ terrain "from" of the firing area + Σ terrain "against" of the target area
//       + flanking (+1: another attacking group, or another area of the firing side with armies,
//         adjacent to the target area and not across a sidemountain edge; at most +1)
//       − 1 when the enemy force has 3 or more tanks more (outnumbered; per group)
//       + 1 when the target area is on a road and the firing area is not (feature "road")
//       + 2 when the target area is on rails and the firing area is not (feature "rails")
//       + attack-kind dice (OVERRUN confusion; the old overrun_defender_bonus)
//   then halved, rounded down, for a PROBE, and only then N = max(N, min_dice): every modifier
//   sums before the floor. An area's terrain tags are its `terrain` plus every feature set to
//   true that names a terrain-table entry (e.g. "castle": true, "village": true). Default table:
//   hills/plateau +1 from −1 against; forest +1/−1; village/city −1/−1; castle/radar 0/−2.
//   All numbers are engine options (`terrain`, `modifiers`).
// Damage. boardgame: each die of 5+ destroys a tank, hits capped at the target's tanks (most
//   damaged first). videogamer: each shot draws a damage from {1,2,4,6,9,12}; the n highest
//   apply (n = target tanks), largest to the most damaged tank; a tank at ≤0 HP is destroyed.
//   no-luck: no dice; one shot destroys a damaged tank (any HP below hit_points), two a fresh one
//   (one if shot_damage >= hit_points); shots go to the most damaged tank first, and a left-over
//   shot damages a fresh tank by shot_damage.
// Attack kinds.
//   MOVE     one exchange; the attacker enters only if no defender survives it.
//   ASSAULT  exchanges until a side is destroyed or `max_exchanges` (20) pass (then it fails);
//            survivors stop for the turn.
//   PROBE    one exchange in which both sides fire half their dice; survivors stop; it enters
//            only if no defender survives. Ambush-immune.
//   OVERRUN  (seed 001 5.5) the attacker fires alone first and the defender's casualties are
//            removed before it could answer; if that clears the area the attacker enters and may
//            move on (the defender is "routed": destroyed). Otherwise it continues as an ASSAULT
//            (survivors stop) in which the attacker, "thrown into confusion", loses
//            overrun_confusion_losses (1) extra tanks and fires overrun_confusion_dice (0) fewer
//            dice in every exchange. The old option overrun_defender_bonus selects the previous
//            rule instead (PowOptions).
// AMBUSH: before the first exchange the ambushing defender fires one volley alone at the group
//   that comes from the area the ambush is set against; casualties are removed before the
//   exchange. RETREAT mode: the defenders withdraw before the battle when the attacking tanks
//   outnumber the defending tanks. No attack or move crosses a sidemountain edge (check_order
//   rejects it; a group across one that reaches resolve() does not fight).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "rules/combat/combat_engine.h"
#include "rules/combat/path_of_war_numbers.h"

namespace adj {

class PathOfWarEngine final : public CombatEngine {
 public:
  // Not deterministic (the no-luck variant never draws, the others do); simultaneous fire (seed
  // 000: "combat is actually simultaneous ... casualties are removed after combat": every
  // player's attack of one action round on one area fires in one battle).
  const EngineTraits& traits() const override;
  Status check_game(const GameState& state) const override;
  EngineVocabulary vocabulary(const Json& options, const RulesConfig&) const override {
    return pow_vocabulary(options);
  }
  Status check_order(const Order& order, const GameState& state) const override;
  bool retreat_triggers(const BattleInput& in) const override;
  Result<BattleOutcome> resolve(const BattleInput& in, Rng& rng) const override;
  Json detach_units(Json& area_units, int area_armies, int n) const override;
  void merge_units(Json& area_units, int area_armies, const Json& incoming, int n) const override;
};

}  // namespace adj
