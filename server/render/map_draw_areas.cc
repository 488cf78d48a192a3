// The map's territory layers (map_render_internal.h): each area's <g> and <title>, the
// territories (sea, then land under the owner's hatch), the borders (rivers on shared sides,
// dashed links where no side shows them) and the city markers.
#include <algorithm>
#include <cmath>

#include "server/render/map_render_internal.h"

namespace adj::render::mapdraw {

namespace {

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

std::string owner_text(const MapModel& m, const std::map<std::string, std::size_t>& players,
                       const std::string& owner) {
  if (owner.empty()) return "unowned";
  auto it = players.find(owner);
  return (it == players.end() ? std::string() : m.players[it->second].name + " ") + "(" + owner +
         ")";
}

std::string area_title(const Scene& sc, const MapArea& a, std::size_t i) {
  std::string t = xml_escape(a.code) + " " + xml_escape(a.name) + " (" + xml_escape(a.kind) +
                  "): " + xml_escape(owner_text(sc.model, sc.player_index, a.owner)) + ", " +
                  std::to_string(a.armies) + " armies, population " + std::to_string(a.population);
  if (!a.terrain.empty()) t += ", " + xml_escape(a.terrain);
  if (a.fort > 0) t += ", fort " + std::to_string(a.fort);
  if (!a.hinterland.empty()) t += ", in " + xml_escape(a.hinterland);
  for (const auto& sym : a.symbols) t += ", " + xml_escape(sym);
  std::size_t listed = 0;
  for (const auto& b : sc.borders[i]) {
    if (listed == 12) {
      t += " and " + std::to_string(sc.borders[i].size() - listed) + " more";
      break;
    }
    t += (listed++ ? " " : "; borders ") + xml_escape(b);
  }
  return "<title>" + t + "</title>";
}

// A land territory: its terrain colour, the owner's pattern (grey for an unknown owner), the
// outline. Flat: one path, the owner's flat colour (the terrain's when unowned), outlined.
std::string land_paths(const Scene& sc, const MapArea& a, const std::string& d) {
  auto owner = sc.player_index.find(a.owner);
  if (sc.flat) {
    const std::string fill = owner != sc.player_index.end() ? mapstyle::owner_flat(owner->second)
                             : a.owner.empty()
                                 ? mapstyle::terrain_fill(mapstyle::terrain_class(a.terrain))
                                 : std::string("#a3a095");
    return "<path d=\"" + d + "\" fill=\"" + fill + "\" stroke=\"#6b6257\" stroke-width=\"1\"/>";
  }
  std::string s = "<path d=\"" + d + "\" fill=\"" +
                  mapstyle::terrain_fill(mapstyle::terrain_class(a.terrain)) + "\"/>";
  auto it = sc.player_index.find(a.owner);
  if (it != sc.player_index.end())
    s += "<path d=\"" + d + "\" fill=\"url(#own-" + std::to_string(it->second) + ")\"/>";
  else if (!a.owner.empty())
    s += "<path d=\"" + d + "\" fill=\"#555\" fill-opacity=\"0.5\"/>";
  s += "<path d=\"" + d + "\" fill=\"none\" stroke=\"#6b6257\" stroke-width=\"1\"/>";
  return s;
}

}  // namespace

std::string open_area_group(const Scene& sc, std::size_t i) {
  const MapArea& a = sc.model.areas[i];
  const std::string code = xml_escape(a.code);
  return "<g class=\"area " + xml_escape(a.kind == "sea" || a.kind == "city" ? a.kind : "land") +
         "\" id=\"area-" + code + "\" data-code=\"" + code + "\">" + area_title(sc, a, i);
}

std::string crisp(const Scene& sc) { return sc.flat ? " shape-rendering=\"crispEdges\"" : ""; }

// Territories: sea first, then land; cities as groups of their own (markers drawn later).
void draw_areas(const Scene& sc, std::string& s) {
  s += "<g class=\"areas\" stroke-linejoin=\"round\"" + crisp(sc) + ">\n";
  for (const bool sea_pass : {true, false})
    for (std::size_t i = 0; i < sc.n; ++i) {
      const MapArea& a = sc.model.areas[i];
      if (sc.marker[i] || (a.kind == "sea") != sea_pass) continue;
      if (!sc.bare) s += open_area_group(sc, i);
      if (!sc.shape[i].empty()) {
        const std::string d = path_d(sc.shape[i]);
        if (sea_pass) {
          const std::string fill = sc.flat ? mapstyle::kSeaFlat : "url(#sea)";
          s += "<path d=\"" + d + "\" fill=\"" + fill + "\" stroke=\"" + mapstyle::kSeaStroke +
               "\" stroke-width=\"1.2\" stroke-dasharray=\"6 3\"/>";
        } else {
          s += land_paths(sc, a, d);
        }
      }
      s += sc.bare ? "\n" : "</g>\n";
    }
  s += "</g>\n";
}

// Rivers along shared sides; borders that no side shows (across water, or between areas the
// layout put apart) as dashed links.
void draw_borders(const Scene& sc, std::string& s) {
  const MapModel& model = sc.model;
  s += "<g class=\"borders\" fill=\"none\"" + crisp(sc) + ">\n";
  std::set<std::pair<std::size_t, std::size_t>> seen;
  for (const auto& [ca, cb] : model.edges) {
    auto ia = sc.area_index.find(ca), ib = sc.area_index.find(cb);
    if (ia == sc.area_index.end() || ib == sc.area_index.end() || ia->second == ib->second)
      continue;
    const std::size_t a = std::min(ia->second, ib->second), b = std::max(ia->second, ib->second);
    if (!seen.insert({a, b}).second) continue;
    const bool river = std::binary_search(model.rivers.begin(), model.rivers.end(),
                                          std::min(ca, cb) + "|" + std::max(ca, cb));
    auto side = sc.shared_side.find({a, b});
    if (side == sc.shared_side.end()) side = sc.shared_side.find({b, a});
    const bool outlined = model.areas[a].outline || model.areas[b].outline;
    if (river && side != sc.shared_side.end() && !outlined) {
      const auto& [p, q] = side->second;
      s += "<path class=\"river\" d=\"M" + fmt(p.x) + " " + fmt(p.y) + "L" + fmt(q.x) + " " +
           fmt(q.y) + "\" stroke=\"" + mapstyle::kRiver +
           "\" stroke-width=\"3.5\" stroke-linecap=\"round\"/>\n";
      continue;
    }
    // Across the water a sea touches its coasts; the titles name every neighbour.
    if (sc.touching.count({a, b}) || outlined || model.areas[a].kind == "sea" ||
        model.areas[b].kind == "sea")
      continue;
    if ((sc.marker[a] && model.areas[a].hinterland == model.areas[b].code) ||
        (sc.marker[b] && model.areas[b].hinterland == model.areas[a].code))
      continue;
    const Point pa = sc.anchor[a], pb = sc.anchor[b];
    s += "<path class=\"link\" d=\"M" + fmt(pa.x) + " " + fmt(pa.y) + "L" + fmt(pb.x) + " " +
         fmt(pb.y) + "\" stroke=\"" + (river ? mapstyle::kRiver : "#6b6257") +
         "\" stroke-width=\"1.2\" " + "stroke-dasharray=\"4 3\"/>\n";
  }
  s += "</g>\n";
}

// Cities: a square in the owner's colour (white when unowned, grey for an unknown owner).
void draw_cities(const Scene& sc, std::string& s) {
  s += "<g class=\"cities\"" + crisp(sc) + ">\n";
  for (std::size_t i = 0; i < sc.n; ++i) {
    if (!sc.marker[i]) continue;
    const MapArea& a = sc.model.areas[i];
    auto it = sc.player_index.find(a.owner);
    const std::string fill = it != sc.player_index.end() ? palette_colour(it->second)
                             : a.owner.empty()           ? "#ffffff"
                                                         : "#555555";
    const double h = std::clamp(sc.room[i] * 0.35, 4.0, 7.0);
    const Point p = sc.anchor[i];
    if (!sc.bare) s += open_area_group(sc, i);
    s += "<rect x=\"" + fmt(p.x - h) + "\" y=\"" + fmt(p.y - h) + "\" width=\"" + fmt(2 * h) +
         "\" height=\"" + fmt(2 * h) + "\" fill=\"" + fill +
         "\" stroke=\"#1a1a1a\" stroke-width=\"2\"/>";
    s += sc.bare ? "\n" : "</g>\n";
  }
  s += "</g>\n";
}

}  // namespace adj::render::mapdraw
