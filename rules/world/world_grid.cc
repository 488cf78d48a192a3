// make_plan: the hex grid, the homes, the seas, cities, names, armies and terrain.
#include <algorithm>
#include <array>
#include <cmath>
#include <set>
#include <utility>

#include "rules/world/world_names.h"
#include "rules/world/world_plan.h"

namespace adj::world {

namespace {

// Hex cells in "odd-r" offset coordinates: odd rows sit half a cell to the right.
constexpr double kCellWidth = 100;
constexpr double kRowHeight = 87;  // kCellWidth * sqrt(3) / 2, rounded

struct Hex {
  int col = 0, row = 0;
};

// Cube distance between two odd-r cells.
int hex_distance(Hex a, Hex b) {
  const auto q = [](Hex h) { return h.col - (h.row - (h.row & 1)) / 2; };
  const int dq = q(a) - q(b), dr = a.row - b.row;
  return (std::abs(dq) + std::abs(dr) + std::abs(dq + dr)) / 2;
}

// The six neighbours of `h` (some may lie outside the grid).
std::array<Hex, 6> hex_neighbours(Hex h) {
  const int c = h.col, r = h.row;
  if (r & 1)
    return {Hex{c, r - 1}, Hex{c + 1, r - 1}, Hex{c - 1, r},
            Hex{c + 1, r}, Hex{c, r + 1},     Hex{c + 1, r + 1}};
  return {Hex{c - 1, r - 1}, Hex{c, r - 1},     Hex{c - 1, r},
          Hex{c + 1, r},     Hex{c - 1, r + 1}, Hex{c, r + 1}};
}

template <class T>
void shuffle(std::vector<T>& v, Rng& rng) {
  for (std::size_t i = v.size(); i > 1; --i)
    std::swap(v[i - 1], v[rng.uniform(static_cast<std::uint32_t>(i))]);
}

// The block every player's home is cut from: bh rows (even, so every block starts on a row of
// the same parity and all homes have the same shape) by bw columns, about twice the home.
struct BlockShape {
  int bw = 2, bh = 2;
  std::vector<Hex> home;  // offsets from the block's corner, the capital first
};

BlockShape block_shape(int k, int ring) {
  BlockShape s;
  s.bh = std::max(2, 2 * static_cast<int>(std::lround(std::sqrt(2.0 * k) / 2)));
  s.bw = std::max(2, (2 * k + s.bh - 1) / s.bh);
  const Hex centre{s.bw / 2, s.bh / 2};
  std::vector<std::pair<int, Hex>> cells;
  // Distances measured at the first block's true rows (parity `ring`): every block is alike.
  const auto at = [&](Hex h) { return Hex{h.col, h.row + ring}; };
  for (int r = 0; r < s.bh; ++r)
    for (int c = 0; c < s.bw; ++c)
      cells.push_back({hex_distance(at(Hex{c, r}), at(centre)), Hex{c, r}});
  std::stable_sort(cells.begin(), cells.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (int i = 0; i < k; ++i) s.home.push_back(cells[i].second);
  return s;
}

// The sea ring's cells in order around the map (clockwise from the top left corner).
std::vector<Hex> ring_walk(int cols, int rows) {
  std::vector<Hex> w;
  for (int c = 0; c < cols; ++c) w.push_back({c, 0});
  for (int r = 1; r < rows; ++r) w.push_back({cols - 1, r});
  for (int c = cols - 2; c >= 0; --c) w.push_back({c, rows - 1});
  for (int r = rows - 2; r >= 1; --r) w.push_back({0, r});
  return w;
}

// Borders between the areas of the cells (each once, area `a` < `b`), and the land areas next to
// a sea marked coastal.
void add_borders(WorldPlan& plan, const std::vector<int>& area_of, int cols, int rows) {
  std::set<std::pair<int, int>> seen;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      const int a = area_of[static_cast<std::size_t>(r * cols + c)];
      for (const Hex n : hex_neighbours({c, r})) {
        if (n.col < 0 || n.row < 0 || n.col >= cols || n.row >= rows) continue;
        const int b = area_of[static_cast<std::size_t>(n.row * cols + n.col)];
        if (a == b) continue;
        if (!seen.insert({std::min(a, b), std::max(a, b)}).second) continue;
        plan.borders.push_back({std::min(a, b), std::max(a, b), false});
      }
    }
  for (const PlanBorder& b : plan.borders) {
    PlanArea& x = plan.areas[static_cast<std::size_t>(b.a)];
    PlanArea& y = plan.areas[static_cast<std::size_t>(b.b)];
    if (x.kind == PlanArea::Kind::kSea && y.kind == PlanArea::Kind::kLand) y.coastal = true;
    if (y.kind == PlanArea::Kind::kSea && x.kind == PlanArea::Kind::kLand) x.coastal = true;
  }
}

// Cities: one in every home (its hinterland the capital), and one neutral city for every two
// players on neutral land not next to a capital. Land areas are those from `first_land` on.
void add_cities(WorldPlan& plan, int players, int first_land, Xoshiro256& land_rng) {
  std::vector<int> hinterlands;
  for (const PlanPlayer& p : plan.players) hinterlands.push_back(p.capital);
  std::set<int> near_capital;
  for (const PlanBorder& b : plan.borders)
    for (const PlanPlayer& p : plan.players) {
      if (b.a == p.capital) near_capital.insert(b.b);
      if (b.b == p.capital) near_capital.insert(b.a);
    }
  std::vector<int> neutral;
  for (int i = first_land; i < static_cast<int>(plan.areas.size()); ++i)
    if (plan.areas[static_cast<std::size_t>(i)].owner < 0 && !near_capital.count(i))
      neutral.push_back(i);
  shuffle(neutral, land_rng);
  const std::size_t extra = std::min(neutral.size(), static_cast<std::size_t>(players / 2));
  std::sort(neutral.begin(), neutral.begin() + static_cast<std::ptrdiff_t>(extra));
  hinterlands.insert(hinterlands.end(), neutral.begin(),
                     neutral.begin() + static_cast<std::ptrdiff_t>(extra));
  for (const int h : hinterlands) {
    const PlanArea& land = plan.areas[static_cast<std::size_t>(h)];
    PlanArea city;
    city.kind = PlanArea::Kind::kCity;
    city.hinterland = h;
    city.owner = land.owner;
    city.x = land.x + 0.3 * kCellWidth;
    city.y = land.y - 0.25 * kRowHeight;
    city.armies = 2, city.population = land.owner >= 0 ? 3 : 2, city.trade = 2;
    city.fort = land.owner >= 0 ? 1 : static_cast<int>(land_rng.uniform(2));
    const int id = static_cast<int>(plan.areas.size());
    plan.borders.push_back({std::min(h, id), std::max(h, id), false});
    plan.areas.push_back(std::move(city));
  }
}

}  // namespace

WorldPlan make_plan(const WorldOptions& o, const EngineLook& look, bool seas) {
  Xoshiro256 name_rng(derive_seed(o.seed, "world:names"));
  Xoshiro256 land_rng(derive_seed(o.seed, "world:land"));
  NameBook book(name_rng);
  WorldPlan plan;
  const int players = o.players, k = o.areas_per_player, ring = seas ? 1 : 0;
  plan.home_areas = k;

  const BlockShape shape = block_shape(k, ring);
  // Blocks on a lattice whose drawing is about 4:3.
  const double block_aspect = (shape.bw * kCellWidth) / (shape.bh * kRowHeight);
  const int bcols =
      std::max(1, static_cast<int>(std::lround(std::sqrt(players * (4.0 / 3.0) / block_aspect))));
  const int brows = (players + bcols - 1) / bcols;
  const int cols = bcols * shape.bw + 2 * ring, rows = brows * shape.bh + 2 * ring;
  const auto cell_index = [cols](Hex h) { return h.row * cols + h.col; };

  for (int p = 0; p < players; ++p) {
    PlanPlayer pl;
    pl.name = book.name(NameKind::kKingdom);
    pl.code = book.code(pl.name);
    plan.players.push_back(std::move(pl));
  }

  // Cells -> areas. Sea cells are grouped three by three along the ring into one sea area.
  std::vector<int> area_of(static_cast<std::size_t>(cols * rows), -1);
  if (seas) {
    const std::vector<Hex> walk = ring_walk(cols, rows);
    for (std::size_t i = 0; i < walk.size(); i += 3) {
      PlanArea sea;
      sea.kind = PlanArea::Kind::kSea;
      const Hex mid = walk[std::min(i + 1, walk.size() - 1)];
      sea.x = mid.col * kCellWidth + (mid.row & 1 ? kCellWidth / 2 : 0);
      sea.y = mid.row * kRowHeight;
      const int id = static_cast<int>(plan.areas.size());
      for (std::size_t j = i; j < std::min(i + 3, walk.size()); ++j)
        area_of[static_cast<std::size_t>(cell_index(walk[j]))] = id;
      plan.areas.push_back(std::move(sea));
    }
  }
  const int first_land = static_cast<int>(plan.areas.size());
  for (int r = ring; r < rows - ring; ++r)
    for (int c = ring; c < cols - ring; ++c) {
      PlanArea a;
      a.x = c * kCellWidth + (r & 1 ? kCellWidth / 2 : 0);
      a.y = r * kRowHeight;
      area_of[static_cast<std::size_t>(cell_index({c, r}))] = static_cast<int>(plan.areas.size());
      plan.areas.push_back(std::move(a));
    }

  // Homes: player p takes block p (row by row); blocks past the last player stay neutral.
  for (int p = 0; p < players; ++p) {
    const Hex corner{ring + (p % bcols) * shape.bw, ring + (p / bcols) * shape.bh};
    for (std::size_t i = 0; i < shape.home.size(); ++i) {
      const Hex h{corner.col + shape.home[i].col, corner.row + shape.home[i].row};
      PlanArea& a = plan.areas[static_cast<std::size_t>(area_of[cell_index(h)])];
      a.owner = p;
      if (i == 0) {
        a.capital = true;
        plan.players[static_cast<std::size_t>(p)].capital = area_of[cell_index(h)];
      } else {
        a.home_slot = static_cast<int>(i) - 1;
      }
    }
  }

  add_borders(plan, area_of, cols, rows);

  // Land: terrain, armies, population, forts. A player's home mix is dealt in a shuffled order.
  std::vector<std::vector<std::string>> mixes(static_cast<std::size_t>(players));
  for (auto& m : mixes) {
    for (int i = 0; i + 1 < k; ++i)
      m.push_back(look.home_mix[static_cast<std::size_t>(i) % look.home_mix.size()]);
    shuffle(m, land_rng);
  }
  for (int i = first_land; i < static_cast<int>(plan.areas.size()); ++i) {
    PlanArea& a = plan.areas[static_cast<std::size_t>(i)];
    if (a.capital) {
      a.terrain = look.capital_terrain;
      a.armies = 3, a.population = 3, a.fort = 1;
    } else if (a.owner >= 0) {
      a.terrain = mixes[static_cast<std::size_t>(a.owner)][static_cast<std::size_t>(a.home_slot)];
      a.armies = 2, a.population = 2;
    } else {
      a.terrain = look.palette[land_rng.uniform(static_cast<std::uint32_t>(look.palette.size()))];
      a.armies = 1, a.population = 1 + static_cast<int>(land_rng.uniform(2));
    }
  }

  if (look.cities) add_cities(plan, players, first_land, land_rng);

  // Border flags (rivers, side mountains) only between two neutral land areas, so no home differs.
  if (look.border_flag)
    for (PlanBorder& b : plan.borders) {
      const PlanArea& x = plan.areas[static_cast<std::size_t>(b.a)];
      const PlanArea& y = plan.areas[static_cast<std::size_t>(b.b)];
      if (x.kind == PlanArea::Kind::kLand && y.kind == PlanArea::Kind::kLand && x.owner < 0 &&
          y.owner < 0 && static_cast<int>(land_rng.uniform(100)) < look.border_flag_percent)
        b.flagged = true;
    }

  // Names and codes last, in area order, so a world's names do not depend on its terrain draws.
  for (PlanArea& a : plan.areas) {
    a.name = book.name(a.kind == PlanArea::Kind::kSea    ? NameKind::kSea
                       : a.kind == PlanArea::Kind::kCity ? NameKind::kCity
                                                         : NameKind::kLand);
    a.code = book.code(a.name);
  }
  return plan;
}

}  // namespace adj::world
