// render_report (report_shared.h): a player's report written straight from the turn's data, its
// JSON text and its text, without building the report's tree. The bytes are those of
// build_report + add_rejected_lines, Json::dump and render_report_text (report_text.cc);
// tests/rules/report/report_shared_test.cc compares both on every report of a grid turn.
// A key added to build_report must be added here too, in the tree's (sorted) key order.
#include <cstdio>
#include <string>

#include "rules/game/json_text.h"
#include "rules/report/report_shared.h"
#include "rules/report/state_text.h"

namespace adj {

namespace {

using json_text::boolean;
using json_text::integer;

// Strings as Json::dump writes them: invalid UTF-8 throws Json::type_error.
void jstr(std::string& out, std::string_view s) { json_text::str(out, s); }
void jopt(std::string& out, const std::optional<std::string>& s) { json_text::opt_str(out, s); }

// Left-aligns `s` in `width` columns; a longer text still gets one space after it.
void direct_pad(std::string& out, std::string_view s, std::size_t width) {
  out += s;
  out.append(s.size() < width ? width - s.size() : 1, ' ');
}

const char* opt_text(const std::optional<std::string>& s) { return s ? s->c_str() : "-"; }

// area_row (report.cc) and, for the player's own areas, their defence settings.
void area_json(std::string& out, const Area& a, bool own) {
  out += '{';
  if (own) {
    out += "\"ambush_against\":";
    jopt(out, a.ambush_against);
    out += ',';
  }
  out += "\"armies\":";
  integer(out, a.armies);
  out += ",\"code\":";
  jstr(out, a.code);
  if (own && !a.engine_state.empty()) {
    out += ",\"engine_state\":";
    json_text::value(out, a.engine_state);
  }
  out += ",\"fort\":";
  integer(out, a.fort);
  const bool city = a.kind == AreaKind::kCity;
  if (city) {
    out += ",\"hinterland\":";
    jstr(out, a.hinterland);
  }
  out += ",\"kind\":";
  jstr(out, to_string(a.kind));
  if (own) {
    out += ",\"mode\":";
    jstr(out, to_string(a.mode));
  }
  out += ",\"name\":";
  jstr(out, a.name);
  out += ",\"owner\":";
  jopt(out, a.owner);
  out += ",\"population\":";
  integer(out, a.population);
  if (own) {
    out += ",\"retreat_to\":";
    jopt(out, a.retreat_to);
  }
  out += ",\"terrain\":";
  jstr(out, a.terrain);
  if (city) {
    out += ",\"trade\":";
    integer(out, a.trade);
  }
  out += '}';
}

// One row of the areas tables of render_report_text: `last` is the owner column of the
// neighbours' table (with its newline), null for the player's own areas (the defence follows).
void area_cells(std::string& out, const Area& a, const char* last) {
  char line[200];
  if (last)
    std::snprintf(line, sizeof line, "  %-4s %-16s %-4s %-10s %3d %4d %6d  %s\n", a.code.c_str(),
                  a.name.substr(0, 16).c_str(), to_string(a.kind), a.terrain.substr(0, 10).c_str(),
                  a.population, a.fort, a.armies, last);
  else
    std::snprintf(line, sizeof line, "  %-4s %-16s %-4s %-10s %3d %4d %6d  ", a.code.c_str(),
                  a.name.substr(0, 16).c_str(), to_string(a.kind), a.terrain.substr(0, 10).c_str(),
                  a.population, a.fort, a.armies);
  out += line;
}

// What every section of one player's report reads, chosen once by render_report. The sections
// append to the text or the JSON text in the order render_report calls them.
struct DirectReport {
  const TurnResult& result;
  const ReportIndex& index;
  const std::vector<ReportBattle>& battles;
  const std::vector<LineResult>* rejected;  // may be null
  const report_detail::ReportParts& parts;
  const std::string& order_template;
  int gifts_in = 0;           // BPs the player received as gifts
  int gifts_out = 0;          // BPs the player gave
  bool any_rejected = false;  // some line of *rejected was refused

  const GameState& next() const { return result.next_state; }
  const Player& me() const { return *parts.me; }
  const ReportIndex::Entry& entry() const { return *parts.entry; }
  const Economy& economy() const { return *parts.economy; }

  // The text: the heading, YOUR ACTIONS, ORDERS NOT CARRIED OUT and ATTACKS ON YOUR AREAS.
  void text_actions(std::string& t) const;
  // The text: ECONOMY.
  void text_economy(std::string& t) const;
  // The economy's gifts line without its "  Gifts: " and newline; "" when there were none.
  std::string gifts_text() const;
  // The text: YOUR AREAS, the player's engine state, NEIGHBOURING AREAS and the order template.
  void text_areas(std::string& t) const;
  // The JSON from its opening brace: actions, areas and attacks_on_you.
  void json_actions(std::string& j) const;
  // The JSON: ,"economy":{...}.
  void json_economy(std::string& j) const;
  // The JSON: engine to turn and the closing brace.
  void json_rest(std::string& j) const;
  // The JSON: ,"not_carried_out":[...] (only when a line was refused).
  void json_rejected(std::string& j) const;
};

void DirectReport::text_actions(std::string& t) const {
  const GameState& next = this->next();
  const Player& me = this->me();
  const ReportIndex::Entry& entry = this->entry();
  t += "ADJUTANT REPORT: " + next.name + " (" + next.game_id + "), turn " +
       std::to_string(result.turn) + "\n";
  t += "Kingdom: " + me.name + " (" + me.code + ")   Rules: " + next.engine.name + "\n\n";
  t += "Your place in the order of play: " + std::to_string(parts.position_this) + " of " +
       std::to_string(static_cast<int>(result.order_of_play.size())) + " this turn, " +
       std::to_string(parts.position_next) + " next turn\n\n";
  t += "YOUR ACTIONS\n";
  if (entry.actions.empty())
    t += parts.orders_on_file ? "  (none)\n" : "  No orders were received for this turn.\n";
  for (std::size_t i : entry.actions) {
    const ActionResult& a = result.actions[i];
    t += "  ";
    direct_pad(t, std::to_string(a.action) + ".", 4);
    direct_pad(t, a.text, 28);
    t += a.ok ? "ok: " : "FAILED: ";
    t += a.message;
    if (a.bp_spent > 0) t += " (" + std::to_string(a.bp_spent) + " BP)";
    t += "\n";
    if (a.battle) t += battles.at(index.battle_by_id.at(*a.battle)).text;
  }
  if (any_rejected) {
    t += "\nORDERS NOT CARRIED OUT (rejected when your file was checked)\n";
    for (const LineResult& l : *rejected)
      if (!l.accepted)
        t += "  line " + std::to_string(l.line) + ": " + l.text + "\n      " + l.reason + "\n";
  }
  t += "\nATTACKS ON YOUR AREAS\n";
  if (parts.defended.empty()) t += "  (none)\n";
  for (std::size_t i : parts.defended) t += battles.at(i).text;
}

std::string DirectReport::gifts_text() const {
  auto n = [](int v) { return std::to_string(v); };
  std::string g;
  if (gifts_in > 0) {
    g = "received " + n(gifts_in) + " BPs:";
    bool first = true;
    for (std::size_t i : entry().gifts_received) {
      const Gift& x = result.gifts[i];
      g += std::string(first ? " " : ", ") + n(x.bps) + " from " + x.from + " at action " +
           n(x.action);
      first = false;
    }
  }
  if (gifts_out > 0)
    g += (g.empty() ? "" : "; ") + std::string("gave ") + n(gifts_out) + " BPs (counted in spent)";
  return g;
}

void DirectReport::text_economy(std::string& t) const {
  const Economy& e = economy();
  auto n = [](int v) { return std::to_string(v); };
  t += "\nECONOMY\n";
  t += "  BPs at the start of the turn " + n(e.bp_start) + ", spent " + n(e.bp_spent) +
       ", left over " + n(e.leftover) + "\n";
  if (const std::string g = gifts_text(); !g.empty()) t += "  Gifts: " + g + "\n";
  t += "  Bid for the order of play " + n(e.bid) + " (ORDER actions " + n(e.order_bid) +
       (e.bid != e.order_bid ? ", leftover BPs " + n(e.leftover) : std::string()) + ")\n";
  t += "  Income " + n(e.income) + ", upkeep " + n(e.upkeep) + ": BPs for turn " + n(next().turn) +
       ": " + n(e.bp_next) + "\n";
  t += "  Trade this turn " + n(e.trade) + ", treasury " + n(e.treasury) + ", victory points " +
       n(e.vp) + ", armies in reserve " + n(e.reserve) + "\n";
}

void DirectReport::text_areas(std::string& t) const {
  const GameState& next = this->next();
  const ReportIndex::Entry& entry = this->entry();
  t += "\nYOUR AREAS (end of turn)\n";
  t += "  code name             kind terrain    pop fort armies  defence\n";
  for (std::size_t i : entry.areas) {
    const Area& a = next.areas[i];
    area_cells(t, a, nullptr);
    const std::string mode = to_string(a.mode);
    t += mode;
    if (mode == "retreat") t += std::string(" to ") + opt_text(a.retreat_to);
    if (mode == "ambush") t += std::string(" against ") + opt_text(a.ambush_against);
    t += "\n";
  }
  for (std::size_t i : entry.areas) {
    const Area& a = next.areas[i];
    if (!a.engine_state.empty())
      t += "  " + a.code + " forces: " + state_inline(a.engine_state) + "\n";
  }
  if (!me().engine_state.empty())
    t += "\nYOUR " + next.engine.name + " STATE (cards, tokens, profile)\n" +
         state_lines(me().engine_state, "  ");
  t += "\nNEIGHBOURING AREAS (end of turn)\n";
  t += "  code name             kind terrain    pop fort armies  owner\n";
  for (const Area* a : parts.visible) {
    area_cells(t, *a, opt_text(a->owner));
  }
  t += "\nORDERS FOR TURN " + std::to_string(next.turn) + " (fill in and send back)\n" +
       order_template;
}

void DirectReport::json_actions(std::string& j) const {
  j += "{\"actions\":[";
  bool first = true;
  for (std::size_t i : entry().actions) {
    const ActionResult& a = result.actions[i];
    j += first ? "{\"action\":" : ",{\"action\":";
    first = false;
    integer(j, a.action);
    if (a.battle) {
      j += ",\"battle\":";
      j += battles.at(index.battle_by_id.at(*a.battle)).json_text;
    }
    j += ",\"bp_spent\":";
    integer(j, a.bp_spent);
    j += ",\"line\":";
    integer(j, a.line);
    j += ",\"message\":";
    jstr(j, a.message);
    j += ",\"ok\":";
    boolean(j, a.ok);
    j += ",\"text\":";
    jstr(j, a.text);
    j += ",\"verb\":";
    jstr(j, verb_name(a.verb));
    j += '}';
  }
  j += "],\"areas\":[";
  first = true;
  for (std::size_t i : entry().areas) {
    if (!first) j += ',';
    first = false;
    area_json(j, next().areas[i], true);
  }
  j += "],\"attacks_on_you\":[";
  first = true;
  for (std::size_t i : parts.defended) {
    if (!first) j += ',';
    first = false;
    j += battles.at(i).json_text;
  }
  j += ']';
}

void DirectReport::json_economy(std::string& j) const {
  const Economy& e = economy();
  j += ",\"economy\":{\"bid\":";
  integer(j, e.bid);
  j += ",\"bp_next\":";
  integer(j, e.bp_next);
  j += ",\"bp_spent\":";
  integer(j, e.bp_spent);
  j += ",\"bp_start\":";
  integer(j, e.bp_start);
  if (gifts_in > 0) {
    j += ",\"gifts_in\":";
    integer(j, gifts_in);
  }
  if (gifts_out > 0) {
    j += ",\"gifts_out\":";
    integer(j, gifts_out);
  }
  if (!entry().gifts_received.empty()) {
    j += ",\"gifts_received\":[";
    bool first = true;
    for (std::size_t i : entry().gifts_received) {
      const Gift& g = result.gifts[i];
      j += first ? "{\"action\":" : ",{\"action\":";
      first = false;
      integer(j, g.action);
      j += ",\"bps\":";
      integer(j, g.bps);
      j += ",\"from\":";
      jstr(j, g.from);
      j += '}';
    }
    j += ']';
  }
  j += ",\"income\":";
  integer(j, e.income);
  j += ",\"leftover\":";
  integer(j, e.leftover);
  j += ",\"order_bid\":";
  integer(j, e.order_bid);
  j += ",\"reserve\":";
  integer(j, e.reserve);
  j += ",\"trade\":";
  integer(j, e.trade);
  j += ",\"treasury\":";
  integer(j, e.treasury);
  j += ",\"upkeep\":";
  integer(j, e.upkeep);
  j += ",\"vp\":";
  integer(j, e.vp);
  j += '}';
}

void DirectReport::json_rejected(std::string& j) const {
  j += ",\"not_carried_out\":[";
  bool first = true;
  for (const LineResult& l : *rejected) {
    if (l.accepted) continue;
    j += first ? "{\"line\":" : ",{\"line\":";
    first = false;
    integer(j, l.line);
    j += ",\"reason\":";
    jstr(j, l.reason);
    j += ",\"text\":";
    jstr(j, l.text);
    j += '}';
  }
  j += ']';
}

void DirectReport::json_rest(std::string& j) const {
  const GameState& next = this->next();
  const Player& me = this->me();
  j += ",\"engine\":";
  jstr(j, next.engine.name);
  j += ",\"game\":";
  jstr(j, next.game_id);
  j += ",\"game_name\":";
  jstr(j, next.name);
  j += ",\"neighbours\":[";
  bool first = true;
  for (const Area* a : parts.visible) {
    if (!first) j += ',';
    first = false;
    area_json(j, *a, false);
  }
  j += "],\"next_turn\":";
  integer(j, next.turn);
  if (any_rejected) json_rejected(j);
  j += ",\"order_position\":{\"next_turn\":";
  integer(j, parts.position_next);
  j += ",\"players\":";
  json_text::unsigned_integer(j, result.order_of_play.size());
  j += ",\"this_turn\":";
  integer(j, parts.position_this);
  j += "},\"orders_on_file\":";
  boolean(j, parts.orders_on_file);
  j += ",\"player\":{\"code\":";
  jstr(j, me.code);
  j += ",\"engine_state\":";
  json_text::value(j, me.engine_state);
  j += ",\"name\":";
  jstr(j, me.name);
  j += ",\"nation\":";
  jstr(j, me.nation);
  j += "},\"template\":";
  jstr(j, order_template);
  j += ",\"turn\":";
  integer(j, result.turn);
  j += '}';
}

}  // namespace

RenderedReport render_report(const GameState&, const TurnResult& result, const std::string& player,
                             const ReportIndex& index, const std::vector<ReportBattle>& battles,
                             const std::vector<LineResult>* rejected) {
  const report_detail::ReportParts parts = report_detail::report_parts(result, player, index);
  const std::string order_template = report_detail::order_template(result.next_state, player);
  DirectReport r{result, index, battles, rejected, parts, order_template};
  for (std::size_t i : parts.entry->gifts_received) r.gifts_in += result.gifts[i].bps;
  r.gifts_out = parts.entry->gifts_out;
  if (rejected)
    for (const LineResult& l : *rejected) r.any_rejected = r.any_rejected || !l.accepted;

  RenderedReport made;
  // The text first (render_report_text), then the JSON: as the tree path, a throw from the
  // player's engine state in the text comes before one from the JSON.
  r.text_actions(made.text);
  r.text_economy(made.text);
  r.text_areas(made.text);
  // The JSON, keys in the tree's order.
  r.json_actions(made.json_text);
  r.json_economy(made.json_text);
  r.json_rest(made.json_text);
  return made;
}

}  // namespace adj
