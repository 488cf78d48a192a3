// TurnRun: attack orders and the battles they fight (rules/turn/turn_run.h).
#include <algorithm>
#include <cassert>
#include <cmath>

#include "rules/turn/turn_run.h"

namespace adj::turn_detail {

int TurnRun::armies_for(const Order& o, const Area& from, std::string& why) const {
  const int avail = movable(from);
  const int stuck = from.armies - avail;
  switch (o.qty.kind) {
    case Quantity::Kind::kExact:
      if (o.qty.n > avail) {
        why = "only " + armies(avail) + " can move from " + from.code + " (you ordered " +
              std::to_string(o.qty.n) + ")";
        if (stuck > 0)
          why += "; " + armies(stuck) + (stuck == 1 ? " has" : " have") + " stopped for the turn";
        return 0;
      }
      if (o.qty.n == 0) why = "no armies ordered";
      return o.qty.n;
    case Quantity::Kind::kAllBut:
      if (avail - o.qty.n <= 0) {
        why = "no armies to send: " + armies(avail) + " can move from " + from.code + ", all but " +
              std::to_string(o.qty.n) + " is none";
        return 0;
      }
      return avail - o.qty.n;
    case Quantity::Kind::kAll:
      if (avail == 0) why = "no armies can move from " + from.code;
      return avail;
  }
  return 0;
}

void TurnRun::attack(ActionResult& r, Player& p, const Order& o) {
  Area* from = s_.find_area(o.from);
  Area* to = s_.find_area(o.to);
  if (!from || !to) return fail(r, "unknown area");  // validator prevents this
  if (!owns(p.code, *from)) return fail(r, "you do not own " + from->code);
  std::string why;
  const int n = armies_for(o, *from, why);
  if (n <= 0) return fail(r, why.empty() ? "no armies to move" : why);
  const bool own_target = owns(p.code, *to);
  if (own_target && o.verb == Verb::kAssault)
    return fail(r, "ASSAULT on your own area " + to->code + " fails");
  if (!pay(r, p, s_.rules.cost(verb_name(o.verb)))) return;

  Json moving = engine_.detach_units(from->engine_state, from->armies, n);
  from->armies -= n;
  if (own_target) {
    arrive(*to, *from, n, moving, sticky(*to));
    r.ok = true;
    r.message = "moved " + armies(n) + " to " + to->code;
    if (sticky(*to)) r.message += " (difficult terrain: they stop for the turn)";
    return;
  }
  fight(r, p, o, *from, *to, n, std::move(moving));
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

void TurnRun::fight(ActionResult& r, Player& p, const Order& o, Area& from, Area& to, int n,
                    Json moving) {
  BattleLog log;
  log.id = std::to_string(s_.turn) + "." + std::to_string(o.action) + "." + p.code;
  log.seed = derive_seed(result_.seed, "battle:" + log.id);
  log.engine = std::string(engine_.name());
  log.kind = attack_kind_of(o.verb);
  log.attacker = p.code;
  log.defender = to.owner;
  log.from = from.code;
  log.to = to.code;
  log.attacker_armies = n;

  BattleInput in;
  in.id = log.id;
  in.kind = log.kind;
  in.world = &s_;
  in.attacker = p.code;
  in.from = from.code;
  in.to = to.code;
  in.attacker_armies = n;
  in.attacker_units = moving;
  in.groups.push_back({p.code, from.code, n, moving, o.action, o.line});
  in.extras = o.extras;
  in.options = &s_.engine.options;
  in.ambush =
      to.mode == DefenceMode::kAmbush && to.ambush_against == from.code && o.verb != Verb::kProbe;
  log.ambush = in.ambush;

  // RETREAT defence mode: the defenders withdraw before the battle (rule 3.11).
  if (to.mode == DefenceMode::kRetreat && to.retreat_to && to.armies > 0 && to.owner) {
    Area* dest = s_.find_area(*to.retreat_to);
    if (dest && dest->owner == to.owner && s_.adjacent(to.code, dest->code) &&
        engine_.retreat_triggers(in)) {
      log.defender_withdrew_to = dest->code;
      log.withdrawn_armies = to.armies;
      Json units = engine_.detach_units(to.engine_state, to.armies, to.armies);
      engine_.merge_units(dest->engine_state, dest->armies, units, to.armies);
      dest->armies += to.armies;
      dest->retreat_to = to.code;
      to.armies = 0;
      log.converted_population = gaelic_conversion(to, *dest, p);  // §1.6 (turn_raids.cc)
    }
  }
  log.defender_armies = to.armies;
  log.input = battle_input_json(in);

  Xoshiro256 rng(log.seed);
  Result<BattleOutcome> res = engine_.resolve(in, rng);
  if (!res.ok()) {
    // Bad engine data: the armies go home, the action fails, the turn goes on.
    engine_.merge_units(from.engine_state, from.armies, moving, n);
    from.armies += n;
    return fail(r, "the battle could not be fought: " + res.status().message());
  }
  BattleOutcome out = std::move(res).value();
  assert(out.attacker_losses >= 0 && out.attacker_losses <= n);
  assert(out.defender_losses >= 0 && out.defender_losses <= to.armies);
  log.draws = rng.draws();

  const std::optional<std::string> old_owner = to.owner;
  const int attackers_left = n - out.attacker_losses;
  const int defenders_left = to.armies - out.defender_losses;
  if (old_owner) disperse(*old_owner, out.defender_losses);
  disperse(p.code, out.attacker_losses);
  if (out.attacker_player_state) p.engine_state = *out.attacker_player_state;
  if (out.defender_player_state && old_owner)
    if (Player* d = s_.find_player(*old_owner)) d->engine_state = *out.defender_player_state;

  // The defender's survivors stay, or are pushed out by the engine.
  to.armies = defenders_left;
  to.engine_state = out.defender_units;
  if (out.defender_retreats_to && defenders_left > 0) {
    if (Area* dest = s_.find_area(*out.defender_retreats_to)) {
      Json units = engine_.detach_units(to.engine_state, to.armies, defenders_left);
      engine_.merge_units(dest->engine_state, dest->armies, units, defenders_left);
      dest->armies += defenders_left;
      if (!dest->owner && dest->armies == defenders_left) dest->owner = to.owner;
      to.armies = 0;
    }
  }
  if (out.fort_after) to.fort = *out.fort_after;

  if (out.attacker_wins && to.armies == 0 && attackers_left > 0) {
    capture(to, from, p, old_owner);
    to.engine_state = Json::object();
    stuck_[to.code] = 0;
    arrive(to, from, attackers_left, out.attacker_units, out.attacker_stops || sticky(to));
    log.captured = true;
    r.ok = true;
    r.message = "won: " + armies(attackers_left) + " took " + to.code;
  } else {
    // Survivors go home, or where the engine retreats them (an area of theirs or an empty one).
    Area* back = &from;
    if (out.attacker_retreats_to)
      if (Area* d = s_.find_area(*out.attacker_retreats_to); d && d != &to) back = d;
    if (attackers_left > 0) {
      engine_.merge_units(back->engine_state, back->armies, out.attacker_units, attackers_left);
      back->armies += attackers_left;
      if (!back->owner && back->armies == attackers_left) back->owner = p.code;
      if (out.attacker_stops || back != &from) add_stuck(back->code, attackers_left);
    }
    r.ok = false;
    r.message =
        attackers_left == 0 ? "the attack failed: all attacking armies were lost"
        : back == &from
            ? "the attack failed: " + armies(attackers_left) + " went back to " + from.code
            : "the attack failed: " + armies(attackers_left) + " retreated to " + back->code;
  }
  log.outcome = std::move(out);
  r.battle = log.id;
  result_.battles.push_back(std::move(log));
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
