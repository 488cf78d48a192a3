#include "rules/turn/turn_text.h"

#include <vector>

namespace adj::json_text {

namespace {

void ints(std::string& out, const std::vector<int>& v) {
  out += '[';
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) out += ',';
    integer(out, v[i]);
  }
  out += ']';
}

void round(std::string& out, const BattleRound& r, ErrorHandler h) {
  out += "{\"attacker_before\":";
  integer(out, r.attacker_before);
  if (!r.attacker_dice.empty()) {
    out += ",\"attacker_dice\":";
    ints(out, r.attacker_dice);
  }
  out += ",\"attacker_losses\":";
  integer(out, r.attacker_losses);
  out += ",\"attacker_strength\":";
  integer(out, r.attacker_strength);
  out += ",\"defender_before\":";
  integer(out, r.defender_before);
  if (!r.defender_dice.empty()) {
    out += ",\"defender_dice\":";
    ints(out, r.defender_dice);
  }
  out += ",\"defender_losses\":";
  integer(out, r.defender_losses);
  out += ",\"defender_strength\":";
  integer(out, r.defender_strength);
  if (!r.detail.empty()) {
    out += ",\"detail\":";
    value(out, r.detail, h);
  }
  out += ",\"phase\":";
  str(out, r.phase, h);
  out += '}';
}

}  // namespace

void battle_outcome(std::string& out, const BattleOutcome& o, ErrorHandler h) {
  out += '{';
  if (o.advancing) {
    out += "\"advancing\":";
    integer(out, *o.advancing);
    out += ',';
  }
  out += "\"attacker_losses\":";
  integer(out, o.attacker_losses);
  if (o.attacker_retreats_to) {
    out += ",\"attacker_retreats_to\":";
    str(out, *o.attacker_retreats_to, h);
  }
  out += ",\"attacker_stops\":";
  boolean(out, o.attacker_stops);
  if (!o.attacker_units.empty()) {
    out += ",\"attacker_units\":";
    value(out, o.attacker_units, h);
  }
  out += ",\"attacker_wins\":";
  boolean(out, o.attacker_wins);
  out += ",\"defender_losses\":";
  integer(out, o.defender_losses);
  if (o.defender_retreats_to) {
    out += ",\"defender_retreats_to\":";
    str(out, *o.defender_retreats_to, h);
  }
  if (!o.defender_units.empty()) {
    out += ",\"defender_units\":";
    value(out, o.defender_units, h);
  }
  if (!o.detail.empty()) {
    out += ",\"detail\":";
    value(out, o.detail, h);
  }
  if (o.fort_after) {
    out += ",\"fort_after\":";
    integer(out, *o.fort_after);
  }
  if (!o.group_losses.empty()) {
    out += ",\"group_losses\":";
    ints(out, o.group_losses);
  }
  out += ",\"rounds\":[";
  for (std::size_t i = 0; i < o.rounds.size(); ++i) {
    if (i) out += ',';
    round(out, o.rounds[i], h);
  }
  out += "]}";
}

namespace {

// The name battle_for_report (rules/report/report.h) shows for an area: its name in `world`, or
// the code when the area is not there or has no name.
const std::string& area_name(const GameState& world, const std::string& code) {
  const Area* a = world.find_area(code);
  return a && !a->name.empty() ? a->name : code;
}

// battle_log, with the area names of `world` beside the codes when `world` is given.
void log_with_names(std::string& out, const BattleLog& b, ErrorHandler h, const GameState* world) {
  out += "{\"ambush\":";
  boolean(out, b.ambush);
  out += ",\"attacker\":";
  str(out, b.attacker, h);
  out += ",\"attacker_armies\":";
  integer(out, b.attacker_armies);
  out += ",\"captured\":";
  boolean(out, b.captured);
  if (b.converted_population > 0) {
    out += ",\"converted_population\":";
    integer(out, b.converted_population);
  }
  out += ",\"defender\":";
  opt_str(out, b.defender, h);
  out += ",\"defender_armies\":";
  integer(out, b.defender_armies);
  if (b.defender_withdrew_to) {
    out += ",\"defender_withdrew_to\":";
    str(out, *b.defender_withdrew_to, h);
  }
  out += ",\"draws\":[";
  for (std::size_t i = 0; i < b.draws.size(); ++i) {
    out += i ? ",[" : "[";
    unsigned_integer(out, b.draws[i].bound);
    out += ',';
    unsigned_integer(out, b.draws[i].value + 1);
    out += ']';
  }
  out += "],\"engine\":";
  str(out, b.engine, h);
  out += ",\"from\":";
  str(out, b.from, h);
  if (world) {
    out += ",\"from_name\":";
    str(out, area_name(*world, b.from), h);
  }
  if (!b.groups.empty()) {
    out += ",\"groups\":[";
    for (std::size_t i = 0; i < b.groups.size(); ++i) {
      const BattleGroupLog& g = b.groups[i];
      out += i ? ",{\"action\":" : "{\"action\":";
      integer(out, g.action);
      out += ",\"advanced\":";
      integer(out, g.advanced);
      out += ",\"armies\":";
      integer(out, g.armies);
      out += ",\"from\":";
      str(out, g.from, h);
      if (world) {
        out += ",\"from_name\":";
        str(out, area_name(*world, g.from), h);
      }
      out += ",\"line\":";
      integer(out, g.line);
      out += ",\"losses\":";
      integer(out, g.losses);
      out += ",\"player\":";
      str(out, g.player, h);
      out += ",\"returned_to\":";
      str(out, g.returned_to, h);
      out += '}';
    }
    out += ']';
  }
  out += ",\"id\":";
  str(out, b.id, h);
  out += ",\"kind\":\"";
  out += b.dark_age_action == DarkAgeAction::kRaid     ? "raid"
         : b.dark_age_action == DarkAgeAction::kInvade ? "invade"
                                                       : to_string(b.kind);
  out += "\",\"outcome\":";
  battle_outcome(out, b.outcome, h);
  out += ",\"seed\":\"";
  unsigned_integer(out, b.seed);
  out += "\",\"to\":";
  str(out, b.to, h);
  if (world) {
    out += ",\"to_name\":";
    str(out, area_name(*world, b.to), h);
  }
  if (b.defender_withdrew_to) {
    out += ",\"withdrawn_armies\":";
    integer(out, b.withdrawn_armies);
  }
  out += '}';
}

}  // namespace

void battle_log(std::string& out, const BattleLog& b, ErrorHandler h) {
  log_with_names(out, b, h, nullptr);
}

void report_battle(std::string& out, const BattleLog& b, const GameState& world, ErrorHandler h) {
  log_with_names(out, b, h, &world);
}

void action(std::string& out, const ActionResult& a, ErrorHandler h) {
  out += "{\"action\":";
  integer(out, a.action);
  if (a.battle) {
    out += ",\"battle\":";
    str(out, *a.battle, h);
  }
  out += ",\"bp_spent\":";
  integer(out, a.bp_spent);
  out += ",\"line\":";
  integer(out, a.line);
  out += ",\"message\":";
  str(out, a.message, h);
  out += ",\"ok\":";
  boolean(out, a.ok);
  out += ",\"player\":";
  str(out, a.player, h);
  out += ",\"text\":";
  str(out, a.text, h);
  out += ",\"verb\":";
  str(out, verb_name(a.verb), h);
  out += '}';
}

}  // namespace adj::json_text
