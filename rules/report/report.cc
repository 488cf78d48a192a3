#include "rules/report/report.h"

#include "rules/report/report_shared.h"

#include <algorithm>
#include <array>
#include <set>

namespace adj {

namespace {

Json area_row(const Area& a) {
  Json j = {{"code", a.code},
            {"name", a.name},
            {"kind", to_string(a.kind)},
            {"terrain", a.terrain},
            {"owner", a.owner ? Json(*a.owner) : Json(nullptr)},
            {"population", a.population},
            {"fort", a.fort},
            {"armies", a.armies}};
  if (a.kind == AreaKind::kCity) {
    j["trade"] = a.trade;
    j["hinterland"] = a.hinterland;
  }
  return j;
}

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
  Json j = to_json(b);
  auto name = [&](const std::string& code) {
    const Area* a = world.find_area(code);
    return a && !a->name.empty() ? a->name : code;
  };
  j["from_name"] = name(b.from);
  j["to_name"] = name(b.to);
  if (j.contains("groups"))
    for (auto& g : j["groups"]) g["from_name"] = name(g.value("from", ""));
  return j;
}

Json build_roundup(const TurnResult& result) {
  const GameState& next = result.next_state;
  std::map<std::string, std::array<int, 3>> totals;  // areas, armies, population
  for (const Area& a : next.areas)
    if (a.owner) {
      auto& t = totals[*a.owner];
      t[0] += 1;
      t[1] += a.armies;
      t[2] += a.population;
    }
  Json kingdoms = Json::array();
  for (const Player& p : next.players) {
    const auto t = totals[p.code];
    kingdoms.push_back({{"code", p.code},
                        {"name", p.name},
                        {"areas", t[0]},
                        {"armies", t[1]},
                        {"population", t[2]},
                        {"vp", p.vp}});
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
  const Player* me = parts.me;
  const ReportIndex::Entry& mine_idx = *parts.entry;

  Json actions = Json::array();
  for (std::size_t i : mine_idx.actions) {
    const ActionResult& a = result.actions[i];
    // to_json(a) without "player" (the report's own), and "battle" set below.
    Json j = {{"action", a.action},        {"line", a.line}, {"text", a.text},
              {"verb", verb_name(a.verb)}, {"ok", a.ok},     {"message", a.message},
              {"bp_spent", a.bp_spent}};
    if (a.battle) {
      const std::size_t b = index.battle_by_id.at(*a.battle);
      j["battle"] = battle_for_report(result.battles[b], next);
    }
    actions.push_back(std::move(j));
  }
  Json defended = Json::array();
  for (std::size_t i : parts.defended)
    defended.push_back(battle_for_report(result.battles[i], next));

  Json owned = Json::array();
  for (std::size_t i : mine_idx.areas) {
    const Area& a = next.areas[i];
    Json j = area_row(a);
    j["mode"] = to_string(a.mode);
    j["retreat_to"] = a.retreat_to ? Json(*a.retreat_to) : Json(nullptr);
    j["ambush_against"] = a.ambush_against ? Json(*a.ambush_against) : Json(nullptr);
    if (!a.engine_state.empty()) j["engine_state"] = a.engine_state;  // units, tanks, wounds
    owned.push_back(std::move(j));
  }
  Json seen = Json::array();
  for (const Area* a : parts.visible) seen.push_back(area_row(*a));

  const Economy& e = *parts.economy;
  Json economy = {{"bp_start", e.bp_start},
                  {"bp_spent", e.bp_spent},
                  {"bid", e.bid},
                  {"order_bid", e.order_bid},
                  {"leftover", e.leftover},
                  {"income", e.income},
                  {"upkeep", e.upkeep},
                  {"trade", e.trade},
                  {"bp_next", e.bp_next},
                  {"treasury", e.treasury},
                  {"vp", e.vp},
                  {"reserve", e.reserve}};
  Json gifts = Json::array();
  int gifts_in = 0, gifts_out = 0;
  gifts_out = mine_idx.gifts_out;
  for (std::size_t i : mine_idx.gifts_received) {
    const Gift& g = result.gifts[i];
    gifts_in += g.bps;
    gifts.push_back({{"from", g.from}, {"bps", g.bps}, {"action", g.action}});
  }
  // Only when there were gifts, so reports of games without any keep their shape.
  if (gifts_in > 0) economy["gifts_in"] = gifts_in;
  if (gifts_out > 0) economy["gifts_out"] = gifts_out;
  if (!gifts.empty()) economy["gifts_received"] = std::move(gifts);
  return {{"game", next.game_id},
          {"game_name", next.name},
          {"turn", result.turn},
          {"next_turn", next.turn},
          {"engine", next.engine.name},
          {"player",
           {{"code", me->code},
            {"name", me->name},
            {"nation", me->nation},
            {"engine_state", me->engine_state}}},
          {"order_position",
           {{"this_turn", parts.position_this},
            {"next_turn", parts.position_next},
            {"players", result.order_of_play.size()}}},
          {"orders_on_file", parts.orders_on_file},
          {"actions", std::move(actions)},
          {"attacks_on_you", std::move(defended)},
          {"economy", std::move(economy)},
          {"areas", std::move(owned)},
          {"neighbours", std::move(seen)},
          {"template", template_for(next, player)}};
}

}  // namespace adj

namespace adj {
Json build_report(const GameState& start, const TurnResult& result, const std::string& player) {
  return build_report(start, result, player, ReportIndex(result));
}
Json rejected_lines_json(const std::vector<LineResult>& lines) {
  Json out = Json::array();
  for (const LineResult& l : lines)
    if (!l.accepted) out.push_back({{"line", l.line}, {"text", l.text}, {"reason", l.reason}});
  return out;
}

void add_rejected_lines(Json& report, const std::vector<LineResult>& lines) {
  Json rejected = rejected_lines_json(lines);
  if (!rejected.empty()) report["not_carried_out"] = std::move(rejected);
}

}  // namespace adj
