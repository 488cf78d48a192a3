#include "rules/combat/path_of_war_engine.h"

#include <algorithm>
#include <functional>

namespace adj {

namespace {

constexpr const char* kPowOpt = "/engine/options";

std::map<std::string, PowTerrain> default_terrain() {
  return {{"hills", {1, -1}}, {"plateau", {1, -1}}, {"forest", {1, -1}}, {"village", {-1, -1}},
          {"city", {-1, -1}}, {"castle", {0, -2}},  {"radar", {0, -2}}};
}

Status pow_bad(const std::string& key, const std::string& what) {
  return Status::InvalidArgument(std::string(kPowOpt) + "/" + key + ": " + what);
}

// Reads an integer option in [lo, hi] into `out` when present.
Status pow_read_int(const Json& obj, const std::string& key, const std::string& path, int lo,
                    int hi, int& out) {
  if (!obj.contains(key)) return Status::Ok();
  const Json& v = obj[key];
  if (!v.is_number_integer() || v.get<long long>() < lo || v.get<long long>() > hi)
    return pow_bad(path,
                   "must be an integer from " + std::to_string(lo) + " to " + std::to_string(hi));
  out = v.get<int>();
  return Status::Ok();
}

bool flag(const Area& a, const char* name) {
  return a.features.is_object() && a.features.contains(name) && a.features[name].is_boolean() &&
         a.features[name].get<bool>();
}

bool sidemountain(const GameState& w, std::string_view a, std::string_view b) {
  return w.edge_flag(a, b, "sidemountain");
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

// One volley: who fires at whom, and the adjustments of the attack kind.
struct Volley {
  const Area* shooter_area = nullptr;  // where the firing force stands
  const Area* target_area = nullptr;   // where its target stands
  std::optional<std::string> side;     // owner of the firing force (flanking friends)
  int tanks = 0;                       // the firing force's tanks at the start of the exchange
  int enemy_tanks = 0;                 // its target's tanks at the start of the exchange
  bool friend_attacking = false;       // another group of the same player attacks the target
  // Attack-kind dice (OVERRUN confusion, the old overrun_defender_bonus).
  std::vector<std::pair<std::string, int>> extra = {};
  bool halve = false;  // PROBE: half the dice
};

// Dice (or shots) of one volley, every modifier recorded in `mods`. All modifiers sum first, a
// PROBE halves the sum (rounding down), and the floor max(N, min_dice) applies once at the end
// (seed 000: "it is always possible to attack with at least one die").
int fire_dice(const GameState& w, const PowOptions& o, const Volley& v, Json& mods) {
  int n = v.tanks;
  auto add = [&](const std::string& why, int x) {
    if (x == 0) return;
    n += x;
    mods[why] = mods.value(why, 0) + x;
  };
  for (const auto& t : tags_of(*v.shooter_area, o)) add("from " + t, o.terrain.at(t).from);
  for (const auto& t : tags_of(*v.target_area, o)) add("against " + t, o.terrain.at(t).against);
  bool flanked = v.friend_attacking;
  if (!flanked && v.side)
    for (const auto& code : w.neighbours(v.target_area->code)) {
      if (code == v.shooter_area->code) continue;
      const Area* f = w.find_area(code);
      if (f && f->owner == v.side && f->armies > 0 && !sidemountain(w, code, v.target_area->code)) {
        flanked = true;
        break;
      }
    }
  if (flanked) add("flanking", o.flanking);
  if (v.enemy_tanks - v.tanks >= o.outnumbered_by) add("outnumbered", o.outnumbered);
  if (flag(*v.target_area, "road") && !flag(*v.shooter_area, "road")) add("target on road", o.road);
  if (flag(*v.target_area, "rails") && !flag(*v.shooter_area, "rails"))
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

}  // namespace

Result<PowOptions> pow_options_from_json(const Json& options) {
  PowOptions o;
  o.terrain = default_terrain();
  if (!options.is_object())
    return Status::InvalidArgument(std::string(kPowOpt) + ": must be an object");
  static const std::vector<std::string> kKeys = {"variant",
                                                 "hit_points",
                                                 "shot_damage",
                                                 "hit_on",
                                                 "damages",
                                                 "terrain",
                                                 "modifiers",
                                                 "max_exchanges",
                                                 "overrun_confusion_losses",
                                                 "overrun_confusion_dice",
                                                 "overrun_defender_bonus",
                                                 "return_fire"};
  for (const auto& [k, v] : options.items())
    if (std::find(kKeys.begin(), kKeys.end(), k) == kKeys.end())
      return pow_bad(k,
                     "unknown option (path-of-war takes variant, hit_points, shot_damage, "
                     "hit_on, damages, terrain, modifiers, max_exchanges, "
                     "overrun_confusion_losses, overrun_confusion_dice, overrun_defender_bonus, "
                     "return_fire)");
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
      return pow_bad("variant", "must be one of boardgame, videogamer, no-luck");
  }
  if (Status s = pow_read_int(options, "hit_points", "hit_points", 1, 1000, o.hit_points); !s.ok())
    return s;
  o.shot_damage = (o.hit_points + 1) / 2;
  if (Status s = pow_read_int(options, "shot_damage", "shot_damage", 1, 1000, o.shot_damage);
      !s.ok())
    return s;
  if (Status s = pow_read_int(options, "hit_on", "hit_on", 1, 6, o.hit_on); !s.ok()) return s;
  if (Status s = pow_read_int(options, "max_exchanges", "max_exchanges", 1, 1000, o.max_exchanges);
      !s.ok())
    return s;
  if (Status s = pow_read_int(options, "overrun_confusion_losses", "overrun_confusion_losses", 0,
                              10, o.overrun_confusion_losses);
      !s.ok())
    return s;
  if (Status s = pow_read_int(options, "overrun_confusion_dice", "overrun_confusion_dice", 0, 10,
                              o.overrun_confusion_dice);
      !s.ok())
    return s;
  if (options.contains("return_fire")) {
    if (!options["return_fire"].is_boolean())
      return pow_bad("return_fire", "must be true or false");
    o.return_fire = options["return_fire"].get<bool>();
  }
  if (options.contains("overrun_defender_bonus")) {
    // The rule before issue 12, kept so that games created with it adjudicate as they did.
    if (options.contains("overrun_confusion_losses") || options.contains("overrun_confusion_dice"))
      return pow_bad("overrun_defender_bonus",
                     "selects the old OVERRUN (one simultaneous exchange, the defender with extra "
                     "dice) and cannot be combined with overrun_confusion_losses or "
                     "overrun_confusion_dice; remove it for the seed's OVERRUN");
    int bonus = 0;
    if (Status s = pow_read_int(options, "overrun_defender_bonus", "overrun_defender_bonus", -10,
                                10, bonus);
        !s.ok())
      return s;
    o.overrun_defender_bonus = bonus;
  }
  if (options.contains("damages")) {
    const Json& d = options["damages"];
    if (!d.is_array() || d.empty() || d.size() > 100)
      return pow_bad("damages", "must be an array of 1 to 100 positive integers");
    o.damages.clear();
    for (std::size_t i = 0; i < d.size(); ++i) {
      if (!d[i].is_number_integer() || d[i].get<long long>() < 1 || d[i].get<long long>() > 1000)
        return pow_bad("damages/" + std::to_string(i), "must be an integer from 1 to 1000");
      o.damages.push_back(d[i].get<int>());
    }
  }
  if (options.contains("terrain")) {
    const Json& t = options["terrain"];
    if (!t.is_object())
      return pow_bad("terrain", "must be an object of terrain name -> {from, against}");
    for (const auto& [name, v] : t.items()) {
      const std::string path = "terrain/" + name;
      if (v.is_null()) {
        o.terrain.erase(name);
        continue;
      }
      if (!v.is_object()) return pow_bad(path, "must be {\"from\": n, \"against\": n} or null");
      for (const auto& [k, x] : v.items())
        if (k != "from" && k != "against")
          return pow_bad(path + "/" + k, "unknown key (from, against)");
      PowTerrain pt = o.terrain.count(name) ? o.terrain[name] : PowTerrain{};
      if (Status s = pow_read_int(v, "from", path + "/from", -10, 10, pt.from); !s.ok()) return s;
      if (Status s = pow_read_int(v, "against", path + "/against", -10, 10, pt.against); !s.ok())
        return s;
      o.terrain[name] = pt;
    }
  }
  if (options.contains("modifiers")) {
    const Json& m = options["modifiers"];
    if (!m.is_object()) return pow_bad("modifiers", "must be an object");
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
        return pow_bad("modifiers/" + k,
                       "unknown modifier (flanking, outnumbered, outnumbered_by, road, rails, "
                       "min_dice)");
    }
    for (auto& [k, p] : fields) {
      const int lo = (k == "outnumbered_by" || k == "min_dice") ? 1 : -10;
      if (Status s = pow_read_int(m, k, "modifiers/" + k, lo, 10, *p); !s.ok()) return s;
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
         "damage 1-12) or one sure shot (no-luck: two destroy a fresh tank, one a damaged tank) "
         "per tank, plus or minus terrain (from/against hills, forests, villages; castles -2), "
         "flanking +1, outnumbered -1, target on road +1 or rails +2; all modifiers add up "
         "first, then never fewer than one die. Fire is simultaneous: casualties are removed "
         "after each exchange. Areas attacking together each fire their own dice with their own "
         "modifiers (flanking each other), and the defender fires back at each. MOVE fights one "
         "exchange and enters only if the defenders are destroyed; ASSAULT exchanges until a "
         "side is destroyed; PROBE fires one exchange at half dice; OVERRUN fires first, alone, "
         "and if defenders survive turns into an assault in which the attacker loses one extra "
         "tank per exchange. An AMBUSH fires a volley before the first exchange; RETREAT "
         "withdraws when the attacking tanks outnumber the defenders. No attack or move across "
         "a sidemountain.";
}

std::string_view PathOfWarEngine::order_help() const {
  return "Path of War: no extra keywords. MOVE/ASSAULT/PROBE/OVERRUN may not cross a "
         "sidemountain edge. The healthiest tanks of an area move first; damaged tanks stay. "
         "OVERRUN: your tanks fire first and alone; if defenders survive, the attack goes on to "
         "the finish and you lose one extra tank in each exchange. Areas attacking one area "
         "together each fire with their own modifiers and flank each other (+1 die each); the "
         "defender fires back at each of them.";
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

  // Every attacking group is a unit of its own in the seed's sense: its own dice and modifiers,
  // and the defender fights back at each. A group across a sidemountain does not fight.
  struct Force {
    AttackGroup g;
    const Area* from = nullptr;
    std::vector<int> hp;
    bool blocked = false;
    bool ambushed = false;
  };
  std::vector<Force> forces;
  for (AttackGroup& g : attack_groups(in)) {
    Force f;
    f.from = w.find_area(g.from);
    if (!f.from) return Status::InvalidArgument("attack group from unknown area " + g.from);
    f.hp = pow_hp_list(g.units, g.armies, o.hit_points);
    f.blocked = sidemountain(w, g.from, in.to);
    // The ambush strikes the force from the area it is set against (in.ambush alone says so for a
    // single force, e.g. the calculator's compact form).
    f.ambushed = in.kind != AttackKind::kProbe &&
                 ((in.ambush && in.groups.size() <= 1) ||
                  (target.mode == DefenceMode::kAmbush && target.ambush_against == g.from));
    f.g = std::move(g);
    forces.push_back(std::move(f));
  }
  const bool several = forces.size() > 1;
  std::vector<int> d = pow_hp_list(target.engine_state, target.armies, o.hit_points);
  BattleOutcome out;
  out.detail["variant"] = o.variant == PowVariant::kBoardgame    ? "boardgame"
                          : o.variant == PowVariant::kVideogamer ? "videogamer"
                                                                 : "no-luck";
  auto fighting = [&](const Force& f) { return !f.blocked && !f.hp.empty(); };
  auto attackers_left = [&] { return std::any_of(forces.begin(), forces.end(), fighting); };

  // How one exchange is fought.
  struct Fire {
    bool attackers = true;       // the attacking groups fire
    bool defender = true;        // the defender answers each fighting group ...
    bool ambushed_only = false;  // ... or only the groups it ambushes
    bool halve = false;          // PROBE
    bool confusion = false;      // OVERRUN turned assault
    int defender_extra = 0;      // the old OVERRUN's defender dice
  };
  auto exchange = [&](const std::string& phase, const Fire& fire) {
    BattleRound r;
    r.phase = phase;
    const int d0 = static_cast<int>(d.size());
    r.defender_before = d0;
    std::vector<int> an(forces.size(), 0), dn(forces.size(), 0);
    std::vector<Json> amods(forces.size(), Json::object()), dmods(forces.size(), Json::object());
    std::vector<std::vector<int>> adice(forces.size()), ddice(forces.size());
    std::vector<bool> answered(forces.size(), false);
    // Every group and the defender fire from the state at the start of the exchange.
    for (std::size_t i = 0; i < forces.size(); ++i) {
      const Force& f = forces[i];
      r.attacker_before += static_cast<int>(f.hp.size());
      if (!fire.attackers || !fighting(f)) continue;
      bool friend_attacking = false;
      for (std::size_t j = 0; j < forces.size(); ++j)
        friend_attacking =
            friend_attacking || (j != i && fighting(forces[j]) && forces[j].g.player == f.g.player);
      Volley v{.shooter_area = f.from,
               .target_area = &target,
               .side = f.g.player,
               .tanks = static_cast<int>(f.hp.size()),
               .enemy_tanks = d0,
               .friend_attacking = friend_attacking,
               .halve = fire.halve};
      if (fire.confusion && o.overrun_confusion_dice > 0)
        v.extra.emplace_back("confusion", -o.overrun_confusion_dice);
      an[i] = fire_dice(w, o, v, amods[i]);
      adice[i] = roll(o, an[i], rng);
    }
    for (std::size_t i = 0; i < forces.size(); ++i) {
      const Force& f = forces[i];
      if (!fire.defender || !fighting(f) || (fire.ambushed_only && !f.ambushed) ||
          (!fire.ambushed_only && !o.return_fire))
        continue;
      answered[i] = true;
      Volley v{.shooter_area = &target,
               .target_area = f.from,
               .side = target.owner,
               .tanks = d0,
               .enemy_tanks = static_cast<int>(f.hp.size()),
               .halve = fire.halve};
      if (fire.defender_extra != 0) v.extra.emplace_back("overrun", fire.defender_extra);
      dn[i] = fire_dice(w, o, v, dmods[i]);
      ddice[i] = roll(o, dn[i], rng);
    }
    // Casualties are removed after the exchange. Each group's hits are capped at the target's
    // tanks; applied one group after the other, their total never exceeds them.
    std::vector<int> d2 = d;
    for (std::size_t i = 0; i < forces.size(); ++i)
      if (an[i] > 0) d2 = apply(o, d2, an[i], adice[i]);
    Json groups = Json::array();
    int confusion_losses = 0;
    for (std::size_t i = 0; i < forces.size(); ++i) {
      Force& f = forces[i];
      const int before = static_cast<int>(f.hp.size());
      std::vector<int> a2 = answered[i] ? apply(o, f.hp, dn[i], ddice[i]) : f.hp;
      if (fire.confusion && fighting(f)) {
        const int extra = std::min(o.overrun_confusion_losses, static_cast<int>(a2.size()));
        a2.resize(a2.size() - static_cast<std::size_t>(extra));  // the most damaged go
        confusion_losses += extra;
      }
      f.hp = std::move(a2);
      r.attacker_strength += an[i];
      r.defender_strength += dn[i];
      r.attacker_losses += before - static_cast<int>(f.hp.size());
      r.attacker_dice.insert(r.attacker_dice.end(), adice[i].begin(), adice[i].end());
      r.defender_dice.insert(r.defender_dice.end(), ddice[i].begin(), ddice[i].end());
      if (several) {
        Json gj = {{"from", f.g.from},
                   {"before", before},
                   {"losses", before - (int)f.hp.size()},
                   {"hp", f.hp}};
        if (an[i] > 0) {
          gj["dice"] = an[i];
          gj["modifiers"] = amods[i];
        }
        if (answered[i]) {
          gj["defender_dice"] = dn[i];
          gj["defender_modifiers"] = dmods[i];
        }
        groups.push_back(std::move(gj));
      }
    }
    r.defender_losses = d0 - static_cast<int>(d2.size());
    d = std::move(d2);
    if (several) {
      r.detail["groups"] = std::move(groups);
    } else {
      if (an[0] > 0) r.detail["attacker_modifiers"] = amods[0];
      if (answered[0]) r.detail["defender_modifiers"] = dmods[0];
      r.detail["attacker_hp"] = forces[0].hp;
    }
    if (confusion_losses > 0) r.detail["confusion_losses"] = confusion_losses;
    r.detail["defender_hp"] = d;
    out.rounds.push_back(std::move(r));
  };
  auto assault = [&](bool confusion) {
    out.attacker_stops = true;
    int n = 0;
    while (attackers_left() && !d.empty() && n < o.max_exchanges)
      exchange("exchange " + std::to_string(++n), Fire{.confusion = confusion});
    if (attackers_left() && !d.empty())
      out.detail["ended"] = "exchange limit reached: the attack fails";
  };

  if (!attackers_left()) {
    out.detail["ended"] = "no attack across a sidemountain";
  } else if (!d.empty()) {
    if (std::any_of(forces.begin(), forces.end(), [&](const Force& f) { return f.ambushed; }))
      exchange("ambush", Fire{.attackers = false, .ambushed_only = true});
    if (attackers_left()) switch (in.kind) {
        case AttackKind::kMove:
          exchange("exchange 1", Fire{});
          break;
        case AttackKind::kProbe:
          exchange("probe", Fire{.halve = true});
          out.attacker_stops = true;
          break;
        case AttackKind::kOverrun:
          if (o.overrun_defender_bonus) {
            exchange("overrun", Fire{.defender_extra = *o.overrun_defender_bonus});
            if (attackers_left() && !d.empty()) assault(false);
          } else {
            // Seed 001 5.5: the attacker fires alone and the defender's casualties are removed
            // before it answers; survivors make it an assault with the attacker in confusion.
            exchange("overrun", Fire{.defender = false});
            if (!d.empty()) assault(true);
          }
          break;
        case AttackKind::kAssault:
          assault(false);
          break;
      }
    if (in.kind == AttackKind::kAssault) out.attacker_stops = true;
  }
  std::vector<int> survivors;
  for (const Force& f : forces) {
    out.group_losses.push_back(f.g.armies - static_cast<int>(f.hp.size()));
    out.group_units.push_back(pow_units_json(f.hp, o.hit_points));
    out.attacker_losses += out.group_losses.back();
    survivors.insert(survivors.end(), f.hp.begin(), f.hp.end());
  }
  std::sort(survivors.begin(), survivors.end(), std::greater<>());
  out.defender_losses = target.armies - static_cast<int>(d.size());
  out.attacker_wins = d.empty() && attackers_left();
  out.attacker_units = pow_units_json(survivors, o.hit_points);
  out.defender_units = pow_units_json(d, o.hit_points);
  return out;
}

}  // namespace adj
