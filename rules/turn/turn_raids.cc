// TurnRun: the Dark Age RAID and INVADE actions and the Gaelic conversion of population to armies
// on retreat (docs/rules/dark-age.md §1.6, §1.8; rules/turn/turn_run.h). They are not engine
// battles: their losses are fixed by the rulebook, so the turn loop applies them here and logs each
// as a battle of kind "raid" or "invade" (BattleLog::dark_age_action).
//
// Choices where the rule text is open (each is the docs/rules/dark-age.md recommendation or the
// plainest reading; the numbers are in RulesConfig):
// - RAID and the RETREAT defence mode: "retreat may trigger" (§1.8) -> the same rule 3.11 test as
//   for attacks (CombatEngine::retreat_triggers with the raiding armies), the same guards as the
//   withdrawal in TurnRun::fight (RETREAT mode, a retreat location adjacent and owned by the
//   defender, defending armies present), then the Gaelic conversion.
// - "Successful ambush" (OQ-3): the raided area is in AMBUSH mode against the raiding area.
//   The ambush only spares the defender's army; the raiders still lose 1 army if Def > 0.
// - Sheltering terrain: RulesConfig::raid_shelter_terrain (forest, mountains, wetlands).
// - Pillage: its effect (9.3) was not retrieved. Minimum modelled: the pillaged area loses
//   RulesConfig::raid_pillage_population population (default 1; 5.11 counts "population captured
//   or eliminated" among what a successful raid gains, and 5.9's capture costs one level).
// - The raiders "always give up": survivors go home and may move again this turn (like a MOVE
//   that gives up); the raided area is never captured; no VP changes hands.
// - INVADE: the attacker's cost is 1 population of the origin, which must have one; the target may
//   be unowned; RETREAT and AMBUSH modes play no part (no armies attack); nothing moves, nothing
//   is captured.
#include "rules/combat/dark_age_engine.h"
#include "rules/turn/turn_run.h"

namespace adj::turn_detail {

namespace {

std::string people(int n) { return std::to_string(n) + " population"; }

}  // namespace

int TurnRun::gaelic_conversion(Area& to, Area& dest, const Player& attacker) {
  if (!engine_.dark_age_actions() || !to.owner || to.population <= 0) return 0;
  const Player* owner = s_.find_player(*to.owner);
  if (!owner || !s_.rules.is_gaelic(owner->nation) || s_.rules.is_gaelic(attacker.nation)) return 0;
  const int n = to.population;
  engine_.merge_units(dest.engine_state, dest.armies, Json(), n);
  dest.armies += n;
  to.population = 0;
  return n;
}

void TurnRun::raid(ActionResult& r, Player& p, const Order& o) {
  if (!engine_.dark_age_actions())  // the validator refuses it first
    return fail(r, "RAID is not part of this game's rules (" + std::string(engine_.name()) + ")");
  Area* from = s_.find_area(o.from);
  Area* to = s_.find_area(o.to);
  if (!from || !to) return fail(r, "unknown area");  // validator prevents this
  if (to->kind == AreaKind::kCity)
    return fail(r, "RAID is not allowed against a city (" + to->code + ")");
  if (!owns(p.code, *from)) return fail(r, "you do not own " + from->code);
  std::string why;
  const int n = armies_for(o, *from, why, /*attacking=*/true);
  if (n <= 0) return fail(r, why.empty() ? "no armies to raid with" : why);
  // "Attacks on your own area: ... ASSAULT, RAID, SIEGE fail" (§1.8).
  if (owns(p.code, *to)) return fail(r, "RAID on your own area " + to->code + " fails");
  if (!pay(r, p, s_.rules.cost("RAID"))) return;

  Json moving = leave(*from, n);

  BattleLog log = new_log(p, o, *from, *to);
  log.dark_age_action = DarkAgeAction::kRaid;
  log.attacker_armies = n;
  log.input = R"({"kind":"raid","replay":false})";

  // "retreat may trigger" (§1.8): rule 3.11 as for an attack by n armies, then §1.6's Gaelic
  // conversion.
  BattleInput in;
  in.id = log.id;
  in.world = &s_;
  in.attacker = p.code;
  in.from = from->code;
  in.to = to->code;
  in.attacker_armies = n;
  in.attacker_units = moving;
  in.groups.push_back({p.code, from->code, n, moving, o.action, o.line});
  in.options = &s_.engine.options;
  withdraw_defenders(in, *to, p, log);
  log.defender_armies = to->armies;

  // "attacker -1 army if Def>0 (after retreats); defender -1 army unless successful ambush or
  // terrain mountains/wetlands/forest" (§1.8).
  const int level = dark_age_defence_level(*to, to->armies, s_.rules);
  const bool ambush = to->mode == DefenceMode::kAmbush && to->ambush_against == from->code;
  const bool shelter = s_.rules.raid_shelter_terrain.count(to->terrain) > 0;
  log.ambush = ambush;
  BattleRound round;
  round.phase = "raid";
  round.attacker_before = n;
  round.defender_before = to->armies;
  round.attacker_strength = n;
  round.defender_strength = level;
  round.attacker_losses = level > 0 ? 1 : 0;
  round.defender_losses = to->armies > 0 && !ambush && !shelter ? 1 : 0;
  if (to->armies > 0 && ambush)
    round.detail["defender_spared"] = "ambush";
  else if (to->armies > 0 && shelter)
    round.detail["defender_spared"] = "terrain";

  BattleOutcome out;
  out.attacker_losses = round.attacker_losses;
  out.defender_losses = round.defender_losses;
  const int attackers_left = n - out.attacker_losses;
  if (out.defender_losses > 0) {
    engine_.detach_units(to->engine_state, to->armies, out.defender_losses);
    to->armies -= out.defender_losses;
  }
  if (to->owner) disperse(*to->owner, out.defender_losses);
  disperse(p.code, out.attacker_losses);

  // "pillage if no defending armies survive and attacker not wiped" (§1.8).
  int pillaged = 0;
  if (to->armies == 0 && attackers_left > 0) {
    pillaged = std::min(to->population, s_.rules.raid_pillage_population);
    to->population -= pillaged;
    out.detail["pillaged"] = true;
    out.detail["population_lost"] = pillaged;
  }
  out.rounds.push_back(std::move(round));

  // "always gives up": the survivors go home.
  if (attackers_left > 0) {
    engine_.merge_units(from->engine_state, from->armies, moving, attackers_left);
    from->armies += attackers_left;
  }
  r.ok = attackers_left > 0;
  if (attackers_left == 0) {
    r.message = "the raid failed: all raiding armies were lost";
  } else {
    r.message = "raided " + to->code + ": lost " + armies(out.attacker_losses) +
                ", the defenders lost " + armies(out.defender_losses);
    if (out.detail.contains("pillaged"))
      r.message += "; pillaged " + to->code + " (" + people(pillaged) + " lost)";
    r.message += "; " + armies(attackers_left) + " went back to " + from->code;
  }
  log.outcome = std::move(out);
  r.battle = log.id;
  keep_battle(std::move(log));
}

void TurnRun::invade(ActionResult& r, Player& p, const Order& o) {
  if (!engine_.dark_age_actions())  // the validator refuses it first
    return fail(r, "INVADE is not part of this game's rules (" + std::string(engine_.name()) + ")");
  if (!s_.rules.is_gaelic(p.nation))  // the validator refuses it first
    return fail(r, "only the Gaelic kingdoms may INVADE");
  Area* from = s_.find_area(o.from);
  Area* to = s_.find_area(o.to);
  if (!from || !to) return fail(r, "unknown area");  // validator prevents this
  if (to->kind == AreaKind::kCity)
    return fail(r, "INVADE is not allowed against a city (" + to->code + ")");
  if (!owns(p.code, *from)) return fail(r, "you do not own " + from->code);
  if (owns(p.code, *to)) return fail(r, "INVADE of your own area " + to->code + " fails");
  if (from->population < 1) return fail(r, "no population in " + from->code + " to invade with");
  if (!pay(r, p, s_.rules.cost("INVADE"))) return;

  BattleLog log = new_log(p, o, *from, *to);
  log.dark_age_action = DarkAgeAction::kInvade;
  log.attacker_armies = 0;
  log.defender_armies = to->armies;
  log.input = R"({"kind":"invade","replay":false})";

  // "attacker -1 population; defender -1 army, else -1 fort, else -1 population; nothing moves"
  // (§1.8).
  BattleOutcome out;
  BattleRound round;
  round.phase = "invade";
  round.defender_before = to->armies;
  round.defender_strength = dark_age_defence_level(*to, to->armies, s_.rules);
  const int origin_before = from->population;
  from->population -= 1;
  std::string lost;
  if (to->armies > 0) {
    engine_.detach_units(to->engine_state, to->armies, 1);
    to->armies -= 1;
    if (to->owner) disperse(*to->owner, 1);
    out.defender_losses = round.defender_losses = 1;
    lost = "army";
  } else if (to->fort > 0) {
    to->fort -= 1;
    out.fort_after = to->fort;
    lost = "fort";
  } else if (to->population > 0) {
    to->population -= 1;
    lost = "population";
  } else {
    lost = "nothing";
  }
  out.detail["origin_population"] = {origin_before, from->population};
  out.detail["target_lost"] = lost;
  out.rounds.push_back(std::move(round));

  r.ok = true;
  r.message = "invaded " + to->code + " from " + from->code + " (" + from->code +
              " lost 1 population): " +
              (lost == "nothing" ? to->code + " had nothing to lose"
                                 : to->code + " lost 1 " + (lost == "fort" ? "fort level" : lost));
  log.outcome = std::move(out);
  r.battle = log.id;
  keep_battle(std::move(log));
}

}  // namespace adj::turn_detail
