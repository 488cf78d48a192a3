// Dark Age (seed 001, docs/rules/dark-age.md §1): formula losses, no dice.
//
// Strength: attacker = attacking armies (A); defender = the area's defence level
// D = armies + population + fort_weight * fort + terrain bonus (city bonus for cities), recomputed
// every round. Each term of a loss is rounded down separately (OQ-2):
//   MOVE     one round; each side loses ⌊opp/2⌋, the weaker side also ⌊diff/2⌋.
//   PROBE    one round; each side loses ⌊opp/3⌋.
//   ASSAULT  rounds until a side is wiped out; ⌊opp/3⌋ + ⌊diff/3⌋ for the weaker side. A round
//            with no losses on either side ends the battle as a failed attack (OQ-5).
//   OVERRUN  phase 1: the weaker side loses ⌊diff/3⌋; if defending armies remain, ASSAULT rounds
//            follow with one extra attacker loss per round.
// An ambush multiplies the attacker's losses in the first (assault) round (OQ-3); PROBE is immune.
// Only armies die. The attacker wins when no defending armies remain and attackers survive.
#pragma once

#include "rules/combat/combat_engine.h"

namespace adj {

// The defence level of `area` defended by `armies` armies under `rules`.
int dark_age_defence_level(const Area& area, int armies, const RulesConfig& rules);

class DarkAgeEngine final : public CombatEngine {
 public:
  // Deterministic; the Dark Age actions: RAID and INVADE (resolved by the turn loop,
  // rules/turn/turn_raids.cc) and the Gaelic conversion on retreat.
  const EngineTraits& traits() const override;
  // Only the defended area itself (and the origin) matter.
  int world_radius(const Json&) const override { return 0; }
  Status check_game(const GameState& state) const override;
  // Terrain: the keys of rules.terrain_bonus (the defence level's terrain bonus).
  EngineVocabulary vocabulary(const Json& options, const RulesConfig& rules) const override;
  Result<BattleOutcome> resolve(const BattleInput& in, Rng& rng) const override;
};

}  // namespace adj
