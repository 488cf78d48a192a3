#include "server/render/svg_map.h"

#include "server/render/graph_embedding.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <map>

namespace adj::render {

namespace {

using Json = nlohmann::json;

std::string str_field(const Json& j, const char* key) {
  if (!j.is_object()) return "";
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

// A whole number within +-1e9; 0 for anything else (hostile data cannot overflow an int).
int int_field(const Json& j, const char* key) {
  if (!j.is_object()) return 0;
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return 0;
  const double v = it->get<double>();
  return std::isfinite(v) ? static_cast<int>(std::clamp(v, -1e9, 1e9)) : 0;
}

std::optional<double> num_field(const Json& j, const char* key) {
  if (!j.is_object()) return std::nullopt;
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  const double v = it->get<double>();
  return std::isfinite(v) && std::fabs(v) <= 1e7 ? std::optional<double>(v) : std::nullopt;
}

std::string hsl_to_hex(double h, double s, double l) {
  auto f = [&](double n) {
    const double k = std::fmod(n + h / 30.0, 12.0);
    const double a = s * std::min(l, 1 - l);
    return l - a * std::max(-1.0, std::min({k - 3, 9 - k, 1.0}));
  };
  char b[8];
  std::snprintf(b, sizeof b, "#%02x%02x%02x", static_cast<int>(std::lround(f(0) * 255)),
                static_cast<int>(std::lround(f(8) * 255)),
                static_cast<int>(std::lround(f(4) * 255)));
  return b;
}

struct WeightedEdge {
  std::size_t a = 0, b = 0;
  double weight = 1;  // attraction factor: a city is pulled harder towards its hinterland
};

// Area indices connected by the model's edges (unknown codes and self-loops dropped), plus each
// city's link to its hinterland, once each, sorted.
std::vector<WeightedEdge> index_edges(const MapModel& m) {
  std::map<std::string, std::size_t> idx;
  for (std::size_t i = 0; i < m.areas.size(); ++i) idx.emplace(m.areas[i].code, i);
  std::map<std::pair<std::size_t, std::size_t>, double> weights;
  auto add = [&](const std::string& a, const std::string& b, double w) {
    auto ia = idx.find(a), ib = idx.find(b);
    if (ia == idx.end() || ib == idx.end() || ia->second == ib->second) return;
    double& have = weights[{std::min(ia->second, ib->second), std::max(ia->second, ib->second)}];
    have = std::max(have, w);
  };
  for (const auto& [a, b] : m.edges) add(a, b, 1);
  for (const auto& a : m.areas)
    if (!a.hinterland.empty()) add(a.code, a.hinterland, 4);
  std::vector<WeightedEdge> out;
  for (const auto& [ab, w] : weights) out.push_back({ab.first, ab.second, w});
  return out;
}

// Fruchterman-Reingold in a box about [-1, 1]^2 from a classical MDS start, with a weak pull to
// the centre so that separate components stay on the canvas. Deterministic: fixed start, fixed
// step count, no randomness.
std::vector<Point> force_layout(std::size_t n, const std::vector<WeightedEdge>& edges) {
  std::vector<Point> p(n);
  if (n == 0) return p;
  if (n == 1) return {{0, 0}};
  // The start: the graph's hop distances scaled into the plane (graph_embedding.h), so that grids
  // and chains start unfolded; the forces then even out the spacing.
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  for (const auto& e : edges) pairs.emplace_back(e.a, e.b);
  p = classical_mds(n, pairs);
  const double k = std::sqrt(4.0 / static_cast<double>(n));
  // About four million pair steps at most: a few milliseconds.
  const int iters = static_cast<int>(std::clamp(4.0e6 / static_cast<double>(n * n), 30.0, 400.0));
  std::vector<Point> disp(n);
  for (int it = 0; it < iters; ++it) {
    const double temp = 0.05 * (1.0 - static_cast<double>(it) / iters) + 0.002;
    std::fill(disp.begin(), disp.end(), Point{});
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = i + 1; j < n; ++j) {
        double dx = p[i].x - p[j].x, dy = p[i].y - p[j].y;
        double d = std::hypot(dx, dy);
        if (d < 1e-9) {  // coincident: push apart along a direction fixed by the indices
          dx = std::cos(static_cast<double>(i * 7 + j));
          dy = std::sin(static_cast<double>(i * 7 + j));
          d = 1e-3;
        }
        const double f = k * k / d;
        disp[i].x += dx / d * f;
        disp[i].y += dy / d * f;
        disp[j].x -= dx / d * f;
        disp[j].y -= dy / d * f;
      }
    for (const auto& [a, b, w] : edges) {
      const double dx = p[a].x - p[b].x, dy = p[a].y - p[b].y;
      const double d = std::max(std::hypot(dx, dy), 1e-9);
      const double f = w * d * d / k;
      disp[a].x -= dx / d * f;
      disp[a].y -= dy / d * f;
      disp[b].x += dx / d * f;
      disp[b].y += dy / d * f;
    }
    for (std::size_t i = 0; i < n; ++i) {
      disp[i].x -= p[i].x * k * 0.8;
      disp[i].y -= p[i].y * k * 0.8;
      const double len = std::hypot(disp[i].x, disp[i].y);
      if (len < 1e-12) continue;
      const double step = std::min(len, temp);
      p[i].x += disp[i].x / len * step;
      p[i].y += disp[i].y / len * step;
    }
  }
  return p;
}

// Rows of a hexagonal grid, each point moved by a fixed pseudo-random amount (a hash of its
// index), so that the territories look like land rather than squares.
std::vector<Point> grid_layout(std::size_t n) {
  const auto cols = static_cast<std::size_t>(std::ceil(std::sqrt(static_cast<double>(n))));
  std::vector<Point> p(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t h = (i + 1) * 0x9E3779B97F4A7C15ULL;
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ULL;
    h ^= h >> 32;
    const double jx = static_cast<double>(h & 0xffff) / 65535.0 - 0.5;
    const double jy = static_cast<double>((h >> 16) & 0xffff) / 65535.0 - 0.5;
    const std::size_t row = i / cols;
    p[i] = {static_cast<double>(i % cols) + (row % 2 ? 0.5 : 0) + 0.3 * jx,
            static_cast<double>(row) * 0.866 + 0.3 * jy};
  }
  return p;
}

constexpr double kMargin = 8;
constexpr std::size_t kMaxForceAreas = 600;

// A city drawn as a marker inside its hinterland's territory, not as a territory of its own.
bool is_marker(const MapArea& a, const std::map<std::string, std::size_t>& idx) {
  return a.kind == "city" && !a.hinterland.empty() && a.hinterland != a.code &&
         idx.count(a.hinterland) && !a.outline;
}

std::vector<std::string> symbols_of(const Json& a) {
  std::vector<std::string> out;
  auto f = a.is_object() ? a.find("features") : a.end();
  if (!a.is_object() || f == a.end() || !f->is_object()) return out;
  for (const char* k : {"castle", "road", "rails"})
    if (auto it = f->find(k); it != f->end() && it->is_boolean() && it->get<bool>())
      out.emplace_back(k);
  if (auto it = f->find("weather"); it != f->end() && it->is_string())
    for (const char* w : {"mud", "frozen"})
      if (it->get<std::string>() == w) out.emplace_back(w);
  if (auto it = f->find("vp"); it != f->end() && it->is_number_integer()) {
    const auto vp = it->get<std::int64_t>();
    if (vp > 0 && vp < 1000000) out.push_back("vp:" + std::to_string(vp));
  }
  return out;
}

}  // namespace

MapModel map_model_from_state(const Json& state) {
  MapModel m;
  m.title = str_field(state, "name");
  if (!state.is_object()) return m;
  if (auto it = state.find("players"); it != state.end() && it->is_array())
    for (const auto& p : *it) m.players.push_back({str_field(p, "code"), str_field(p, "name")});
  std::size_t outline_points = 0;
  if (auto it = state.find("areas"); it != state.end() && it->is_array())
    for (const auto& a : *it) {
      MapArea area;
      area.code = str_field(a, "code");
      area.name = str_field(a, "name");
      area.kind = str_field(a, "kind");
      if (area.kind.empty()) area.kind = "land";
      area.owner = str_field(a, "owner");
      area.hinterland = str_field(a, "hinterland");
      area.armies = int_field(a, "armies");
      area.population = int_field(a, "population");
      area.x = num_field(a, "x");
      area.y = num_field(a, "y");
      area.terrain = str_field(a, "terrain");
      area.fort = std::clamp(int_field(a, "fort"), 0, 99);
      area.symbols = symbols_of(a);
      if (a.is_object() && a.contains("outline")) area.outline = parse_outline(a["outline"]);
      if (area.outline && (!area.x || !area.y)) {
        const Point c = centroid(*area.outline);
        area.x = c.x;
        area.y = c.y;
      }
      if (area.outline) {
        if (area.outline->size() > kMaxTotalOutlinePoints - outline_points)
          area.outline.reset();
        else
          outline_points += area.outline->size();
      }
      m.areas.push_back(std::move(area));
    }
  if (auto it = state.find("adjacency"); it != state.end() && it->is_array())
    for (const auto& e : *it)
      if (e.is_array() && e.size() >= 2 && e[0].is_string() && e[1].is_string()) {
        std::string a = e[0].get<std::string>(), b = e[1].get<std::string>();
        if (e.size() > 2 && e[2].is_object())
          if (auto r = e[2].find("river"); r != e[2].end() && r->is_boolean() && r->get<bool>())
            m.rivers.push_back(std::min(a, b) + "|" + std::max(a, b));
        m.edges.emplace_back(std::move(a), std::move(b));
      }
  std::sort(m.rivers.begin(), m.rivers.end());
  return m;
}

Layout layout_areas(const MapModel& model, double width) {
  Layout out;
  out.width = width;
  const std::size_t n = model.areas.size();
  if (n == 0) {
    out.height = 4 * kMargin;
    return out;
  }
  const bool given = std::all_of(model.areas.begin(), model.areas.end(),
                                 [](const MapArea& a) { return a.x && a.y; });
  std::vector<Point> raw(n);
  if (given) {
    for (std::size_t i = 0; i < n; ++i) raw[i] = {*model.areas[i].x, *model.areas[i].y};
  } else {
    out.automatic = true;
    raw = n > kMaxForceAreas ? grid_layout(n) : force_layout(n, index_edges(model));
  }
  std::map<std::string, std::size_t> idx;
  for (std::size_t i = 0; i < n; ++i) idx.emplace(model.areas[i].code, i);

  // Territory radii in scenario units: about the typical spacing of the territories' sites,
  // longer where a neighbour (by the borders) is further away, bounded either way (seas reach
  // further, towards their coasts).
  std::vector<std::size_t> sites;
  std::vector<Point> site_at;
  for (std::size_t i = 0; i < n; ++i)
    if (!is_marker(model.areas[i], idx)) {
      sites.push_back(i);
      site_at.push_back(raw[i]);
    }
  const std::vector<double> nn = nearest_distances(site_at, 0);
  double spacing = median(nn);
  if (!(spacing > 1e-9) || !std::isfinite(spacing)) spacing = 1;
  std::vector<double> reach(n, 0);
  for (std::size_t k = 0; k < sites.size(); ++k) reach[sites[k]] = 0.6 * nn[k];
  for (const auto& [a, b] : model.edges) {
    auto ia = idx.find(a), ib = idx.find(b);
    if (ia == idx.end() || ib == idx.end()) continue;
    const double d =
        std::hypot(raw[ia->second].x - raw[ib->second].x, raw[ia->second].y - raw[ib->second].y);
    reach[ia->second] = std::max(reach[ia->second], 0.6 * d);
    reach[ib->second] = std::max(reach[ib->second], 0.6 * d);
  }
  std::vector<double> r_raw(n, 0);
  for (std::size_t i : sites)
    r_raw[i] = std::clamp(std::max(0.85 * spacing, reach[i]), 0.5 * spacing,
                          (model.areas[i].kind == "sea" ? 3.0 : 1.5) * spacing);

  double minx = INFINITY, maxx = -INFINITY, miny = INFINITY, maxy = -INFINITY;
  auto grow = [&](Point q, double r) {
    minx = std::min(minx, q.x - r);
    maxx = std::max(maxx, q.x + r);
    miny = std::min(miny, q.y - r);
    maxy = std::max(maxy, q.y + r);
  };
  for (std::size_t i = 0; i < n; ++i) {
    grow(raw[i], r_raw[i]);
    if (given && model.areas[i].outline)
      for (const Point& q : *model.areas[i].outline) grow(q, 0);
  }
  const double dx = std::max(maxx - minx, 1e-9), dy = std::max(maxy - miny, 1e-9);
  const double inner_w = width - 2 * kMargin, inner_h = width * 0.75 - 2 * kMargin;
  const double scale = std::min(inner_w / dx, inner_h / dy);
  out.scale = scale;
  // Whole units: a PNG of the map at its own size is then drawn at exactly one pixel a unit, where
  // librsvg's patterns are copied instead of resampled (the water: 9 ms instead of 76).
  out.width = std::ceil(std::max(dx * scale + 2 * kMargin, 4 * kMargin));
  out.height = std::ceil(std::max(dy * scale + 2 * kMargin, 4 * kMargin));
  out.offset = {kMargin - minx * scale + (out.width - 2 * kMargin - dx * scale) / 2,
                kMargin - miny * scale + (out.height - 2 * kMargin - dy * scale) / 2};
  out.at.resize(n);
  out.radius.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    out.at[i] = {out.offset.x + raw[i].x * scale, out.offset.y + raw[i].y * scale};
    out.radius[i] = r_raw[i] * scale;
  }
  return out;
}

std::vector<bool> drawn_as_markers(const MapModel& model) {
  std::map<std::string, std::size_t> idx;
  for (std::size_t i = 0; i < model.areas.size(); ++i) idx.emplace(model.areas[i].code, i);
  std::vector<bool> out;
  out.reserve(model.areas.size());
  for (const MapArea& a : model.areas) out.push_back(is_marker(a, idx));
  return out;
}

std::string palette_colour(std::size_t index) {
  static const char* const kColours[] = {"#0072b2", "#e69f00", "#009e73", "#cc79a7", "#d55e00",
                                         "#56b4e9", "#f0e442", "#882255", "#332288", "#999933"};
  constexpr std::size_t kN = sizeof kColours / sizeof kColours[0];
  if (index < kN) return kColours[index];
  // Golden-angle hues, alternating lightness: distinct and stable for any index.
  const double hue = std::fmod(static_cast<double>(index - kN) * 137.508 + 20.0, 360.0);
  return hsl_to_hex(hue, 0.55, index % 2 ? 0.38 : 0.52);
}

}  // namespace adj::render
