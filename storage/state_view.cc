#include "storage/state_view.h"

#include <algorithm>
#include <set>

namespace adj {

GameState cut_state(GameState state, const std::vector<std::string>& players,
                    const std::vector<std::string>& areas) {
  const std::set<std::string, std::less<>> area_set(areas.begin(), areas.end());
  std::set<std::string, std::less<>> player_set(players.begin(), players.end());
  std::vector<Area> kept_areas;
  for (Area& a : state.areas)
    if (area_set.count(a.code)) {
      if (a.owner) player_set.insert(*a.owner);
      kept_areas.push_back(std::move(a));
    }
  std::vector<Player> kept_players;
  for (Player& p : state.players)
    if (player_set.count(p.code)) kept_players.push_back(std::move(p));
  std::vector<Edge> kept_edges;
  for (Edge& e : state.edges)
    if (area_set.count(e.a) || area_set.count(e.b)) kept_edges.push_back(std::move(e));
  state.areas = std::move(kept_areas);
  state.players = std::move(kept_players);
  state.edges = std::move(kept_edges);
  state.normalise();
  return state;
}

std::vector<Area> area_names_of(const GameState& state) {
  std::vector<Area> out;
  out.reserve(state.areas.size());
  for (const Area& a : state.areas) {
    Area n;
    n.code = a.code;
    n.name = a.name;
    out.push_back(std::move(n));
  }
  std::sort(out.begin(), out.end(), [](const Area& x, const Area& y) { return x.code < y.code; });
  return out;
}

Json head_json(const GameState& s) {
  GameState h;
  h.game_id = s.game_id;
  h.name = s.name;
  h.turn = s.turn;
  h.seed = s.seed;
  h.engine = s.engine;
  h.rules = s.rules;
  h.order_of_play = s.order_of_play;
  h.scenario_extra = s.scenario_extra;
  Json j = to_json(h);
  j.erase("players");
  j.erase("areas");
  j.erase("adjacency");
  return j;
}

}  // namespace adj
