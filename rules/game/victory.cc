#include "rules/game/victory.h"

#include <algorithm>
#include <map>

namespace adj {

namespace {

std::optional<int> int_field(const Json& j, const char* key) {
  if (!j.is_object()) return std::nullopt;
  auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<int>();
}

bool bool_field(const Json& j, const char* key) {
  if (!j.is_object()) return false;
  auto it = j.find(key);
  return it != j.end() && it->is_boolean() && it->get<bool>();
}

bool same_place(const Standing& a, const Standing& b) {
  return a.vp == b.vp && a.areas == b.areas && a.armies == b.armies;
}

std::string name_of(const GameState& st, const std::string& code) {
  const Player* p = st.find_player(code);
  return p && !p->name.empty() ? p->name : code;
}

std::string names_of(const GameState& st, const std::vector<std::string>& codes) {
  std::string out;
  for (std::size_t i = 0; i < codes.size(); ++i) {
    if (i > 0) out += i + 1 == codes.size() ? " and " : ", ";
    out += name_of(st, codes[i]) + " (" + codes[i] + ")";
  }
  return out;
}

// Results for a win by the kingdoms ranked first: "won" alone, "drawn" when shared.
Ending leaders_win(std::vector<Standing> table, const char* kind, int turn) {
  Ending e;
  e.kind = kind;
  e.turn = turn;
  for (auto& s : table)
    if (s.rank == 1) e.winners.push_back(s.code);
  for (auto& s : table) s.result = s.rank != 1 ? "lost" : e.winners.size() == 1 ? "won" : "drawn";
  e.standings = std::move(table);
  return e;
}

}  // namespace

int area_vp(const Area& a) {
  auto v = int_field(a.features, "vp");
  return v ? *v : 0;
}

int kingdom_vp(const GameState& state, const Player& p) {
  int vp = p.vp;
  for (const Area& a : state.areas)
    if (a.owner == p.code) vp += area_vp(a);
  return vp;
}

VictoryConditions victory_of(const GameState& state) {
  VictoryConditions v;
  const Json& j = state.scenario_extra.is_object() && state.scenario_extra.contains("victory")
                      ? state.scenario_extra["victory"]
                      : Json();
  v.vp = int_field(j, "vp");
  v.last_turn = int_field(j, "last_turn");
  v.last_standing = bool_field(j, "last_standing");
  v.draw = bool_field(j, "draw");
  return v;
}

Json to_json(const VictoryConditions& v) {
  Json j = Json::object();
  if (v.vp) j["vp"] = *v.vp;
  if (v.last_turn) j["last_turn"] = *v.last_turn;
  j["last_standing"] = v.last_standing;
  j["draw"] = v.draw;
  return j;
}

std::vector<Standing> rank_players(const GameState& state) {
  std::map<std::string, Standing> by_code;
  for (const Player& p : state.players) {
    Standing s;
    s.code = p.code;
    s.name = p.name;
    s.vp = p.vp;
    by_code[p.code] = s;
  }
  for (const Area& a : state.areas) {
    if (!a.owner) continue;
    auto it = by_code.find(*a.owner);
    if (it == by_code.end()) continue;
    it->second.vp += area_vp(a);
    it->second.areas += 1;
    it->second.armies += a.armies;
  }
  std::vector<Standing> out;
  for (auto& [code, s] : by_code) out.push_back(std::move(s));
  std::stable_sort(out.begin(), out.end(), [](const Standing& a, const Standing& b) {
    if (a.vp != b.vp) return a.vp > b.vp;
    if (a.areas != b.areas) return a.areas > b.areas;
    if (a.armies != b.armies) return a.armies > b.armies;
    return a.code < b.code;
  });
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i].rank =
        i > 0 && same_place(out[i], out[i - 1]) ? out[i - 1].rank : static_cast<int>(i) + 1;
  return out;
}

std::optional<Ending> check_ending(const GameState& after, int turn,
                                   const std::set<std::string>& draw_proposed) {
  const VictoryConditions v = victory_of(after);
  if (!v.any() || after.players.empty()) return std::nullopt;
  std::vector<Standing> table = rank_players(after);
  std::vector<std::string> survivors;
  for (const Standing& s : table)
    if (s.areas > 0) survivors.push_back(s.code);
  std::sort(survivors.begin(), survivors.end());

  if (v.vp && !table.empty() && table.front().vp >= *v.vp) {
    Ending e = leaders_win(std::move(table), "vp", turn);
    e.reason = names_of(after, e.winners) + " reached " + std::to_string(e.standings.front().vp) +
               " victory points (" + std::to_string(*v.vp) + " win the game)" +
               (e.winners.size() == 1 ? "." : "; they share the victory as a draw.");
    return e;
  }
  if (v.last_standing && after.players.size() > 1 && survivors.size() == 1) {
    Ending e = leaders_win(std::move(table), "last_standing", turn);
    // The only kingdom holding areas is ranked first: it has areas, the others none.
    e.reason = names_of(after, survivors) + " is the last kingdom standing.";
    return e;
  }
  if (v.draw && !survivors.empty() &&
      std::all_of(survivors.begin(), survivors.end(),
                  [&](const std::string& c) { return draw_proposed.count(c) > 0; })) {
    Ending e;
    e.kind = "draw";
    e.turn = turn;
    e.winners = survivors;
    for (Standing& s : table)
      s.result = std::binary_search(survivors.begin(), survivors.end(), s.code) ? "drawn" : "lost";
    e.standings = std::move(table);
    e.reason = "Every surviving kingdom (" + names_of(after, survivors) +
               ") agreed to a draw in turn " + std::to_string(turn) + ".";
    return e;
  }
  if (v.last_turn && turn >= *v.last_turn) {
    Ending e = leaders_win(std::move(table), "last_turn", turn);
    e.reason = "Turn " + std::to_string(turn) + " was the last turn; " +
               names_of(after, e.winners) +
               (e.winners.size() == 1 ? " leads and wins." : " lead together and share a draw.");
    return e;
  }
  return std::nullopt;
}

Json to_json(const Standing& s) {
  return {{"rank", s.rank},   {"code", s.code},     {"name", s.name},    {"vp", s.vp},
          {"areas", s.areas}, {"armies", s.armies}, {"result", s.result}};
}

Json to_json(const Ending& e) {
  Json table = Json::array();
  for (const Standing& s : e.standings) table.push_back(to_json(s));
  return {{"kind", e.kind},
          {"turn", e.turn},
          {"reason", e.reason},
          {"winners", e.winners},
          {"standings", std::move(table)}};
}

std::optional<Ending> ending_from_json(const Json& j) {
  if (!j.is_object() || !j.contains("kind") || !j["kind"].is_string()) return std::nullopt;
  Ending e;
  e.kind = j["kind"].get<std::string>();
  e.turn = j.value("turn", 0);
  e.reason = j.value("reason", "");
  if (j.contains("winners") && j["winners"].is_array())
    for (const Json& w : j["winners"])
      if (w.is_string()) e.winners.push_back(w.get<std::string>());
  if (j.contains("standings") && j["standings"].is_array())
    for (const Json& r : j["standings"]) {
      if (!r.is_object()) continue;
      Standing s;
      s.rank = r.value("rank", 0);
      s.code = r.value("code", "");
      s.name = r.value("name", "");
      s.vp = r.value("vp", 0);
      s.areas = r.value("areas", 0);
      s.armies = r.value("armies", 0);
      s.result = r.value("result", "");
      e.standings.push_back(std::move(s));
    }
  return e;
}

}  // namespace adj
