#include "rules/combat/crt_engine.h"

#include <algorithm>
#include <deque>
#include <functional>
#include <numeric>
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

// Reads options[key] into `out` when it is one of `words`; false when present and not one of them.
bool read_word(const Json& obj, const std::string& key, std::initializer_list<const char*> words,
               std::string& out) {
  if (!obj.contains(key)) return true;
  const Json& v = obj[key];
  if (!v.is_string()) return false;
  for (const char* w : words)
    if (v.get<std::string>() == w) {
      out = w;
      return true;
    }
  return false;
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

// The column for groups[i] fighting with armies[i] armies (0: out of the fight); `overrun` adds
// the overrun's right shift.
Column column_of(const BattleInput& in, const CrtOptions& o, const std::vector<AttackGroup>& groups,
                 const std::vector<int>& armies, bool overrun) {
  const Area& t = in.target();
  Column c;
  int total = 0;
  for (int n : armies) total += n;
  c.attack = total * o.strength_per_army;
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
                                                 "attacker_retreat",
                                                 "river_shift",
                                                 "advance",
                                                 "overrun",
                                                 "overrun_rout",
                                                 "overrun_confusion_loss",
                                                 "combat_phase",
                                                 "one_attack_per_unit",
                                                 "one_attack_per_target"};
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
                   read_bool(options, "retreat_into_empty", o.retreat_into_empty),
                   read_int(options, "overrun_rout", 0, 5, o.overrun_rout_areas),
                   read_int(options, "overrun_confusion_loss", 1, 100, o.overrun_confusion_loss),
                   read_bool(options, "one_attack_per_unit", o.phase.one_attack_per_unit),
                   read_bool(options, "one_attack_per_target", o.phase.one_attack_per_target)})
    if (!s.ok()) return s;
  std::string word;
  if (!read_word(options, "river_shift", {"all", "any", "proportional"}, word))
    return bad("river_shift", "must be one of all, any, proportional");
  if (word == "any") o.river_shift = CrtOptions::RiverShift::kAny;
  if (word == "proportional") o.river_shift = CrtOptions::RiverShift::kProportional;
  word.clear();
  if (!read_word(options, "overrun", {"rout", "shift"}, word))
    return bad("overrun", "must be one of rout, shift");
  o.overrun_rout = word != "shift";
  word.clear();
  if (!read_word(options, "combat_phase", {"turn", "action"}, word))
    return bad("combat_phase", "must be one of turn, action");
  if (word == "action") o.phase.scope = CombatPhaseRules::Scope::kActionRound;
  if (options.contains("advance")) {
    const Json& v = options["advance"];
    if (v == "all")
      o.advance.reset();
    else if (v.is_number_integer() && v.get<long long>() >= 0 && v.get<long long>() <= 100000)
      o.advance = v.get<int>();
    else
      return bad("advance", "must be \"all\" or an integer from 0 to 100000");
  }
  return o;
}

namespace {

// A retreat of `steps` areas from `start` for the forces of `side` (see crt_retreat_path):
// through `side`'s areas (or empty ones with retreat_into_empty), never into `battle` or across a
// river, with zoc never next to an area of `enemy`; first step `prefer` when such a path exists,
// then farthest from `enemy`, then the lowest end code, then the lowest path. Empty when there is
// none.
std::vector<std::string> retreat_path(const GameState& w, const std::string& start,
                                      const std::optional<std::string>& side,
                                      const std::set<std::string>& enemy, const std::string& battle,
                                      const std::optional<std::string>& prefer, const CrtOptions& o,
                                      int steps) {
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
    if (w.edge_flag(x, y, "river")) return false;
    const bool own = side && a->owner == side;
    const bool empty = o.retreat_into_empty && !a->owner && a->armies == 0;
    if (!own && !empty) return false;
    if (o.zoc)
      for (const auto& n : w.neighbours(y))
        if (enemy.count(n)) return false;
    return true;
  };
  std::vector<std::string> best, path;
  bool best_preferred = false;
  int best_dist = -1;
  std::function<void(const std::string&)> walk = [&](const std::string& at) {
    if (static_cast<int>(path.size()) == steps) {
      const bool preferred = prefer && path.front() == *prefer;
      const int d = dist.count(at) ? dist[at] : 1 << 20;
      if (best.empty() || (preferred && !best_preferred) ||
          (preferred == best_preferred &&
           (d > best_dist ||
            (d == best_dist && (at < best.back() || (at == best.back() && path < best)))))) {
        best_preferred = preferred;
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

int sum(const std::vector<int>& v) { return std::accumulate(v.begin(), v.end(), 0); }

bool no_result(const CrtEffect& fx) {
  return fx.defender_retreat == 0 && !fx.defender_eliminated && !fx.attacker_retreat &&
         !fx.attacker_eliminated && !fx.exchange;
}

bool pushes_defender(const CrtEffect& fx) {
  return fx.defender_retreat > 0 || fx.defender_eliminated || fx.exchange;
}

}  // namespace

std::vector<std::string> crt_retreat_path(const BattleInput& in, const CrtOptions& o, int steps) {
  const GameState& w = *in.world;
  // The attacking forces: every group's origin and every attacking player's area with armies.
  std::set<std::string> enemy = {in.from}, players = {in.attacker};
  for (const AttackGroup& g : attack_groups(in)) {
    enemy.insert(g.from);
    players.insert(g.player);
  }
  for (const Area& a : w.areas)
    if (a.owner && players.count(*a.owner) && a.armies > 0 && a.code != in.to) enemy.insert(a.code);
  const Area& t = in.target();
  return retreat_path(w, in.to, t.owner, enemy, in.to, t.retreat_to, o, steps);
}

std::vector<std::string> crt_attacker_retreat_path(const BattleInput& in, const AttackGroup& group,
                                                   const CrtOptions& o, int steps) {
  const GameState& w = *in.world;
  const std::optional<std::string>& defender = in.target().owner;
  // The defending forces: the battle area and every area of the defender with armies.
  std::set<std::string> enemy = {in.to};
  if (defender)
    for (const Area& a : w.areas)
      if (a.owner == defender && a.armies > 0) enemy.insert(a.code);
  const Area* origin = w.find_area(group.from);
  const std::optional<std::string> prefer = origin ? origin->retreat_to : std::nullopt;
  return retreat_path(w, group.from, std::optional<std::string>(group.player), enemy, in.to, prefer,
                      o, steps);
}

std::string_view CrtEngine::summary() const {
  return "Combat results table: total attack strength (every attacking group of a combined "
         "attack) against total defence strength (armies x strength per army), as a "
         "differential or an odds ratio rounded in the defender's favour; terrain and river "
         "shift the column left, cumulatively (the river only when every group attacks across "
         "one); one die gives NR (no result), DR/DR2 (the defender retreats 1 or 2 areas, or is "
         "eliminated if it cannot), AR (the attack fails and each group retreats one area from "
         "its origin, or is eliminated if it cannot) and, in some tables, AE/DE/EX "
         "(eliminations, exchange). Retreats go through the side's own areas, never across a "
         "river nor next to an enemy force; when the defender leaves or dies, one attacking "
         "army enters the area and the rest stay where they attacked from. Each army attacks "
         "and each area is attacked at most once per turn. ASSAULT re-rolls a no result once "
         "and stops; PROBE never enters; OVERRUN shifts one column right: if it pushes the "
         "defender out, the defender is routed one area further, else the attacker fights to "
         "the finish, losing an army before every further roll. AMBUSH shifts one column left; "
         "RETREAT withdraws before a battle that would probably push the defenders out anyway.";
}

std::string_view CrtEngine::order_help() const {
  return "Combat results table: no extra keywords. Lines with the same action number against "
         "the same area attack together as one battle (a combined attack). Each army may "
         "attack, and each area be attacked, once per combat phase (the turn). When the "
         "defender retreats or is eliminated, one attacking army enters the area; the others "
         "stay where they attacked from. Retreat paths start at the area's RETREAT location "
         "when it is legal, else the engine chooses (farthest from the enemy, then the lowest "
         "area code).";
}

Status CrtEngine::check_game(const GameState& state) const {
  Result<CrtOptions> o = crt_options_from_json(state.engine.options, true);
  if (!o.ok()) return o.status();
  return Status::Ok();
}

CombatPhaseRules CrtEngine::phase_rules(const Json& options) const {
  Result<CrtOptions> o = crt_options_from_json(options, false);
  return o.ok() ? o->phase : CrtOptions{}.phase;
}

int CrtEngine::world_radius(const Json& options) const {
  Result<CrtOptions> o = crt_options_from_json(options, false);
  if (!o.ok()) return 5;
  int steps = 0;
  for (const auto& [code, fx] : o->table.results) steps = std::max(steps, fx.defender_retreat);
  if (o->overrun_rout) steps += o->overrun_rout_areas;
  return std::max(steps, 1 + o->attacker_retreat) + 3;
}

bool CrtEngine::retreat_triggers(const BattleInput& in) const {
  Result<CrtOptions> o = crt_options_from_json(*in.options, false);
  if (!o.ok()) return false;
  const std::vector<AttackGroup> groups = attack_groups(in);
  std::vector<int> armies;
  for (const AttackGroup& g : groups) armies.push_back(g.armies);
  const Column c = column_of(in, o.value(), groups, armies, in.kind == AttackKind::kOverrun);
  int pushed = 0;
  for (int face = 1; face <= o->table.die; ++face)
    if (pushes_defender(o->table.results.at(o->table.result(face, c.column)))) ++pushed;
  return 2 * pushed >= o->table.die;
}

// A fight to the finish ends after this many rolls as a failed attack (it is bounded by the
// attacking armies and the confusion losses, but a scenario's armies are not).
constexpr int kMaxFinishRolls = 100;

Result<BattleOutcome> CrtEngine::resolve(const BattleInput& in, Rng& rng) const {
  Result<CrtOptions> parsed = crt_options_from_json(*in.options, false);
  if (!parsed.ok()) return parsed.status();
  const CrtOptions& o = parsed.value();
  const Area& target = in.target();
  const int defenders = target.armies;
  const std::vector<AttackGroup> groups = attack_groups(in);
  const bool probe = in.kind == AttackKind::kProbe;
  const bool overrun = in.kind == AttackKind::kOverrun;
  BattleOutcome out;
  out.attacker_stops = in.kind == AttackKind::kAssault || probe;
  if (defenders == 0) {
    out.attacker_wins = !probe;
    return out;
  }
  std::vector<int> left, lost(groups.size(), 0);
  for (const AttackGroup& g : groups) left.push_back(g.armies);
  // An empty code is no result (a fight to the finish that reached its roll limit).
  auto effect = [&](const std::string& code) -> const CrtEffect& {
    static const CrtEffect kNoResult;
    return code.empty() ? kNoResult : o.table.results.at(code);
  };
  auto describe = [&](BattleRound& r, const Column& c, const std::string& code) {
    r.attacker_strength = c.attack;
    r.defender_strength = c.defence;
    r.detail["method"] = o.table.method;
    r.detail["table"] = o.table.name;
    r.detail["value"] = value_label(c, o.table);
    r.detail["column_before_shifts"] = o.table.labels[c.base];
    r.detail["shifts"] = c.shifts;
    r.detail["column"] = o.table.labels[c.column];
    r.detail["result"] = code;
  };

  // The first roll (ASSAULT: rolled again after an NR, up to assault_rolls rolls).
  std::string code;
  {
    BattleRound r;
    r.phase = "crt";
    r.attacker_before = sum(left);
    r.defender_before = defenders;
    const Column c = column_of(in, o, groups, left, overrun);
    const int max_rolls = in.kind == AttackKind::kAssault ? o.assault_rolls : 1;
    for (int i = 0; i < max_rolls; ++i) {
      const int face = rng.die(o.table.die);
      r.attacker_dice.push_back(face);
      code = o.table.result(face, c.column);
      if (!no_result(effect(code))) break;
    }
    describe(r, c, code);
    out.rounds.push_back(std::move(r));
  }

  // OVERRUN (seed 001 5.5): success routs the defender; failure fights to the finish.
  int rout = 0;
  bool fought = false;
  if (overrun && o.overrun_rout) {
    const CrtEffect& fx = effect(code);
    if (pushes_defender(fx)) {
      rout = o.overrun_rout_areas;
      out.rounds[0].detail["overrun"] = "success: the defender is routed";
    } else if (!fx.attacker_eliminated) {
      fought = true;
      out.rounds[0].detail["overrun"] = "failed: the attacker fights to the finish";
    }
  }
  for (int n = 1; fought; ++n) {
    if (n > kMaxFinishRolls) {
      out.detail["ended"] = "no result after " + std::to_string(kMaxFinishRolls) +
                            " rolls to the finish: the attack fails";
      code.clear();
      break;
    }
    BattleRound r;
    r.phase = "to the finish " + std::to_string(n);
    r.attacker_before = sum(left);
    r.defender_before = defenders;
    r.attacker_losses = take_losses(left, lost, o.overrun_confusion_loss);
    r.detail["confusion_losses"] = r.attacker_losses;
    if (sum(left) == 0) {
      r.detail["result"] = "the attackers are destroyed";
      out.rounds.push_back(std::move(r));
      break;
    }
    const Column c = column_of(in, o, groups, left, false);
    const int face = rng.die(o.table.die);
    r.attacker_dice.push_back(face);
    code = o.table.result(face, c.column);
    describe(r, c, code);
    out.rounds.push_back(std::move(r));
    const CrtEffect& fx = effect(code);
    if (pushes_defender(fx) || fx.attacker_eliminated) break;  // NR and AR fight on
  }

  // The last result.
  BattleRound& last = out.rounds.back();
  const int lost_before = sum(lost);
  int d_loss = 0;
  if (sum(left) > 0) {
    const CrtEffect& fx = effect(code);
    if (fx.attacker_eliminated && !probe) take_losses(left, lost, sum(left));
    if (fx.attacker_retreat && !fought) {
      if (overrun && !o.overrun_rout) take_losses(left, lost, 1);  // overrun "shift"
      // AR: each group retreats from its own origin (OQ-CRT3); a probe just goes home.
      if (!probe && o.attacker_retreat > 0) {
        out.group_retreats_to.assign(groups.size(), std::nullopt);
        for (std::size_t i = 0; i < groups.size(); ++i) {
          if (left[i] == 0) continue;
          const std::vector<std::string> path =
              crt_attacker_retreat_path(in, groups[i], o, o.attacker_retreat);
          const char* key = i == 0 ? "attacker_retreat" : nullptr;
          if (path.empty()) {
            lost[i] += left[i];
            left[i] = 0;
            if (key) last.detail[key] = "no legal retreat: eliminated";
          } else {
            out.group_retreats_to[i] = path.back();
            if (key) last.detail["attacker_retreat_path"] = path;
          }
        }
        for (const auto& to : out.group_retreats_to)
          if (to && !out.attacker_retreats_to) out.attacker_retreats_to = to;
      }
    }
    if (fx.defender_eliminated || fx.exchange) d_loss = defenders;
    if (fx.exchange) {
      const int strength = defence_strength(target, o);
      take_losses(left, lost, (strength + o.strength_per_army - 1) / o.strength_per_army);
    }
    if (fx.defender_retreat > 0 && d_loss == 0) {
      if (rout > 0) last.detail["rout"] = rout;
      const std::vector<std::string> path = crt_retreat_path(in, o, fx.defender_retreat + rout);
      if (path.empty()) {
        d_loss = defenders;
        last.detail["retreat"] = "no legal retreat: eliminated";
      } else {
        out.defender_retreats_to = path.back();
        last.detail["retreat_path"] = path;
      }
    }
  }
  last.attacker_losses += sum(lost) - lost_before;
  last.defender_losses = d_loss;
  out.attacker_losses = sum(lost);
  out.defender_losses = d_loss;
  out.group_losses = lost;
  if (groups.size() > 1) {
    Json gj = Json::array();
    for (std::size_t i = 0; i < groups.size(); ++i) {
      Json g = {{"from", groups[i].from}, {"armies", groups[i].armies}, {"losses", lost[i]}};
      if (i < out.group_retreats_to.size() && out.group_retreats_to[i])
        g["retreats_to"] = *out.group_retreats_to[i];
      gj.push_back(std::move(g));
    }
    out.detail["groups"] = std::move(gj);
  }
  if (fought) out.attacker_stops = true;
  const int survivors = sum(left);
  const bool vacated = d_loss == defenders || out.defender_retreats_to.has_value();
  if (vacated && survivors > 0 && !probe) {
    // "one of the attacking units may enter the hexagon"
    if (!o.advance) {
      out.attacker_wins = true;
    } else if (*o.advance > 0) {
      out.attacker_wins = true;
      out.advancing = std::min(survivors, *o.advance);
      out.detail["advancing"] = *out.advancing;
    } else {
      out.detail["advancing"] = 0;
    }
  }
  out.detail["result"] = code;
  return out;
}

}  // namespace adj
