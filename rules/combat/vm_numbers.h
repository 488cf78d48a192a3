// Virtuti Militari's numbers (the rules: virtuti_militari_engine.h): each side's strength in
// half-points (step 1), the initiative track (step 4), the dice (step 5) and how damage falls on
// units. What the engine's resolve() applies; pure functions (the dice through the Rng passed
// in); thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rules/combat/vm_data.h"

namespace adj {

// One area's SUPPORT in a battle: its strength in half-points (units at half across an unfrozen
// river, plus the support order bonus).
struct VmSupporter {
  std::string area;
  int points = 0;   // the whole contribution, shore bombardment included
  int bombard = 0;  // of which Shore Bombardment
};
// The supporters as JSON for a battle's detail: area, points (and shore_bombardment).
Json vm_support_json(const std::vector<VmSupporter>& list);

// Step 1 for both sides, in half-points.
struct VmStrength {
  int attacker_units = 0, attacker_bonus = 0;
  int defender_units = 0, defender_bonus = 0, fort = 0;
  bool river = false;            // some group attacks across an open river
  std::vector<int> group_units;  // each group's units, after its own river halving
  std::vector<bool> group_river;
  std::vector<VmSupporter> attacker_support, defender_support;
  static int total(const std::vector<VmSupporter>& list) {
    int n = 0;
    for (const auto& s : list) n += s.points;
    return n;
  }
  int attacker_support_total() const { return total(attacker_support); }
  int defender_support_total() const { return total(defender_support); }
};

// Step 1 for both sides, in half-points: the attacking units of each group (halved across its own
// unfrozen river), the order bonus, the defending units, the defence-mode bonus, the forts and
// the SUPPORT of the areas around (strength, no dice; Fleets there give Shore Bombardment).
VmStrength vm_step1(const BattleInput& in, const std::vector<AttackGroup>& groups,
                    const std::vector<VmUnit>& att, const std::vector<VmUnit>& def,
                    const VmData& data, const VmOptions& o);

// Whether a unit fights in a battle in `to`: Fleets do not fight on land (seed 002: fleets are
// destroyed, not retreated, when a port is captured; land supports land, naval supports naval).
bool vm_fights(const VmUnit& u, const Area& to, const VmData& data);
// Splits `units` into those that fight in a battle in `to` and those that do not (Fleets on land).
void vm_split_fighting(std::vector<VmUnit>& units, std::vector<VmUnit>& idle, const Area& to,
                       const VmData& data);
// Whether the edge a-b is a river that is not frozen (by the edge or the weather at either end).
bool vm_open_river(const GameState& w, const std::string& a, const std::string& b,
                   const VmOptions& o);
// The attacking units of every group, in group order, each tagged with its group.
std::vector<VmUnit> vm_attacking_units(const std::vector<AttackGroup>& groups, const VmData& data);

// Initiative rank: lower is higher on the track; INT_MAX when not listed. The track is options
// "initiative" (player codes or nations) when given, else the turn's order of play (earlier is
// higher).
int vm_initiative_rank(const GameState& w, const std::optional<std::string>& code,
                       const VmOptions& o);
// A strength in half-points as points: "7", "7.5", "-0.5".
std::string vm_points_text(int half);

// Rolls one die by name; appends pips to `pips` and the roll to `log`; returns the pips.
int vm_roll(const VmData& data, const std::string& die, Rng& rng, std::vector<int>& pips, Json& log,
            const std::string& source);
// Applies `damage` points to `units` (rules of step 5); returns the number destroyed (removed).
int vm_apply_damage(std::vector<VmUnit>& units, int damage, const VmData& data);

}  // namespace adj
