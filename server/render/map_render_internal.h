// The steps of render_svg_map (svg_map.h), shared by the files that implement them: the scene
// (where every area, territory, anchor and label room is, in pixels) and the functions that
// append one layer of the SVG each. Internal to server/render; not for other folders.
//
// Each draw_* function appends its layer to `s`, in the order render_svg_map calls them: areas,
// borders, cities, arrows, labels, legend. They only read the scene. svg_under, svg_over and
// svg_arrows give the same layers as documents of their own, for a map whose arrows are drawn
// per player (turn_map.h).
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "server/render/map_geometry.h"
#include "server/render/map_raster.h"
#include "server/render/map_region.h"
#include "server/render/map_style.h"
#include "server/render/svg_map.h"

namespace adj::render::mapdraw {

using mapstyle::fmt;
using mapstyle::glyph;
using mapstyle::LegendItem;

// The map laid out at pixel scale. Per-area vectors have model.areas.size() entries.
struct Scene {
  explicit Scene(const MapModel& m) : model(m), n(m.areas.size()) {}

  const MapModel& model;
  std::size_t n = 0;  // model.areas.size()
  bool flat = false;  // MapStyle::flat
  // A document only to rasterise (svg_under, svg_over, svg_arrows for turn_map.h): no per-area
  // groups, titles or ids, which only the web's SVG uses (a third of a flat map's bytes to parse).
  bool bare = false;
  std::vector<bool> marker;                         // drawn_as_markers(model)
  Layout lay;                                       // layout_areas at the zoomed width
  std::map<std::string, std::size_t> player_index;  // player code -> index in model.players
  std::map<std::string, std::size_t> area_index;    // area code -> index in model.areas
  // Territories: the outline at pixel scale, else the cell; empty for markers.
  std::vector<Polygon> shape;
  std::set<std::pair<std::size_t, std::size_t>> touching;  // (min, max) areas sharing a side
  // (a, b) -> the side of a's cell that b's bisector made.
  std::map<std::pair<std::size_t, std::size_t>, std::pair<Point, Point>> shared_side;
  std::vector<Point> anchor;  // where labels and arrows go (cities: where the marker goes)
  std::vector<double> room;   // the room around the anchor (cities: half their hinterland's)
  std::vector<std::set<std::string>> borders;  // the codes of each area's neighbours
};

// The whole scene for model at style.zoom; *style.work, when set, receives the placement cost.
// Scene refers to model, which must outlive it.
Scene build_scene(const MapModel& model, const MapStyle& style);

// Text helpers (map_text.cc).
std::size_t utf8_length(const std::string& s);
// The first `max` characters of s (whole UTF-8 sequences), with an ellipsis when cut.
std::string shorten(const std::string& s, std::size_t max);
// The glyph name of an area symbol: "vp" for "vp:<n>", else the symbol itself.
std::string symbol_name(const std::string& sym);

// "<g class=\"area ...\" id=\"area-<code>\" data-code=\"<code>\"><title>...</title>", left open.
std::string open_area_group(const Scene& sc, std::size_t i);

// The attribute that draws a group without anti-aliasing in the flat style (MapStyle::flat:
// territories, borders, city markers, the labels' badges and symbols), "" otherwise.
std::string crisp(const Scene& sc);

void draw_areas(const Scene& sc, std::string& s);
void draw_borders(const Scene& sc, std::string& s);
void draw_cities(const Scene& sc, std::string& s);
// `arrows` (those naming an area the scene lacks are left out).
void draw_arrows(const Scene& sc, const std::vector<MapArrow>& arrows, std::string& s);
// With `texts`, the labels' texts that raster::drawable_text accepts are appended there instead
// of drawn in `s` (the flat map draws them with cairo: turn_map.cc).
void draw_labels(const Scene& sc, std::string& s, std::vector<raster::Text>* texts = nullptr);

// The legend's lines. Pattern ids are `prefix` + "own-<i>" and `prefix` + "sea"; each item's
// `defs` holds the pattern it needs. The last lines are arrow_legend_items(m.arrows). `flat`
// (MapStyle::flat): the swatches are the flat colours, no pattern.
std::vector<LegendItem> legend_items(const MapModel& m, const std::string& prefix,
                                     bool flat = false);
// The lines of the arrow kinds among `arrows` (move, attack, retreat; none needs a pattern).
std::vector<LegendItem> arrow_legend_items(const std::vector<MapArrow>& arrows);
// How many lines arrow_legend_items gives at most.
inline constexpr std::size_t kArrowLegendItems = 3;

// The legend inside the SVG: rows of fixed-width cells under the map (`per_row` >= 1 of them).
struct LegendGrid {
  std::vector<LegendItem> items;
  std::size_t per_row = 1;
  std::size_t rows = 0;
};
// `items` in cells under a map `width` wide (no items: no rows).
LegendGrid legend_grid(std::vector<LegendItem> items, double width);
// The SVG height the grid needs below a map `map_height` high; with `rows` (when not nullopt)
// instead of g.rows.
double legend_height(const LegendGrid& g, double map_height,
                     std::optional<std::size_t> rows = std::nullopt);
// The grid's items from the `first`, in their cells. With `texts`, their lines that
// raster::drawable_text accepts are appended there (left-aligned, at the SVG's units) instead of
// drawn in `s`, as draw_labels does.
void draw_legend(const LegendGrid& g, double map_height, std::string& s, std::size_t first = 0,
                 std::vector<raster::Text>* texts = nullptr);

// The layers apart: each a whole <svg> `height` high (the map and its legend) of the scene's
// width, so that rasterised at one size they stack as render_svg_map draws them. svg_under: the
// background, areas, borders and cities (opaque); svg_over: the labels and the legend `g`;
// svg_arrows: `arrows` and the items of `g` from `first` on (their legend lines, after the
// ones svg_over drew). All but svg_under are transparent where they draw nothing. With `texts`,
// the texts draw_labels and draw_legend set apart go there (the flat map draws them with cairo).
std::string svg_under(const Scene& sc, double height);
std::string svg_over(const Scene& sc, const LegendGrid& g, double height,
                     std::vector<raster::Text>* texts = nullptr);
std::string svg_arrows(const Scene& sc, const std::vector<MapArrow>& arrows, const LegendGrid& g,
                       std::size_t first, double height,
                       std::vector<raster::Text>* texts = nullptr);

}  // namespace adj::render::mapdraw
