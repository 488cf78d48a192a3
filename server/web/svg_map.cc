#include "server/web/svg_map.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <map>

namespace adj::web {

namespace {

using Json = nlohmann::json;

std::string str_field(const Json& j, const char* key) {
  if (!j.is_object()) return "";
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

int int_field(const Json& j, const char* key) {
  if (!j.is_object()) return 0;
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<int>() : 0;
}

std::optional<double> num_field(const Json& j, const char* key) {
  if (!j.is_object()) return std::nullopt;
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  const double v = it->get<double>();
  return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

// One decimal place: enough for pixels, and stable text.
std::string fmt(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", v);
  return b;
}

// Perceived brightness of "#rrggbb" in [0, 1].
double luminance(const std::string& hex) {
  if (hex.size() != 7 || hex[0] != '#') return 0.5;
  auto c = [&](int i) { return std::stoi(hex.substr(1 + 2 * i, 2), nullptr, 16) / 255.0; };
  return 0.299 * c(0) + 0.587 * c(1) + 0.114 * c(2);
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

// Breadth-first order over the graph (components one after another, each started from its
// lowest index), so that the starting circle already puts neighbours near each other.
std::vector<std::size_t> bfs_order(std::size_t n, const std::vector<WeightedEdge>& edges) {
  std::vector<std::vector<std::size_t>> adj(n);
  for (const auto& e : edges) {
    adj[e.a].push_back(e.b);
    adj[e.b].push_back(e.a);
  }
  std::vector<bool> seen(n, false);
  std::vector<std::size_t> order;
  for (std::size_t s = 0; s < n; ++s) {
    if (seen[s]) continue;
    std::deque<std::size_t> q{s};
    seen[s] = true;
    while (!q.empty()) {
      const std::size_t v = q.front();
      q.pop_front();
      order.push_back(v);
      for (std::size_t w : adj[v])
        if (!seen[w]) {
          seen[w] = true;
          q.push_back(w);
        }
    }
  }
  return order;
}

// Fruchterman-Reingold in a box about [-1, 1]^2, with a weak pull to the centre so that separate
// components stay on the canvas. Deterministic: fixed start, fixed step count, no randomness.
std::vector<Point> force_layout(std::size_t n, const std::vector<WeightedEdge>& edges) {
  std::vector<Point> p(n);
  if (n == 0) return p;
  const std::vector<std::size_t> order = bfs_order(n, edges);
  const double kPi = std::acos(-1.0);
  for (std::size_t i = 0; i < n; ++i) {
    const double a = 2 * kPi * static_cast<double>(i) / static_cast<double>(n);
    p[order[i]] = {std::cos(a), std::sin(a)};
  }
  if (n == 1) return {{0, 0}};
  const double k = std::sqrt(4.0 / static_cast<double>(n));
  // About four million pair steps at most: a few milliseconds.
  const int iters = static_cast<int>(std::clamp(4.0e6 / static_cast<double>(n * n), 30.0, 400.0));
  std::vector<Point> disp(n);
  for (int it = 0; it < iters; ++it) {
    const double temp = 0.15 * (1.0 - static_cast<double>(it) / iters) + 0.002;
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

std::vector<Point> grid_layout(std::size_t n) {
  const auto cols = static_cast<std::size_t>(std::ceil(std::sqrt(static_cast<double>(n))));
  std::vector<Point> p(n);
  for (std::size_t i = 0; i < n; ++i)
    p[i] = {static_cast<double>(i % cols), static_cast<double>(i / cols)};
  return p;
}

constexpr double kMargin = 36;
constexpr std::size_t kMaxForceAreas = 600;

}  // namespace

MapModel map_model_from_state(const Json& state) {
  MapModel m;
  m.title = str_field(state, "name");
  if (!state.is_object()) return m;
  if (auto it = state.find("players"); it != state.end() && it->is_array())
    for (const auto& p : *it) m.players.push_back({str_field(p, "code"), str_field(p, "name")});
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
      m.areas.push_back(std::move(area));
    }
  if (auto it = state.find("adjacency"); it != state.end() && it->is_array())
    for (const auto& e : *it)
      if (e.is_array() && e.size() >= 2 && e[0].is_string() && e[1].is_string())
        m.edges.emplace_back(e[0].get<std::string>(), e[1].get<std::string>());
  return m;
}

Layout layout_areas(const MapModel& model, double width) {
  Layout out;
  out.width = width;
  const std::size_t n = model.areas.size();
  if (n == 0) {
    out.height = 2 * kMargin;
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
  double minx = raw[0].x, maxx = raw[0].x, miny = raw[0].y, maxy = raw[0].y;
  for (const Point& q : raw) {
    minx = std::min(minx, q.x);
    maxx = std::max(maxx, q.x);
    miny = std::min(miny, q.y);
    maxy = std::max(maxy, q.y);
  }
  const double dx = maxx - minx, dy = maxy - miny;
  const double inner_w = width - 2 * kMargin, max_inner_h = width * 1.2 - 2 * kMargin;
  double scale = 1;
  if (dx > 1e-9 && dy > 1e-9)
    scale = std::min(inner_w / dx, max_inner_h / dy);
  else if (dx > 1e-9)
    scale = inner_w / dx;
  else if (dy > 1e-9)
    scale = max_inner_h / dy;
  const double used_w = dx * scale;
  out.height = std::max(dy * scale + 2 * kMargin, 4 * kMargin);
  const double off_x = kMargin + (inner_w - used_w) / 2;
  const double off_y = dy > 1e-9 ? kMargin : out.height / 2;
  out.at.resize(n);
  for (std::size_t i = 0; i < n; ++i)
    out.at[i] = {off_x + (raw[i].x - minx) * scale, off_y + (raw[i].y - miny) * scale};
  return out;
}

std::string palette_colour(std::size_t index) {
  static const char* const kColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                         "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"};
  constexpr std::size_t kN = sizeof kColours / sizeof kColours[0];
  if (index < kN) return kColours[index];
  // Golden-angle hues, alternating lightness: distinct and stable for any index.
  const double hue = std::fmod(static_cast<double>(index - kN) * 137.508 + 20.0, 360.0);
  return hsl_to_hex(hue, 0.55, index % 2 ? 0.38 : 0.52);
}

std::string render_svg_map(const MapModel& model) {
  const Layout lay = layout_areas(model);
  const std::size_t n = model.areas.size();

  // Marker size from the closest pair, so that dense maps do not overlap.
  double mind = 60;
  if (n > 1 && n <= 2000)
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = i + 1; j < n; ++j)
        mind = std::min(mind, std::hypot(lay.at[i].x - lay.at[j].x, lay.at[i].y - lay.at[j].y));
  const double r = std::clamp(mind * 0.4, 7.0, 17.0);

  std::map<std::string, std::size_t> player_index;
  for (std::size_t i = 0; i < model.players.size(); ++i)
    player_index.emplace(model.players[i].code, i);
  std::map<std::string, std::size_t> area_index;
  for (std::size_t i = 0; i < n; ++i) area_index.emplace(model.areas[i].code, i);

  // Legend: the players, then the unowned/sea/city keys, in rows of fixed-width cells.
  constexpr double kCell = 190, kRow = 22;
  const std::size_t legend_items = model.players.size() + 3;
  const auto per_row = static_cast<std::size_t>(std::max(1.0, (lay.width - 20) / kCell));
  const std::size_t rows = (legend_items + per_row - 1) / per_row;
  const double legend_top = lay.height;
  const double height = lay.height + static_cast<double>(rows) * kRow + 10;

  std::string s;
  s.reserve(600 + n * 420);
  s += "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"map\" viewBox=\"0 0 " + fmt(lay.width) +
       " " + fmt(height) + "\" width=\"" + fmt(lay.width) + "\" height=\"" + fmt(height) +
       "\" role=\"img\" aria-labelledby=\"map-title\" font-family=\"sans-serif\">\n";
  s += "<title id=\"map-title\">Map of " + xml_escape(model.title) + "</title>\n";
  s += "<rect x=\"0\" y=\"0\" width=\"" + fmt(lay.width) + "\" height=\"" + fmt(height) +
       "\" fill=\"#fbf8f1\"/>\n";

  // Borders.
  s += "<g class=\"edges\">\n";
  for (const auto& [a, b] : model.edges) {
    auto ia = area_index.find(a), ib = area_index.find(b);
    if (ia == area_index.end() || ib == area_index.end()) continue;
    const Point& p = lay.at[ia->second];
    const Point& q = lay.at[ib->second];
    const bool sea = model.areas[ia->second].kind == "sea" || model.areas[ib->second].kind == "sea";
    s += "<line x1=\"" + fmt(p.x) + "\" y1=\"" + fmt(p.y) + "\" x2=\"" + fmt(q.x) + "\" y2=\"" +
         fmt(q.y) +
         (sea ? "\" stroke=\"#6aa9e0\" stroke-width=\"1.5\" stroke-dasharray=\"5 4\"/>\n"
              : "\" stroke=\"#8a8a8a\" stroke-width=\"2\"/>\n");
  }
  s += "</g>\n";

  // Areas: sea below land below cities (cities sit next to their hinterland).
  auto draw = [&](std::size_t i) {
    const MapArea& a = model.areas[i];
    const Point& p = lay.at[i];
    std::string fill = "#e4e1da", text_fill = "#222";
    std::string owner_text = "unowned";
    if (!a.owner.empty()) {
      auto it = player_index.find(a.owner);
      fill = it == player_index.end() ? "#555555" : palette_colour(it->second);
      text_fill = luminance(fill) > 0.6 ? "#111" : "#fff";
      owner_text =
          (it == player_index.end() ? std::string() : model.players[it->second].name + " ") + "(" +
          a.owner + ")";
    }
    const std::string code = xml_escape(a.code);
    s += "<g class=\"area " + xml_escape(a.kind) + "\" id=\"area-" + code + "\" data-code=\"" +
         code + "\">";
    s += "<title>" + code + " " + xml_escape(a.name) + " (" + xml_escape(a.kind) +
         "): " + xml_escape(owner_text) + ", " + std::to_string(a.armies) + " armies, population " +
         std::to_string(a.population) + "</title>";
    if (a.kind == "sea") {
      s += "<ellipse cx=\"" + fmt(p.x) + "\" cy=\"" + fmt(p.y) + "\" rx=\"" + fmt(r * 1.35) +
           "\" ry=\"" + fmt(r * 0.95) +
           "\" fill=\"#cfe6fa\" stroke=\"#4a90d9\" stroke-width=\"1.5\"/>";
      text_fill = "#1d5c99";
    } else if (a.kind == "city") {
      const double h = r * 0.85;
      s += "<rect x=\"" + fmt(p.x - h) + "\" y=\"" + fmt(p.y - h) + "\" width=\"" + fmt(2 * h) +
           "\" height=\"" + fmt(2 * h) + "\" fill=\"" + fill +
           "\" stroke=\"#222\" stroke-width=\"2.5\"/>";
    } else {
      s += "<circle cx=\"" + fmt(p.x) + "\" cy=\"" + fmt(p.y) + "\" r=\"" + fmt(r) + "\" fill=\"" +
           fill + "\" stroke=\"#333\" stroke-width=\"1.2\"/>";
    }
    if (a.kind != "sea" || a.armies > 0)
      s += "<text class=\"armies\" x=\"" + fmt(p.x) + "\" y=\"" + fmt(p.y + r * 0.35) +
           "\" text-anchor=\"middle\" font-size=\"" + fmt(r * 0.95) +
           "\" font-weight=\"bold\" fill=\"" + text_fill + "\">" + std::to_string(a.armies) +
           "</text>";
    s += "<text class=\"code\" x=\"" + fmt(p.x) + "\" y=\"" + fmt(p.y + r + 11) +
         "\" text-anchor=\"middle\" font-size=\"10\" fill=\"" +
         (a.kind == "sea" ? "#1d5c99" : "#222") + "\">" + code + "</text></g>\n";
  };
  s += "<g class=\"areas\">\n";
  for (const char* kind : {"sea", "land", "city"})
    for (std::size_t i = 0; i < n; ++i) {
      const std::string& k = model.areas[i].kind;
      const bool other = k != "sea" && k != "city";
      if (k == kind || (other && std::string_view(kind) == "land")) draw(i);
    }
  s += "</g>\n";

  // Legend.
  s += "<g class=\"legend\" font-size=\"12\">\n";
  std::size_t item = 0;
  auto cell = [&](const std::string& shape, const std::string& label) {
    const double x = 10 + static_cast<double>(item % per_row) * kCell;
    const double y = legend_top + 6 + static_cast<double>(item / per_row) * kRow;
    ++item;
    s += shape.empty()
             ? ""
             : "<g transform=\"translate(" + fmt(x) + " " + fmt(y) + ")\">" + shape + "</g>";
    s += "<text x=\"" + fmt(x + 20) + "\" y=\"" + fmt(y + 12) + "\" fill=\"#222\">" + label +
         "</text>\n";
  };
  for (std::size_t i = 0; i < model.players.size(); ++i)
    cell("<rect width=\"14\" height=\"14\" fill=\"" + palette_colour(i) + "\" stroke=\"#333\"/>",
         xml_escape(model.players[i].name) + " (" + xml_escape(model.players[i].code) + ")");
  cell("<circle cx=\"7\" cy=\"7\" r=\"7\" fill=\"#e4e1da\" stroke=\"#333\"/>", "unowned land");
  cell(
      "<rect x=\"1\" y=\"1\" width=\"12\" height=\"12\" fill=\"#fff\" stroke=\"#222\" "
      "stroke-width=\"2.5\"/>",
      "city");
  cell("<ellipse cx=\"7\" cy=\"7\" rx=\"8\" ry=\"6\" fill=\"#cfe6fa\" stroke=\"#4a90d9\"/>",
       "sea (number: armies)");
  s += "</g>\n</svg>\n";
  return s;
}

}  // namespace adj::web
