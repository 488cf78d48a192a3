#include "server/web/pages_view.h"

#include <cctype>
#include <cstdio>
#include <ctime>
#include <map>

#include "rules/report/report.h"
#include "rules/report/state_text.h"
#include "server/app/time_text.h"
#include "server/render/svg_map.h"

namespace adj::web {

namespace {

using Json = nlohmann::json;

// The field as display text: strings as they are, null/missing as `none`, others as JSON.
std::string text(const Json& j, const char* key, const std::string& none = "-") {
  if (!j.is_object()) return none;
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return none;
  return it->is_string() ? it->get<std::string>() : it->dump();
}

int num(const Json& j, const char* key) {
  if (!j.is_object()) return 0;
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<int>() : 0;
}

bool flag(const Json& j, const char* key) {
  if (!j.is_object()) return false;
  auto it = j.find(key);
  return it != j.end() && it->is_boolean() && it->get<bool>();
}

const Json& field(const Json& j, const char* key) {
  static const Json kNull;
  if (!j.is_object()) return kNull;
  auto it = j.find(key);
  return it == j.end() ? kNull : *it;
}

Json int_list(const Json& j) {
  Json out = Json::array();
  if (j.is_array())
    for (const auto& v : j)
      if (v.is_number()) out.push_back(v.get<int>());
  return out;
}

Json area_row(const Json& a) {
  Json row = {{"code", text(a, "code")},
              {"name", text(a, "name", "")},
              {"kind", text(a, "kind")},
              {"terrain", text(a, "terrain")},
              {"population", num(a, "population")},
              {"fort", num(a, "fort")},
              {"armies", num(a, "armies")},
              {"owner", text(a, "owner", "unowned")}};
  const std::string mode = text(a, "mode", "");
  if (!mode.empty()) {
    std::string detail = mode;
    if (mode == "retreat") detail += " to " + text(a, "retreat_to");
    if (mode == "ambush") detail += " against " + text(a, "ambush_against");
    row["mode"] = detail;
  }
  const Json& es = field(a, "engine_state");
  if (es.is_object() && !es.empty()) row["engine_state"] = state_inline(es);
  return row;
}

// A CRT round as a sentence a player can check: "column 2-3 (6-7 shifted 2 left: forest 2),
// die 5: AR".
std::string crt_sentence(const Json& d, const Json& dice) {
  std::string s = "column " + text(d, "column");
  const Json& shifts = field(d, "shifts");
  if (shifts.is_object() && !shifts.empty()) {
    int total = 0;
    std::string parts;
    for (const auto& [k, v] : shifts.items()) {
      if (!v.is_number_integer()) continue;
      total += v.get<int>();
      parts += (parts.empty() ? "" : ", ") + k + " " + std::to_string(v.get<int>());
    }
    s += " (" + text(d, "column_before_shifts") + " shifted " + std::to_string(total) +
         " left: " + parts + ")";
  }
  if (dice.is_array() && dice.size() == 1 && dice[0].is_number_integer())
    s += ", die " + std::to_string(dice[0].get<int>());
  return s + ": " + text(d, "result");
}

}  // namespace

Json battle_view(const Json& b, const std::string& viewer) {
  const Json& o = field(b, "outcome");
  const int aa = num(b, "attacker_armies"), da = num(b, "defender_armies");
  const int al = num(o, "attacker_losses"), dl = num(o, "defender_losses");
  const std::string to = text(b, "to");
  Json rounds = Json::array();
  bool has_dice = false;  // the dice columns are shown only when a round rolled any
  if (field(o, "rounds").is_array())
    for (const auto& r : field(o, "rounds")) {
      Json row = {{"phase", text(r, "phase")},
                  {"attacker_before", num(r, "attacker_before")},
                  {"attacker_strength", num(r, "attacker_strength")},
                  {"defender_before", num(r, "defender_before")},
                  {"defender_strength", num(r, "defender_strength")},
                  {"attacker_losses", num(r, "attacker_losses")},
                  {"defender_losses", num(r, "defender_losses")},
                  {"attacker_dice", int_list(field(r, "attacker_dice"))},
                  {"defender_dice", int_list(field(r, "defender_dice"))},
                  {"ambush_multiplier", nullptr}};
      const Json& detail = field(r, "detail");
      for (const std::string side : {"attacker", "defender"})  // fractional strengths as text
        if (detail.is_object() && detail.contains(side + "_strength_points"))
          row[side + "_strength"] = text(detail, (side + "_strength_points").c_str());
      if (detail.is_object() && detail.contains("ambush_multiplier"))
        row["ambush_multiplier"] = text(detail, "ambush_multiplier");
      has_dice = has_dice || !row["attacker_dice"].empty() || !row["defender_dice"].empty();
      row["crt"] = nullptr;
      if (detail.is_object() && detail.contains("column") && detail.contains("result"))
        row["crt"] = crt_sentence(detail, field(r, "attacker_dice"));
      rounds.push_back(std::move(row));
    }
  Json draws = Json::array();
  if (field(b, "draws").is_array())
    for (const auto& d : field(b, "draws"))
      if (d.is_array() && d.size() == 2 && d[0].is_number() && d[1].is_number())
        draws.push_back({{"face", d[1].get<int>()}, {"bound", d[0].get<int>()}});
  // Each attacking force, shown when there are several or not all survivors entered.
  Json groups = Json::array();
  // Areas by name when the report carries them (battle_for_report with the world).
  auto name_of = [](const Json& j, const char* name_key, const char* code_key) {
    const std::string n = text(j, name_key, "");
    return n.empty() ? text(j, code_key) : n;
  };
  std::string from = name_of(b, "from_name", "from");
  const Json& gs = field(b, "groups");
  const bool combined = gs.is_array() && gs.size() > 1;
  if (combined) from.clear();
  if (gs.is_array())
    for (const auto& g : gs) {
      if (combined) from += (from.empty() ? "" : " + ") + name_of(g, "from_name", "from");
      const int sent = num(g, "armies"), lost = num(g, "losses"), entered = num(g, "advanced");
      const std::string back = text(g, "returned_to", "");
      if (!combined && (back.empty() || !flag(b, "captured"))) continue;
      groups.push_back(
          {{"from", name_of(g, "from_name", "from")},
           {"armies", sent},
           {"losses", lost},
           {"entered", entered > 0 ? Json(entered) : Json()},
           {"back",
            back.empty() || sent - lost - entered <= 0 ? Json() : Json(sent - lost - entered)},
           {"back_to", back == text(g, "from") ? Json() : Json(back)}});
    }
  Json v = {{"id", text(b, "id")},
            {"place", name_of(b, "to_name", "to")},
            {"kind", text(b, "kind")},
            {"from", from},
            {"combined", combined},
            {"has_groups", !groups.empty()},
            {"has_draws", !draws.empty()},
            {"groups", std::move(groups)},
            {"to", to},
            {"attacker", text(b, "attacker")},
            {"defender", text(b, "defender", "unowned")},
            {"you_attacked", text(b, "attacker") == viewer},
            {"attacker_armies", aa},
            {"defender_armies", da},
            {"ambush", flag(b, "ambush")},
            {"withdrew", nullptr},
            {"has_dice", has_dice},
            {"rounds", std::move(rounds)},
            {"draws", std::move(draws)},
            {"seed", text(b, "seed")},
            {"ended", nullptr},
            {"captured", flag(b, "captured")},
            {"result", flag(b, "captured") ? "the attacker took " + to : to + " held"},
            {"attacker_after", aa - al},
            {"defender_after", da - dl},
            {"retreats_to", nullptr}};
  if (b.is_object() && b.contains("defender_withdrew_to"))
    v["withdrew"] = {{"to", text(b, "defender_withdrew_to")},
                     {"armies", num(b, "withdrawn_armies")}};
  const Json& od = field(o, "detail");
  if (od.is_object() && od.contains("ended")) v["ended"] = text(od, "ended");
  // Dark Age RAID and INVADE (rules/turn/turn_raids.cc) and the Gaelic conversion.
  if (b.is_object() && b.contains("converted_population") && v["withdrew"].is_object())
    v["withdrew"]["converted"] = num(b, "converted_population");
  if (text(b, "kind") == "raid") {
    v["result"] = aa - al > 0 ? "the raiders went back to " + text(b, "from")
                              : std::string("the raiders were lost");
    if (od.is_object() && od.contains("pillaged"))
      v["ended"] = "The raiders pillaged " + to + ": " +
                   std::to_string(num(od, "population_lost")) + " population lost.";
  } else if (text(b, "kind") == "invade" && od.is_object()) {
    const std::string lost = text(od, "target_lost");
    v["result"] =
        text(b, "from") + " lost 1 population; " + to +
        (lost == "nothing" ? " had nothing to lose"
                           : " lost 1 " + (lost == "fort" ? std::string("fort level") : lost)) +
        "; nothing moved";
  }
  if (o.is_object() && o.contains("defender_retreats_to"))
    v["retreats_to"] = text(o, "defender_retreats_to");
  return v;
}

Json roundup_view(const Json& roundup, const Json& players) {
  if (!roundup.is_object()) return nullptr;
  std::map<std::string, std::pair<std::string, std::size_t>> who;  // code -> name, palette
  if (players.is_array())
    for (std::size_t i = 0; i < players.size(); ++i)
      who[text(players[i], "code")] = {text(players[i], "name", ""), i};
  auto order = [&](const Json& list) {
    Json out = Json::array();
    if (list.is_array())
      for (std::size_t i = 0; i < list.size(); ++i) {
        const std::string code = list[i].is_string() ? list[i].get<std::string>() : list[i].dump();
        auto it = who.find(code);
        out.push_back({{"position", i + 1},
                       {"code", code},
                       {"name", it == who.end() ? "" : it->second.first}});
      }
    return out;
  };
  Json kingdoms = Json::array();
  if (field(roundup, "kingdoms").is_array())
    for (const auto& k : field(roundup, "kingdoms")) {
      const std::string code = text(k, "code");
      auto it = who.find(code);
      kingdoms.push_back(
          {{"code", code},
           {"name", text(k, "name", "")},
           {"colour", it == who.end() ? "#555555" : render::palette_colour(it->second.second)},
           {"areas", num(k, "areas")},
           {"armies", num(k, "armies")},
           {"population", num(k, "population")},
           {"vp", num(k, "vp")}});
    }
  return {{"turn", num(roundup, "turn")},
          {"order_of_play", order(field(roundup, "order_of_play"))},
          {"next_order_of_play", order(field(roundup, "next_order_of_play"))},
          {"kingdoms", std::move(kingdoms)}};
}

Json report_view(const Json& r) {
  const std::string me = text(field(r, "player"), "code");
  Json actions = Json::array();
  if (field(r, "actions").is_array())
    for (const auto& a : field(r, "actions")) {
      Json row = {{"action", num(a, "action")},
                  {"text", text(a, "text", "")},
                  {"ok", flag(a, "ok")},
                  {"message", text(a, "message", "")},
                  {"bp_spent", num(a, "bp_spent")},
                  {"battle", nullptr}};
      if (a.is_object() && a.contains("battle") && a["battle"].is_object())
        row["battle"] = battle_view(a["battle"], me);
      actions.push_back(std::move(row));
    }
  Json attacks = Json::array();
  if (field(r, "attacks_on_you").is_array())
    for (const auto& b : field(r, "attacks_on_you")) attacks.push_back(battle_view(b, me));
  Json areas = Json::array(), neighbours = Json::array();
  if (field(r, "areas").is_array())
    for (const auto& a : field(r, "areas")) areas.push_back(area_row(a));
  if (field(r, "neighbours").is_array())
    for (const auto& a : field(r, "neighbours")) neighbours.push_back(area_row(a));
  const Json& e = field(r, "economy");
  Json economy = Json::object();
  for (const char* k : {"bp_start", "bp_spent", "bid", "order_bid", "leftover", "income", "upkeep",
                        "trade", "bp_next", "treasury", "vp", "reserve"})
    economy[k] = num(e, k);
  economy["bid_differs"] = num(e, "bid") != num(e, "order_bid");
  if (const std::string g = gifts_text(r); !g.empty()) economy["gifts"] = g;
  const Json& pos = field(r, "order_position");
  const Json& pstate = field(field(r, "player"), "engine_state");
  Json players = Json::array();
  if (field(r, "roundup").is_object() && field(field(r, "roundup"), "kingdoms").is_array())
    for (const auto& k : field(field(r, "roundup"), "kingdoms"))
      players.push_back({{"code", text(k, "code")}, {"name", text(k, "name", "")}});
  return {{"game", text(r, "game")},
          {"game_name", text(r, "game_name", "")},
          {"turn", num(r, "turn")},
          {"next_turn", num(r, "next_turn")},
          {"engine", text(r, "engine")},
          {"player",
           {{"code", me},
            {"name", text(field(r, "player"), "name", "")},
            {"nation", text(field(r, "player"), "nation", "")}}},
          {"position",
           {{"this_turn", num(pos, "this_turn")},
            {"next_turn", num(pos, "next_turn")},
            {"players", num(pos, "players")}}},
          {"orders_on_file", flag(r, "orders_on_file")},
          {"has_actions", !actions.empty()},
          {"actions", std::move(actions)},
          {"attacks", std::move(attacks)},
          {"economy", std::move(economy)},
          {"areas", std::move(areas)},
          {"neighbours", std::move(neighbours)},
          {"player_state",
           pstate.is_object() && !pstate.empty() ? Json(state_lines(pstate, "")) : Json()},
          {"roundup", roundup_view(field(r, "roundup"), players)},
          {"template", text(r, "template", "")}};
}

Json ack_view(const OrderAck& ack) {
  Json lines = Json::array();
  for (const LineResult& l : ack.lines)
    lines.push_back({{"line", l.line},
                     {"action", l.action ? std::to_string(*l.action) : std::string("-")},
                     {"ok", l.accepted},
                     {"text", l.text},
                     {"reason", l.accepted ? std::string() : l.reason}});
  return {{"refused", ack.refused},
          {"refusal", ack.refusal},
          {"game", ack.game},
          {"player", ack.player},
          {"turn", ack.turn},
          {"accepted", ack.accepted_count()},
          {"rejected", ack.rejected_count()},
          {"lines", std::move(lines)},
          {"text", render_ack_text(ack)}};
}

std::string format_time(std::int64_t t) { return utc_minutes(t); }

std::string time_html(std::int64_t t, bool seconds) {
  return "<time datetime=\"" + utc_iso(t) + "\">" +
         (seconds ? format_utc(t, "%Y-%m-%d %H:%M:%S UTC") : utc_minutes(t)) + "</time>";
}

std::string datetime_local(std::int64_t t) { return format_utc(t, "%Y-%m-%dT%H:%M"); }

std::optional<std::int64_t> parse_time(const std::string& in) {
  std::string s = in;
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.erase(0, 1);
  if (s.empty()) return std::nullopt;
  bool digits = s.size() <= 12;
  for (char c : s) digits = digits && std::isdigit(static_cast<unsigned char>(c));
  if (digits) return std::stoll(s);
  int y, mo, d, h, mi, sec = 0;
  char sep;
  int used = 0;
  const int got = std::sscanf(s.c_str(), "%4d-%2d-%2d%c%2d:%2d%n:%2d%n", &y, &mo, &d, &sep, &h, &mi,
                              &used, &sec, &used);
  if (got < 6 || (sep != 'T' && sep != ' ') || static_cast<std::size_t>(used) != s.size())
    return std::nullopt;
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59 || sec < 0 ||
      sec > 60 || y < 1970 || y > 9999)
    return std::nullopt;
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = sec;
  return static_cast<std::int64_t>(timegm(&tm));
}

}  // namespace adj::web
