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

// A world of `players` kingdoms of kAreasEach areas each, on a grid kWidth areas wide (the last
// row may be short when players * kAreasEach is not a multiple of kWidth). The defaults give the
// 1,000-player world above; the scale benchmark uses up to 10,000 players (50,000 areas).
struct Size {
  int players = kPlayers;
  int width = kWidth;
  int areas() const { return players * kAreasEach; }
};

// The scenario document of the world, as game `id`. Area i belongs to player i / kAreasEach.
inline Json world(const std::string& id, Size size = {}) {
  const int n = size.areas(), w = size.width;
  Json players = Json::array(), areas = Json::array(), adj = Json::array();
  for (int p = 0; p < size.players; ++p)
    players.push_back(
        {{"code", player(p)}, {"name", "Kingdom " + player(p)}, {"secret", "s"}, {"bp", 40}});
  for (int i = 0; i < n; ++i) {
    areas.push_back({{"code", area(i)},
                     {"kind", "land"},
                     {"terrain", i % 7 == 0 ? "forest" : "lowlands"},
                     {"population", 2},
                     {"armies", 6},
                     {"owner", player(i / kAreasEach)},
                     {"x", i % w},
                     {"y", i / w}});
    if (i % w + 1 < w && i + 1 < n) adj.push_back({area(i), area(i + 1)});
    if (i + w < n) adj.push_back({area(i), area(i + w)});
  }
  return {
      {"id", id},           {"name", id},     {"seed", "7"},     {"engine", {{"name", "dark-age"}}},
      {"players", players}, {"areas", areas}, {"adjacency", adj}};
}

// Player p's order file for `game`: 16 actions of every kind against own and neighbouring areas.
inline std::string orders_for(int p, const std::string& game = "bench", Size size = {}) {
  const int a0 = p * kAreasEach, n = size.areas(), w = size.width;
  auto up = [&](int i) { return i >= w ? i - w : (i + w < n ? i + w : i); };
  auto down = [&](int i) { return i + w < n ? i + w : (i >= w ? i - w : i); };
  std::string s = "GAME " + game + "\nPLAYER " + player(p) + " s\n";
  auto line = [&](const std::string& l) { s += l + "\n"; };
  line("LEVY " + area(a0) + " 2");
  line("MOVE " + area(a0) + " " + area(a0 + 1) + " 2");
  line("AMBUSH " + area(a0 + 1) + " " + area(up(a0 + 1)));
  line("RETREAT " + area(a0 + 3) + " " + area(a0 + 2));
  line("DEFEND " + area(a0 + 2));
  line("ASSAULT " + area(a0 + 1) + " " + area(down(a0 + 1)) + " 4");
  line("PROBE " + area(a0 + 2) + " " + area(up(a0 + 2)) + " 2");
  line("MOVE " + area(a0 + 3) + " " + area(down(a0 + 3)) + " AB-1");
  line("OVERRUN " + area(a0 + 4) + " " + area(up(a0 + 4)) + " 3");
  line("MOVE " + area(a0 + 4) + " " + area(a0 + 3));
  line("LEVY " + area(a0 + 2) + " 1");
  line("MOVE " + area(a0 + 2) + " " + area(down(a0 + 2)) + " 2");
  line("ASSAULT " + area(a0) + " " + area(up(a0)) + " 3");
  line("DEFEND " + area(a0 + 4));
  line("ORDER 2");
  line("ORDER");
  return s;
}

}  // namespace adj::testing::grid_world
