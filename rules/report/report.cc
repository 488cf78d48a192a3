#include "rules/report/report.h"

#include "rules/game/victory.h"
#include "rules/report/report_fields.h"
#include "rules/report/report_shared.h"
#include "rules/turn/turn_fields.h"

#include <algorithm>
#include <array>
#include <set>

namespace adj {

namespace {

// 1-based position of `player` in an order indexed by ReportIndex; 0 when absent.
int position(const std::map<std::string, int>& order, const std::string& player) {
  auto it = order.find(player);
  return it == order.end() ? 0 : it->second;
}

std::string template_for(const GameState& next, const std::string& player) {
  std::string t = "GAME " + next.game_id + "\nPLAYER " + player + " <your secret>\nTURN " +
                  std::to_string(next.turn) + "\n";
  for (int i = 1; i <= next.rules.actions_per_turn; ++i) t += std::to_string(i) + ".\n";
  return t + "END\n";
}

}  // namespace

Json battle_for_report(const BattleLog& b, const GameState& world) {
  Json j;
  json_form::TreeWriter w(j);
  w.open_object();
  battle_members(w, b, &world);  // rules/turn/turn_fields.h
  w.close_object();
  return j;
}

Json build_roundup(const TurnResult& result) {
  const GameState& next = result.next_state;
  // Areas, armies, population, and the areas' victory points (a kingdom's VP as the standings
  // count them: kingdom_vp).
  std::map<std::string, std::array<int, 4>> totals;
  for (const Area& a : next.areas)
    if (a.owner) {
      auto& t = totals[*a.owner];
      t[0] += 1;
      t[1] += a.armies;
      t[2] += a.population;
      t[3] += area_vp(a);
    }
  Json kingdoms = Json::array();
  for (const Player& p : next.players) {
    const auto t = totals[p.code];
    kingdoms.push_back({{"code", p.code},
                        {"name", p.name},
                        {"areas", t[0]},
                        {"armies", t[1]},
                        {"population", t[2]},
                        {"vp", p.vp + t[3]}});
  }
  return {{"game", next.game_id},
          {"turn", result.turn},
          {"order_of_play", result.order_of_play},
          {"next_order_of_play", result.next_order_of_play},
          {"kingdoms", std::move(kingdoms)}};
}

ReportIndex::ReportIndex(const TurnResult& result) {
  for (std::size_t i = 0; i < result.battles.size(); ++i) {
    const BattleLog& b = result.battles[i];
    battle_by_id[b.id] = i;
    by_player[b.attacker].battles.push_back(i);
    if (b.defender && *b.defender != b.attacker) by_player[*b.defender].battles.push_back(i);
  }
  for (std::size_t i = 0; i < result.actions.size(); ++i)
    by_player[result.actions[i].player].actions.push_back(i);
  for (std::size_t i = 0; i < result.gifts.size(); ++i) {
    const Gift& g = result.gifts[i];
    by_player[g.from].gifts_out += g.bps;
    by_player[g.to].gifts_received.push_back(i);
  }
  const auto& areas = result.next_state.areas;
  for (std::size_t i = 0; i < areas.size(); ++i)
    if (areas[i].owner) by_player[*areas[i].owner].areas.push_back(i);
  // The first occurrence, as a scan would find it.
  for (std::size_t i = 0; i < result.order_of_play.size(); ++i)
    position_this.emplace(result.order_of_play[i], static_cast<int>(i) + 1);
  for (std::size_t i = 0; i < result.next_order_of_play.size(); ++i)
    position_next.emplace(result.next_order_of_play[i], static_cast<int>(i) + 1);
}

report_detail::ReportParts report_detail::report_parts(const TurnResult& result,
                                                       const std::string& player,
                                                       const ReportIndex& index) {
  const GameState& next = result.next_state;
  ReportParts parts;
  parts.me = next.find_player(player);
  assert(parts.me);
  static const ReportIndex::Entry kNone;
  auto found = index.by_player.find(player);
  parts.entry = found == index.by_player.end() ? &kNone : &found->second;
  for (std::size_t i : parts.entry->battles)
    if (result.battles[i].defender == player) parts.defended.push_back(i);
  std::set<std::string_view> mine, visible;
  for (std::size_t i : parts.entry->areas) mine.insert(next.areas[i].code);
  for (const auto& code : mine)
    for (const auto& n : next.neighbours(code))
      if (!mine.count(n)) visible.insert(n);
  for (std::size_t i : parts.entry->battles) {
    const BattleLog& b = result.battles[i];
    if (!mine.count(b.to)) visible.insert(b.to);
    if (!mine.count(b.from)) visible.insert(b.from);
  }
  for (std::string_view code : visible) parts.visible.push_back(next.find_area(code));
  parts.economy = &result.economy.at(player);
  const auto given = result.orders.find(player);
  parts.orders_on_file = given != result.orders.end() && !given->second.empty();
  parts.position_this = position(index.position_this, player);
  parts.position_next = position(index.position_next, player);
  return parts;
}

std::string report_detail::order_template(const GameState& next, const std::string& player) {
  return template_for(next, player);
}

Json build_report(const GameState&, const TurnResult& result, const std::string& player,
                  const ReportIndex& index) {
  const GameState& next = result.next_state;
  const report_detail::ReportParts parts = report_detail::report_parts(result, player, index);
  Json report;
  json_form::TreeWriter w(report);
  report_detail::report_members(
      w, result, index, parts, template_for(next, player), nullptr,
      [&](std::size_t i) { w.value(battle_for_report(result.battles[i], next)); });
  return report;
}

}  // namespace adj

namespace adj {
Json build_report(const GameState& start, const TurnResult& result, const std::string& player) {
  return build_report(start, result, player, ReportIndex(result));
}
Json rejected_lines_json(const std::vector<LineResult>& lines) {
  Json out;
  json_form::TreeWriter w(out);
  report_detail::rejected_rows(w, lines);
  return out;
}

void add_rejected_lines(Json& report, const std::vector<LineResult>& lines) {
  Json rejected = rejected_lines_json(lines);
  if (!rejected.empty()) report["not_carried_out"] = std::move(rejected);
}

}  // namespace adj
