// The descriptions of a turn's results as JSON (rules/game/json_form.h): battle rounds, outcomes,
// battle logs (with or without the area names a report shows) and actions, each member once, in
// key order. Both forms come from them: the trees of to_json (rules/turn/turn_result.h) and
// battle_for_report (rules/report/report.h), and the text of rules/turn/turn_text.h. Write-only:
// nothing reads these back into structs. W is json_form::TextWriter or json_form::TreeWriter.
#pragma once

#include <string>

#include "rules/game/json_form.h"
#include "rules/turn/turn_result.h"

namespace adj {

template <class W>
void describe(W& w, const BattleRound& r) {
  w.member("attacker_before", r.attacker_before);
  if (!r.attacker_dice.empty()) w.member("attacker_dice", r.attacker_dice);
  w.member("attacker_losses", r.attacker_losses);
  w.member("attacker_strength", r.attacker_strength);
  w.member("defender_before", r.defender_before);
  if (!r.defender_dice.empty()) w.member("defender_dice", r.defender_dice);
  w.member("defender_losses", r.defender_losses);
  w.member("defender_strength", r.defender_strength);
  if (!r.detail.empty()) w.member("detail", r.detail);
  w.member("phase", r.phase);
}

template <class W>
void describe(W& w, const BattleOutcome& o) {
  if (o.advancing) w.member("advancing", *o.advancing);
  w.member("attacker_losses", o.attacker_losses);
  if (o.attacker_retreats_to) w.member("attacker_retreats_to", *o.attacker_retreats_to);
  w.member("attacker_stops", o.attacker_stops);
  if (!o.attacker_units.empty()) w.member("attacker_units", o.attacker_units);
  w.member("attacker_wins", o.attacker_wins);
  w.member("defender_losses", o.defender_losses);
  if (o.defender_retreats_to) w.member("defender_retreats_to", *o.defender_retreats_to);
  if (!o.defender_units.empty()) w.member("defender_units", o.defender_units);
  if (!o.detail.empty()) w.member("detail", o.detail);
  if (o.fort_after) w.member("fort_after", *o.fort_after);
  if (!o.group_losses.empty()) w.member("group_losses", o.group_losses);
  w.list("rounds", o.rounds);
}

// The name a report shows for an area: its name in `world`, or the code when the area is not
// there or has no name.
inline const std::string& report_area_name(const GameState& world, const std::string& code) {
  const Area* a = world.find_area(code);
  return a && !a->name.empty() ? a->name : code;
}

// A battle log's members; with `world` (not null), each area's name beside its code
// ("from_name", "to_name", each group's "from_name"), as battle_for_report shows it.
template <class W>
void battle_members(W& w, const BattleLog& b, const GameState* world) {
  w.member("ambush", b.ambush);
  w.member("attacker", b.attacker);
  w.member("attacker_armies", b.attacker_armies);
  w.member("captured", b.captured);
  if (b.converted_population > 0) w.member("converted_population", b.converted_population);
  w.member("defender", b.defender);
  w.member("defender_armies", b.defender_armies);
  if (b.defender_withdrew_to) w.member("defender_withdrew_to", *b.defender_withdrew_to);
  w.key("draws");
  w.open_array();
  for (const Draw& d : b.draws) {
    w.item();
    w.open_array();
    w.item();
    w.value(d.bound);
    w.item();
    w.value(d.value + 1);
    w.close_array();
  }
  w.close_array();
  w.member("engine", b.engine);
  w.member("from", b.from);
  if (world) w.member("from_name", report_area_name(*world, b.from));
  if (!b.groups.empty()) {
    w.key("groups");
    w.open_array();
    for (const BattleGroupLog& g : b.groups) {
      w.item();
      w.open_object();
      w.member("action", g.action);
      w.member("advanced", g.advanced);
      w.member("armies", g.armies);
      w.member("from", g.from);
      if (world) w.member("from_name", report_area_name(*world, g.from));
      w.member("line", g.line);
      w.member("losses", g.losses);
      w.member("player", g.player);
      w.member("returned_to", g.returned_to);
      w.close_object();
    }
    w.close_array();
  }
  w.member("id", b.id);
  w.member("kind", b.dark_age_action == DarkAgeAction::kRaid     ? "raid"
                   : b.dark_age_action == DarkAgeAction::kInvade ? "invade"
                                                                 : to_string(b.kind));
  w.key("outcome");
  w.element(b.outcome);
  w.decimal("seed", b.seed);  // a string: JSON numbers lose 64-bit precision in readers
  w.member("to", b.to);
  if (world) w.member("to_name", report_area_name(*world, b.to));
  if (b.defender_withdrew_to) w.member("withdrawn_armies", b.withdrawn_armies);
}

template <class W>
void describe(W& w, const BattleLog& b) {
  battle_members(w, b, nullptr);
}

// An action's members. `with_player`: its "player" (a report leaves out its own player's code);
// battle(id) writes the value of "battle" (the log's id, or the battle as a report shows it).
template <class W, class Battle>
void action_members(W& w, const ActionResult& a, bool with_player, Battle&& battle) {
  w.member("action", a.action);
  if (a.battle) {
    w.key("battle");
    battle(*a.battle);
  }
  w.member("bp_spent", a.bp_spent);
  w.member("line", a.line);
  w.member("message", a.message);
  w.member("ok", a.ok);
  if (with_player) w.member("player", a.player);
  w.member("text", a.text);
  w.member("verb", verb_name(a.verb));
}

template <class W>
void describe(W& w, const ActionResult& a) {
  action_members(w, a, true, [&](const std::string& id) { w.value(id); });
}

}  // namespace adj
