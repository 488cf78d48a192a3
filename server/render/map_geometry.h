// Plane geometry for the map: territories as Voronoi cells clipped to a rounded land outline,
// polygon validation, curves for arrows. Pure functions, no I/O, deterministic.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

namespace adj::render {

struct Point {
  double x = 0, y = 0;
};

using Polygon = std::vector<Point>;

// One territory: a convex polygon around its site. `neighbour[k]` is the index of the site whose
// bisector made the side from polygon[k] to polygon[k + 1] (wrapping), or -1 for a coast side
// (the rounded outline around the site).
struct Cell {
  Polygon polygon;
  std::vector<long> neighbour;
};

// The part of the convex polygon `poly` where dot(p - m, n) <= 0 (the side of the line through
// `m` with normal `n` that the normal points away from). `side` holds the label of each side of
// `poly` (as in Cell::neighbour) and gets `label` for the new side along the line.
void clip_half_plane(Polygon& poly, std::vector<long>& side, Point m, Point n, long label);

// Voronoi cells of `sites`, each intersected with a regular `sides`-gon of radius `radius[i]`
// around its site (a coast that follows the sites, not a rectangle). Only sites within
// 2 * radius[i] can cut cell i; they are found through a uniform grid, so the cost is about
// linear in the number of sites for evenly spread sites. Sites closer than 1e-9 to an earlier
// site get an empty cell, and so do sites with a non-finite position or radius, or a radius of
// at most 0. Precondition: radius.size() == sites.size().
std::vector<Cell> territories(const std::vector<Point>& sites, const std::vector<double>& radius,
                              int sides = 24);

// The distance from each site to its nearest other site (0 for a lone site), through the same
// kind of grid (`typical` is a spacing guess: the grid cell size).
std::vector<double> nearest_distances(const std::vector<Point>& sites, double typical);

// The median of `v` (0 when empty).
double median(std::vector<double> v);

// Signed area (positive when the vertices run clockwise on screen, y down) and centroid.
double signed_area(const Polygon& p);
Point centroid(const Polygon& p);
bool contains(const Polygon& convex_or_simple, Point q);

// An outline as a scenario may give it: an array of [x, y] pairs, 3 to kMaxOutlinePoints of
// them, every number finite and of magnitude at most 1e7, not all on one line. Anything else
// (wrong type, too many points, NaN, zero area) is nullopt: the caller ignores it.
constexpr std::size_t kMaxOutlinePoints = 1000;
std::optional<Polygon> parse_outline(const nlohmann::json& j);

// A quadratic curve from `a` to `b` bulging to the left of the direction a->b by `bend` times
// the chord length, and the arrow head at its end: the three points of a triangle of length
// `head` whose tip is the end of the curve.
struct Curve {
  Point start, control, end;
  Point head[3];
};
Curve arrow_curve(Point a, Point b, double bend, double head);

}  // namespace adj::render
