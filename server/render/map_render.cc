// render_svg_map and render_map_legend_html (svg_map.h).
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "server/render/map_style.h"
#include "server/render/svg_map.h"

namespace adj::render {

namespace {

using mapstyle::fmt;
using mapstyle::glyph;
using mapstyle::LegendItem;

std::string path_d(const Polygon& p) {
  std::string d;
  d.reserve(p.size() * 12 + 2);
  for (std::size_t k = 0; k < p.size(); ++k) {
    d += k ? 'L' : 'M';
    d += fmt(p[k].x);
    d += ' ';
    d += fmt(p[k].y);
  }
  return d + "Z";
}

// The distance from q to the nearest side of p: the room for a label centred on q.
double room_at(const Polygon& p, Point q) {
  double best = INFINITY;
  for (std::size_t k = 0; k < p.size(); ++k) {
    const Point a = p[k], b = p[(k + 1) % p.size()];
    const double dx = b.x - a.x, dy = b.y - a.y, len2 = dx * dx + dy * dy;
    double t = len2 > 0 ? ((q.x - a.x) * dx + (q.y - a.y) * dy) / len2 : 0;
    t = std::clamp(t, 0.0, 1.0);
    best = std::min(best, std::hypot(q.x - a.x - t * dx, q.y - a.y - t * dy));
  }
  return std::isfinite(best) ? best : 0;
}

std::size_t utf8_length(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

// The first `max` characters of s (whole UTF-8 sequences), with an ellipsis when cut.
std::string shorten(const std::string& s, std::size_t max) {
  if (utf8_length(s) <= max) return s;
  std::size_t n = 0, i = 0;
  for (; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80 && n++ == max - 1) break;
  }
  return s.substr(0, i) + "\u2026";
}

// Text with a white halo (stroke painted under the fill), readable on any territory.
std::string label(double x, double y, double size, const std::string& escaped,
                  const std::string& extra, const char* fill = "#1a1a1a") {
  return "<text x=\"" + fmt(x) + "\" y=\"" + fmt(y) + "\" font-size=\"" + fmt(size) +
         "\" text-anchor=\"middle\" fill=\"" + fill +
         "\" stroke=\"#fff\" stroke-width=\"3\" stroke-linejoin=\"round\" paint-order=\"stroke\"" +
         extra + ">" + escaped + "</text>";
}

std::string owner_text(const MapModel& m, const std::map<std::string, std::size_t>& players,
                       const std::string& owner) {
  if (owner.empty()) return "unowned";
  auto it = players.find(owner);
  return (it == players.end() ? std::string() : m.players[it->second].name + " ") + "(" + owner +
         ")";
}

std::string symbol_name(const std::string& sym) { return sym.rfind("vp:", 0) == 0 ? "vp" : sym; }

const char* symbol_label(const std::string& name) {
  if (name == "fort") return "fort (number: its level)";
  if (name == "castle") return "castle";
  if (name == "road") return "road";
  if (name == "rails") return "railway";
  if (name == "mud") return "mud (weather)";
  if (name == "frozen") return "frozen ground (weather)";
  if (name == "vp") return "victory points (number: VP)";
  return "";
}

std::string arrow_swatch(const std::string& kind) {
  const std::string width = kind == "attack" ? "3" : "1.8";
  return "<path d=\"M1 11Q5 2 11 4\" fill=\"none\" stroke=\"#333\" stroke-width=\"" + width + "\"" +
         (kind == "retreat" ? " stroke-dasharray=\"2.5 2\"" : "") +
         "/><path d=\"M13.5 4.5L9 7.5 9.5 1.5Z\" fill=\"#333\"/>";
}

// The legend's lines. Pattern ids are `prefix` + "own-<i>" and `prefix` + "sea"; each item's
// `defs` holds the pattern it needs.
std::vector<LegendItem> legend_items(const MapModel& m, const std::string& prefix) {
  std::vector<LegendItem> out;
  const std::string land = mapstyle::terrain_fill("lowlands");
  for (std::size_t i = 0; i < m.players.size(); ++i) {
    const std::string id = prefix + "own-" + std::to_string(i);
    out.push_back({"<rect width=\"14\" height=\"14\" fill=\"" + land +
                       "\"/><rect width=\"14\" height=\"14\" fill=\"url(#" + id +
                       ")\" stroke=\"#333\"/>",
                   xml_escape(m.players[i].name) + " (" + xml_escape(m.players[i].code) + ")",
                   mapstyle::owner_pattern(i, id)});
  }
  out.push_back({"<rect width=\"14\" height=\"14\" fill=\"" + land + "\" stroke=\"#333\"/>",
                 "unowned land", ""});
  std::map<std::string, std::set<std::string>> families;
  std::set<std::string> symbols;
  bool sea = false, city = false, fort = false;
  for (const MapArea& a : m.areas) {
    if (a.kind == "sea") {
      sea = true;
      continue;
    }
    if (a.kind == "city") city = true;
    if (a.fort > 0) fort = true;
    for (const auto& s : a.symbols) symbols.insert(symbol_name(s));
    if (!a.terrain.empty() && a.kind != "city")
      families[mapstyle::terrain_class(a.terrain)].insert(a.terrain);
  }
  if (sea)
    out.push_back({"<rect width=\"14\" height=\"14\" fill=\"url(#" + prefix + "sea)\" stroke=\"" +
                       mapstyle::kSeaStroke + "\"/>",
                   "sea", mapstyle::sea_pattern(prefix + "sea")});
  for (const auto& [family, words] : families) {
    std::string text = family;
    // The terrain words from the scenario: at most kLegendWords of them, each shortened.
    constexpr std::size_t kLegendWords = 8, kLegendWordChars = 24;
    if (words.size() > 1 || *words.begin() != family) {
      text += ":";
      std::size_t listed = 0;
      for (const auto& w : words) {
        if (listed++ == kLegendWords) {
          text += " \u2026";
          break;
        }
        text += " " + shorten(w, kLegendWordChars);
      }
    }
    out.push_back({"<rect width=\"14\" height=\"14\" fill=\"" + mapstyle::terrain_fill(family) +
                       "\" stroke=\"#999\"/>" +
                       (mapstyle::terrain_has_glyph(family) ? glyph(family, 7, 7, 10) : ""),
                   xml_escape(text), ""});
  }
  if (city) out.push_back({glyph("city", 7, 7, 12), "city (in its hinterland)", ""});
  if (fort) out.push_back({glyph("fort", 7, 7, 12), symbol_label("fort"), ""});
  for (const auto& s : symbols) out.push_back({glyph(s, 7, 7, 12), symbol_label(s), ""});
  if (!m.rivers.empty())
    out.push_back({"<path d=\"M1 12Q7 1 13 5\" fill=\"none\" stroke=\"" +
                       std::string(mapstyle::kRiver) + "\" stroke-width=\"2.5\"/>",
                   "river", ""});
  out.push_back(
      {"<rect x=\"0.5\" y=\"2.5\" width=\"13\" height=\"9\" rx=\"4\" fill=\"#fff\" "
       "stroke=\"#333\"/><text x=\"7\" y=\"10\" font-size=\"8\" text-anchor=\"middle\" "
       "font-weight=\"bold\">4</text>",
       "armies (with the owner's code)", ""});
  std::set<std::string> kinds;
  for (const auto& a : m.arrows) kinds.insert(a.kind);
  for (const char* k : {"move", "attack", "retreat"})
    if (kinds.count(k))
      out.push_back({arrow_swatch(k),
                     std::string(k) + (std::string_view(k) == "attack" ? " (hover: result)" : ""),
                     ""});
  return out;
}

}  // namespace

std::string render_svg_map(const MapModel& model, const MapStyle& style) {
  const double zoom = std::isfinite(style.zoom) ? std::clamp(style.zoom, 1.0, 8.0) : 1.0;
  const std::size_t n = model.areas.size();
  const std::vector<bool> marker = drawn_as_markers(model);
  const auto territories_n = static_cast<double>(std::count(marker.begin(), marker.end(), false));
  const double base = std::clamp(90 * std::sqrt(territories_n), 600.0, 1200.0);
  const Layout lay = layout_areas(model, base * zoom);

  std::map<std::string, std::size_t> player_index, area_index;
  for (std::size_t i = 0; i < model.players.size(); ++i)
    player_index.emplace(model.players[i].code, i);
  for (std::size_t i = 0; i < n; ++i) area_index.emplace(model.areas[i].code, i);

  // Territories: an outline when the scenario gives one, else a cell around the area's site.
  std::vector<std::size_t> site_area;
  std::vector<Point> sites;
  std::vector<double> radii;
  std::vector<long> site_of(n, -1);
  for (std::size_t i = 0; i < n; ++i)
    if (!marker[i]) {
      site_of[i] = static_cast<long>(sites.size());
      site_area.push_back(i);
      sites.push_back(lay.at[i]);
      radii.push_back(std::max(lay.radius[i], 1.0));
    }
  const std::vector<Cell> cells = territories(sites, radii, 28);
  std::vector<Polygon> shape(n);
  for (std::size_t k = 0; k < sites.size(); ++k) {
    const std::size_t i = site_area[k];
    if (model.areas[i].outline && !lay.automatic) {
      // At pixel scale: a point within half a pixel of the previous one drawn adds nothing.
      Polygon& sh = shape[i];
      for (const Point& q : *model.areas[i].outline) {
        const Point px{lay.offset.x + q.x * lay.scale, lay.offset.y + q.y * lay.scale};
        if (sh.empty() || std::hypot(px.x - sh.back().x, px.y - sh.back().y) >= 0.5)
          sh.push_back(px);
      }
      if (sh.size() < 3) sh = cells[k].polygon;
    } else {
      shape[i] = cells[k].polygon;
    }
  }
  std::set<std::pair<std::size_t, std::size_t>> touching;  // area pairs sharing a cell side
  std::map<std::pair<std::size_t, std::size_t>, std::pair<Point, Point>> shared_side;
  for (std::size_t k = 0; k < cells.size(); ++k)
    for (std::size_t e = 0; e < cells[k].neighbour.size(); ++e) {
      const long j = cells[k].neighbour[e];
      if (j < 0) continue;
      const std::size_t a = site_area[k], b = site_area[static_cast<std::size_t>(j)];
      touching.insert({std::min(a, b), std::max(a, b)});
      const Polygon& p = cells[k].polygon;
      shared_side[{a, b}] = {p[e], p[(e + 1) % p.size()]};
    }

  // Anchors (labels, arrows) and the room around them.
  std::vector<Point> anchor(lay.at);
  std::vector<double> room(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    if (marker[i] || shape[i].empty()) continue;
    const Point c = centroid(shape[i]);
    if (contains(shape[i], c)) anchor[i] = c;
    room[i] = room_at(shape[i], anchor[i]);
  }
  // Bounding boxes of the shapes: a point outside one is not tested against the shape.
  struct Box {
    double x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
  };
  std::vector<Box> box(n);
  for (std::size_t i = 0; i < n; ++i)
    for (const Point& q : shape[i])
      box[i] = {std::min(box[i].x0, q.x), std::min(box[i].y0, q.y), std::max(box[i].x1, q.x),
                std::max(box[i].y1, q.y)};
  MapWork work;
  std::vector<std::size_t> placed(n, 0);  // per hinterland
  for (std::size_t i = 0; i < n; ++i) {
    if (!marker[i]) continue;
    const std::size_t h = area_index.at(model.areas[i].hinterland);
    const Polygon& hp = shape[h];
    room[i] = room[h] * 0.5;
    if (placed[h] >= kMaxCitiesPlacedPerHinterland ||
        work.placement_ops + hp.size() > kMaxCityPlacementWork) {
      ++work.cities_unplaced;
      continue;  // at its layout position
    }
    ++placed[h];
    const Box& hb = box[h];
    // Whether q is inside the hinterland with at least `margin` pixels around it, within the
    // work bound (false once it is spent).
    auto inside = [&](Point q, double margin) {
      if (hp.empty() || q.x < hb.x0 + margin || q.x > hb.x1 - margin || q.y < hb.y0 + margin ||
          q.y > hb.y1 - margin)
        return false;
      if (work.placement_ops + 2 * hp.size() > kMaxCityPlacementWork) return false;
      work.placement_ops += hp.size();
      if (!contains(hp, q)) return false;
      work.placement_ops += hp.size();
      return room_at(hp, q) >= margin;
    };
    // Inside the hinterland and clear of its label (the name above the anchor, the armies and
    // symbols below it): the city's own place if it is, else the nearest such point on rings
    // around the label, else the point inside furthest from the label.
    const Point c = anchor[h];
    const double fs = std::clamp(room[h] * 0.42, 9.0, 13.0);
    const double half_w =
        room[h] < 16 ? 0
                     : std::min(0.28 * fs * static_cast<double>(utf8_length(model.areas[h].name)),
                                1.3 * room[h]) +
                           7;
    const double top = c.y - fs - 8, bottom = c.y + (room[h] >= 28 ? 32 : 18);
    // The city's own footprint: the marker, and its name under it.
    const double city_half_w =
        room[h] < 28 ? 8 : 0.3 * 10 * static_cast<double>(utf8_length(model.areas[i].name) + 2);
    const double city_below = room[h] < 28 ? 8 : 22;
    auto fits = [&](Point q) {
      const bool on_label = half_w > 0 && std::fabs(q.x - c.x) < half_w + city_half_w &&
                            q.y + city_below > top && q.y - 8 < bottom;
      return !on_label && inside(q, 5);
    };
    Point p = lay.at[i];
    if (!fits(p)) {
      const double dx = p.x - c.x, dy = p.y - c.y;
      const double base = std::hypot(dx, dy) > 1e-6 ? std::atan2(dy, dx) : 0.6;
      bool found = false;
      for (double rad : {14.0, 22.0, 30.0, 40.0, 55.0, 75.0}) {
        for (int k = 0; k < 16 && !found; ++k) {
          const double off = (k % 2 ? -1 : 1) * ((k + 1) / 2) * (std::acos(-1.0) / 8);
          const Point q{c.x + rad * std::cos(base + off), c.y + rad * std::sin(base + off)};
          if (fits(q)) {
            p = q;
            found = true;
          }
        }
        if (found) break;
      }
      // No place clear of the label: the place inside furthest from it.
      double best = -1;
      for (double rad : {8.0, 14.0, 22.0, 30.0, 40.0})
        for (int k = 0; k < 16 && !found; ++k) {
          const double a = base + k * (std::acos(-1.0) / 8);
          const Point q{c.x + rad * std::cos(a), c.y + rad * std::sin(a)};
          const double score =
              std::min(std::fabs(q.x - c.x) / std::max(half_w, 1.0), std::fabs(q.y - c.y) / 14);
          if (score > best && inside(q, 4)) {
            best = score;
            p = q;
          }
        }
      if (!found && best < 0) p = hp.empty() ? p : c;
    }
    anchor[i] = p;
  }
  if (style.work) *style.work = work;

  // Legend (inside the SVG): rows of fixed-width cells under the map.
  std::vector<LegendItem> legend;
  if (style.legend_inside) legend = legend_items(model, "");
  constexpr double kCell = 190, kRow = 20;
  const auto per_row = static_cast<std::size_t>(std::max(1.0, (lay.width - 16) / kCell));
  const std::size_t rows = (legend.size() + per_row - 1) / per_row;
  const double height = lay.height + (rows ? static_cast<double>(rows) * kRow + 12 : 0);

  std::string s;
  s.reserve(4000 + n * 700);
  s += "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"map\" viewBox=\"0 0 " + fmt(lay.width) +
       " " + fmt(height) + "\" width=\"" + fmt(lay.width) + "\" height=\"" + fmt(height) +
       "\" role=\"img\" aria-labelledby=\"map-title\" font-family=\"sans-serif\">\n";
  s += "<title id=\"map-title\">Map of " + xml_escape(model.title) + "</title>\n<defs>";
  s += mapstyle::sea_pattern("sea");
  for (std::size_t i = 0; i < model.players.size(); ++i)
    s += mapstyle::owner_pattern(i, "own-" + std::to_string(i));
  const bool any_sea = std::any_of(model.areas.begin(), model.areas.end(),
                                   [](const MapArea& a) { return a.kind == "sea"; });
  s += "</defs>\n<rect width=\"" + fmt(lay.width) + "\" height=\"" + fmt(height) +
       "\" fill=\"#f6f3ea\"/>\n";
  // With sea areas, the water around the land is sea too; the sea areas are zones on it.
  if (any_sea)
    s += "<rect class=\"water\" width=\"" + fmt(lay.width) + "\" height=\"" + fmt(lay.height) +
         "\" fill=\"url(#sea)\" fill-opacity=\"0.6\"/>\n";

  // Territories: sea first, then land; cities as groups of their own (markers drawn later).
  std::vector<std::set<std::string>> borders(n);
  for (const auto& [ca, cb] : model.edges) {
    auto ia = area_index.find(ca), ib = area_index.find(cb);
    if (ia == area_index.end() || ib == area_index.end() || ia->second == ib->second) continue;
    borders[ia->second].insert(cb);
    borders[ib->second].insert(ca);
  }
  auto title_of = [&](const MapArea& a, std::size_t i) {
    std::string t = xml_escape(a.code) + " " + xml_escape(a.name) + " (" + xml_escape(a.kind) +
                    "): " + xml_escape(owner_text(model, player_index, a.owner)) + ", " +
                    std::to_string(a.armies) + " armies, population " +
                    std::to_string(a.population);
    if (!a.terrain.empty()) t += ", " + xml_escape(a.terrain);
    if (a.fort > 0) t += ", fort " + std::to_string(a.fort);
    if (!a.hinterland.empty()) t += ", in " + xml_escape(a.hinterland);
    for (const auto& sym : a.symbols) t += ", " + xml_escape(sym);
    std::size_t listed = 0;
    for (const auto& b : borders[i]) {
      if (listed == 12) {
        t += " and " + std::to_string(borders[i].size() - listed) + " more";
        break;
      }
      t += (listed++ ? " " : "; borders ") + xml_escape(b);
    }
    return "<title>" + t + "</title>";
  };
  auto open_group = [&](std::size_t i) {
    const MapArea& a = model.areas[i];
    const std::string code = xml_escape(a.code);
    return "<g class=\"area " + xml_escape(a.kind == "sea" || a.kind == "city" ? a.kind : "land") +
           "\" id=\"area-" + code + "\" data-code=\"" + code + "\">" + title_of(a, i);
  };
  s += "<g class=\"areas\" stroke-linejoin=\"round\">\n";
  for (const bool sea_pass : {true, false})
    for (std::size_t i = 0; i < n; ++i) {
      const MapArea& a = model.areas[i];
      if (marker[i] || (a.kind == "sea") != sea_pass) continue;
      s += open_group(i);
      if (!shape[i].empty()) {
        const std::string d = path_d(shape[i]);
        if (sea_pass) {
          s += "<path d=\"" + d + "\" fill=\"url(#sea)\" stroke=\"" + mapstyle::kSeaStroke +
               "\" stroke-width=\"1.2\" stroke-dasharray=\"6 3\"/>";
        } else {
          s += "<path d=\"" + d + "\" fill=\"" +
               mapstyle::terrain_fill(mapstyle::terrain_class(a.terrain)) + "\"/>";
          auto it = player_index.find(a.owner);
          if (it != player_index.end())
            s += "<path d=\"" + d + "\" fill=\"url(#own-" + std::to_string(it->second) + ")\"/>";
          else if (!a.owner.empty())
            s += "<path d=\"" + d + "\" fill=\"#555\" fill-opacity=\"0.5\"/>";
          s += "<path d=\"" + d + "\" fill=\"none\" stroke=\"#6b6257\" stroke-width=\"1\"/>";
        }
      }
      s += "</g>\n";
    }
  s += "</g>\n";

  // Rivers along shared sides; borders that no side shows (across water, or between areas the
  // layout put apart) as dashed links.
  s += "<g class=\"borders\" fill=\"none\">\n";
  std::set<std::pair<std::size_t, std::size_t>> seen;
  for (const auto& [ca, cb] : model.edges) {
    auto ia = area_index.find(ca), ib = area_index.find(cb);
    if (ia == area_index.end() || ib == area_index.end() || ia->second == ib->second) continue;
    const std::size_t a = std::min(ia->second, ib->second), b = std::max(ia->second, ib->second);
    if (!seen.insert({a, b}).second) continue;
    const bool river = std::binary_search(model.rivers.begin(), model.rivers.end(),
                                          std::min(ca, cb) + "|" + std::max(ca, cb));
    auto side = shared_side.find({a, b});
    if (side == shared_side.end()) side = shared_side.find({b, a});
    const bool outlined = model.areas[a].outline || model.areas[b].outline;
    if (river && side != shared_side.end() && !outlined) {
      const auto& [p, q] = side->second;
      s += "<path class=\"river\" d=\"M" + fmt(p.x) + " " + fmt(p.y) + "L" + fmt(q.x) + " " +
           fmt(q.y) + "\" stroke=\"" + mapstyle::kRiver +
           "\" stroke-width=\"3.5\" stroke-linecap=\"round\"/>\n";
      continue;
    }
    // Across the water a sea touches its coasts; the titles name every neighbour.
    if (touching.count({a, b}) || outlined || model.areas[a].kind == "sea" ||
        model.areas[b].kind == "sea")
      continue;
    if ((marker[a] && model.areas[a].hinterland == model.areas[b].code) ||
        (marker[b] && model.areas[b].hinterland == model.areas[a].code))
      continue;
    s += "<path class=\"link\" d=\"M" + fmt(anchor[a].x) + " " + fmt(anchor[a].y) + "L" +
         fmt(anchor[b].x) + " " + fmt(anchor[b].y) + "\" stroke=\"" +
         (river ? mapstyle::kRiver : "#6b6257") + "\" stroke-width=\"1.2\" " +
         "stroke-dasharray=\"4 3\"/>\n";
  }
  s += "</g>\n";

  // Cities.
  s += "<g class=\"cities\">\n";
  for (std::size_t i = 0; i < n; ++i) {
    if (!marker[i]) continue;
    const MapArea& a = model.areas[i];
    auto it = player_index.find(a.owner);
    const std::string fill = it != player_index.end() ? palette_colour(it->second)
                             : a.owner.empty()        ? "#ffffff"
                                                      : "#555555";
    const double h = std::clamp(room[i] * 0.35, 4.0, 7.0);
    s += open_group(i) + "<rect x=\"" + fmt(anchor[i].x - h) + "\" y=\"" + fmt(anchor[i].y - h) +
         "\" width=\"" + fmt(2 * h) + "\" height=\"" + fmt(2 * h) + "\" fill=\"" + fill +
         "\" stroke=\"#1a1a1a\" stroke-width=\"2\"/></g>\n";
  }
  s += "</g>\n";

  // Arrows.
  if (!model.arrows.empty()) {
    s += "<g class=\"arrows\" fill=\"none\" stroke-linecap=\"round\">\n";
    std::map<std::pair<std::size_t, std::size_t>, int> repeats;
    for (const MapArrow& ar : model.arrows) {
      auto ia = area_index.find(ar.from), ib = area_index.find(ar.to);
      if (ia == area_index.end() || ib == area_index.end() || ia->second == ib->second) continue;
      Point a = anchor[ia->second], b = anchor[ib->second];
      const double len = std::hypot(b.x - a.x, b.y - a.y);
      if (len < 1) continue;
      const double cut_a = std::min(0.2 * len, 8.0);
      const double cut_b = std::min(0.3 * len, std::max(8.0, room[ib->second] * 0.45));
      const Point u{(b.x - a.x) / len, (b.y - a.y) / len};
      a = {a.x + u.x * cut_a, a.y + u.y * cut_a};
      b = {b.x - u.x * cut_b, b.y - u.y * cut_b};
      const int rep = repeats[{ia->second, ib->second}]++;
      const bool attack = ar.kind == "attack", retreat = ar.kind == "retreat";
      const double width = attack ? 4.5 : retreat ? 2.2 : 2.8;
      const Curve c = arrow_curve(a, b, 0.16 + 0.1 * rep, width * 2.6 + 3);
      auto pi = player_index.find(ar.player);
      const std::string colour = pi == player_index.end() ? "#555555" : palette_colour(pi->second);
      const std::string casing = mapstyle::luminance(colour) > 0.6 ? "#333" : "#fff";
      // The stroke stops where the head starts, so that the round cap does not show past it.
      const Point mid_base{(c.head[1].x + c.head[2].x) / 2, (c.head[1].y + c.head[2].y) / 2};
      const std::string d = "M" + fmt(c.start.x) + " " + fmt(c.start.y) + "Q" + fmt(c.control.x) +
                            " " + fmt(c.control.y) + " " + fmt(mid_base.x) + " " + fmt(mid_base.y);
      const std::string head = "M" + fmt(c.head[0].x) + " " + fmt(c.head[0].y) + "L" +
                               fmt(c.head[1].x) + " " + fmt(c.head[1].y) + " " + fmt(c.head[2].x) +
                               " " + fmt(c.head[2].y) + "Z";
      const std::string dash = retreat ? " stroke-dasharray=\"6 4\"" : "";
      s += "<g class=\"arrow " + xml_escape(ar.kind) + "\" data-from=\"" + xml_escape(ar.from) +
           "\" data-to=\"" + xml_escape(ar.to) + "\"><title>" + xml_escape(ar.label) +
           "</title><path d=\"" + d + "\" stroke=\"" + casing + "\" stroke-width=\"" +
           fmt(width + 2.5) + "\"" + dash + "/><path d=\"" + head + "\" fill=\"" + casing +
           "\" stroke=\"" + casing +
           "\" stroke-width=\"2.5\" stroke-linejoin=\"round\"/><path d=\"" + d + "\" stroke=\"" +
           colour + "\" stroke-width=\"" + fmt(width) + "\"" + dash + "/><path d=\"" + head +
           "\" fill=\"" + colour + "\"/></g>\n";
    }
    s += "</g>\n";
  }

  // Labels: names, owner and armies, symbols; dropped when the territory has no room for them.
  s += "<g class=\"labels\">\n";
  for (std::size_t i = 0; i < n; ++i) {
    const MapArea& a = model.areas[i];
    const Point p = anchor[i];
    const double r = room[i];
    const bool sea = a.kind == "sea";
    const char* ink = sea ? mapstyle::kSeaText : "#1a1a1a";
    if (marker[i]) {
      if (r < 14) continue;
      const double fs = std::clamp(r * 0.3, 9.0, 11.0);
      const auto max_chars = static_cast<std::size_t>(std::max(0.0, 2.4 * r / (0.56 * fs)));
      if (max_chars < 4) continue;
      std::string text = shorten(a.name.empty() ? a.code : a.name, max_chars);
      s += label(p.x, p.y + 7 + fs, fs, xml_escape(text) + " " + std::to_string(a.armies),
                 " font-style=\"italic\" class=\"city-name\"");
      s += "\n";
      continue;
    }
    if (r < 7) continue;
    std::string owner_code;
    if (player_index.count(a.owner)) owner_code = a.owner;
    const std::string badge_text =
        (owner_code.empty() ? "" : xml_escape(owner_code) + " ") + std::to_string(a.armies);
    const bool show_badge = !sea || a.armies > 0;
    if (r < 16) {
      if (show_badge)
        s += label(p.x, p.y + 3, std::clamp(r * 0.7, 7.0, 9.0), std::to_string(a.armies),
                   " font-weight=\"bold\"", ink) +
             "\n";
      continue;
    }
    const double fs = std::clamp(r * 0.42, 9.0, 13.0);
    // Too long a name is shortened when most of it still shows, else replaced by the code.
    const auto max_chars = static_cast<std::size_t>(2.2 * r / (0.56 * fs));
    std::string name = a.name.empty() ? a.code : a.name;
    if (const std::size_t len = utf8_length(name); len > max_chars)
      name = max_chars >= 5 && 10 * (max_chars - 1) >= 7 * len ? shorten(name, max_chars) : a.code;
    s += label(p.x, p.y - 3, fs, xml_escape(name),
               sea ? " font-style=\"italic\" class=\"name\"" : " class=\"name\"", ink);
    if (show_badge) {
      const double bw = 6.0 * static_cast<double>(utf8_length(badge_text)) + 8;
      s += "<rect x=\"" + fmt(p.x - bw / 2) + "\" y=\"" + fmt(p.y + 1) + "\" width=\"" + fmt(bw) +
           "\" height=\"13\" rx=\"6\" fill=\"#fff\" fill-opacity=\"0.9\" stroke=\"#333\" "
           "stroke-width=\"0.8\"/><text class=\"armies\" x=\"" +
           fmt(p.x) + "\" y=\"" + fmt(p.y + 11) +
           "\" font-size=\"10\" font-weight=\"bold\" text-anchor=\"middle\" fill=\"#1a1a1a\">" +
           badge_text + "</text>";
    }
    if (r >= 28) {
      std::vector<std::string> glyphs;
      const std::string family = mapstyle::terrain_class(a.terrain);
      if (!sea && !a.terrain.empty() && mapstyle::terrain_has_glyph(family))
        glyphs.push_back(family);
      if (a.fort > 0) glyphs.push_back("fort");
      for (const auto& sym : a.symbols) glyphs.push_back(symbol_name(sym));
      if (glyphs.size() > 5) glyphs.resize(5);
      const double gs = 10, gap = 13;
      double x = p.x - gap * static_cast<double>(glyphs.size() - 1) / 2;
      for (const auto& g : glyphs) {
        s += glyph(g, x, p.y + 23, gs);
        if (g == "fort" && a.fort > 1)
          s += "<text x=\"" + fmt(x + 5) + "\" y=\"" + fmt(p.y + 30) +
               "\" font-size=\"7\" font-weight=\"bold\">" + std::to_string(a.fort) + "</text>";
        x += gap;
      }
    }
    s += "\n";
  }
  s += "</g>\n";

  if (!legend.empty()) {
    s += "<g class=\"legend\" font-size=\"11\">\n";
    for (std::size_t k = 0; k < legend.size(); ++k) {
      const double x = 8 + static_cast<double>(k % per_row) * kCell;
      const double y = lay.height + 6 + static_cast<double>(k / per_row) * kRow;
      s += "<g transform=\"translate(" + fmt(x) + " " + fmt(y) + ")\">" + legend[k].swatch +
           "</g><text x=\"" + fmt(x + 20) + "\" y=\"" + fmt(y + 11) + "\" fill=\"#1a1a1a\">" +
           legend[k].label + "</text>\n";
    }
    s += "</g>\n";
  }
  s += "</svg>\n";
  return s;
}

std::string render_map_legend_html(const MapModel& model) {
  std::string s = "<aside class=\"map-legend\" aria-label=\"Map legend\">\n<h3>Legend</h3>\n<ul>\n";
  for (const LegendItem& item : legend_items(model, "lg-")) {
    s += "<li><svg class=\"swatch\" width=\"16\" height=\"16\" viewBox=\"0 0 14 14\" "
         "aria-hidden=\"true\">";
    if (!item.defs.empty()) s += "<defs>" + item.defs + "</defs>";
    s += item.swatch + "</svg> " + item.label + "</li>\n";
  }
  return s + "</ul>\n</aside>\n";
}

}  // namespace adj::render
