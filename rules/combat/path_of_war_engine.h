// Path of War (seed 000, seed_rules.md §2): tanks, dice and simultaneous exchanges of fire.
//
// Units. Every army is a tank with `hit_points` HP (default 10). Per-area HP lives in
// Area::engine_state as {"hp": [h1, h2, ...]}: the HP of some of the area's tanks; the tanks not
// listed are fresh. The engine writes only damaged tanks, healthiest first, and an all-fresh force
// as {}. detach_units() sends the healthiest tanks (fresh ones first; the most damaged stay
// behind); merge_units() pools the lists. Neither needs the game's options.
//
// Fire. A force fires N dice (boardgame), shots (videogamer) or 5-HP shots (no-luck):
//   N = tanks + Σ terrain "from" of the firing area + Σ terrain "against" of the target area
//       + flanking (+1: another area of the firing side with armies, adjacent to the target area,
//         not across a sidemountain edge; at most +1)
//       − 1 when the enemy force has 3 or more tanks more (outnumbered)
//       + 1 when the target area is on a road and the firing area is not (feature "road")
//       + 2 when the target area is on rails and the firing area is not (feature "rails")
//   then N = max(N, 1). An area's terrain tags are its `terrain` plus every feature set to true
//   that names a terrain-table entry (e.g. "castle": true, "village": true). Default table:
//   hills/plateau +1 from −1 against; forest +1/−1; village/city −1/−1; castle/radar 0/−2.
//   All numbers are engine options (`terrain`, `modifiers`).
// Damage. boardgame: each die of 5+ destroys a tank, hits capped at the target's tanks (most
//   damaged first). videogamer: each shot draws a damage from {1,2,4,6,9,12}; the n highest
//   apply (n = target tanks), largest to the most damaged tank; a tank at ≤0 HP is destroyed.
//   no-luck: no dice; shots of hit_points/2 go to the most damaged tank first, each tank taking
//   the shots it needs to die, a remainder damaging the next one.
// Exchange. Both sides fire from the state at its start (the attacker's dice are drawn first),
//   and casualties are removed after it: a destroyed tank still fires.
// Attack kinds.
//   MOVE     one exchange; the attacker enters only if no defender survives it.
//   ASSAULT  exchanges until a side is destroyed or `max_exchanges` (20) pass (then it fails);
//            survivors stop for the turn.
//   PROBE    one exchange in which both sides fire half their dice (rounded down, at least the
//            minimum); survivors stop; it enters only if no defender survives. Ambush-immune.
//   OVERRUN  one exchange in which the defender fires one extra die; if defenders survive it
//            becomes an ASSAULT (survivors stop); if the first exchange clears the area, the
//            attacker enters and may move on.
// AMBUSH: before the first exchange the ambushing defender fires one volley alone; casualties are
//   removed before the exchange. RETREAT mode: the defenders withdraw before the battle when the
//   attacking tanks outnumber the defending tanks. No attack or move crosses a sidemountain edge
//   (check_order rejects it; resolve() returns a battle without fire if one reaches it).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "rules/combat/combat_engine.h"

namespace adj {

enum class PowVariant { kBoardgame, kVideogamer, kNoLuck };

struct PowTerrain {
  int from = 0;     // dice added when firing from an area with this tag
  int against = 0;  // dice added when firing at an area with this tag
};

// The engine's options with their defaults (seed_rules.md §2.2, OQ-PW6).
struct PowOptions {
  PowVariant variant = PowVariant::kBoardgame;
  int hit_points = 10;
  int shot_damage = 5;  // no-luck: HP per shot (default hit_points / 2, rounded up)
  int hit_on = 5;       // boardgame: the lowest die face that hits
  std::vector<int> damages = {1, 2, 4, 6, 9, 12};  // videogamer damage faces
  std::map<std::string, PowTerrain> terrain;
  int flanking = 1;
  int outnumbered = -1;
  int outnumbered_by = 3;
  int road = 1;
  int rails = 2;
  int min_dice = 1;
  int max_exchanges = 20;
  int overrun_defender_bonus = 1;
};

// Parses and checks `options` (the scenario's engine options). Errors are
// "/engine/options/<key>: <what is wrong>".
Result<PowOptions> pow_options_from_json(const Json& options);

// HP of `armies` tanks from an engine_state object, healthiest first (unlisted tanks fresh;
// listed values are clamped to 1..hit_points; a list longer than `armies` keeps its healthiest).
std::vector<int> pow_hp_list(const Json& units, int armies, int hit_points);
// The engine_state form of a force: {} when every tank is fresh, else {"hp": [damaged, ...]}.
Json pow_units_json(std::vector<int> hp, int hit_points);

class PathOfWarEngine final : public CombatEngine {
 public:
  std::string_view name() const override { return "path-of-war"; }
  std::string_view summary() const override;
  bool deterministic() const override { return false; }  // the no-luck variant never draws
  Status check_game(const GameState& state) const override;
  Status check_order(const Order& order, const GameState& state) const override;
  bool retreat_triggers(const BattleInput& in) const override;
  Result<BattleOutcome> resolve(const BattleInput& in, Rng& rng) const override;
  Json detach_units(Json& area_units, int area_armies, int n) const override;
  void merge_units(Json& area_units, int area_armies, const Json& incoming, int n) const override;
  std::string_view order_help() const override;
};

}  // namespace adj
