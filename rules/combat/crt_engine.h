// Combat results table (seed 003, seed_rules.md §4): strengths, a column, one die, a result.
//
// Strength. Attack = attacking armies × strength_per_army (default 1). Defence = defending
//   armies × strength_per_army + population × population_strength + fort × fort_strength (both 0
//   by default: forts count through the "fortified" shift instead).
// Column. method "differential" (attack − defence; the seed's table crt-differential) or "ratio"
//   (attack : defence rounded in the defender's favour; table crt-ratio). Then left shifts,
//   cumulative (OQ-CRT2): the target area's highest shift among its terrain, its features set to
//   true and "fortified" when its fort > 0 (OQ-CRT5), plus the chart's river shift when the edge
//   from the attacker has features.river, plus ambush_shift (1) when the defender ambushes. An
//   OVERRUN shifts overrun_shift (1) columns right. The column is clamped to the table.
// Result (one die, the table's `die` faces). NR nothing; DRn the defender retreats n areas; AR the
//   attack fails and the attacking units retreat attacker_retreat (1) areas from their origin by
//   the same rules, or are eliminated when they cannot (0: they just go home); AE the attackers are
//   eliminated; DE the defenders are eliminated; EX the defenders are eliminated and the attacker
//   loses armies worth at least the defence strength. A table may define other codes from these
//   effects.
// Retreat. Each step goes to an adjacent land or city area owned by the defender (or, with
//   retreat_into_empty, an unowned empty area), not back into the battle area, not across an edge
//   with features.river, and, when zoc is on (default), not into an area adjacent to an attacking
//   force (the attacker's origin or any attacker-owned area with armies). Of the legal paths of
//   exactly n steps the engine takes the one ending farthest (in steps) from those attacking
//   areas, then the lowest end code, then the lowest path (OQ-CRT4). A defender that cannot
//   retreat the full distance is eliminated.
// Attack kinds. MOVE: one roll; the attacker enters an area left empty. ASSAULT: an NR is rolled
//   again, up to assault_rolls (2) rolls in all; survivors stop. PROBE: one roll; the attacker
//   never enters, AE counts as AR, survivors stop. OVERRUN: one roll overrun_shift columns to the
//   right; an AR costs the attacker one army; it enters an area left empty and may move on.
// AMBUSH: ambush_shift columns to the left (PROBE is immune). RETREAT mode: the defenders
//   withdraw before the battle when at least half the die faces of the final column would push
//   them out or destroy them (retreat, elimination or exchange).
#pragma once

#include "rules/combat/combat_engine.h"
#include "rules/combat/crt_table.h"

namespace adj {

struct CrtOptions {
  CrtTable table;
  ShiftChart shifts;
  int strength_per_army = 1;
  int population_strength = 0;
  int fort_strength = 0;
  bool zoc = true;
  bool retreat_into_empty = false;
  int ambush_shift = 1;
  int overrun_shift = 1;
  int assault_rolls = 2;
  int attacker_retreat = 1;  // areas an AR retreats the attackers from their origin (0: home)
};

// Parses and checks the engine options; `validate` also checks the table documents against
// schemas/crt_table.schema.json. Errors are "/engine/options/<key>...: <what is wrong>".
Result<CrtOptions> crt_options_from_json(const Json& options, bool validate);

// The legal retreat of `steps` areas for the defenders of in.to (path excluding in.to), empty
// when there is none. Deterministic (see the header comment).
std::vector<std::string> crt_retreat_path(const BattleInput& in, const CrtOptions& o, int steps);
// The same for the attacking units after an AR (OQ-CRT3): `steps` areas from in.from through the
// attacker's own areas (or empty ones with retreat_into_empty), never into in.to or across a
// river, with zoc not next to a defending force (in.to and the defender's areas with armies).
std::vector<std::string> crt_attacker_retreat_path(const BattleInput& in, const CrtOptions& o,
                                                   int steps);

class CrtEngine final : public CombatEngine {
 public:
  std::string_view name() const override { return "crt"; }
  std::string_view summary() const override;
  bool deterministic() const override { return false; }
  // Retreat paths end up to 2 areas away and are ranked by distance (up to 3) from the nearest
  // attacking force; every such path and force lies within 5 steps of the defended area.
  int world_radius() const override { return 5; }
  Status check_game(const GameState& state) const override;
  bool retreat_triggers(const BattleInput& in) const override;
  Result<BattleOutcome> resolve(const BattleInput& in, Rng& rng) const override;
  std::string_view order_help() const override;
};

}  // namespace adj
