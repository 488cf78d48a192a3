#include "rules/combat/path_of_war_engine.h"

#include <algorithm>
#include <functional>

namespace adj {

namespace {

constexpr const char* kOpt = "/engine/options";

std::map<std::string, PowTerrain> default_terrain() {
  return {{"hills", {1, -1}}, {"plateau", {1, -1}}, {"forest", {1, -1}}, {"village", {-1, -1}},
          {"city", {-1, -1}}, {"castle", {0, -2}},  {"radar", {0, -2}}};
}

Status bad(const std::string& key, const std::string& what) {
  return Status::InvalidArgument(std::string(kOpt) + "/" + key + ": " + what);
}

// Reads an integer option in [lo, hi] into `out` when present.
Status read_int(const Json& obj, const std::string& key, const std::string& path, int lo, int hi,
                int& out) {
  if (!obj.contains(key)) return Status::Ok();
  const Json& v = obj[key];
  if (!v.is_number_integer() || v.get<long long>() < lo || v.get<long long>() > hi)
    return bad(path, "must be an integer from " + std::to_string(lo) + " to " + std::to_string(hi));
  out = v.get<int>();
  return Status::Ok();
}

bool flag(const Area& a, const char* name) {
  return a.features.is_object() && a.features.contains(name) && a.features[name].is_boolean() &&
         a.features[name].get<bool>();
}

bool sidemountain(const GameState& w, std::string_view a, std::string_view b) {
  const Edge* e = w.find_edge(a, b);
  return e && e->features.is_object() && e->features.value("sidemountain", false) == true;
}

// The terrain-table tags of an area: its terrain and every true feature naming a table entry.
std::vector<std::string> tags_of(const Area& a, const PowOptions& o) {
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

struct FireContext {
  const GameState* world;
  const PowOptions* opt;
  const Area* shooter_area;         // where the firing force stands
  const Area* target_area;          // where its target stands
  std::optional<std::string> side;  // owner of the firing force (flanking friends)
  std::string exclude;              // the firing force's own area, never a flanking friend
};

// Dice (or shots) of one volley with every modifier, recorded in `mods`.
int fire_dice(const FireContext& c, int tanks, int enemy_tanks, Json& mods) {
  const PowOptions& o = *c.opt;
  int n = tanks;
  auto add = [&](const std::string& why, int v) {
    if (v == 0) return;
    n += v;
    mods[why] = mods.value(why, 0) + v;
  };
  for (const auto& t : tags_of(*c.shooter_area, o)) add("from " + t, o.terrain.at(t).from);
  for (const auto& t : tags_of(*c.target_area, o)) add("against " + t, o.terrain.at(t).against);
  if (c.side) {
    const GameState& w = *c.world;
    for (const auto& code : w.neighbours(c.target_area->code)) {
      if (code == c.exclude || code == c.shooter_area->code) continue;
      const Area* f = w.find_area(code);
      if (f && f->owner == c.side && f->armies > 0 && !sidemountain(w, code, c.target_area->code)) {
        add("flanking", o.flanking);
        break;
      }
    }
  }
  if (enemy_tanks - tanks >= o.outnumbered_by) add("outnumbered", o.outnumbered);
  if (flag(*c.target_area, "road") && !flag(*c.shooter_area, "road")) add("target on road", o.road);
  if (flag(*c.target_area, "rails") && !flag(*c.shooter_area, "rails"))
    add("target on rails", o.rails);
  if (n < o.min_dice) {
    mods["minimum"] = o.min_dice - n;
    n = o.min_dice;
  }
  return n;
}

// Rolls one volley of `n` dice or shots; returns the faces or damages shown in the report.
std::vector<int> roll(const PowOptions& o, int n, Rng& rng) {
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
std::vector<int> apply(const PowOptions& o, std::vector<int> hp, int n,
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
        const int need = (h + o.shot_damage - 1) / o.shot_damage;
        const int used = std::min(need, shots);
        h -= used * o.shot_damage;
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

}  // namespace

Result<PowOptions> pow_options_from_json(const Json& options) {
  PowOptions o;
  o.terrain = default_terrain();
  if (!options.is_object())
    return Status::InvalidArgument(std::string(kOpt) + ": must be an object");
  static const std::vector<std::string> kKeys = {
      "variant",   "hit_points",    "shot_damage",           "hit_on", "damages", "terrain",
      "modifiers", "max_exchanges", "overrun_defender_bonus"};
  for (const auto& [k, v] : options.items())
    if (std::find(kKeys.begin(), kKeys.end(), k) == kKeys.end())
      return bad(k,
                 "unknown option (path-of-war takes variant, hit_points, shot_damage, "
                 "hit_on, damages, terrain, modifiers, max_exchanges, "
                 "overrun_defender_bonus)");
  if (options.contains("variant")) {
    const Json& v = options["variant"];
    const std::string s = v.is_string() ? v.get<std::string>() : "";
    if (s == "boardgame")
      o.variant = PowVariant::kBoardgame;
    else if (s == "videogamer")
      o.variant = PowVariant::kVideogamer;
    else if (s == "no-luck")
      o.variant = PowVariant::kNoLuck;
    else
      return bad("variant", "must be one of boardgame, videogamer, no-luck");
  }
  if (Status s = read_int(options, "hit_points", "hit_points", 1, 1000, o.hit_points); !s.ok())
    return s;
  o.shot_damage = (o.hit_points + 1) / 2;
  if (Status s = read_int(options, "shot_damage", "shot_damage", 1, 1000, o.shot_damage); !s.ok())
    return s;
  if (Status s = read_int(options, "hit_on", "hit_on", 1, 6, o.hit_on); !s.ok()) return s;
  if (Status s = read_int(options, "max_exchanges", "max_exchanges", 1, 1000, o.max_exchanges);
      !s.ok())
    return s;
  if (Status s = read_int(options, "overrun_defender_bonus", "overrun_defender_bonus", -10, 10,
                          o.overrun_defender_bonus);
      !s.ok())
    return s;
  if (options.contains("damages")) {
    const Json& d = options["damages"];
    if (!d.is_array() || d.empty() || d.size() > 100)
      return bad("damages", "must be an array of 1 to 100 positive integers");
    o.damages.clear();
    for (std::size_t i = 0; i < d.size(); ++i) {
      if (!d[i].is_number_integer() || d[i].get<long long>() < 1 || d[i].get<long long>() > 1000)
        return bad("damages/" + std::to_string(i), "must be an integer from 1 to 1000");
      o.damages.push_back(d[i].get<int>());
    }
  }
  if (options.contains("terrain")) {
    const Json& t = options["terrain"];
    if (!t.is_object())
      return bad("terrain", "must be an object of terrain name -> {from, against}");
    for (const auto& [name, v] : t.items()) {
      const std::string path = "terrain/" + name;
      if (v.is_null()) {
        o.terrain.erase(name);
        continue;
      }
      if (!v.is_object()) return bad(path, "must be {\"from\": n, \"against\": n} or null");
      for (const auto& [k, x] : v.items())
        if (k != "from" && k != "against")
          return bad(path + "/" + k, "unknown key (from, against)");
      PowTerrain pt = o.terrain.count(name) ? o.terrain[name] : PowTerrain{};
      if (Status s = read_int(v, "from", path + "/from", -10, 10, pt.from); !s.ok()) return s;
      if (Status s = read_int(v, "against", path + "/against", -10, 10, pt.against); !s.ok())
        return s;
      o.terrain[name] = pt;
    }
  }
  if (options.contains("modifiers")) {
    const Json& m = options["modifiers"];
    if (!m.is_object()) return bad("modifiers", "must be an object");
    const std::vector<std::pair<std::string, int*>> fields = {{"flanking", &o.flanking},
                                                              {"outnumbered", &o.outnumbered},
                                                              {"outnumbered_by", &o.outnumbered_by},
                                                              {"road", &o.road},
                                                              {"rails", &o.rails},
                                                              {"min_dice", &o.min_dice}};
    for (const auto& item : m.items()) {
      const std::string& k = item.key();  // not a structured binding: clang 14 cannot capture one
      auto it = std::find_if(fields.begin(), fields.end(), [&](auto& f) { return f.first == k; });
      if (it == fields.end())
        return bad("modifiers/" + k,
                   "unknown modifier (flanking, outnumbered, outnumbered_by, road, rails, "
                   "min_dice)");
    }
    for (auto& [k, p] : fields) {
      const int lo = (k == "outnumbered_by" || k == "min_dice") ? 1 : -10;
      if (Status s = read_int(m, k, "modifiers/" + k, lo, 10, *p); !s.ok()) return s;
    }
  }
  return o;
}

std::vector<int> pow_hp_list(const Json& units, int armies, int hit_points) {
  std::vector<int> listed;
  if (units.is_object() && units.contains("hp") && units["hp"].is_array())
    for (const auto& v : units["hp"])
      if (v.is_number_integer()) listed.push_back(std::clamp(v.get<int>(), 1, hit_points));
  std::sort(listed.begin(), listed.end(), std::greater<>());
  std::vector<int> hp;
  const int fresh = std::max(0, armies - static_cast<int>(listed.size()));
  hp.assign(static_cast<std::size_t>(fresh), hit_points);
  for (int h : listed)
    if (static_cast<int>(hp.size()) < armies) hp.push_back(h);
  return hp;
}

Json pow_units_json(std::vector<int> hp, int hit_points) {
  std::vector<int> damaged;
  for (int h : hp)
    if (h < hit_points) damaged.push_back(h);
  if (damaged.empty()) return Json::object();
  std::sort(damaged.begin(), damaged.end(), std::greater<>());
  return Json{{"hp", damaged}};
}

namespace {

// The listed HP values, healthiest first, truncated to `armies`. Unlisted tanks are fresh and
// healthier than any listed one (a listed value never exceeds the game's hit points).
std::vector<int> listed_hp(const Json& units, int armies) {
  std::vector<int> listed;
  if (units.is_object() && units.contains("hp") && units["hp"].is_array())
    for (const auto& v : units["hp"])
      if (v.is_number_integer()) listed.push_back(v.get<int>());
  std::sort(listed.begin(), listed.end(), std::greater<>());
  if (static_cast<int>(listed.size()) > armies) listed.resize(static_cast<std::size_t>(armies));
  return listed;
}

Json listed_json(const std::vector<int>& listed) {
  return listed.empty() ? Json::object() : Json{{"hp", listed}};
}

}  // namespace

Json PathOfWarEngine::detach_units(Json& area_units, int area_armies, int n) const {
  std::vector<int> listed = listed_hp(area_units, std::max(0, area_armies));
  const int unlisted = std::max(0, area_armies - static_cast<int>(listed.size()));
  const int from_listed = std::clamp(n - unlisted, 0, static_cast<int>(listed.size()));
  std::vector<int> moving(listed.begin(), listed.begin() + from_listed);
  listed.erase(listed.begin(), listed.begin() + from_listed);
  area_units = listed_json(listed);
  return listed_json(moving);
}

void PathOfWarEngine::merge_units(Json& area_units, int area_armies, const Json& incoming,
                                  int n) const {
  std::vector<int> listed = listed_hp(area_units, std::max(0, area_armies));
  if (!incoming.is_null()) {
    std::vector<int> more = listed_hp(incoming, std::max(0, n));
    listed.insert(listed.end(), more.begin(), more.end());
  }
  std::sort(listed.begin(), listed.end(), std::greater<>());
  area_units = listed_json(listed);
}

std::string_view PathOfWarEngine::summary() const {
  return "Path of War: every army is a tank with 10 hit points; damage persists between turns. "
         "Each side fires one die (boardgame: 5-6 destroys a tank), one shot (videogamer: "
         "damage 1-12) or one sure 5-HP shot (no-luck) per tank, plus or minus terrain (from/"
         "against hills, forests, villages; castles -2), flanking +1, outnumbered -1, target on "
         "road +1 or rails +2, never fewer than one. Fire is simultaneous: casualties are "
         "removed after each exchange. MOVE fights one exchange and enters only if the defenders "
         "are destroyed; ASSAULT exchanges until a side is destroyed; PROBE fires one exchange "
         "at half dice; OVERRUN gives the defender an extra die in the first exchange and turns "
         "into an assault if it does not clear the area. An AMBUSH fires a volley before the "
         "first exchange; RETREAT withdraws when the attacking tanks outnumber the defenders. "
         "No attack or move across a sidemountain.";
}

std::string_view PathOfWarEngine::order_help() const {
  return "Path of War: no extra keywords. MOVE/ASSAULT/PROBE/OVERRUN may not cross a "
         "sidemountain edge. The healthiest tanks of an area move first; damaged tanks stay.";
}

Status PathOfWarEngine::check_game(const GameState& state) const {
  Result<PowOptions> o = pow_options_from_json(state.engine.options);
  if (!o.ok()) return o.status();
  for (std::size_t i = 0; i < state.areas.size(); ++i) {
    const Area& a = state.areas[i];
    if (a.engine_state.empty()) continue;
    const std::string where = "/areas: area " + a.code;
    for (const auto& [k, v] : a.engine_state.items())
      if (k != "hp") return Status::InvalidArgument(where + " engine_state." + k + " is unknown");
    const Json& hp = a.engine_state["hp"];
    if (!hp.is_array() || static_cast<int>(hp.size()) > a.armies)
      return Status::InvalidArgument(where + " engine_state.hp must list at most one HP per army");
    for (const auto& h : hp)
      if (!h.is_number_integer() || h.get<long long>() < 1 || h.get<long long>() > o->hit_points)
        return Status::InvalidArgument(where + " engine_state.hp values must be 1.." +
                                       std::to_string(o->hit_points));
  }
  return Status::Ok();
}

Status PathOfWarEngine::check_order(const Order& order, const GameState& state) const {
  if (Status s = CombatEngine::check_order(order, state); !s.ok()) return s;
  if (is_attack_verb(order.verb) && sidemountain(state, order.from, order.to))
    return Status::InvalidArgument("no move or attack across the sidemountain between " +
                                   order.from + " and " + order.to);
  return Status::Ok();
}

bool PathOfWarEngine::retreat_triggers(const BattleInput& in) const {
  return in.attacker_armies > in.target().armies;
}

Result<BattleOutcome> PathOfWarEngine::resolve(const BattleInput& in, Rng& rng) const {
  Result<PowOptions> parsed = pow_options_from_json(*in.options);
  if (!parsed.ok()) return parsed.status();
  const PowOptions& o = parsed.value();
  const GameState& w = *in.world;
  const Area& target = in.target();
  const Area& origin = in.origin();

  std::vector<int> a = pow_hp_list(in.attacker_units, in.attacker_armies, o.hit_points);
  std::vector<int> d = pow_hp_list(target.engine_state, target.armies, o.hit_points);
  BattleOutcome out;
  out.detail["variant"] = o.variant == PowVariant::kBoardgame    ? "boardgame"
                          : o.variant == PowVariant::kVideogamer ? "videogamer"
                                                                 : "no-luck";

  const FireContext att{&w, &o, &origin, &target, in.attacker, in.from};
  const FireContext def{&w, &o, &target, &origin, target.owner, in.to};

  // One volley or exchange. `a_fires`/`d_fires` choose who fires; `a_bonus`/`d_bonus` add dice;
  // `halve` halves both sides' dice (PROBE).
  auto exchange = [&](const std::string& phase, bool a_fires, bool d_fires, int d_bonus,
                      bool halve) {
    BattleRound r;
    r.phase = phase;
    r.attacker_before = static_cast<int>(a.size());
    r.defender_before = static_cast<int>(d.size());
    Json amods = Json::object(), dmods = Json::object();
    int an = 0, dn = 0;
    if (a_fires) {
      an = fire_dice(att, r.attacker_before, r.defender_before, amods);
      if (halve) an = std::max(o.min_dice, an / 2);
    }
    if (d_fires) {
      dn = fire_dice(def, r.defender_before, r.attacker_before, dmods);
      if (d_bonus != 0) {
        dmods["overrun"] = d_bonus;
        dn = std::max(o.min_dice, dn + d_bonus);
      }
      if (halve) dn = std::max(o.min_dice, dn / 2);
    }
    r.attacker_strength = an;
    r.defender_strength = dn;
    r.attacker_dice = roll(o, an, rng);
    r.defender_dice = roll(o, dn, rng);
    std::vector<int> d2 = a_fires ? apply(o, d, an, r.attacker_dice) : d;
    std::vector<int> a2 = d_fires ? apply(o, a, dn, r.defender_dice) : a;
    r.attacker_losses = static_cast<int>(a.size() - a2.size());
    r.defender_losses = static_cast<int>(d.size() - d2.size());
    a = std::move(a2);
    d = std::move(d2);
    if (a_fires) r.detail["attacker_modifiers"] = amods;
    if (d_fires) r.detail["defender_modifiers"] = dmods;
    r.detail["attacker_hp"] = a;
    r.detail["defender_hp"] = d;
    out.rounds.push_back(std::move(r));
  };

  if (sidemountain(w, in.from, in.to)) {
    out.detail["ended"] = "no attack across a sidemountain";
  } else if (!d.empty()) {
    if (in.ambush && in.kind != AttackKind::kProbe) exchange("ambush", false, true, 0, false);
    bool assault = false;
    if (!a.empty()) switch (in.kind) {
        case AttackKind::kMove:
          exchange("exchange 1", true, true, 0, false);
          break;
        case AttackKind::kProbe:
          exchange("probe", true, true, 0, true);
          out.attacker_stops = true;
          break;
        case AttackKind::kOverrun:
          exchange("overrun", true, true, o.overrun_defender_bonus, false);
          assault = !a.empty() && !d.empty();
          break;
        case AttackKind::kAssault:
          assault = true;
          break;
      }
    if (in.kind == AttackKind::kAssault) out.attacker_stops = true;
    if (assault) {
      out.attacker_stops = true;
      int n = 0;
      while (!a.empty() && !d.empty() && n < o.max_exchanges)
        exchange("exchange " + std::to_string(++n), true, true, 0, false);
      if (!a.empty() && !d.empty())
        out.detail["ended"] = "exchange limit reached: the attack fails";
    }
  }
  out.attacker_losses = in.attacker_armies - static_cast<int>(a.size());
  out.defender_losses = target.armies - static_cast<int>(d.size());
  out.attacker_wins = d.empty() && !a.empty() && !sidemountain(w, in.from, in.to);
  out.attacker_units = pow_units_json(a, o.hit_points);
  out.defender_units = pow_units_json(d, o.hit_points);
  return out;
}

}  // namespace adj
