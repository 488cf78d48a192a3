#include "server/render/map_geometry.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <unordered_map>

namespace adj::render {

namespace {

double dot(Point a, Point b) { return a.x * b.x + a.y * b.y; }
Point sub(Point a, Point b) { return {a.x - b.x, a.y - b.y}; }
double dist(Point a, Point b) { return std::hypot(a.x - b.x, a.y - b.y); }

// A uniform grid over the sites: bucket (ix, iy) holds the indices of the sites in it, in order.
class Grid {
 public:
  Grid(const std::vector<Point>& sites, double cell) : cell_(cell) {
    assert(cell > 0);
    for (std::size_t i = 0; i < sites.size(); ++i) {
      const auto [ix, iy] = index(sites[i]);
      lo_x_ = std::min(lo_x_, ix);
      hi_x_ = std::max(hi_x_, ix);
      lo_y_ = std::min(lo_y_, iy);
      hi_y_ = std::max(hi_y_, iy);
      buckets_[key(ix, iy)].push_back(i);
    }
  }
  std::pair<std::int64_t, std::int64_t> index(Point p) const {
    return {static_cast<std::int64_t>(std::floor(p.x / cell_)),
            static_cast<std::int64_t>(std::floor(p.y / cell_))};
  }
  // Calls f(j) for every site in the buckets at Chebyshev distance exactly `ring` from the
  // bucket of `p`; false when that ring lies wholly outside the occupied grid.
  template <typename F>
  bool ring(Point p, std::int64_t ring, F&& f) const {
    const auto [cx, cy] = index(p);
    if (cx - ring < lo_x_ && cx + ring > hi_x_ && cy - ring < lo_y_ && cy + ring > hi_y_)
      return false;
    for (std::int64_t y = cy - ring; y <= cy + ring; ++y) {
      if (y < lo_y_ || y > hi_y_) continue;
      const bool edge_row = y == cy - ring || y == cy + ring;
      const std::int64_t step = edge_row || ring == 0 ? 1 : 2 * ring;
      for (std::int64_t x = cx - ring; x <= cx + ring; x += step) {
        if (x < lo_x_ || x > hi_x_) continue;
        auto it = buckets_.find(key(x, y));
        if (it == buckets_.end()) continue;
        for (std::size_t j : it->second) f(j);
      }
    }
    return true;
  }
  double cell() const { return cell_; }

 private:
  static std::int64_t key(std::int64_t x, std::int64_t y) {
    return (x & 0xffffffffLL) | (static_cast<std::int64_t>(static_cast<std::uint64_t>(y) << 32));
  }
  double cell_;
  std::int64_t lo_x_ = INT64_MAX, hi_x_ = INT64_MIN, lo_y_ = INT64_MAX, hi_y_ = INT64_MIN;
  std::unordered_map<std::int64_t, std::vector<std::size_t>> buckets_;
};

// A grid cell size for `sites`: about one site per cell.
double spacing_guess(const std::vector<Point>& sites) {
  if (sites.size() < 2) return 1;
  double minx = sites[0].x, maxx = minx, miny = sites[0].y, maxy = miny;
  for (const Point& p : sites) {
    minx = std::min(minx, p.x);
    maxx = std::max(maxx, p.x);
    miny = std::min(miny, p.y);
    maxy = std::max(maxy, p.y);
  }
  const double w = std::max(maxx - minx, 1e-6), h = std::max(maxy - miny, 1e-6);
  const double g = std::sqrt(w * h / static_cast<double>(sites.size()));
  return std::max({g, std::max(w, h) / static_cast<double>(sites.size()), 1e-6});
}

}  // namespace

void clip_half_plane(Polygon& poly, std::vector<long>& side, Point m, Point n, long label) {
  assert(poly.size() == side.size());
  const std::size_t k = poly.size();
  if (k == 0) return;
  Polygon out;
  std::vector<long> out_side;
  out.reserve(k + 1);
  out_side.reserve(k + 1);
  for (std::size_t i = 0; i < k; ++i) {
    const Point cur = poly[i], next = poly[(i + 1) % k];
    const double dc = dot(sub(cur, m), n), dn = dot(sub(next, m), n);
    const bool in_c = dc <= 0, in_n = dn <= 0;
    if (in_c) {
      out.push_back(cur);
      out_side.push_back(side[i]);
    }
    if (in_c != in_n) {
      const double t = dc / (dc - dn);
      out.push_back({cur.x + (next.x - cur.x) * t, cur.y + (next.y - cur.y) * t});
      out_side.push_back(in_c ? label : side[i]);
    }
  }
  if (out.size() < 3) {
    out.clear();
    out_side.clear();
  }
  poly = std::move(out);
  side = std::move(out_side);
}

std::vector<Cell> territories(const std::vector<Point>& sites, const std::vector<double>& radius,
                              int sides) {
  assert(radius.size() == sites.size());
  assert(sides >= 3);
  const std::size_t n = sites.size();
  std::vector<Cell> cells(n);
  if (n == 0) return cells;
  double cell_size = median(radius);
  if (!(cell_size > 1e-6) || !std::isfinite(cell_size)) cell_size = 1;
  const Grid grid(sites, cell_size);
  const double kPi = std::acos(-1.0);
  std::vector<std::pair<double, std::size_t>> near;
  for (std::size_t i = 0; i < n; ++i) {
    const Point s = sites[i];
    const double r = radius[i];
    if (!(r > 0) || !std::isfinite(r) || !std::isfinite(s.x) || !std::isfinite(s.y)) continue;
    near.clear();
    bool duplicate = false;
    const auto rings = static_cast<std::int64_t>(std::ceil(2 * r / cell_size));
    for (std::int64_t k = 0; k <= rings; ++k)
      if (!grid.ring(s, k, [&](std::size_t j) {
            if (j == i) return;
            const double d = dist(s, sites[j]);
            if (d < 1e-9) {
              duplicate = duplicate || j < i;
              return;
            }
            if (d < 2 * r) near.emplace_back(d, j);
          }))
        break;
    if (duplicate) continue;
    std::sort(near.begin(), near.end());
    Cell& c = cells[i];
    c.polygon.reserve(static_cast<std::size_t>(sides));
    for (int k = 0; k < sides; ++k) {
      const double a = 2 * kPi * (k + 0.5) / sides;
      c.polygon.push_back({s.x + r * std::cos(a), s.y + r * std::sin(a)});
    }
    c.neighbour.assign(c.polygon.size(), -1);
    for (const auto& [d, j] : near) {
      // Every vertex within d/2 of the site lies on the site's side of the bisector: skip it.
      double far = 0;
      for (const Point& p : c.polygon) far = std::max(far, dist(p, s));
      if (far <= d / 2) break;  // sorted by distance: no later site can cut either
      const Point m{(s.x + sites[j].x) / 2, (s.y + sites[j].y) / 2};
      clip_half_plane(c.polygon, c.neighbour, m, sub(sites[j], s), static_cast<long>(j));
      if (c.polygon.empty()) break;
    }
  }
  return cells;
}

std::vector<double> nearest_distances(const std::vector<Point>& sites, double typical) {
  const std::size_t n = sites.size();
  std::vector<double> out(n, 0);
  if (n < 2) return out;
  const double cell = typical > 0 && std::isfinite(typical) ? typical : spacing_guess(sites);
  const Grid grid(sites, cell);
  for (std::size_t i = 0; i < n; ++i) {
    double best = INFINITY;
    for (std::int64_t k = 0;; ++k) {
      const bool any = grid.ring(sites[i], k, [&](std::size_t j) {
        if (j != i) best = std::min(best, dist(sites[i], sites[j]));
      });
      // Sites in rings beyond k are at least k * cell away.
      if (!any || best <= static_cast<double>(k) * cell) break;
    }
    out[i] = std::isfinite(best) ? best : 0;
  }
  return out;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  return *mid;
}

double signed_area(const Polygon& p) {
  double a = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const Point u = p[i], w = p[(i + 1) % p.size()];
    a += u.x * w.y - w.x * u.y;
  }
  return a / 2;
}

Point centroid(const Polygon& p) {
  if (p.empty()) return {};
  const double a = signed_area(p);
  if (std::fabs(a) < 1e-12) {
    Point c;
    for (const Point& q : p) c = {c.x + q.x, c.y + q.y};
    return {c.x / static_cast<double>(p.size()), c.y / static_cast<double>(p.size())};
  }
  double cx = 0, cy = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const Point u = p[i], w = p[(i + 1) % p.size()];
    const double f = u.x * w.y - w.x * u.y;
    cx += (u.x + w.x) * f;
    cy += (u.y + w.y) * f;
  }
  return {cx / (6 * a), cy / (6 * a)};
}

bool contains(const Polygon& p, Point q) {
  bool in = false;
  for (std::size_t i = 0, j = p.size() - 1; i < p.size(); j = i++)
    if ((p[i].y > q.y) != (p[j].y > q.y) &&
        q.x < (p[j].x - p[i].x) * (q.y - p[i].y) / (p[j].y - p[i].y) + p[i].x)
      in = !in;
  return in;
}

std::optional<Polygon> parse_outline(const nlohmann::json& j) {
  if (!j.is_array() || j.size() < 3 || j.size() > kMaxOutlinePoints) return std::nullopt;
  Polygon p;
  p.reserve(j.size());
  for (const auto& v : j) {
    if (!v.is_array() || v.size() != 2 || !v[0].is_number() || !v[1].is_number())
      return std::nullopt;
    const double x = v[0].get<double>(), y = v[1].get<double>();
    if (!std::isfinite(x) || !std::isfinite(y) || std::fabs(x) > 1e7 || std::fabs(y) > 1e7)
      return std::nullopt;
    p.push_back({x, y});
  }
  if (std::fabs(signed_area(p)) < 1e-9) return std::nullopt;
  return p;
}

Curve arrow_curve(Point a, Point b, double bend, double head) {
  Curve c;
  c.start = a;
  c.end = b;
  const Point d = sub(b, a);
  const double len = std::hypot(d.x, d.y);
  const Point mid{(a.x + b.x) / 2, (a.y + b.y) / 2};
  c.control = mid;
  if (len > 1e-9) c.control = {mid.x + d.y / len * bend * len, mid.y - d.x / len * bend * len};
  Point t = sub(b, c.control);
  double tl = std::hypot(t.x, t.y);
  if (tl < 1e-9) {
    t = {1, 0};
    tl = 1;
  }
  const Point u{t.x / tl, t.y / tl};
  const Point base{b.x - u.x * head, b.y - u.y * head};
  c.head[0] = b;
  c.head[1] = {base.x - u.y * head * 0.55, base.y + u.x * head * 0.55};
  c.head[2] = {base.x + u.y * head * 0.55, base.y - u.x * head * 0.55};
  return c;
}

}  // namespace adj::render
