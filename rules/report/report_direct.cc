// render_report (report_shared.h): a player's report written straight from the turn's data, its
// JSON text and its text, without building the report's tree. The JSON is written from the
// description build_report's tree comes from (rules/report/report_fields.h), so its bytes are
// those of build_report + add_rejected_lines and Json::dump. The text is that of
// render_report_text (report_text.cc), which reads the stored JSON;
// tests/rules/report/report_shared_test.cc compares both on every report of a grid turn.
#include <cstdio>
#include <string>

#include "rules/game/json_text.h"
#include "rules/report/report_fields.h"
#include "rules/report/report_shared.h"
#include "rules/report/state_text.h"

namespace adj {

namespace {

// Left-aligns `s` in `width` columns; a longer text still gets one space after it.
void direct_pad(std::string& out, std::string_view s, std::size_t width) {
  out += s;
  out.append(s.size() < width ? width - s.size() : 1, ' ');
}

const char* opt_text(const std::optional<std::string>& s) { return s ? s->c_str() : "-"; }

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
  // The JSON, from the description build_report's tree comes from; each battle's text spliced.
  json_form::TextWriter w(made.json_text);
  report_detail::report_members(w, result, index, parts, order_template, rejected,
                                [&](std::size_t i) { w.raw(battles.at(i).json_text); });
  return made;
}

}  // namespace adj
