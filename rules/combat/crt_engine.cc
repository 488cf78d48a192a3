#include "rules/combat/crt_engine.h"

#include <algorithm>
#include <deque>
#include <functional>
#include <set>

namespace adj {

namespace {

constexpr const char* kOpt = "/engine/options";

Status bad(const std::string& key, const std::string& what) {
  return Status::InvalidArgument(std::string(kOpt) + "/" + key + ": " + what);
}

Status read_int(const Json& obj, const std::string& key, int lo, int hi, int& out) {
  if (!obj.contains(key)) return Status::Ok();
  const Json& v = obj[key];
  if (!v.is_number_integer() || v.get<long long>() < lo || v.get<long long>() > hi)
    return bad(key, "must be an integer from " + std::to_string(lo) + " to " + std::to_string(hi));
  out = v.get<int>();
  return Status::Ok();
}

Status read_bool(const Json& obj, const std::string& key, bool& out) {
  if (!obj.contains(key)) return Status::Ok();
  if (!obj[key].is_boolean()) return bad(key, "must be true or false");
  out = obj[key].get<bool>();
  return Status::Ok();
}

bool edge_flag(const GameState& w, std::string_view a, std::string_view b, const char* name) {
  const Edge* e = w.find_edge(a, b);
  return e && e->features.is_object() && e->features.value(name, false) == true;
}

struct Column {
  int attack = 0, defence = 0;
  int base = 0;  // unshifted column
  int column = 0;
  Json shifts = Json::object();
};

int defence_strength(const Area& t, const CrtOptions& o) {
  return t.armies * o.strength_per_army + t.population * o.population_strength +
         t.fort * o.fort_strength;
}

Column column_of(const BattleInput& in, const CrtOptions& o) {
  const Area& t = in.target();
  Column c;
  c.attack = in.attacker_armies * o.strength_per_army;
  c.defence = std::max(1, defence_strength(t, o));
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
  if (o.shifts.river != 0 && edge_flag(*in.world, in.from, in.to, "river")) {
    c.shifts["river"] = o.shifts.river;
    left += o.shifts.river;
  }
  if (in.ambush && in.kind != AttackKind::kProbe && o.ambush_shift != 0) {
    c.shifts["ambush"] = o.ambush_shift;
    left += o.ambush_shift;
  }
  if (in.kind == AttackKind::kOverrun && o.overrun_shift != 0) {
    c.shifts["overrun"] = -o.overrun_shift;
    left -= o.overrun_shift;
  }
  c.column = std::clamp(c.base - left, 0, o.table.columns() - 1);
  return c;
}

std::string value_label(const Column& c, const CrtTable& t) {
  if (t.method == "ratio") return std::to_string(c.attack) + ":" + std::to_string(c.defence);
  return std::to_string(c.attack - c.defence);
}

}  // namespace

Result<CrtOptions> crt_options_from_json(const Json& options, bool validate) {
  if (!options.is_object())
    return Status::InvalidArgument(std::string(kOpt) + ": must be an object");
  static const std::vector<std::string> kKeys = {"method",
                                                 "table",
                                                 "shifts",
                                                 "strength_per_army",
                                                 "population_strength",
                                                 "fort_strength",
                                                 "zoc",
                                                 "retreat_into_empty",
                                                 "ambush_shift",
                                                 "overrun_shift",
                                                 "assault_rolls",
                                                 "attacker_retreat"};
  for (const auto& [k, v] : options.items())
    if (std::find(kKeys.begin(), kKeys.end(), k) == kKeys.end()) {
      std::string names;
      for (const auto& n : kKeys) names += (names.empty() ? "" : ", ") + n;
      return bad(k, "unknown option (crt takes " + names + ")");
    }
  CrtOptions o;
  std::string method;
  if (options.contains("method")) {
    const Json& m = options["method"];
    method = m.is_string() ? m.get<std::string>() : "";
    if (method != "differential" && method != "ratio")
      return bad("method", "must be one of differential, ratio");
  }
  const Json table_spec = options.contains("table")
                              ? options["table"]
                              : Json(method == "ratio" ? "crt-ratio" : "crt-differential");
  Result<Json> tdoc = crt_document(table_spec, "crt", std::string(kOpt) + "/table", validate);
  if (!tdoc.ok()) return tdoc.status();
  Result<CrtTable> table = crt_table_from_json(tdoc.value(), std::string(kOpt) + "/table");
  if (!table.ok()) return table.status();
  o.table = std::move(table).value();
  if (!method.empty() && method != o.table.method)
    return bad("table", "\"" + o.table.name + "\" is a " + o.table.method +
                            " table but method is " + method);
  const Json shift_spec = options.value("shifts", Json("crt-terrain"));
  Result<Json> sdoc = crt_document(shift_spec, "shifts", std::string(kOpt) + "/shifts", validate);
  if (!sdoc.ok()) return sdoc.status();
  Result<ShiftChart> chart = shift_chart_from_json(sdoc.value(), std::string(kOpt) + "/shifts");
  if (!chart.ok()) return chart.status();
  o.shifts = std::move(chart).value();
  for (Status s : {read_int(options, "strength_per_army", 1, 1000, o.strength_per_army),
                   read_int(options, "population_strength", 0, 1000, o.population_strength),
                   read_int(options, "fort_strength", 0, 1000, o.fort_strength),
                   read_int(options, "ambush_shift", -20, 20, o.ambush_shift),
                   read_int(options, "overrun_shift", -20, 20, o.overrun_shift),
                   read_int(options, "assault_rolls", 1, 100, o.assault_rolls),
                   read_int(options, "attacker_retreat", 0, 5, o.attacker_retreat),
                   read_bool(options, "zoc", o.zoc),
                   read_bool(options, "retreat_into_empty", o.retreat_into_empty)})
    if (!s.ok()) return s;
  return o;
}

namespace {

// A retreat of `steps` areas from `start` for the forces of `side` (see crt_retreat_path):
// through `side`'s areas (or empty ones with retreat_into_empty), never into `battle` or across a
// river, with zoc never next to an area of `enemy`; farthest from `enemy`, then the lowest end
// code, then the lowest path. Empty when there is none.
std::vector<std::string> retreat_path(const GameState& w, const std::string& start,
                                      const std::optional<std::string>& side,
                                      const std::set<std::string>& enemy, const std::string& battle,
                                      const CrtOptions& o, int steps) {
  // Steps from the nearest enemy force (multi-source BFS).
  std::map<std::string, int> dist;
  std::deque<std::string> queue(enemy.begin(), enemy.end());
  for (const auto& e : enemy) dist[e] = 0;
  while (!queue.empty()) {
    const std::string c = queue.front();
    queue.pop_front();
    for (const auto& n : w.neighbours(c))
      if (!dist.count(n)) {
        dist[n] = dist[c] + 1;
        queue.push_back(n);
      }
  }
  auto legal = [&](const std::string& x, const std::string& y) {
    const Area* a = w.find_area(y);
    if (!a || y == battle || y == start || a->kind == AreaKind::kSea) return false;
    if (edge_flag(w, x, y, "river")) return false;
    const bool own = side && a->owner == side;
    const bool empty = o.retreat_into_empty && !a->owner && a->armies == 0;
    if (!own && !empty) return false;
    if (o.zoc)
      for (const auto& n : w.neighbours(y))
        if (enemy.count(n)) return false;
    return true;
  };
  std::vector<std::string> best, path;
  int best_dist = -1;
  std::function<void(const std::string&)> walk = [&](const std::string& at) {
    if (static_cast<int>(path.size()) == steps) {
      const int d = dist.count(at) ? dist[at] : 1 << 20;
      if (d > best_dist ||
          (d == best_dist && (at < best.back() || (at == best.back() && path < best)))) {
        best_dist = d;
        best = path;
      }
      return;
    }
    for (const auto& n : w.neighbours(at)) {
      if (std::find(path.begin(), path.end(), n) != path.end() || !legal(at, n)) continue;
      path.push_back(n);
      walk(n);
      path.pop_back();
    }
  };
  if (steps >= 1) walk(start);
  return best;
}

}  // namespace

std::vector<std::string> crt_retreat_path(const BattleInput& in, const CrtOptions& o, int steps) {
  const GameState& w = *in.world;
  // The attacking forces: the origin and every attacker-owned area with armies.
  std::set<std::string> enemy = {in.from};
  for (const Area& a : w.areas)
    if (a.owner == in.attacker && a.armies > 0 && a.code != in.to) enemy.insert(a.code);
  return retreat_path(w, in.to, in.target().owner, enemy, in.to, o, steps);
}

std::vector<std::string> crt_attacker_retreat_path(const BattleInput& in, const CrtOptions& o,
                                                   int steps) {
  const GameState& w = *in.world;
  const std::optional<std::string>& defender = in.target().owner;
  // The defending forces: the battle area and every area of the defender with armies.
  std::set<std::string> enemy = {in.to};
  if (defender)
    for (const Area& a : w.areas)
      if (a.owner == defender && a.armies > 0) enemy.insert(a.code);
  return retreat_path(w, in.from, std::optional<std::string>(in.attacker), enemy, in.to, o, steps);
}

std::string_view CrtEngine::summary() const {
  return "Combat results table: total attack strength against total defence strength (armies x "
         "strength per army), as a differential or an odds ratio rounded in the defender's "
         "favour; terrain and river shift the column left, cumulatively; one die gives NR (no "
         "result), DR/DR2 (the defender retreats 1 or 2 areas, or is eliminated if it cannot), "
         "AR (the attack fails and the attackers retreat one area from their origin, or are "
         "eliminated if they cannot) and, in some tables, AE/DE/EX (eliminations, exchange). "
         "Retreats go through the defender's own areas, never across a river nor next to an "
         "attacking force; the attacker enters an area left empty. ASSAULT re-rolls a no "
         "result once and stops; PROBE never enters; OVERRUN shifts one column right but an AR "
         "costs an army. AMBUSH shifts one column left; RETREAT withdraws before a battle that "
         "would probably push the defenders out anyway.";
}

std::string_view CrtEngine::order_help() const {
  return "Combat results table: no extra keywords. Retreat paths are chosen by the engine "
         "(farthest from the attackers, then the lowest area code).";
}

Status CrtEngine::check_game(const GameState& state) const {
  Result<CrtOptions> o = crt_options_from_json(state.engine.options, true);
  if (!o.ok()) return o.status();
  return Status::Ok();
}

bool CrtEngine::retreat_triggers(const BattleInput& in) const {
  Result<CrtOptions> o = crt_options_from_json(*in.options, false);
  if (!o.ok()) return false;
  const Column c = column_of(in, o.value());
  int pushed = 0;
  for (int face = 1; face <= o->table.die; ++face) {
    const CrtEffect& fx = o->table.results.at(o->table.result(face, c.column));
    if (fx.defender_retreat > 0 || fx.defender_eliminated || fx.exchange) ++pushed;
  }
  return 2 * pushed >= o->table.die;
}

Result<BattleOutcome> CrtEngine::resolve(const BattleInput& in, Rng& rng) const {
  Result<CrtOptions> parsed = crt_options_from_json(*in.options, false);
  if (!parsed.ok()) return parsed.status();
  const CrtOptions& o = parsed.value();
  const Area& target = in.target();
  const int defenders = target.armies;
  BattleOutcome out;
  out.attacker_stops = in.kind == AttackKind::kAssault || in.kind == AttackKind::kProbe;
  if (defenders == 0) {
    out.attacker_wins = in.kind != AttackKind::kProbe;
    return out;
  }
  const Column c = column_of(in, o);
  BattleRound r;
  r.phase = "crt";
  r.attacker_before = in.attacker_armies;
  r.defender_before = defenders;
  r.attacker_strength = c.attack;
  r.defender_strength = c.defence;
  const int max_rolls = in.kind == AttackKind::kAssault ? o.assault_rolls : 1;
  std::string code;
  for (int i = 0; i < max_rolls; ++i) {
    const int face = rng.die(o.table.die);
    r.attacker_dice.push_back(face);
    code = o.table.result(face, c.column);
    const CrtEffect& fx = o.table.results.at(code);
    const bool nothing = fx.defender_retreat == 0 && !fx.defender_eliminated &&
                         !fx.attacker_retreat && !fx.attacker_eliminated && !fx.exchange;
    if (!nothing) break;
  }
  const CrtEffect& fx = o.table.results.at(code);
  int a_loss = 0, d_loss = 0;
  if (fx.attacker_eliminated && in.kind != AttackKind::kProbe) a_loss = in.attacker_armies;
  if (fx.attacker_retreat && in.kind == AttackKind::kOverrun) a_loss = 1;
  // AR: the attacking units retreat from their origin (OQ-CRT3); a probe just goes home.
  if (fx.attacker_retreat && in.kind != AttackKind::kProbe && o.attacker_retreat > 0 &&
      a_loss < in.attacker_armies) {
    const std::vector<std::string> path = crt_attacker_retreat_path(in, o, o.attacker_retreat);
    if (path.empty()) {
      a_loss = in.attacker_armies;
      r.detail["attacker_retreat"] = "no legal retreat: eliminated";
    } else {
      out.attacker_retreats_to = path.back();
      r.detail["attacker_retreat_path"] = path;
    }
  }
  if (fx.defender_eliminated || fx.exchange) d_loss = defenders;
  if (fx.exchange) {
    const int strength = defence_strength(target, o);
    a_loss =
        std::min(in.attacker_armies, (strength + o.strength_per_army - 1) / o.strength_per_army);
  }
  if (fx.defender_retreat > 0 && d_loss == 0) {
    const std::vector<std::string> path = crt_retreat_path(in, o, fx.defender_retreat);
    if (path.empty()) {
      d_loss = defenders;
      r.detail["retreat"] = "no legal retreat: eliminated";
    } else {
      out.defender_retreats_to = path.back();
      r.detail["retreat_path"] = path;
    }
  }
  r.attacker_losses = a_loss;
  r.defender_losses = d_loss;
  r.detail["method"] = o.table.method;
  r.detail["table"] = o.table.name;
  r.detail["value"] = value_label(c, o.table);
  r.detail["column_before_shifts"] = o.table.labels[c.base];
  r.detail["shifts"] = c.shifts;
  r.detail["column"] = o.table.labels[c.column];
  r.detail["result"] = code;
  out.rounds.push_back(std::move(r));
  out.attacker_losses = a_loss;
  out.defender_losses = d_loss;
  const bool vacated = d_loss == defenders || out.defender_retreats_to.has_value();
  out.attacker_wins = vacated && a_loss < in.attacker_armies && in.kind != AttackKind::kProbe;
  out.detail["result"] = code;
  return out;
}

}  // namespace adj
