#include "rules/combat/path_of_war_numbers.h"

#include <algorithm>
#include <functional>

namespace adj {

namespace {

bool pow_flag(const Area& a, const char* name) {
  return a.features.is_object() && a.features.contains(name) && a.features[name].is_boolean() &&
         a.features[name].get<bool>();
}

// The terrain-table tags of an area: its terrain and every true feature naming a table entry.
std::vector<std::string> pow_tags_of(const Area& a, const PowOptions& o) {
  std::vector<std::string> tags;
  if (o.terrain.count(a.terrain)) tags.push_back(a.terrain);
  if (a.features.is_object())
    for (const auto& [k, v] : a.features.items())
      if (v.is_boolean() && v.get<bool>() && o.terrain.count(k) &&
          std::find(tags.begin(), tags.end(), k) == tags.end())
        tags.push_back(k);
  std::sort(tags.begin(), tags.end());
  return tags;
}

}  // namespace

bool pow_sidemountain(const GameState& w, std::string_view a, std::string_view b) {
  return w.edge_flag(a, b, "sidemountain");
}

// Dice (or shots) of one volley, every modifier recorded in `mods`. All modifiers sum first, a
// PROBE halves the sum (rounding down), and the floor max(N, min_dice) applies once at the end
// (seed 000: "it is always possible to attack with at least one die").
int pow_fire_dice(const GameState& w, const PowOptions& o, const PowVolley& v, Json& mods) {
  int n = v.tanks;
  auto add = [&](const std::string& why, int x) {
    if (x == 0) return;
    n += x;
    mods[why] = mods.value(why, 0) + x;
  };
  for (const auto& t : pow_tags_of(*v.shooter_area, o)) add("from " + t, o.terrain.at(t).from);
  for (const auto& t : pow_tags_of(*v.target_area, o)) add("against " + t, o.terrain.at(t).against);
  bool flanked = v.friend_attacking;
  if (!flanked && v.side)
    for (const auto& code : w.neighbours(v.target_area->code)) {
      if (code == v.shooter_area->code) continue;
      const Area* f = w.find_area(code);
      if (f && f->owner == v.side && f->armies > 0 &&
          !pow_sidemountain(w, code, v.target_area->code)) {
        flanked = true;
        break;
      }
    }
  if (flanked) add("flanking", o.flanking);
  if (v.enemy_tanks - v.tanks >= o.outnumbered_by) add("outnumbered", o.outnumbered);
  if (pow_flag(*v.target_area, "road") && !pow_flag(*v.shooter_area, "road"))
    add("target on road", o.road);
  if (pow_flag(*v.target_area, "rails") && !pow_flag(*v.shooter_area, "rails"))
    add("target on rails", o.rails);
  for (const auto& [why, x] : v.extra) add(why, x);
  if (v.halve) {
    const int half = n >= 0 ? n / 2 : -((1 - n) / 2);  // rounded down
    if (half != n) mods["probe: half"] = half - n;
    n = half;
  }
  if (n < o.min_dice) {
    mods["minimum"] = o.min_dice - n;
    n = o.min_dice;
  }
  return n;
}

// Rolls one volley of `n` dice or shots; returns the faces or damages shown in the report.
std::vector<int> pow_roll(const PowOptions& o, int n, Rng& rng) {
  std::vector<int> out;
  if (o.variant == PowVariant::kNoLuck) return out;
  for (int i = 0; i < n; ++i) {
    if (o.variant == PowVariant::kBoardgame)
      out.push_back(rng.die(6));
    else
      out.push_back(o.damages[rng.uniform(static_cast<std::uint32_t>(o.damages.size()))]);
  }
  return out;
}

// Applies one volley (n dice/shots with results `rolled`) to `hp`; returns the survivors,
// healthiest first.
std::vector<int> pow_apply(const PowOptions& o, std::vector<int> hp, int n,
                           const std::vector<int>& rolled) {
  std::sort(hp.begin(), hp.end());  // most damaged first
  switch (o.variant) {
    case PowVariant::kBoardgame: {
      int hits = static_cast<int>(
          std::count_if(rolled.begin(), rolled.end(), [&](int d) { return d >= o.hit_on; }));
      hits = std::min<int>(hits, static_cast<int>(hp.size()));
      hp.erase(hp.begin(), hp.begin() + hits);
      break;
    }
    case PowVariant::kVideogamer: {
      std::vector<int> dmg = rolled;
      std::sort(dmg.begin(), dmg.end(), std::greater<>());
      if (dmg.size() > hp.size()) dmg.resize(hp.size());
      for (std::size_t i = 0; i < dmg.size(); ++i) hp[i] -= dmg[i];
      break;
    }
    case PowVariant::kNoLuck: {
      int shots = n;
      for (int& h : hp) {
        if (shots == 0) break;
        // "A single hit is required to destroy a damaged tank": a damaged tank (below full
        // HP, whatever its HP) needs one shot; a fresh one two, unless one shot destroys it.
        const int need = h < o.hit_points || o.shot_damage >= h ? 1 : 2;
        const int used = std::min(need, shots);
        h = used == need ? 0 : h - o.shot_damage;
        shots -= used;
      }
      break;
    }
  }
  std::vector<int> alive;
  for (int h : hp)
    if (h > 0) alive.push_back(h);
  std::sort(alive.begin(), alive.end(), std::greater<>());
  return alive;
}

}  // namespace adj
