// Test support for engine tests: a small hand-built world (players AAA, BBB, ...; areas with an
// owner, armies, terrain, fort, features and engine state; edges with features), normalised as
// the turn runner would see it. Header-only (the test glob compiles *_test.cc only).
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "rules/game/state.h"

namespace adj::testing {

struct WorldArea {
  std::string code;
  std::optional<std::string> owner;
  int armies = 0;
  std::string terrain = "clear";
  int fort = 0;
  Json features = Json::object();
  Json engine_state = Json::object();
};

struct WorldEdge {
  std::string a, b;
  Json features = Json::object();
};

inline GameState engine_world(const std::string& engine, const std::vector<std::string>& players,
                              const std::vector<WorldArea>& areas,
                              const std::vector<WorldEdge>& edges, Json options = Json::object()) {
  GameState s;
  s.engine.name = engine;
  s.engine.options = std::move(options);
  for (const std::string& p : players) {
    Player pl;
    pl.code = p;
    pl.nation = p;
    s.players.push_back(pl);
  }
  for (const WorldArea& a : areas) {
    Area x;
    x.code = a.code;
    x.owner = a.owner;
    x.armies = a.armies;
    x.terrain = a.terrain;
    x.fort = a.fort;
    x.features = a.features;
    x.engine_state = a.engine_state;
    s.areas.push_back(x);
  }
  std::sort(s.areas.begin(), s.areas.end(), [](auto& a, auto& b) { return a.code < b.code; });
  for (const WorldEdge& w : edges) {
    Edge e;
    e.a = std::min(w.a, w.b);
    e.b = std::max(w.a, w.b);
    e.features = w.features;
    s.edges.push_back(e);
  }
  s.normalise();
  return s;
}

}  // namespace adj::testing
