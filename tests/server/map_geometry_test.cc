// The map's plane geometry (server/render/map_geometry.h): half-plane clipping, territories as
// clipped Voronoi cells (checked against brute force), outline validation, arrow curves.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>

#include "server/render/map_geometry.h"

namespace adj::render {
namespace {

using Json = nlohmann::json;

// Deterministic pseudo-random sites in [0, w) x [0, h).
std::vector<Point> scatter(std::size_t n, double w, double h, std::uint64_t seed) {
  std::vector<Point> out;
  auto next = [&] {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(seed >> 11) / static_cast<double>(1ULL << 53);
  };
  for (std::size_t i = 0; i < n; ++i) out.push_back({next() * w, next() * h});
  return out;
}

double cross(Point o, Point a, Point b) {
  return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
}

bool convex(const Polygon& p) {
  int sign = 0;
  for (std::size_t k = 0; k < p.size(); ++k) {
    const double c = cross(p[k], p[(k + 1) % p.size()], p[(k + 2) % p.size()]);
    if (std::fabs(c) < 1e-9) continue;
    const int s = c > 0 ? 1 : -1;
    if (sign != 0 && s != sign) return false;
    sign = s;
  }
  return true;
}

std::size_t nearest(const std::vector<Point>& sites, Point q) {
  std::size_t best = 0;
  double bd = std::numeric_limits<double>::infinity();
  for (std::size_t j = 0; j < sites.size(); ++j) {
    const double d = std::hypot(sites[j].x - q.x, sites[j].y - q.y);
    if (d < bd) {
      bd = d;
      best = j;
    }
  }
  return best;
}

TEST(MapGeometry, ClipHalfPlaneKeepsOneSideAndLabelsTheNewSide) {
  Polygon sq = {{0, 0}, {10, 0}, {10, 10}, {0, 10}};
  std::vector<long> side = {-1, -1, -1, -1};
  clip_half_plane(sq, side, {4, 0}, {1, 0}, 7);  // keep x <= 4
  ASSERT_EQ(sq.size(), 4u);
  EXPECT_NEAR(std::fabs(signed_area(sq)), 40, 1e-9);
  for (const Point& p : sq) EXPECT_LE(p.x, 4 + 1e-12);
  EXPECT_EQ(std::count(side.begin(), side.end(), 7), 1);
  // The labelled side lies on the line x = 4.
  for (std::size_t k = 0; k < sq.size(); ++k)
    if (side[k] == 7) {
      EXPECT_NEAR(sq[k].x, 4, 1e-12);
      EXPECT_NEAR(sq[(k + 1) % sq.size()].x, 4, 1e-12);
    }
  clip_half_plane(sq, side, {-1, 0}, {1, 0}, 8);  // x <= -1: nothing is left
  EXPECT_TRUE(sq.empty());
  EXPECT_TRUE(side.empty());
}

TEST(MapGeometry, CellsAreConvexHoldTheirSiteAndMatchBruteForceVoronoi) {
  const std::vector<Point> sites = scatter(400, 1000, 700, 42);
  const std::vector<double> nn = nearest_distances(sites, 0);
  const double spacing = median(nn);
  const std::vector<double> radius(sites.size(), 1.2 * spacing);
  const std::vector<Cell> cells = territories(sites, radius);
  ASSERT_EQ(cells.size(), sites.size());
  int shared = 0;
  for (std::size_t i = 0; i < sites.size(); ++i) {
    const Cell& c = cells[i];
    ASSERT_GE(c.polygon.size(), 3u) << i;
    ASSERT_EQ(c.neighbour.size(), c.polygon.size());
    EXPECT_TRUE(convex(c.polygon)) << i;
    EXPECT_TRUE(contains(c.polygon, sites[i])) << i;
    for (std::size_t k = 0; k < c.polygon.size(); ++k) {
      const Point a = c.polygon[k], b = c.polygon[(k + 1) % c.polygon.size()];
      // Within the coast around the site.
      EXPECT_LE(std::hypot(a.x - sites[i].x, a.y - sites[i].y), radius[i] + 1e-6);
      // Every point of the cell is nearest to its own site (the Voronoi property), checked on
      // points between each vertex and the site, against every site by brute force.
      const Point q{sites[i].x + 0.98 * (a.x - sites[i].x), sites[i].y + 0.98 * (a.y - sites[i].y)};
      EXPECT_EQ(nearest(sites, q), i) << i;
      const long j = c.neighbour[k];
      if (j < 0) continue;
      // A side made by neighbour j lies on the bisector, and j's cell has a side made by i
      // (unless the side is a sliver where the two coasts, polygons of 24 sides rotated
      // differently, cross the bisector at slightly different places).
      const Point m{(a.x + b.x) / 2, (a.y + b.y) / 2};
      const Point sj = sites[static_cast<std::size_t>(j)];
      EXPECT_NEAR(std::hypot(m.x - sites[i].x, m.y - sites[i].y),
                  std::hypot(m.x - sj.x, m.y - sj.y), 1e-6);
      const auto& back = cells[static_cast<std::size_t>(j)].neighbour;
      if (std::hypot(a.x - b.x, a.y - b.y) < 0.15 * radius[i]) continue;
      EXPECT_NE(std::find(back.begin(), back.end(), static_cast<long>(i)), back.end())
          << i << " " << j << " side " << std::hypot(a.x - b.x, a.y - b.y);
      ++shared;
    }
  }
  EXPECT_GT(shared, 2 * static_cast<int>(sites.size()));  // neighbours do share sides
}

TEST(MapGeometry, CoastIsRoundNotARectangleAndLoneSitesGetADisc) {
  const std::vector<Point> one = {{5, 5}};
  const auto cells = territories(one, {3}, 24);
  ASSERT_EQ(cells[0].polygon.size(), 24u);
  for (const Point& p : cells[0].polygon) EXPECT_NEAR(std::hypot(p.x - 5, p.y - 5), 3, 1e-9);
  EXPECT_EQ(std::count(cells[0].neighbour.begin(), cells[0].neighbour.end(), -1), 24);
  // A row of three: the middle cell is cut on both sides, the ends keep their round coast.
  const std::vector<Point> row = {{0, 0}, {10, 0}, {20, 0}};
  const auto r = territories(row, {8, 8, 8}, 24);
  EXPECT_EQ(std::count(r[1].neighbour.begin(), r[1].neighbour.end(), 0), 1);
  EXPECT_EQ(std::count(r[1].neighbour.begin(), r[1].neighbour.end(), 2), 1);
  EXPECT_GT(std::count(r[0].neighbour.begin(), r[0].neighbour.end(), -1), 10);
}

TEST(MapGeometry, DuplicateSitesDoNotOverlap) {
  const std::vector<Point> sites = {{0, 0}, {0, 0}, {10, 0}};
  const auto cells = territories(sites, {6, 6, 6});
  EXPECT_FALSE(cells[0].polygon.empty());
  EXPECT_TRUE(cells[1].polygon.empty());
  EXPECT_FALSE(cells[2].polygon.empty());
}

TEST(MapGeometry, NearestDistancesMatchBruteForce) {
  const std::vector<Point> sites = scatter(500, 300, 200, 7);
  const std::vector<double> nn = nearest_distances(sites, 0);
  for (std::size_t i = 0; i < sites.size(); ++i) {
    double best = std::numeric_limits<double>::infinity();
    for (std::size_t j = 0; j < sites.size(); ++j)
      if (j != i)
        best = std::min(best, std::hypot(sites[i].x - sites[j].x, sites[i].y - sites[j].y));
    EXPECT_DOUBLE_EQ(nn[i], best) << i;
  }
  EXPECT_EQ(nearest_distances({{1, 1}}, 0), std::vector<double>{0});
  EXPECT_TRUE(nearest_distances({}, 0).empty());
}

TEST(MapGeometry, FiveThousandTerritories) {
  const std::vector<Point> sites = scatter(5000, 4000, 3000, 99);
  const double spacing = median(nearest_distances(sites, 0));
  const auto t0 = std::chrono::steady_clock::now();
  const auto cells = territories(sites, std::vector<double>(sites.size(), 1.2 * spacing));
  const auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0);
  std::printf("[ figure   ] 5000 territories in %.1f ms\n", ms.count());
  std::size_t empty = 0;
  for (const Cell& c : cells) empty += c.polygon.empty();
  EXPECT_EQ(empty, 0u);
}

TEST(MapGeometry, OutlinesAreValidatedNotTrusted) {
  EXPECT_TRUE(parse_outline(Json::parse("[[0,0],[10,0],[10,10],[0,10]]")));
  EXPECT_EQ(parse_outline(Json::parse("[[0,0],[10,0],[10,10]]"))->size(), 3u);
  for (const char* bad :
       {"null", "{}", "\"[[0,0]]\"", "[[0,0],[1,1]]", "[[0,0],[1,1],[2,2]]",  // a line
        "[[0,0],[10,0],[\"x\",1]]", "[[0,0],[10,0],[10]]", "[[0,0],[10,0],[10,10,3]]",
        "[[0,0],[10,0],[1e300,10]]", "[[0,0],[10,0],[true,false]]"})
    EXPECT_FALSE(parse_outline(Json::parse(bad))) << bad;
  Json nan = Json::array(
      {Json::array({0.0, 0.0}), Json::array({10.0, 0.0}), Json::array({std::nan(""), 10.0})});
  EXPECT_FALSE(parse_outline(nan));
  Json big = Json::array();
  for (std::size_t i = 0; i <= kMaxOutlinePoints; ++i)
    big.push_back({std::cos(static_cast<double>(i)), std::sin(static_cast<double>(i))});
  EXPECT_FALSE(parse_outline(big));
}

TEST(MapGeometry, ArrowCurveBendsLeftAndEndsInItsHead) {
  const Curve c = arrow_curve({0, 0}, {100, 0}, 0.2, 10);
  EXPECT_NEAR(c.control.x, 50, 1e-9);
  EXPECT_NEAR(c.control.y, -20, 1e-9);  // left of eastwards on screen (y down) is up
  EXPECT_EQ(c.head[0].x, 100);
  EXPECT_EQ(c.head[0].y, 0);
  // The head's base is `head` back along the end tangent, and symmetric about it.
  const Point base{(c.head[1].x + c.head[2].x) / 2, (c.head[1].y + c.head[2].y) / 2};
  EXPECT_NEAR(std::hypot(base.x - 100, base.y), 10, 1e-9);
  const Curve same = arrow_curve({3, 3}, {3, 3}, 0.2, 5);  // degenerate: no NaN
  for (const Point& p : same.head) EXPECT_TRUE(std::isfinite(p.x) && std::isfinite(p.y));
}

}  // namespace
}  // namespace adj::render
