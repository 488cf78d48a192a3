// render_report (report_shared.h): a player's report written straight from the turn's data, its
// JSON text and its text, without building the report's tree. The JSON is written from the
// description build_report's tree comes from (rules/report/report_fields.h), so its bytes are
// those of build_report + add_rejected_lines and Json::dump. The text is written by the layout
// render_report_text writes too (rules/report/report_layout.h), through the view below, with each
// battle's section spliced as report_battle wrote it; tests/rules/report/report_shared_test.cc
// compares both paths on every report of a grid turn.
#include <string>

#include "rules/game/json_text.h"
#include "rules/report/report_fields.h"
#include "rules/report/report_layout.h"
#include "rules/report/report_shared.h"

namespace adj {

namespace {

struct DirectArea {
  const Area& a;
  const std::string& code() const { return a.code; }
  const std::string& name() const { return a.name; }
  const char* kind() const { return to_string(a.kind); }
  const std::string& terrain() const { return a.terrain; }
  int population() const { return a.population; }
  int fort() const { return a.fort; }
  int armies() const { return a.armies; }
  const char* mode() const { return to_string(a.mode); }
  const std::optional<std::string>& retreat_to() const { return a.retreat_to; }
  const std::optional<std::string>& ambush_against() const { return a.ambush_against; }
  const std::optional<std::string>& owner() const { return a.owner; }
  const Json* engine_state() const { return &a.engine_state; }
};

struct DirectAction {
  const ActionResult& a;
  const std::string* battle_text;  // its battle's section (report_battle), null without one
  int number() const { return a.action; }
  const std::string& text() const { return a.text; }
  bool ok() const { return a.ok; }
  const std::string& message() const { return a.message; }
  int bp_spent() const { return a.bp_spent; }
  void battle(std::string& out) const {
    if (battle_text) out += *battle_text;
  }
};

// One player's report as report_layout::report_text reads it, chosen once by render_report.
struct DirectReport {
  const TurnResult& result;
  const ReportIndex& index;
  const std::vector<ReportBattle>& battles;
  const std::vector<LineResult>* rejected;  // may be null
  const report_detail::ReportParts& parts;
  const std::string& order_template_text;
  int gifts_received = 0;     // BPs the player received as gifts
  bool any_rejected = false;  // some line of *rejected was refused

  const GameState& next() const { return result.next_state; }
  const std::string& game_name() const { return next().name; }
  const std::string& game_id() const { return next().game_id; }
  int turn() const { return result.turn; }
  int next_turn() const { return next().turn; }
  const std::string& engine() const { return next().engine.name; }
  const std::string& player_name() const { return parts.me->name; }
  const std::string& player_code() const { return parts.me->code; }
  const Json* player_state() const { return &parts.me->engine_state; }
  int position_this() const { return parts.position_this; }
  int position_next() const { return parts.position_next; }
  int players() const { return static_cast<int>(result.order_of_play.size()); }
  bool orders_on_file() const { return parts.orders_on_file; }
  bool has_actions() const { return !parts.entry->actions.empty(); }
  template <class F>
  void each_action(F f) const {
    for (std::size_t i : parts.entry->actions) {
      const ActionResult& a = result.actions[i];
      f(DirectAction{a, a.battle ? &battles.at(index.battle_by_id.at(*a.battle)).text : nullptr});
    }
  }
  bool any_refused() const { return any_rejected; }
  template <class F>
  void each_refused(F f) const {
    for (const LineResult& l : *rejected)
      if (!l.accepted) f(l.line, l.text, l.reason);
  }
  bool has_attacks() const { return !parts.defended.empty(); }
  void attacks(std::string& out) const {
    for (std::size_t i : parts.defended) out += battles.at(i).text;
  }
  const Economy& economy() const { return *parts.economy; }
  int gifts_in() const { return gifts_received; }
  int gifts_out() const { return parts.entry->gifts_out; }
  template <class F>
  void each_gift(F f) const {
    for (std::size_t i : parts.entry->gifts_received) {
      const Gift& g = result.gifts[i];
      f(g.bps, g.from, g.action);
    }
  }
  template <class F>
  void each_area(F f) const {
    for (std::size_t i : parts.entry->areas) f(DirectArea{next().areas[i]});
  }
  template <class F>
  void each_neighbour(F f) const {
    for (const Area* a : parts.visible) f(DirectArea{*a});
  }
  const std::string& order_template() const { return order_template_text; }
};

}  // namespace

RenderedReport render_report(const GameState&, const TurnResult& result, const std::string& player,
                             const ReportIndex& index, const std::vector<ReportBattle>& battles,
                             const std::vector<LineResult>* rejected) {
  const report_detail::ReportParts parts = report_detail::report_parts(result, player, index);
  const std::string order_template = report_detail::order_template(result.next_state, player);
  DirectReport r{result, index, battles, rejected, parts, order_template};
  for (std::size_t i : parts.entry->gifts_received) r.gifts_received += result.gifts[i].bps;
  if (rejected)
    for (const LineResult& l : *rejected) r.any_rejected = r.any_rejected || !l.accepted;

  RenderedReport made;
  // The text first (render_report_text), then the JSON: as the tree path, a throw from the
  // player's engine state in the text comes before one from the JSON.
  report_layout::report_text(made.text, r, nullptr);
  // The JSON, from the description build_report's tree comes from; each battle's text spliced.
  json_form::TextWriter w(made.json_text);
  report_detail::report_members(w, result, index, parts, order_template, rejected,
                                [&](std::size_t i) { w.raw(battles.at(i).json_text); });
  return made;
}

}  // namespace adj
