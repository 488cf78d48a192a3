// TurnRun: attack orders and the battles they fight (rules/turn/turn_run.h).
#include <algorithm>
#include <cassert>
#include <cmath>
#include <numeric>

#include "rules/combat/script_engine.h"
#include "rules/turn/turn_run.h"

namespace adj::turn_detail {

int TurnRun::armies_for(const Order& o, const Area& from, std::string& why, bool attacking) const {
  const int movable_now = movable(from);
  const int used = attacking ? std::min(spent(from), movable_now) : 0;
  const int avail = movable_now - used;
  const int stuck = from.armies - movable_now;
  switch (o.qty.kind) {
    case Quantity::Kind::kExact:
      if (o.qty.n > avail) {
        why = "only " + armies(avail) + " can move from " + from.code + " (you ordered " +
              std::to_string(o.qty.n) + ")";
        if (stuck > 0)
          why += "; " + armies(stuck) + (stuck == 1 ? " has" : " have") + " stopped for the turn";
        if (used > 0)
          why += "; " + armies(used) + (used == 1 ? " has" : " have") +
                 " already attacked in this combat phase (no army may take part in more than one "
                 "attack per combat phase)";
        return 0;
      }
      if (o.qty.n == 0) why = "no armies ordered";
      return o.qty.n;
    case Quantity::Kind::kAllBut:
      if (avail - o.qty.n <= 0) {
        why = "no armies to send: " + armies(avail) + " can move from " + from.code + ", all but " +
              std::to_string(o.qty.n) + " is none";
        if (used > 0) why += " (" + armies(used) + " already attacked in this combat phase)";
        return 0;
      }
      return avail - o.qty.n;
    case Quantity::Kind::kAll:
      if (avail == 0)
        why = "no armies can move from " + from.code +
              (used > 0 ? " (" + armies(used) +
                              " already attacked in this combat phase: no army may take part in "
                              "more than one attack per combat phase)"
                        : std::string());
      return avail;
  }
  return 0;
}

void TurnRun::attack(Player& p, const std::vector<const Order*>& lines) {
  std::vector<std::size_t> idx;
  std::vector<AttackGroup> groups;
  if (!muster(p, lines, idx, groups)) return;
  Area& to = *s_.find_area(lines.front()->to);
  if (engine_.simultaneous_fire()) join_simultaneous(p, to, lines.front()->verb, idx, groups);
  fight(p, *lines.front(), idx, std::move(groups), to);
}

void TurnRun::join_simultaneous(const Player& p, const Area& to, Verb verb,
                                std::vector<std::size_t>& idx, std::vector<AttackGroup>& groups) {
  const auto& order = result_.order_of_play;
  auto me = std::find(order.begin(), order.end(), p.code);
  if (me == order.end()) return;
  const int slot = groups.front().action;
  for (auto q = std::next(me); q != order.end(); ++q) {
    if (to.owner == *q) continue;
    auto it = orders_.find(*q);
    if (it == orders_.end()) continue;
    std::vector<const Order*> lines;
    for (const Order& o : it->second)
      if (o.action == slot && o.verb == verb && o.to == to.code && !done_.count({*q, o.line}))
        lines.push_back(&o);
    if (lines.empty()) continue;
    for (const Order* o : lines) done_.insert({*q, o->line});
    std::vector<std::size_t> qidx;
    std::vector<AttackGroup> qgroups;
    if (!muster(*s_.find_player(*q), lines, qidx, qgroups)) continue;
    idx.insert(idx.end(), qidx.begin(), qidx.end());
    groups.insert(groups.end(), qgroups.begin(), qgroups.end());
  }
}

bool TurnRun::muster(Player& p, const std::vector<const Order*>& lines,
                     std::vector<std::size_t>& idx, std::vector<AttackGroup>& groups) {
  assert(!lines.empty());
  const Order& first = *lines.front();
  const std::size_t first_idx = idx.size(), first_group = groups.size();
  for (const Order* o : lines) {
    begin(p.code, *o);
    idx.push_back(result_.actions.size() - 1);
  }
  auto res = [&](std::size_t k) -> ActionResult& { return result_.actions[idx[first_idx + k]]; };
  const bool combined = lines.size() > 1;
  // One line cannot go ahead: the whole (combined) attack fails, as one attack would (seed 5.1).
  auto fail_all = [&](std::size_t bad, const std::string& why) {
    for (std::size_t k = 0; k < lines.size(); ++k)
      fail(res(k), k == bad || !combined
                       ? why
                       : "the combined attack on " + first.to + " did not go ahead (" +
                             lines[bad]->text + "): " + why);
    return false;
  };

  Area* to = s_.find_area(first.to);
  if (!to) return fail_all(0, "unknown area " + first.to);  // validator prevents this
  const bool own_target = owns(p.code, *to);
  std::vector<Area*> from(lines.size());
  std::vector<int> n(lines.size());
  for (std::size_t k = 0; k < lines.size(); ++k) {
    from[k] = s_.find_area(lines[k]->from);
    if (!from[k]) return fail_all(k, "unknown area " + lines[k]->from);
    if (!owns(p.code, *from[k])) return fail_all(k, "you do not own " + from[k]->code);
    std::string why;
    n[k] = armies_for(*lines[k], *from[k], why, !own_target);
    if (n[k] <= 0) return fail_all(k, why.empty() ? "no armies to move" : why);
  }
  if (own_target && first.verb == Verb::kAssault)
    return fail_all(0, "ASSAULT on your own area " + to->code + " fails");
  if (!own_target && attacked(*to) > 0)
    return fail_all(0, "the armies in " + to->code +
                           " were already attacked in this combat phase (" +
                           attacked_.at(to->code).by +
                           "): no unit may be the object of more than one attack per combat phase");
  const int cost = s_.rules.cost(verb_name(first.verb));
  if (p.bp < cost * static_cast<int>(lines.size()))
    return fail_all(0, "not enough BPs (you have " + std::to_string(p.bp) + ", it costs " +
                           std::to_string(cost * static_cast<int>(lines.size())) + ")");
  std::vector<int> carried(lines.size());  // armies that already attacked this phase, moving on
  for (std::size_t k = 0; k < lines.size(); ++k) {
    const bool paid = pay(res(k), p, cost);
    assert(paid);
    (void)paid;
    groups.push_back({p.code, from[k]->code, n[k], leave(*from[k], n[k], &carried[k]),
                      lines[k]->action, lines[k]->line});
  }
  if (own_target) {
    for (std::size_t k = 0; k < lines.size(); ++k) {
      arrive(*to, *from[k], n[k], groups[first_group + k].units, sticky(*to));
      if (carried[k] > 0) spent_[to->code] += carried[k];
      res(k).ok = true;
      res(k).message = "moved " + armies(n[k]) + " to " + to->code;
      if (sticky(*to)) res(k).message += " (difficult terrain: they stop for the turn)";
    }
    return false;
  }
  return true;
}

std::string TurnRun::inconsistency(const BattleOutcome& out, const std::vector<AttackGroup>& groups,
                                   int defenders) {
  return outcome_inconsistency(out, groups, defenders);
}

BattleLog TurnRun::new_log(const Player& p, const Order& o, const Area& from,
                           const Area& to) const {
  BattleLog log;
  log.id = std::to_string(s_.turn) + "." + std::to_string(o.action) + "." + p.code;
  log.seed = derive_seed(result_.seed, "battle:" + log.id);
  log.engine = std::string(engine_.name());
  log.attacker = p.code;
  log.defender = to.owner;
  log.from = from.code;
  log.to = to.code;
  return log;
}

void TurnRun::withdraw_defenders(const BattleInput& in, Area& to, const Player& p, BattleLog& log) {
  if (to.mode != DefenceMode::kRetreat || !to.retreat_to || to.armies <= 0 || !to.owner) return;
  Area* dest = s_.find_area(*to.retreat_to);
  if (!dest || dest->owner != to.owner || !s_.adjacent(to.code, dest->code) ||
      !engine_.retreat_triggers(in))
    return;
  int k = 0;
  Json units = engine_.withdraw_units(to, s_.engine.options, k);
  if (k == 0) return;  // all of them may stay (Virtuti Militari Fleets in port)
  log.defender_withdrew_to = dest->code;
  log.withdrawn_armies = k;
  engine_.merge_units(dest->engine_state, dest->armies, units, k);
  move_marks(to, *dest, k);
  dest->armies += k;
  dest->retreat_to = to.code;  // rule 3.12
  to.armies -= k;
  log.converted_population = gaelic_conversion(to, *dest, p);  // §1.6 (turn_raids.cc)
}

Json TurnRun::leave(Area& from, int n, int* carried) {
  // Armies that attacked this phase stay behind as long as other movable armies can go
  // (armies_for never sends more fresh armies to an attack than there are).
  const int spent_here = spent(from);
  const int moving_spent = std::max(0, spent_here - (movable(from) - n));
  if (spent_here > 0) spent_[from.code] = spent_here - moving_spent;
  if (carried) *carried = moving_spent;
  Json units = engine_.detach_units(from.engine_state, from.armies, n);
  from.armies -= n;
  return units;
}

int TurnRun::attacked(const Area& a) const {
  if (!phase_.one_attack_per_target) return 0;
  auto it = attacked_.find(a.code);
  return it == attacked_.end() ? 0 : std::clamp(it->second.armies, 0, a.armies);
}

void TurnRun::move_marks(const Area& from, const Area& to, int n) {
  auto move = [&](std::map<std::string, int>& marks) {
    auto it = marks.find(from.code);
    if (it == marks.end()) return;
    const int k = std::clamp(it->second, 0, n);
    it->second -= k;
    if (k > 0) marks[to.code] += k;
  };
  move(stuck_);
  move(spent_);
  if (auto it = attacked_.find(from.code); it != attacked_.end()) {
    const int k = std::clamp(it->second.armies, 0, n);
    it->second.armies -= k;
    if (k > 0) {
      Attacked& dest = attacked_[to.code];
      if (dest.armies == 0) dest.by = it->second.by;
      dest.armies += k;
    }
  }
}

void TurnRun::clamp_marks(const Area& a) {
  if (auto it = stuck_.find(a.code); it != stuck_.end())
    it->second = std::min(it->second, a.armies);
  if (auto it = spent_.find(a.code); it != spent_.end())
    it->second = std::min(it->second, a.armies);
  if (auto it = attacked_.find(a.code); it != attacked_.end())
    it->second.armies = std::min(it->second.armies, a.armies);
}

int TurnRun::spent(const Area& a) const {
  if (!phase_.one_attack_per_unit) return 0;
  auto it = spent_.find(a.code);
  return it == spent_.end() ? 0 : std::clamp(it->second, 0, a.armies);
}

void TurnRun::arrive(Area& to, const Area& from, int n, const Json& units, bool stop) {
  engine_.merge_units(to.engine_state, to.armies, units, n);
  to.armies += n;
  to.retreat_to = from.code;  // rule 3.12
  if (stop) add_stuck(to.code, n);
}

void TurnRun::disperse(const std::string& player, int lost) {
  if (lost <= 0 || s_.rules.dispersal_fraction <= 0) return;
  if (Player* pl = s_.find_player(player))
    pl->reserve += static_cast<int>(std::floor(lost * s_.rules.dispersal_fraction));
}

void TurnRun::fight(Player& p, const Order& first, const std::vector<std::size_t>& results,
                    std::vector<AttackGroup> forces, Area& to) {
  BattleInput in;
  in.groups = std::move(forces);  // the battle's forces, read below as `groups` (no copy)
  const std::vector<AttackGroup>& groups = in.groups;
  BattleLog log = new_log(p, first, *s_.find_area(groups.front().from), to);
  log.kind = attack_kind_of(first.verb);
  fill_battle_input(in, p, first, to, log);

  withdraw_defenders(in, to, p, log);
  log.defender_armies = to.armies;
  // Invalid UTF-8 in scenario text cannot stop a turn: replaced, as in any JSON text out.
  log.input = input_writer_.write(in, &order_position_);
  if (phase_.one_attack_per_target && to.armies > 0)
    attacked_[to.code] = {to.armies, "action " + std::to_string(first.action) + ", by " + p.code};

  Xoshiro256 rng(log.seed);
  Result<BattleOutcome> resolved = resolve_battle(in, p, to.armies, rng);
  if (!resolved.ok()) {
    send_home(groups, results, resolved.status().message());
    return;
  }
  BattleOutcome out = std::move(resolved).value();
  log.draws = rng.draws();

  FightTally t = share_losses(out, groups, in.attacker_armies);
  apply_defence(p, out, groups, t, to);
  advance_winners(out, groups, t, to, log);
  place_survivors(out, groups, t, to, log);
  line_results(groups, results, t, to, log);
  log.outcome = std::move(out);
  keep_battle(std::move(log));
}

void TurnRun::fill_battle_input(BattleInput& in, const Player& p, const Order& first,
                                const Area& to, BattleLog& log) const {
  const std::vector<AttackGroup>& groups = in.groups;
  in.id = log.id;
  in.kind = log.kind;
  in.world = &s_;
  in.attacker = p.code;
  in.from = groups.front().from;
  in.to = to.code;
  for (const AttackGroup& g : groups) {
    engine_.merge_units(in.attacker_units, in.attacker_armies, g.units, g.armies);
    in.attacker_armies += g.armies;
  }
  in.extras = first.extras;
  in.options = &s_.engine.options;
  // Seed 001 3.13: an ambush set against the area a MOVE, ASSAULT or OVERRUN comes from; in a
  // combined attack, against any of them.
  in.ambush = to.mode == DefenceMode::kAmbush && first.verb != Verb::kProbe &&
              std::any_of(groups.begin(), groups.end(),
                          [&](const AttackGroup& g) { return to.ambush_against == g.from; });
  log.attacker_armies = in.attacker_armies;
  log.ambush = in.ambush;
}

Result<BattleOutcome> TurnRun::resolve_battle(const BattleInput& in, const Player& p, int defenders,
                                              Rng& rng) {
  Result<BattleOutcome> resolved =
      fatal_.ok() ? engine_.resolve(in, rng) : Result<BattleOutcome>(fatal_);
  if (resolved.ok()) {
    const std::string bad = inconsistency(*resolved, in.groups, defenders);
    if (!bad.empty()) resolved = Status::Internal("the engine's outcome is inconsistent: " + bad);
  }
  if (!resolved.ok() && fatal_.ok()) {
    // A script is the GM's code, not engine data: its failure fails the whole turn run, naming
    // the battle, the script version and the script's message.
    if (const ScriptId* id = script_id_of(engine_))
      fatal_ = Status::FailedPrecondition(
          "battle " + in.id + " (" + p.code + " from " + in.from + " against " + in.to +
          "): the lua engine script version " + std::to_string(id->version) + " (sha256 " +
          id->sha256.substr(0, 12) + ") failed: " + resolved.status().message());
  }
  return resolved;
}

void TurnRun::send_home(const std::vector<AttackGroup>& groups,
                        const std::vector<std::size_t>& results, const std::string& why) {
  // Bad engine data: the armies go home, the action fails, the turn goes on.
  for (std::size_t k = 0; k < groups.size(); ++k) {
    Area& home = *s_.find_area(groups[k].from);
    engine_.merge_units(home.engine_state, home.armies, groups[k].units, groups[k].armies);
    home.armies += groups[k].armies;
    fail(result_.actions[results[k]], "the battle could not be fought: " + why);
  }
}

TurnRun::FightTally TurnRun::share_losses(const BattleOutcome& out,
                                          const std::vector<AttackGroup>& groups, int n) const {
  FightTally t;
  const std::size_t g_count = groups.size();
  t.lost.assign(g_count, 0);
  if (out.group_losses.size() == g_count) {
    t.lost = out.group_losses;
  } else {
    std::vector<int> left(g_count);
    for (std::size_t k = 0; k < g_count; ++k) left[k] = groups[k].armies;
    take_losses(left, t.lost, out.attacker_losses);
  }
  t.left.resize(g_count);
  for (std::size_t k = 0; k < g_count; ++k) {
    assert(t.lost[k] >= 0 && t.lost[k] <= groups[k].armies);
    t.left[k] = groups[k].armies - t.lost[k];
  }
  t.units.resize(g_count);
  if (out.group_units.size() == g_count) {
    t.units = out.group_units;
  } else {
    Json pool = out.attacker_units;
    int pool_n = n - out.attacker_losses;
    for (std::size_t k = 0; k < g_count; ++k) {
      t.units[k] = engine_.detach_units(pool, pool_n, t.left[k]);
      pool_n -= t.left[k];
    }
  }
  t.attackers_left = n - out.attacker_losses;
  return t;
}

void TurnRun::apply_defence(Player& p, const BattleOutcome& out,
                            const std::vector<AttackGroup>& groups, FightTally& t, Area& to) {
  t.old_owner = to.owner;
  const int defenders_left = to.armies - out.defender_losses;
  if (t.old_owner) disperse(*t.old_owner, out.defender_losses);
  std::map<std::string, int> lost_by_player;  // dispersal rounds per player, not per force
  for (std::size_t k = 0; k < groups.size(); ++k) lost_by_player[groups[k].player] += t.lost[k];
  for (const auto& [who, k] : lost_by_player) disperse(who, k);
  if (out.attacker_player_state) p.engine_state = *out.attacker_player_state;
  if (out.defender_player_state && t.old_owner)
    if (Player* d = s_.find_player(*t.old_owner)) d->engine_state = *out.defender_player_state;

  // The defender's survivors stay, or are pushed out by the engine.
  to.armies = defenders_left;
  clamp_marks(to);
  to.engine_state = out.defender_units;
  if (out.defender_retreats_to && defenders_left > 0) {
    if (Area* dest = s_.find_area(*out.defender_retreats_to)) {
      Json moved = engine_.detach_units(to.engine_state, to.armies, defenders_left);
      engine_.merge_units(dest->engine_state, dest->armies, moved, defenders_left);
      move_marks(to, *dest, defenders_left);
      dest->armies += defenders_left;
      if (!dest->owner && dest->armies == defenders_left) dest->owner = to.owner;
      to.armies = 0;
    }
  }
  if (out.fort_after) to.fort = *out.fort_after;
}

void TurnRun::advance_winners(const BattleOutcome& out, const std::vector<AttackGroup>& groups,
                              FightTally& t, Area& to, BattleLog& log) {
  // How many enter on a win (seed 003: "one of the attacking units may enter"), primary first.
  // Only one player's armies enter: the first in the battle's order with survivors (several
  // players' attacks on one area fire together under simultaneous_fire()).
  const std::size_t g_count = groups.size();
  t.won = out.attacker_wins && to.armies == 0 && t.attackers_left > 0;
  std::size_t lead = 0;
  while (lead < g_count && t.left[lead] == 0) ++lead;
  t.winner = t.won && lead < g_count ? groups[lead].player : std::string();
  int winners_left = 0;
  for (std::size_t k = 0; k < g_count; ++k)
    if (groups[k].player == t.winner) winners_left += t.left[k];
  int entering = t.won ? std::clamp(out.advancing.value_or(winners_left), 0, winners_left) : 0;
  t.enter.assign(g_count, 0);
  for (std::size_t k = 0; k < g_count && entering > 0; ++k) {
    if (groups[k].player != t.winner) continue;
    t.enter[k] = std::min(t.left[k], entering);
    entering -= t.enter[k];
  }
  t.entered = std::accumulate(t.enter.begin(), t.enter.end(), 0);
  if (t.entered > 0) {
    capture(to, *s_.find_area(groups[lead].from), *s_.find_player(t.winner), t.old_owner);
    to.engine_state = Json::object();
    stuck_[to.code] = 0;
    spent_.erase(to.code);
    attacked_.erase(to.code);
    log.captured = true;
  }
}

void TurnRun::place_survivors(const BattleOutcome& out, const std::vector<AttackGroup>& groups,
                              FightTally& t, Area& to, BattleLog& log) {
  for (std::size_t k = 0; k < groups.size(); ++k) {
    BattleGroupLog gl{groups[k].player, groups[k].from, groups[k].action, groups[k].line,
                      groups[k].armies, t.lost[k],      t.enter[k],       ""};
    Area& home = *s_.find_area(groups[k].from);
    Json& gu = t.units[k];
    if (t.enter[k] > 0) {
      Json in_units = engine_.detach_units(gu, t.left[k], t.enter[k]);
      // Each entering force sets the area's retreat location to its origin (rule 3.12): the last
      // one's stays.
      const bool stop = out.attacker_stops || sticky(to);
      arrive(to, home, t.enter[k], in_units, stop);
      if (phase_.one_attack_per_unit && !stop) spent_[to.code] += t.enter[k];
    }
    const int back_n = t.left[k] - t.enter[k];
    if (back_n > 0) {
      // Survivors go home, or where the engine retreats them (an area of theirs or an empty one).
      Area* back = &home;
      std::optional<std::string> dest = out.attacker_retreats_to;
      if (k < out.group_retreats_to.size()) dest = out.group_retreats_to[k];
      if (!t.won && dest)
        if (Area* d = s_.find_area(*dest); d && d != &to) back = d;
      engine_.merge_units(back->engine_state, back->armies, gu, back_n);
      back->armies += back_n;
      if (!back->owner && back->armies == back_n) back->owner = groups[k].player;
      const bool stop = out.attacker_stops || back != &home;
      if (stop) add_stuck(back->code, back_n);
      if (phase_.one_attack_per_unit && !stop) spent_[back->code] += back_n;
      gl.returned_to = back->code;
    }
    log.groups.push_back(gl);
  }
}

void TurnRun::line_results(const std::vector<AttackGroup>& groups,
                           const std::vector<std::size_t>& results, const FightTally& t,
                           const Area& to, const BattleLog& log) {
  const std::size_t g_count = groups.size();
  for (std::size_t k = 0; k < g_count; ++k) {
    const BattleGroupLog& gl = log.groups[k];
    ActionResult& r = result_.actions[results[k]];
    r.battle = log.id;
    r.ok = t.entered > 0 && gl.player == t.winner;
    const bool alone = std::all_of(groups.begin(), groups.end(), [&](const AttackGroup& g) {
      return g.player == groups.front().player;
    });
    std::string own;
    if (gl.advanced > 0) own += armies(gl.advanced) + " entered " + to.code;
    if (!gl.returned_to.empty())
      own += (own.empty() ? "" : ", ") + armies(gl.armies - gl.losses - gl.advanced) +
             (gl.returned_to == gl.from ? " went back to " : " retreated to ") + gl.returned_to;
    if (gl.armies == gl.losses)
      own = "all " + armies(gl.armies) + " from " + gl.from + " were lost";
    if (t.entered > 0 && gl.player != t.winner) {
      r.message =
          to.code + " fell to " + t.winner + ", whose attack fired at the same time; " + own;
    } else if (t.entered > 0) {
      r.message =
          (g_count == 1 && gl.returned_to.empty()
               ? "won: " + armies(gl.advanced) + " took " + to.code
               : "won: " +
                     std::string(g_count > 1 && alone ? "the combined attack took " : "took ") +
                     to.code + "; " + own);
    } else if (t.won) {
      r.message = "won: no defenders are left in " + to.code + ", but no army entered it; " + own;
      r.ok = true;
    } else if (t.attackers_left == 0) {
      r.message = "the attack failed: all attacking armies were lost";
    } else {
      r.message = "the attack failed: " + own;
    }
  }
}

void TurnRun::capture(Area& to, const Area& from, const Player& p,
                      const std::optional<std::string>& old) {
  if (old && *old != p.code) {
    Player* loser = s_.find_player(*old);
    if (loser && loser->nation != p.nation) {
      // Rule 5.9: a foreign conqueror costs the defender a VP and the area a level of each.
      loser->vp -= 1;
      to.population = std::max(0, to.population - 1);
      to.fort = std::max(0, to.fort - 1);
      to.trade = std::max(0, to.trade - 1);
    }
  }
  to.owner = p.code;
  to.mode = DefenceMode::kRetreat;  // OQ-7
  to.retreat_to = from.code;
  to.ambush_against.reset();
}

}  // namespace adj::turn_detail
