// Exalted 2e mass combat (seed 004, Oakthorne "WoA-Order"; docs/rules/exalted-mass-combat.md §5):
// cycles of War Events between two units.
//
// Mapping onto armies in areas:
//  - Magnitude from soldiers = armies × soldiers_per_army (option, default 100): 0 = 1 soldier
//    (a Solo Unit), 1 = 2-10, 2 = 11-75, 3 = 76-150, 4 = 151-300, 5 = 301-650, 6 = 651-1250,
//    7 = 1251-2500, 8 = 2501-5000, 9 = more. Recomputed before every cycle.
//  - Traits come from the owning player's profile, Player::engine_state {"profile": {...}}
//    (schemas/exalted_profiles.schema.json): commander {wits, war, charisma, intelligence},
//    unit {accuracy, damage, defense, might, hardness, soak, health_track} (or the soldiers'
//    {dexterity, ability, strength, weapon_*} from which Accuracy and Defense = ⌊(Dex + Ability +
//    weapon)/2⌋ and Damage = ⌈(Str + weapon damage)/3⌉, OQ-EX1), damage_type, and an optional
//    solo {attribute, ability, extra_dice, damage, essence, overwhelming} used when a force is a
//    single soldier. Players without a profile and unowned areas use options default_profile
//    (built-in: a mortal militia).
//  - Health: every army has health_track health levels (the profile's, default 3 = extras, 7 =
//    elite). Health levels lost fill the most wounded army first, then fresh ones; each army
//    whose track fills is an army lost. Partial damage persists: Area::engine_state
//    {"wounds": [levels, ...]} (one entry per wounded army; fresh armies are not listed). Wounded
//    armies move last (detach_units). No healing unless options heal_per_turn > 0 (end_turn).
// One cycle (attacker X strikes target Y), steps 1-10 of the seed:
//  2. War DV = (Int + War + unit Defense) / 2 rounded up (dv_rounding "down" for mortals), plus
//     terrain_dv[terrain], city_dv for cities, fort_dv × fort level and defend_dv in DEFEND
//     mode, when Y defends its own area; an attacking unit has its bare War DV (less
//     overrun_confusion after a failed overrun).
//  3. Attack roll: Wits + War + Accuracy dice (solo: Attribute + min(Ability, War) + extra dice,
//     OQ-EX3); a d10 of 7-9 is one success, 10 two; + (Magnitude X − Magnitude Y), capped by
//     magnitude_cap when set (OQ-EX2), clamped at 0 (OQ-EX6).
//  4. Optional Charm reroll (charm_rerolls.attacker): every failed die rerolled once.
//  5. − external penalties (external_penalty; + river_penalty attacking across a river edge;
//     + overrun_confusion after a failed overrun) − DV; ≤ 0 misses (difficulty 1 is then met).
//     Optional defender stunt dice (stunt_dice) subtract their successes.
//  6. Optional defender reroll (charm_rerolls.defender): failed stunt dice rerolled once.
//  7. Raw damage = remaining + Charisma + unit Damage (solo: its damage).
//  8. Hardness ≥ raw ⇒ no damage. Pool = raw − soak(damage type); below Magnitude X (solo:
//     max(Overwhelming, Essence)) ⇒ that many dice (ping; OQ-EX4: equal rolls as is). Damage
//     roll: each 7+ one level, a 10 counts once; + Might.
//  9. Reached only by a hit not stopped by Hardness (Steps 5, 6 and 8A: "this cycle of War Events
//     ends"). Counterattack, only when the defender elected it: the standing order COUNTER n
//     (DEFEND/ AMBUSH/RETREAT <area> ... COUNTER n, kept in Area::engine_state {"counter": n})
//     allows at most n counterattacks per battle in that area; none by default. Option
//     counterattack "always" counterattacks after every attack but a probe, hit or miss (the
//     pre-issue-12 reading). The counterattack re-runs steps 1-8 with the target striking the
//     attacking unit, both at their strength before the cycle's damage.
// 10. The attack's and the counterattack's damage are applied together.
// Attack kinds (an exchange = each attacking unit's cycle; in a fight to the finish, then the
// defender's own War Event against the largest attacking unit, unless defender_turns "never"):
//  MOVE    1 exchange (exchanges.move); the attacker takes the area only if no defenders remain.
//  ASSAULT a fight to the finish: exchanges until one side is destroyed or exchanges.assault (10);
//          survivors stop.
//  OVERRUN the first exchange is the attackers' strike alone (no counterattack, no defender
//          turn). If it clears the area the attackers may move on; otherwise the fight goes on to
//          the finish (at most exchanges.overrun = 10 exchanges in all) with overrun_confusion
//          (1) added to the attackers' external penalty and taken off their War DV; survivors
//          stop.
//  PROBE   one cycle (a counterattack if elected); the attacker always goes home and stops.
//  AMBUSH  (the defender ambushes the attacker's origin): the defender strikes a full cycle first
//          at the unit from that origin.
//  RETREAT the defenders withdraw first when the attacker's (largest unit's) Magnitude is at least
//          the defender's plus retreat_margin (1).
// Combined attacks (several attack groups): with combined "units" (default) every group is its
// own unit (its own Magnitude, river crossing and ambush), the units attack in group order in
// each exchange, and group_losses / group_units are filled; with "one_unit" the groups form one
// unit of their total Magnitude.
// Rolls are recorded in order: attack dice, rerolls, stunt dice, damage dice.
#pragma once

#include <vector>

#include "rules/combat/combat_engine.h"
#include "rules/combat/exalted_numbers.h"

namespace adj {

class ExaltedEngine final : public CombatEngine {
 public:
  const EngineTraits& traits() const override;
  Status check_game(const GameState& state) const override;
  EngineVocabulary vocabulary(const Json& options, const RulesConfig&) const override {
    return ex_vocabulary(options);
  }
  Status check_order(const Order& order, const GameState& state) const override;
  bool retreat_triggers(const BattleInput& in) const override;
  Result<BattleOutcome> resolve(const BattleInput& in, Rng& rng) const override;
  Json detach_units(Json& area_units, int area_armies, int n) const override;
  void merge_units(Json& area_units, int area_armies, const Json& incoming, int n) const override;
  void standing_order(const Order& order, Area& area, Player& player) const override;
  void end_turn(GameState& state) const override;
};

}  // namespace adj
