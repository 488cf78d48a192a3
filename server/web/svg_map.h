// The game map as SVG: pure functions, data in, SVG text out. No I/O, no clock, deterministic
// (the same model always gives the same bytes). Every text taken from the model is XML-escaped,
// so the output can be inlined into an HTML page as is.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "server/app/escape.h"  // xml_escape, used with the SVG of this header

namespace adj::web {

// One area as drawn.
struct MapArea {
  std::string code;
  std::string name;
  std::string kind = "land";  // "land", "city" or "sea"
  std::string owner;          // player code; "" when unowned
  std::string hinterland;     // cities: the land area around them ("" otherwise)
  int armies = 0;
  int population = 0;
  std::optional<double> x, y;  // scenario coordinates (y grows downwards, as in SVG)
};

struct MapPlayer {
  std::string code;
  std::string name;
};

struct MapModel {
  std::string title;                                       // e.g. the game's name
  std::vector<MapArea> areas;                              // drawn in this order
  std::vector<std::pair<std::string, std::string>> edges;  // adjacent area codes
  std::vector<MapPlayer> players;  // a player's colour is palette_colour(its index here)
};

// The model of a state document (the `game show --json` form, as Services::show_game returns
// it). Tolerant: missing or mistyped fields take their defaults; never throws.
MapModel map_model_from_state(const nlohmann::json& state);

struct Point {
  double x = 0, y = 0;
};

// Pixel positions of the areas (same order as model.areas) inside a canvas `width` pixels wide,
// and the canvas height. When every area has x and y the scenario's coordinates are scaled to fit
// (aspect ratio kept); otherwise every area is placed by a deterministic force-directed layout
// (Fruchterman-Reingold from a circle, a fixed number of steps, no randomness), cities next to
// their hinterland; very large maps without coordinates fall back to a grid.
struct Layout {
  std::vector<Point> at;
  double width = 0, height = 0;
  bool automatic = false;  // true when positions were computed rather than given
};
Layout layout_areas(const MapModel& model, double width = 800);

// A stable colour for the player at `index` ("#rrggbb"): ten distinct colours, then generated
// hues. The map and the charts use the same palette.
std::string palette_colour(std::size_t index);

// The whole map: one <svg> element with borders as lines (dashed over sea), land areas as circles
// and cities as squares in their owner's colour (light grey when unowned), sea areas in blue, each
// with its army count inside and its code below, a <title> tooltip per area, and a legend of the
// players. Each area is a <g> with id "area-<code>" and data-code="<code>".
std::string render_svg_map(const MapModel& model);

}  // namespace adj::web
