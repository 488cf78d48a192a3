// The large Dark Age world of the turn benchmark and the turn-race test: kPlayers kingdoms with
// kAreasEach areas each on a kWidth x kHeight grid of land areas (A0000 ...), every player with
// the secret "s" and 40 BP. Header-only, so the benchmark needs no test library.
#pragma once

#include <cstdio>
#include <string>

#include "rules/game/state.h"  // Json

namespace adj::testing::grid_world {

constexpr int kWidth = 100, kHeight = 50, kPlayers = 1000, kAreasEach = 5;

inline std::string area(int i) {
  char b[16];
  std::snprintf(b, sizeof b, "A%04d", i);
  return b;
}

inline std::string player(int i) {
  char b[16];
  std::snprintf(b, sizeof b, "P%04d", i);
  return b;
}

// The scenario document of the world, as game `id`. Area i belongs to player i / kAreasEach.
inline Json world(const std::string& id) {
  Json players = Json::array(), areas = Json::array(), adj = Json::array();
  for (int p = 0; p < kPlayers; ++p)
    players.push_back(
        {{"code", player(p)}, {"name", "Kingdom " + player(p)}, {"secret", "s"}, {"bp", 40}});
  for (int i = 0; i < kWidth * kHeight; ++i) {
    areas.push_back({{"code", area(i)},
                     {"kind", "land"},
                     {"terrain", i % 7 == 0 ? "forest" : "lowlands"},
                     {"population", 2},
                     {"armies", 6},
                     {"owner", player(i / kAreasEach)},
                     {"x", i % kWidth},
                     {"y", i / kWidth}});
    if (i % kWidth + 1 < kWidth) adj.push_back({area(i), area(i + 1)});
    if (i + kWidth < kWidth * kHeight) adj.push_back({area(i), area(i + kWidth)});
  }
  return {
      {"id", id},           {"name", id},     {"seed", "7"},     {"engine", {{"name", "dark-age"}}},
      {"players", players}, {"areas", areas}, {"adjacency", adj}};
}

}  // namespace adj::testing::grid_world
