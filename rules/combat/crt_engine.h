// Combat results table (seed 003, docs/rules/crt.md §4): strengths, a column, one die, a result.
//
// Strength. Attack = the attacking armies of every group (a combined attack: "More than one unit
//   may participate in a given attack") × strength_per_army (default 1). Defence = defending
//   armies × strength_per_army + population × population_strength + fort × fort_strength (both 0
//   by default: forts count through the "fortified" shift instead).
// Column. method "differential" (attack − defence; the seed's table crt-differential) or "ratio"
//   (attack : defence rounded in the defender's favour; table crt-ratio). Then left shifts,
//   cumulative (OQ-CRT2): the target area's highest shift among its terrain, its features set to
//   true and "fortified" when its fort > 0 (OQ-CRT5), plus the chart's river shift by river_shift
//   over the groups' edges to the target ("all" (default): only when every group attacks across
//   a river; "any": when one does; "proportional": the shift × the strength across a river / the
//   attack, rounded up), plus ambush_shift (1) when the defender ambushes. An OVERRUN's first roll
//   shifts overrun_shift (1) columns right. The column is clamped to the table.
// Result (one die, the table's `die` faces). NR nothing; DRn the defender retreats n areas; AR the
//   attack fails and every group retreats attacker_retreat (1) areas from its own origin by the
//   same rules, or is eliminated when it cannot (0: they just go home); AE the attackers are
//   eliminated; DE the defenders are eliminated; EX the defenders are eliminated and the attacker
//   loses armies worth at least the defence strength. A table may define other codes from these
//   effects. Losses of a combined attack are taken one army at a time from the group with the
//   most armies left (the earlier group on a tie).
// Retreat. Each step goes to an adjacent land or city area owned by the retreating side (or, with
//   retreat_into_empty, an unowned empty area), not back into the battle area, not across an edge
//   with features.river, and, when zoc is on (default), not into an area adjacent to an enemy
//   force (for the defender: every group's origin and every attacker-owned area with armies).
//   Of the legal paths of exactly n steps the engine takes one whose first step is the area's
//   retreat location (its RETREAT standing order) when there is one, then the one ending
//   farthest (in steps) from the enemy, then the lowest end code, then the lowest path
//   (OQ-CRT4). A force that cannot retreat the full distance is eliminated.
// Advance ("Whenever a unit retreats from a hexagon or is eliminated as a result of combat, one of
//   the attacking units may enter the hexagon"): when the defenders are pushed out or destroyed,
//   `advance` (1) of the surviving attackers enter (BattleOutcome::advancing); "all" lets every
//   survivor in; 0 none (the attack then does not take the area). An area with no defenders is
//   entered by all.
// Attack kinds. MOVE: one roll. ASSAULT: an NR is rolled again, up to assault_rolls (2) rolls in
//   all; survivors stop. PROBE: one roll; the attacker never enters, AE counts as AR, survivors
//   stop, and it goes home on an AR. OVERRUN (overrun "rout", seed 001 5.5: "If successful the
//   attacker will suffer a minimum of losses, and the defender will be routed. If unsuccessful
//   the attacker will be thrown into confusion and forced to fight to the finish."): the first
//   roll is overrun_shift columns right; a result that pushes the defender out routs it
//   overrun_rout (1) areas further than the result says, at no extra cost, and the attacker may
//   move on; otherwise (NR or AR) it fights to the finish: before every further roll it loses
//   overrun_confusion_loss (1) armies, then rolls at the unshifted column of its remaining
//   strength; NR and AR roll again, a result that pushes the defender out ends it normally, AE
//   destroys the attacker; survivors stop. overrun "shift" is the old reading: one roll shifted
//   right, an AR costs one army.
// AMBUSH: ambush_shift columns to the left (PROBE is immune). RETREAT mode: the defenders
//   withdraw before the battle when at least half the die faces of the final column would push
//   them out or destroy them (retreat, elimination or exchange).
// Combat phase (phase_rules): "No unit may participate in more than one attack per combat phase.
//   No unit may be the object of more than one attack per combat phase." The phase is the turn
//   (combat_phase "turn", default) or one action round ("action"); one_attack_per_unit and
//   one_attack_per_target (both true) switch each sentence off. The turn loop enforces them.
#pragma once

#include "rules/combat/combat_engine.h"
#include "rules/combat/crt_data.h"

namespace adj {

// The legal retreat of `steps` areas for the defenders of in.to (path excluding in.to), empty
// when there is none. Deterministic (see the header comment).
std::vector<std::string> crt_retreat_path(const BattleInput& in, const CrtOptions& o, int steps);
// The same for one attacking group after an AR (OQ-CRT3): `steps` areas from group.from through
// group.player's own areas (or empty ones with retreat_into_empty), never into in.to or across a
// river, with zoc not next to a defending force (in.to and the defender's areas with armies).
std::vector<std::string> crt_attacker_retreat_path(const BattleInput& in, const AttackGroup& group,
                                                   const CrtOptions& o, int steps);

class CrtEngine final : public CombatEngine {
 public:
  const EngineTraits& traits() const override;
  // Retreat paths end as far as the table's longest retreat (plus an overrun's rout) from the
  // defended area, or the attacker's retreat from its origin, and are ranked by distance (up to 3)
  // from the nearest enemy force: all of it lies within that many steps plus 3.
  int world_radius(const Json& options) const override;
  Status check_game(const GameState& state) const override;
  EngineVocabulary vocabulary(const Json& options, const RulesConfig&) const override {
    return crt_vocabulary(options);
  }
  bool retreat_triggers(const BattleInput& in) const override;
  Result<BattleOutcome> resolve(const BattleInput& in, Rng& rng) const override;
  CombatPhaseRules phase_rules(const Json& options) const override;
};

}  // namespace adj
