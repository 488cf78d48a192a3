#include "rules/combat/crt_engine.h"

#include <algorithm>
#include <deque>
#include <functional>
#include <limits>
#include <numeric>
#include <set>

#include "rules/combat/crt_numbers.h"

namespace adj {

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
  // Steps from the nearest enemy force (multi-source BFS). A path's end is at most `steps` from
  // `start`, so at most dist[start] + steps from an enemy: the search stops at that depth (it
  // walked the whole world for every battle, which made a 500-player turn quadratic).
  std::map<std::string, int> dist;
  std::deque<std::string> queue(enemy.begin(), enemy.end());
  for (const auto& e : enemy) dist[e] = 0;
  int limit = enemy.count(start) ? steps : std::numeric_limits<int>::max();
  while (!queue.empty()) {
    const std::string c = queue.front();
    queue.pop_front();
    const int d = dist[c];
    if (d >= limit) continue;
    for (const auto& n : w.neighbours(c))
      if (!dist.count(n)) {
        dist[n] = d + 1;
        if (n == start) limit = d + 1 + steps;
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

const EngineTraits& CrtEngine::traits() const {
  static constexpr EngineTraits kTraits{
      .name = "crt",
      .summary =
          "Combat results table: total attack strength (every attacking group of a combined "
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
          "RETREAT withdraws before a battle that would probably push the defenders out anyway.",
      .order_help =
          "Combat results table: no extra keywords. Lines with the same action number against "
          "the same area attack together as one battle (a combined attack). Each army may "
          "attack, and each area be attacked, once per combat phase (the turn). When the "
          "defender retreats or is eliminated, one attacking army enters the area; the others "
          "stay where they attacked from. Retreat paths start at the area's RETREAT location "
          "when it is legal, else the engine chooses (farthest from the enemy, then the lowest "
          "area code).",
  };
  return kTraits;
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
  const CrtColumn c = crt_column_of(in, o.value(), groups, armies, in.kind == AttackKind::kOverrun);
  int pushed = 0;
  for (int face = 1; face <= o->table.die; ++face)
    if (crt_pushes_defender(o->table.results.at(o->table.result(face, c.column)))) ++pushed;
  return 2 * pushed >= o->table.die;
}
namespace {

// One CRT battle (the rules: crt_engine.h): the attacking groups' armies left and lost, the rolls
// and their last result. resolve() calls the steps in order; each fills `out`.
struct CrtBattle {
  // A fight to the finish ends after this many rolls as a failed attack (it is bounded by the
  // attacking armies and the confusion losses, but a scenario's armies are not).
  static constexpr int kMaxFinishRolls = 100;

  CrtBattle(const BattleInput& battle, const CrtOptions& opt, Rng& r)
      : in(battle),
        o(opt),
        rng(r),
        target(battle.target()),
        defenders(target.armies),
        groups(attack_groups(battle)),
        probe(battle.kind == AttackKind::kProbe),
        overrun(battle.kind == AttackKind::kOverrun),
        lost(groups.size(), 0) {
    out.attacker_stops = in.kind == AttackKind::kAssault || probe;
    for (const AttackGroup& g : groups) left.push_back(g.armies);
  }

  const BattleInput& in;
  const CrtOptions& o;
  Rng& rng;
  const Area& target;
  const int defenders;
  const std::vector<AttackGroup> groups;
  const bool probe, overrun;
  BattleOutcome out;
  std::vector<int> left, lost;  // per group: armies still fighting, armies lost
  std::string code;             // the last result ("": no result, see effect())
  int rout = 0;                 // extra areas a routed defender retreats (OVERRUN "rout")
  bool fought = false;          // a failed OVERRUN fought to the finish
  int d_loss = 0;               // defending armies lost

  // What a result code does. An empty code is no result (a fight to the finish that reached its
  // roll limit).
  const CrtEffect& effect(const std::string& c) const {
    static const CrtEffect kNoResult;
    return c.empty() ? kNoResult : o.table.results.at(c);
  }

  // The column and the result of a roll, in its round.
  void describe(BattleRound& r, const CrtColumn& c, const std::string& result) const {
    r.attacker_strength = c.attack;
    r.defender_strength = c.defence;
    r.detail["method"] = o.table.method;
    r.detail["table"] = o.table.name;
    r.detail["value"] = crt_value_label(c, o.table);
    r.detail["column_before_shifts"] = o.table.labels[c.base];
    r.detail["shifts"] = c.shifts;
    r.detail["column"] = o.table.labels[c.column];
    r.detail["result"] = result;
  }

  // The first roll (ASSAULT: rolled again after an NR, up to assault_rolls rolls).
  void first_roll() {
    BattleRound r;
    r.phase = "crt";
    r.attacker_before = sum(left);
    r.defender_before = defenders;
    const CrtColumn c = crt_column_of(in, o, groups, left, overrun);
    const int max_rolls = in.kind == AttackKind::kAssault ? o.assault_rolls : 1;
    for (int i = 0; i < max_rolls; ++i) {
      const int face = rng.die(o.table.die);
      r.attacker_dice.push_back(face);
      code = o.table.result(face, c.column);
      if (!crt_no_result(effect(code))) break;
    }
    describe(r, c, code);
    out.rounds.push_back(std::move(r));
  }

  // OVERRUN (seed 001 5.5): success routs the defender; failure fights to the finish.
  void overrun_first_roll() {
    if (!overrun || !o.overrun_rout) return;
    const CrtEffect& fx = effect(code);
    if (crt_pushes_defender(fx)) {
      rout = o.overrun_rout_areas;
      out.rounds[0].detail["overrun"] = "success: the defender is routed";
    } else if (!fx.attacker_eliminated) {
      fought = true;
      out.rounds[0].detail["overrun"] = "failed: the attacker fights to the finish";
    }
  }

  // After a failed OVERRUN: confusion losses, then a roll at the unshifted column, until a result
  // pushes the defender out or destroys the attacker (NR and AR fight on).
  void fight_to_the_finish() {
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
      const CrtColumn c = crt_column_of(in, o, groups, left, false);
      const int face = rng.die(o.table.die);
      r.attacker_dice.push_back(face);
      code = o.table.result(face, c.column);
      describe(r, c, code);
      out.rounds.push_back(std::move(r));
      const CrtEffect& fx = effect(code);
      if (crt_pushes_defender(fx) || fx.attacker_eliminated) break;  // NR and AR fight on
    }
  }

  // The last result's effects on both sides, recorded in the last round.
  void apply_last_result() {
    BattleRound& last = out.rounds.back();
    const int lost_before = sum(lost);
    if (sum(left) > 0) {
      const CrtEffect& fx = effect(code);
      if (fx.attacker_eliminated && !probe) take_losses(left, lost, sum(left));
      if (fx.attacker_retreat && !fought) {
        if (overrun && !o.overrun_rout) take_losses(left, lost, 1);  // overrun "shift"
        // AR: each group retreats from its own origin (OQ-CRT3); a probe just goes home.
        if (!probe && o.attacker_retreat > 0) retreat_attackers(last);
      }
      if (fx.defender_eliminated || fx.exchange) d_loss = defenders;
      if (fx.exchange) {
        const int strength = crt_defence_strength(target, o);
        take_losses(left, lost, (strength + o.strength_per_army - 1) / o.strength_per_army);
      }
      if (fx.defender_retreat > 0 && d_loss == 0) retreat_defenders(last, fx.defender_retreat);
    }
    last.attacker_losses += sum(lost) - lost_before;
    last.defender_losses = d_loss;
  }

  // AR: every group with armies left retreats o.attacker_retreat areas from its origin, or is
  // eliminated when it cannot; the first group's path (or fate) goes in `last`.
  void retreat_attackers(BattleRound& last) {
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

  // DRn: the defenders retreat `steps` areas (plus an overrun's rout), or are eliminated when
  // they cannot.
  void retreat_defenders(BattleRound& last, int steps) {
    if (rout > 0) last.detail["rout"] = rout;
    const std::vector<std::string> path = crt_retreat_path(in, o, steps + rout);
    if (path.empty()) {
      d_loss = defenders;
      last.detail["retreat"] = "no legal retreat: eliminated";
    } else {
      out.defender_retreats_to = path.back();
      last.detail["retreat_path"] = path;
    }
  }

  // The losses of both sides, each group's (for a combined attack) and the advance into a
  // vacated area.
  void conclude() {
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
  }
};

}  // namespace

Result<BattleOutcome> CrtEngine::resolve(const BattleInput& in, Rng& rng) const {
  Result<CrtOptions> parsed = crt_options_from_json(*in.options, false);
  if (!parsed.ok()) return parsed.status();
  CrtBattle b(in, parsed.value(), rng);
  if (b.defenders == 0) {
    b.out.attacker_wins = !b.probe;
    return std::move(b.out);
  }
  b.first_roll();
  b.overrun_first_roll();
  b.fight_to_the_finish();
  b.apply_last_result();
  b.conclude();
  return std::move(b.out);
}

}  // namespace adj
