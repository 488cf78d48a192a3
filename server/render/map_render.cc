// render_svg_map (svg_map.h): the scene (map_scene.cc), then the SVG's head, background and
// patterns, and its layers in drawing order (map_draw_*.cc, map_legend.cc); and the same layers
// as documents of their own (map_render_internal.h: svg_under, svg_over, svg_arrows).
#include <algorithm>

#include "server/render/map_render_internal.h"

namespace adj::render {

namespace mapdraw {

namespace {

// With sea areas the map has water around the land (svg_ground) and its pattern (svg_open).
bool has_sea(const MapModel& model) {
  return std::any_of(model.areas.begin(), model.areas.end(),
                     [](const MapArea& a) { return a.kind == "sea"; });
}

// The <svg> element's start, its title and <defs> (the sea and every player's pattern).
std::string svg_open(const MapModel& model, double width, double height, bool flat) {
  std::string s = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"map\" viewBox=\"0 0 " +
                  fmt(width) + " " + fmt(height) + "\" width=\"" + fmt(width) + "\" height=\"" +
                  fmt(height) +
                  "\" role=\"img\" aria-labelledby=\"map-title\" font-family=\"sans-serif\">\n";
  s += "<title id=\"map-title\">Map of " + xml_escape(model.title) + "</title>\n";
  if (flat) return s;  // flat colours: no pattern
  s += "<defs>" + mapstyle::sea_pattern("sea");
  if (has_sea(model)) s += mapstyle::sea_pattern("water", mapstyle::kWaterPeriods);
  const std::vector<bool> shown = players_shown(model);
  for (std::size_t i = 0; i < model.players.size(); ++i)
    if (shown[i]) s += mapstyle::owner_pattern(i, "own-" + std::to_string(i));
  return s + "</defs>\n";
}

// The background, and with sea areas the water around the land (the sea areas are zones on it).
std::string svg_ground(const MapModel& model, double width, double height, double map_height,
                       bool flat) {
  std::string s =
      "<rect width=\"" + fmt(width) + "\" height=\"" + fmt(height) + "\" fill=\"#f6f3ea\"/>\n";
  if (flat && has_sea(model))
    s += "<rect class=\"water\" width=\"" + fmt(width) + "\" height=\"" + fmt(map_height) +
         "\" fill=\"" + mapstyle::kWaterFlat + "\"/>\n";
  else if (has_sea(model))
    s += "<rect class=\"water\" width=\"" + fmt(width) + "\" height=\"" + fmt(map_height) +
         "\" fill=\"url(#water)\" fill-opacity=\"0.6\"/>\n";
  return s;
}

}  // namespace

std::string svg_under(const Scene& sc, double height) {
  std::string s = svg_open(sc.model, sc.lay.width, height, sc.flat);
  s.reserve(4000 + sc.n * 500);
  s += svg_ground(sc.model, sc.lay.width, height, sc.lay.height, sc.flat);
  draw_areas(sc, s);
  draw_borders(sc, s);
  draw_cities(sc, s);
  return s + "</svg>\n";
}

std::string svg_over(const Scene& sc, const LegendGrid& g, double height,
                     std::vector<raster::Text>* texts) {
  std::string s = svg_open(sc.model, sc.lay.width, height, sc.flat);
  draw_labels(sc, s, texts);
  draw_legend(g, sc.lay.height, s, 0, texts);
  return s + "</svg>\n";
}

std::string svg_arrows(const Scene& sc, const std::vector<MapArrow>& arrows, const LegendGrid& g,
                       std::size_t first, double height, std::vector<raster::Text>* texts) {
  std::string s = svg_open(sc.model, sc.lay.width, height, sc.flat);
  draw_arrows(sc, arrows, s);
  draw_legend(g, sc.lay.height, s, first, texts);
  return s + "</svg>\n";
}

}  // namespace mapdraw

std::string render_svg_map(const MapModel& model, const MapStyle& style) {
  const mapdraw::Scene sc = mapdraw::build_scene(model, style);
  const mapdraw::LegendGrid legend =
      mapdraw::legend_grid(style.legend_inside ? mapdraw::legend_items(model, "", style.flat)
                                               : std::vector<mapstyle::LegendItem>{},
                           sc.lay.width);
  const double height = mapdraw::legend_height(legend, sc.lay.height);

  std::string s;
  s.reserve(4000 + sc.n * 700);
  s += mapdraw::svg_open(model, sc.lay.width, height, style.flat);
  s += mapdraw::svg_ground(model, sc.lay.width, height, sc.lay.height, style.flat);
  mapdraw::draw_areas(sc, s);
  mapdraw::draw_borders(sc, s);
  mapdraw::draw_cities(sc, s);
  mapdraw::draw_arrows(sc, model.arrows, s);
  mapdraw::draw_labels(sc, s);
  mapdraw::draw_legend(legend, sc.lay.height, s);
  s += "</svg>\n";
  return s;
}

}  // namespace adj::render
