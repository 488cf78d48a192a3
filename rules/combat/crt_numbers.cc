// The CRT engine's numbers (crt_numbers.h): strengths, columns and shifts, result effects.
#include "rules/combat/crt_numbers.h"

#include <algorithm>

namespace adj {

int crt_defence_strength(const Area& t, const CrtOptions& o) {
  return t.armies * o.strength_per_army + t.population * o.population_strength +
         t.fort * o.fort_strength;
}

CrtColumn crt_column_of(const BattleInput& in, const CrtOptions& o,
                        const std::vector<AttackGroup>& groups, const std::vector<int>& armies,
                        bool overrun) {
  const Area& t = in.target();
  CrtColumn c;
  int total = 0;
  for (int n : armies) total += n;
  c.attack = total * o.strength_per_army;
  c.defence = std::max(1, crt_defence_strength(t, o));
  c.base = o.table.column_for(c.attack, c.defence);
  // The area's shift: the highest among its terrain, true features and "fortified" (fort > 0).
  std::vector<std::string> tags = {t.terrain};
  if (t.features.is_object())
    for (const auto& [k, v] : t.features.items())
      if (v.is_boolean() && v.get<bool>()) tags.push_back(k);
  if (t.fort > 0) tags.push_back("fortified");
  int area_shift = 0;
  std::string why;
  for (const auto& tag : tags) {
    auto it = o.shifts.terrain.find(tag);
    if (it != o.shifts.terrain.end() && it->second > area_shift) {
      area_shift = it->second;
      why = tag;
    }
  }
  int left = 0;
  if (area_shift != 0) {
    c.shifts[why] = area_shift;
    left += area_shift;
  }
  if (o.shifts.river != 0 && total > 0) {
    int fighting = 0, crossing = 0, across = 0;
    for (std::size_t i = 0; i < groups.size(); ++i) {
      if (armies[i] <= 0) continue;
      ++fighting;
      if (in.world->edge_flag(groups[i].from, in.to, "river")) {
        ++crossing;
        across += armies[i];
      }
    }
    int river = 0;
    switch (o.river_shift) {
      case CrtOptions::RiverShift::kAll:
        river = crossing > 0 && crossing == fighting ? o.shifts.river : 0;
        break;
      case CrtOptions::RiverShift::kAny:
        river = crossing > 0 ? o.shifts.river : 0;
        break;
      case CrtOptions::RiverShift::kProportional:
        // Rounded in the defender's favour, like the ratios.
        river = o.shifts.river > 0 ? (o.shifts.river * across + total - 1) / total
                                   : o.shifts.river * across / total;
        break;
    }
    if (river != 0) {
      c.shifts["river"] = river;
      left += river;
    }
  }
  if (in.ambush && in.kind != AttackKind::kProbe && o.ambush_shift != 0) {
    c.shifts["ambush"] = o.ambush_shift;
    left += o.ambush_shift;
  }
  if (overrun && o.overrun_shift != 0) {
    c.shifts["overrun"] = -o.overrun_shift;
    left -= o.overrun_shift;
  }
  c.column = std::clamp(c.base - left, 0, o.table.columns() - 1);
  return c;
}

std::string crt_value_label(const CrtColumn& c, const CrtTable& t) {
  if (t.method == "ratio") return std::to_string(c.attack) + ":" + std::to_string(c.defence);
  return std::to_string(c.attack - c.defence);
}

bool crt_no_result(const CrtEffect& fx) {
  return fx.defender_retreat == 0 && !fx.defender_eliminated && !fx.attacker_retreat &&
         !fx.attacker_eliminated && !fx.exchange;
}

bool crt_pushes_defender(const CrtEffect& fx) {
  return fx.defender_retreat > 0 || fx.defender_eliminated || fx.exchange;
}

}  // namespace adj
