#include "server/web/svg_charts.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>

#include "server/render/svg_map.h"

namespace adj::web {

namespace {

using Json = nlohmann::json;

std::string fmt(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", v);
  return b;
}

// Tick label: integers without decimals, others with up to two.
std::string tick(double v) {
  char b[32];
  if (std::fabs(v - std::round(v)) < 1e-9)
    std::snprintf(b, sizeof b, "%.0f", v);
  else
    std::snprintf(b, sizeof b, "%.2g", v);
  return b;
}

// j[key] when it is a number, else 0.
double number(const Json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : 0.0;
}

// The smallest of 1, 2, 5 x 10^k that is >= v (v > 0).
double nice_step(double v) {
  const double p = std::pow(10.0, std::floor(std::log10(v)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * p >= v - 1e-12) return m * p;
  return 10 * p;
}

}  // namespace

std::string render_line_chart(const LineChart& c, int width, int height) {
  constexpr double kLeft = 46, kRight = 14, kTop = 30, kBottom = 38, kCell = 160, kRow = 18;
  const double w = width, h = height;
  const double plot_w = w - kLeft - kRight, plot_h = h - kTop - kBottom;
  const auto per_row = static_cast<std::size_t>(std::max(1.0, (w - 10) / kCell));
  const std::size_t rows = (c.series.size() + per_row - 1) / per_row;
  const double total_h = h + static_cast<double>(rows) * kRow + 6;

  double ymax = 0;
  for (const auto& s : c.series)
    for (std::size_t i = 0; i < s.values.size() && i < c.x.size(); ++i)
      if (std::isfinite(s.values[i])) ymax = std::max(ymax, s.values[i]);
  const double step = nice_step(std::max(ymax, 1.0) / 5);
  const double top = std::max(step, std::ceil(ymax / step - 1e-9) * step);

  const double x0 = c.x.empty() ? 0 : c.x.front(), x1 = c.x.empty() ? 1 : c.x.back();
  auto px = [&](double x) {
    return x1 > x0 ? kLeft + (x - x0) / (x1 - x0) * plot_w : kLeft + plot_w / 2;
  };
  auto py = [&](double y) { return kTop + plot_h - y / top * plot_h; };

  std::string s;
  s += "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" viewBox=\"0 0 " + fmt(w) + " " +
       fmt(total_h) + "\" width=\"" + fmt(w) + "\" height=\"" + fmt(total_h) +
       "\" role=\"img\" font-family=\"sans-serif\" font-size=\"11\">\n";
  s += "<title>" + xml_escape(c.title) + "</title>\n";
  s += "<rect x=\"0\" y=\"0\" width=\"" + fmt(w) + "\" height=\"" + fmt(total_h) +
       "\" fill=\"#fff\"/>\n";
  s += "<text x=\"" + fmt(kLeft) +
       "\" y=\"18\" font-size=\"14\" font-weight=\"bold\" "
       "fill=\"#222\">" +
       xml_escape(c.title) + "</text>\n";

  // Horizontal grid and y ticks.
  s += "<g class=\"grid\" stroke=\"#e2e2e2\">\n";
  for (double y = 0; y <= top + 1e-9; y += step) {
    s += "<line x1=\"" + fmt(kLeft) + "\" y1=\"" + fmt(py(y)) + "\" x2=\"" + fmt(kLeft + plot_w) +
         "\" y2=\"" + fmt(py(y)) + "\"/>";
    s += "<text x=\"" + fmt(kLeft - 5) + "\" y=\"" + fmt(py(y) + 4) +
         "\" text-anchor=\"end\" stroke=\"none\" fill=\"#555\">" + tick(y) + "</text>\n";
  }
  s += "</g>\n";
  // Axes.
  s += "<path d=\"M" + fmt(kLeft) + " " + fmt(kTop) + " V" + fmt(kTop + plot_h) + " H" +
       fmt(kLeft + plot_w) + "\" fill=\"none\" stroke=\"#444\"/>\n";
  // X ticks: at most about ten labels.
  const std::size_t every = std::max<std::size_t>(1, (c.x.size() + 9) / 10);
  for (std::size_t i = 0; i < c.x.size(); i += every)
    s += "<text x=\"" + fmt(px(c.x[i])) + "\" y=\"" + fmt(kTop + plot_h + 15) +
         "\" text-anchor=\"middle\" fill=\"#555\">" + std::to_string(c.x[i]) + "</text>\n";
  s += "<text x=\"" + fmt(kLeft + plot_w / 2) + "\" y=\"" + fmt(h - 6) +
       "\" text-anchor=\"middle\" fill=\"#333\">" + xml_escape(c.x_label) + "</text>\n";
  if (c.x.empty())
    s += "<text x=\"" + fmt(kLeft + plot_w / 2) + "\" y=\"" + fmt(kTop + plot_h / 2) +
         "\" text-anchor=\"middle\" fill=\"#888\">no data yet</text>\n";

  // Series.
  const bool markers = c.x.size() <= 40;
  for (const auto& series : c.series) {
    const std::string colour = xml_escape(series.colour);
    s += "<g class=\"series\" data-series=\"" + xml_escape(series.label) + "\">";
    s += "<title>" + xml_escape(series.label) + "</title>";
    std::string pts;
    const std::size_t m = std::min(series.values.size(), c.x.size());
    for (std::size_t i = 0; i < m; ++i) {
      if (!std::isfinite(series.values[i])) continue;
      pts += (pts.empty() ? "" : " ") + fmt(px(c.x[i])) + "," + fmt(py(series.values[i]));
    }
    s += "<polyline fill=\"none\" stroke=\"" + colour + "\" stroke-width=\"2\" points=\"" + pts +
         "\"/>";
    if (markers)
      for (std::size_t i = 0; i < m; ++i)
        if (std::isfinite(series.values[i]))
          s += "<circle cx=\"" + fmt(px(c.x[i])) + "\" cy=\"" + fmt(py(series.values[i])) +
               "\" r=\"2.5\" fill=\"" + colour + "\"/>";
    s += "</g>\n";
  }

  // Legend.
  s += "<g class=\"legend\">\n";
  for (std::size_t i = 0; i < c.series.size(); ++i) {
    const double x = 8 + static_cast<double>(i % per_row) * kCell;
    const double y = h + static_cast<double>(i / per_row) * kRow;
    s += "<rect x=\"" + fmt(x) + "\" y=\"" + fmt(y) + "\" width=\"12\" height=\"12\" fill=\"" +
         xml_escape(c.series[i].colour) + "\"/><text x=\"" + fmt(x + 17) + "\" y=\"" + fmt(y + 10) +
         "\" fill=\"#222\">" + xml_escape(c.series[i].label) + "</text>\n";
  }
  s += "</g>\n</svg>\n";
  return s;
}

KingdomHistory history_from_roundups(const Json& players, const std::vector<Json>& roundups,
                                     const Json* start_state) {
  KingdomHistory h;
  std::map<std::string, std::size_t> index;
  if (players.is_array())
    for (const auto& p : players) {
      if (!p.is_object() || !p.contains("code") || !p["code"].is_string()) continue;
      KingdomHistory::Kingdom k;
      k.code = p["code"].get<std::string>();
      if (p.contains("name") && p["name"].is_string()) k.name = p["name"].get<std::string>();
      k.palette = h.kingdoms.size();
      index.emplace(k.code, h.kingdoms.size());
      h.kingdoms.push_back(std::move(k));
    }
  // x -> code -> {areas, armies, population}
  std::map<int, std::map<std::string, std::array<double, 3>>> points;
  if (start_state && start_state->is_object() && number(*start_state, "turn") == 1) {
    auto& at = points[0];
    for (const auto& k : h.kingdoms) at[k.code] = {0, 0, 0};
    if (auto it = start_state->find("areas"); it != start_state->end() && it->is_array())
      for (const auto& a : *it) {
        if (!a.is_object() || !a.contains("owner") || !a["owner"].is_string()) continue;
        auto& t = at[a["owner"].get<std::string>()];
        t[0] += 1;
        t[1] += number(a, "armies");
        t[2] += number(a, "population");
      }
  }
  for (const Json& r : roundups) {
    if (!r.is_object() || !r.contains("turn") || !r["turn"].is_number_integer()) continue;
    auto& at = points[r["turn"].get<int>()];
    for (const auto& k : h.kingdoms) at[k.code] = {0, 0, 0};
    if (auto it = r.find("kingdoms"); it != r.end() && it->is_array())
      for (const auto& k : *it) {
        if (!k.is_object() || !k.contains("code") || !k["code"].is_string()) continue;
        at[k["code"].get<std::string>()] = {number(k, "areas"), number(k, "armies"),
                                            number(k, "population")};
      }
  }
  for (const auto& [x, by_code] : points) {
    h.turns.push_back(x);
    for (auto& k : h.kingdoms) {
      auto it = by_code.find(k.code);
      const std::array<double, 3> v = it == by_code.end() ? std::array<double, 3>{} : it->second;
      k.areas.push_back(v[0]);
      k.armies.push_back(v[1]);
      k.population.push_back(v[2]);
    }
  }
  return h;
}

std::vector<LineChart> kingdom_charts(const KingdomHistory& h) {
  std::vector<LineChart> out(3);
  const char* titles[] = {"Areas", "Armies", "Population"};
  for (std::size_t i = 0; i < 3; ++i) {
    out[i].title = titles[i];
    out[i].x_label = "turn (0: start; t: after turn t)";
    out[i].x = h.turns;
    std::vector<const KingdomHistory::Kingdom*> drawn;
    for (const auto& k : h.kingdoms) drawn.push_back(&k);
    if (drawn.size() > kMaxChartSeries) {
      const auto last = [i](const KingdomHistory::Kingdom* k) {
        const auto& v = i == 0 ? k->areas : i == 1 ? k->armies : k->population;
        return v.empty() ? 0.0 : v.back();
      };
      std::stable_sort(drawn.begin(), drawn.end(),
                       [&](const auto* a, const auto* b) { return last(a) > last(b); });
      out[i].title += " (the " + std::to_string(kMaxChartSeries) + " leading of " +
                      std::to_string(drawn.size()) + " kingdoms)";
      drawn.resize(kMaxChartSeries);
    }
    for (const auto* kp : drawn) {
      const auto& k = *kp;
      ChartSeries s;
      s.label = (k.name.empty() ? k.code : k.name + " (" + k.code + ")");
      s.colour = render::palette_colour(k.palette);
      s.values = i == 0 ? k.areas : i == 1 ? k.armies : k.population;
      out[i].series.push_back(std::move(s));
    }
  }
  return out;
}

}  // namespace adj::web
