// The description of a player's report as JSON (rules/game/json_form.h), every member once, in key
// order: build_report builds its tree with it (rules/report/report.cc), render_report writes its
// text with it (rules/report/report_direct.cc), so a member added here is in both. W is
// json_form::TreeWriter or json_form::TextWriter.
#pragma once

#include <string>
#include <vector>

#include "rules/game/json_form.h"
#include "rules/report/report_shared.h"
#include "rules/turn/turn_fields.h"

namespace adj::report_detail {

// An area as a report lists it; `own`: one of the player's, with its defence settings and the
// engine's data.
template <class W>
void report_area(W& w, const Area& a, bool own) {
  const bool city = a.kind == AreaKind::kCity;
  w.open_object();
  if (own) w.member("ambush_against", a.ambush_against);
  w.member("armies", a.armies);
  w.member("code", a.code);
  if (own && !a.engine_state.empty()) w.member("engine_state", a.engine_state);  // units, tanks
  w.member("fort", a.fort);
  if (city) w.member("hinterland", a.hinterland);
  w.member("kind", to_string(a.kind));
  if (own) w.member("mode", to_string(a.mode));
  w.member("name", a.name);
  w.member("owner", a.owner);
  w.member("population", a.population);
  if (own) w.member("retreat_to", a.retreat_to);
  w.member("terrain", a.terrain);
  if (city) w.member("trade", a.trade);
  w.close_object();
}

// rejected_lines_json's array: the refused lines of `lines`, in file order.
template <class W>
void rejected_rows(W& w, const std::vector<LineResult>& lines) {
  w.open_array();
  for (const LineResult& l : lines) {
    if (l.accepted) continue;
    w.item();
    w.open_object();
    w.member("line", l.line);
    w.member("reason", l.reason);
    w.member("text", l.text);
    w.close_object();
  }
  w.close_array();
}

// The report of parts.me for `result` (parts = report_parts(result, player, index)).
// `rejected` (may be null): the player's checked lines, shown under "not_carried_out" when one
// was refused. battle(i) writes the value of result.battles[i] as the report shows it
// (battle_for_report). Only a player who received or gave BPs has the economy's gift members.
template <class W, class Battle>
void report_members(W& w, const TurnResult& result, const ReportIndex& index,
                    const ReportParts& parts, const std::string& order_template,
                    const std::vector<LineResult>* rejected, Battle&& battle) {
  const GameState& next = result.next_state;
  const ReportIndex::Entry& entry = *parts.entry;
  w.open_object();
  w.key("actions");
  w.open_array();
  for (std::size_t i : entry.actions) {
    w.item();
    w.open_object();
    action_members(w, result.actions[i], false,
                   [&](const std::string& id) { battle(index.battle_by_id.at(id)); });
    w.close_object();
  }
  w.close_array();
  w.key("areas");
  w.open_array();
  for (std::size_t i : entry.areas) {
    w.item();
    report_area(w, next.areas[i], true);
  }
  w.close_array();
  w.key("attacks_on_you");
  w.open_array();
  for (std::size_t i : parts.defended) {
    w.item();
    battle(i);
  }
  w.close_array();

  const Economy& e = *parts.economy;
  int gifts_in = 0;
  for (std::size_t i : entry.gifts_received) gifts_in += result.gifts[i].bps;
  w.key("economy");
  w.open_object();
  w.member("bid", e.bid);
  w.member("bp_next", e.bp_next);
  w.member("bp_spent", e.bp_spent);
  w.member("bp_start", e.bp_start);
  // Only when there were gifts, so reports of games without any keep their shape.
  if (gifts_in > 0) w.member("gifts_in", gifts_in);
  if (entry.gifts_out > 0) w.member("gifts_out", entry.gifts_out);
  if (!entry.gifts_received.empty()) {
    w.key("gifts_received");
    w.open_array();
    for (std::size_t i : entry.gifts_received) {
      const Gift& g = result.gifts[i];
      w.item();
      w.open_object();
      w.member("action", g.action);
      w.member("bps", g.bps);
      w.member("from", g.from);
      w.close_object();
    }
    w.close_array();
  }
  w.member("income", e.income);
  w.member("leftover", e.leftover);
  w.member("order_bid", e.order_bid);
  w.member("reserve", e.reserve);
  w.member("trade", e.trade);
  w.member("treasury", e.treasury);
  w.member("upkeep", e.upkeep);
  w.member("vp", e.vp);
  w.close_object();

  w.member("engine", next.engine.name);
  w.member("game", next.game_id);
  w.member("game_name", next.name);
  w.key("neighbours");
  w.open_array();
  for (const Area* a : parts.visible) {
    w.item();
    report_area(w, *a, false);
  }
  w.close_array();
  w.member("next_turn", next.turn);
  if (rejected) {
    bool refused = false;
    for (const LineResult& l : *rejected) refused = refused || !l.accepted;
    if (refused) {
      w.key("not_carried_out");
      rejected_rows(w, *rejected);
    }
  }
  w.key("order_position");
  w.open_object();
  w.member("next_turn", parts.position_next);
  w.member("players", result.order_of_play.size());
  w.member("this_turn", parts.position_this);
  w.close_object();
  w.member("orders_on_file", parts.orders_on_file);
  const Player& me = *parts.me;
  w.key("player");
  w.open_object();
  w.member("code", me.code);
  w.member("engine_state", me.engine_state);
  w.member("name", me.name);
  w.member("nation", me.nation);
  w.close_object();
  w.member("template", order_template);
  w.member("turn", result.turn);
  w.close_object();
}

}  // namespace adj::report_detail
