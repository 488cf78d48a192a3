#include "rules/combat/vm_numbers.h"

#include <algorithm>
#include <climits>

namespace adj {

namespace {

// The areas next to the battle with a SUPPORT order for it, given by their current owner, on the
// attacker's or the defender's side (seed 3.2 step 1; OQ-VM2: they add strength, no dice). An
// area an attack group comes from does not also support it (one order per area). In a land
// battle a supporting area's Fleets do not add their strength: each non-exhausted Fleet adds
// `shore_bombardment` points instead (seed: "Bonus values from ... Shore Bombardment Orders";
// a bonus, so never halved, OQ-VM6). The Support order's bonus counts when the area holds units
// that fight in the battle; an area with none of those and no Fleet adds nothing.
void add_support(const BattleInput& in, const std::vector<AttackGroup>& groups, const VmData& data,
                 const VmOptions& o, VmStrength& s) {
  const GameState& w = *in.world;
  const Area& to = in.target();
  for (const std::string& code : w.neighbours(in.to)) {
    if (std::any_of(groups.begin(), groups.end(),
                    [&](const AttackGroup& g) { return g.from == code; }))
      continue;
    const Area* a = w.find_area(code);
    if (!a || !a->owner || !a->engine_state.is_object()) continue;
    const Json& sup = a->engine_state.value("support", Json());
    if (!sup.is_object() || sup.value("to", "") != in.to || sup.value("by", "") != *a->owner)
      continue;
    const bool attacking = *a->owner == in.attacker;
    if (!attacking && a->owner != to.owner) continue;
    int units = 0, fleets = 0;
    bool fighters = false;  // units that fight in this battle (exhausted or not)
    for (const auto& u : vm_units_of(a->engine_state, a->armies, data)) {
      if (!vm_fights(u, to, data)) {
        if (!u.exhausted) ++fleets;
        continue;
      }
      fighters = true;
      if (!u.exhausted)
        units += 2 * (attacking ? data.level_of(u).attack : data.level_of(u).defense);
    }
    if (vm_open_river(w, code, in.to, o)) units /= 2;
    const int bonus = fighters ? 2 * o.bonus.at("support") : 0;
    const int bombard = 2 * o.shore * fleets;
    if (!fighters && fleets == 0) continue;  // nothing there supports
    const VmSupporter sp{code, units + bonus + bombard, bombard};
    (attacking ? s.attacker_support : s.defender_support).push_back(sp);
  }
}

}  // namespace

// Initiative rank: lower is higher on the track; INT_MAX when not listed. The track is options
// "initiative" (player codes or nations) when given, else the turn's order of play (earlier is
// higher).
int vm_initiative_rank(const GameState& w, const std::optional<std::string>& code,
                       const VmOptions& o) {
  if (!code) return INT_MAX;
  const Player* p = w.find_player(*code);
  if (o.initiative.empty()) {
    for (std::size_t i = 0; i < w.order_of_play.size(); ++i)
      if (w.order_of_play[i] == *code) return static_cast<int>(i);
    return INT_MAX;
  }
  for (std::size_t i = 0; i < o.initiative.size(); ++i)
    if (o.initiative[i] == *code || (p && o.initiative[i] == p->nation)) return static_cast<int>(i);
  return INT_MAX;
}

// A strength in half-points as points: "7", "7.5", "-0.5".
std::string vm_points_text(int half) {
  std::string s = std::to_string(half / 2);
  if (half % 2 != 0) s = (half < 0 && half / 2 == 0 ? "-0" : s) + ".5";
  return s;
}

Json vm_support_json(const std::vector<VmSupporter>& list) {
  Json a = Json::array();
  for (const auto& s : list) {
    Json j = {{"area", s.area}, {"points", s.points / 2.0}};
    if (s.bombard > 0) j["shore_bombardment"] = s.bombard / 2.0;
    a.push_back(std::move(j));
  }
  return a;
}

// Whether a unit fights in a battle in `to`: Fleets do not fight on land (seed 002: fleets are
// destroyed, not retreated, when a port is captured; land supports land, naval supports naval).
bool vm_fights(const VmUnit& u, const Area& to, const VmData& data) {
  return to.kind == AreaKind::kSea || !data.is_naval(u);
}

// Whether the edge a-b is a river that is not frozen (by the edge or the weather at either end).
bool vm_open_river(const GameState& w, const std::string& a, const std::string& b,
                   const VmOptions& o) {
  if (!w.edge_flag(a, b, "river")) return false;
  const Area* x = w.find_area(a);
  const Area* y = w.find_area(b);
  return !w.edge_flag(a, b, "frozen") && !(x && vm_weather_of(*x, o) == "frozen") &&
         !(y && vm_weather_of(*y, o) == "frozen");
}

VmStrength vm_step1(const BattleInput& in, const std::vector<AttackGroup>& groups,
                    const std::vector<VmUnit>& att, const std::vector<VmUnit>& def,
                    const VmData& data, const VmOptions& o) {
  VmStrength s;
  const Area& to = in.target();
  // Each group's units, halved across its own edge when that is an open river.
  s.group_units.assign(groups.size(), 0);
  for (const auto& u : att)
    if (!u.exhausted && vm_fights(u, to, data))
      s.group_units[static_cast<std::size_t>(u.group)] += 2 * data.level_of(u).attack;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    s.group_river.push_back(vm_open_river(*in.world, groups[g].from, in.to, o));
    if (s.group_river.back()) s.group_units[g] /= 2;  // exact in half-points (OQ-VM1)
    s.river = s.river || s.group_river.back();
    s.attacker_units += s.group_units[g];
  }
  s.attacker_bonus = 2 * o.bonus.at(to_string(in.kind));
  for (const auto& u : def)
    if (!u.exhausted && vm_fights(u, to, data)) s.defender_units += 2 * data.level_of(u).defense;
  if (to.mode == DefenceMode::kDefend) s.defender_bonus = 2 * o.bonus.at("defend");
  if (to.mode == DefenceMode::kAmbush &&
      std::any_of(groups.begin(), groups.end(),
                  [&](const AttackGroup& g) { return to.ambush_against == g.from; }))
    s.defender_bonus = 2 * o.bonus.at("ambush");
  s.fort = 2 * to.fort * o.fort_strength;
  add_support(in, groups, data, o, s);
  return s;
}

// The attacking units of every group, in group order, each tagged with its group.
std::vector<VmUnit> vm_attacking_units(const std::vector<AttackGroup>& groups, const VmData& data) {
  std::vector<VmUnit> out;
  for (std::size_t g = 0; g < groups.size(); ++g)
    for (VmUnit u : vm_units_of(groups[g].units, groups[g].armies, data)) {
      u.group = static_cast<int>(g);
      out.push_back(u);
    }
  return out;
}

// Rolls one die by name; appends pips to `pips` and the roll to `log`.
int vm_roll(const VmData& data, const std::string& die, Rng& rng, std::vector<int>& pips, Json& log,
            const std::string& source) {
  const int face = rng.die(6);
  const int p = data.dice.at(die).at(static_cast<std::size_t>(face - 1));
  pips.push_back(p);
  log.push_back({{"source", source}, {"die", die}, {"face", face}, {"pips", p}});
  return p;
}

int vm_apply_damage(std::vector<VmUnit>& units, int damage, const VmData& data) {
  int destroyed = 0;
  auto strength = [&](const VmUnit& u) {
    const VmLevel& l = data.level_of(u);
    return l.attack + l.defense;
  };
  auto drop_levels = [&](VmUnit& u) {
    while (u.level > 1 && u.hp <= data.units.at(u.type)[u.level - 2].hp) u.level -= 1;
  };
  // Concentrate on one unit at a time without destroying it: the unit with the most HP left,
  // then the stronger, then list order; it takes points down to 1 HP.
  while (damage > 0) {
    int pick = -1;
    for (int i = 0; i < static_cast<int>(units.size()); ++i) {
      if (units[i].hp <= 1) continue;
      if (pick < 0 || units[i].hp > units[pick].hp ||
          (units[i].hp == units[pick].hp && strength(units[i]) > strength(units[pick])))
        pick = i;
    }
    if (pick < 0) break;
    const int take = std::min(damage, units[pick].hp - 1);
    units[pick].hp -= take;
    damage -= take;
    drop_levels(units[pick]);
  }
  // Every unit is at 1 HP: each further point destroys one, the weakest first (list order).
  while (damage > 0 && !units.empty()) {
    int pick = 0;
    for (int i = 1; i < static_cast<int>(units.size()); ++i)
      if (strength(units[i]) < strength(units[pick])) pick = i;
    units.erase(units.begin() + pick);
    --damage;
    ++destroyed;
  }
  return destroyed;
}

// Splits `units` into those that fight in a battle in `to` and those that do not (Fleets on land).
void vm_split_fighting(std::vector<VmUnit>& units, std::vector<VmUnit>& idle, const Area& to,
                       const VmData& data) {
  std::vector<VmUnit> fighting;
  for (auto& u : units) (vm_fights(u, to, data) ? fighting : idle).push_back(u);
  units = std::move(fighting);
}

}  // namespace adj
