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

#include "base/escape.h"  // xml_escape, used with the SVG of this header
#include "server/render/map_geometry.h"

namespace adj::render {

// One area as drawn.
struct MapArea {
  std::string code;
  std::string name;
  std::string kind = "land";  // "land", "city" or "sea"
  std::string owner;          // player code; "" when unowned
  std::string hinterland;     // cities: the land area around them ("" otherwise)
  int armies = 0;
  int population = 0;
  // Scenario coordinates (y grows downwards, as in SVG); map_model_from_state takes only finite
  // numbers of magnitude at most 1e7.
  std::optional<double> x, y;
  std::string terrain;  // e.g. "forest"; "" when the state gives none
  int fort = 0;         // fortification level
  // What the area's `features` hold that the map draws: "castle", "road", "rails" (true
  // booleans), "mud", "frozen" (the "weather" feature), "vp:<n>" (the "vp" feature, n > 0).
  std::vector<std::string> symbols;
  // The scenario's outline (an area's "outline": [[x, y], ...], scenario coordinates), when
  // valid (parse_outline); the territory is then drawn with it instead of a derived cell.
  std::optional<Polygon> outline;
};

struct MapPlayer {
  std::string code;
  std::string name;
};

// A movement drawn on the map: a curved arrow from one area to another in the player's colour.
struct MapArrow {
  std::string from, to;  // area codes; arrows naming unknown areas are not drawn
  std::string kind;      // "move", "attack" (drawn bolder) or "retreat" (dashed)
  std::string player;    // player code ("" for nobody: grey)
  std::string label;     // tooltip, e.g. "WSX attacks SUS from HAM: the attacker took SUS"
};

struct MapModel {
  std::string title;                                       // e.g. the game's name
  std::vector<MapArea> areas;                              // drawn in this order
  std::vector<std::pair<std::string, std::string>> edges;  // adjacent area codes
  std::vector<std::string> rivers;  // "A|B" for each edge with the "river" feature, sorted
  std::vector<MapPlayer> players;   // a player's colour is palette_colour(its index here)
  std::vector<MapArrow> arrows;
  // Set by map_region (map_region.h): the areas are part of a bigger map; only the players owning
  // one of them or drawing one of the arrows get a pattern and a legend line (players_shown).
  bool region = false;
};

// How a map is drawn. `legend_inside`: the legend is part of the SVG (below the map), as a
// standalone file or a mail attachment needs; the web pages put render_map_legend_html beside it.
// `zoom` (clamped to 1..8) multiplies the canvas: more room, so more labels are drawn.
// `work`, when set, receives what placing the cities cost (for tests and measurements).
// `flat`: the cheap picture a report mail attaches (turn_map.h, PngLimits::flat): flat colours
// instead of the sea's waves and the owners' hatches (an owned territory is its owner's colour
// mixed with the lowlands' one, whatever its terrain), territories, borders, city markers and
// the labels' badges and symbols without anti-aliasing (shape-rendering crispEdges), texts
// without their white halo, and a canvas about a fifth narrower at 1x (more names shortened or
// left to their code). The same labels, symbols, arrows and legend lines otherwise.
struct MapWork;
struct MapStyle {
  bool legend_inside = true;
  double zoom = 1;
  MapWork* work = nullptr;
  bool flat = false;
};

// Placing a city marker clear of its hinterland's label tries up to ~180 points, each tested
// against the hinterland's shape (a point operation per shape vertex). Bounds: at most
// kMaxCitiesPlacedPerHinterland cities of one hinterland are placed so, and a render spends at
// most kMaxCityPlacementWork point operations on it; any further city is drawn at its own
// layout position (its coordinates) unchecked.
inline constexpr std::size_t kMaxCitiesPlacedPerHinterland = 64;
inline constexpr std::size_t kMaxCityPlacementWork = 8'000'000;
struct MapWork {
  std::size_t placement_ops = 0;    // point operations spent placing cities
  std::size_t cities_unplaced = 0;  // cities drawn at their layout position for a bound above
};

// The most outline points map_model_from_state keeps over all areas: outlines (in area order)
// that would go past it are dropped, and those areas are drawn as cells around their sites.
// Outlines are also drawn simplified: a point closer than half a pixel to the previous point
// drawn is left out.
inline constexpr std::size_t kMaxTotalOutlinePoints = 200'000;

// The model of a state document (the `game show --json` form, as Services::show_game returns
// it). Tolerant: missing or mistyped fields take their defaults; never throws. At most
// kMaxTotalOutlinePoints outline points in all (an area whose outline is dropped keeps the
// outline's centroid as its position when it has none).
MapModel map_model_from_state(const nlohmann::json& state);

// Pixel positions of the areas (same order as model.areas) inside a canvas at most `width` pixels
// wide and 0.75 * width high, with room around them for the territories. When every area has x
// and y the scenario's coordinates are scaled to fit (aspect ratio kept); otherwise every area is
// placed by a deterministic force-directed layout (Fruchterman-Reingold started from a classical
// MDS of the hop distances, graph_embedding.h; a fixed number of steps, no randomness), cities
// next to their hinterland; very large maps without
// coordinates fall back to a grid.
struct Layout {
  std::vector<Point> at;
  double width = 0, height = 0;
  bool automatic = false;      // true when positions were computed rather than given
  double scale = 1;            // pixels per scenario unit (given coordinates and outlines)
  Point offset;                // pixel = offset + scale * scenario coordinate
  std::vector<double> radius;  // per area: how far its territory may reach from `at` (pixels)
};
Layout layout_areas(const MapModel& model, double width = 600);

// Per area (same order as model.areas): true for a city drawn as a marker inside its hinterland's
// territory (a city whose hinterland is another known area and that has no outline of its own).
std::vector<bool> drawn_as_markers(const MapModel& model);

// A stable colour for the player at `index` ("#rrggbb"): the Okabe-Ito colour-blind-safe
// colours (without black), three of Paul Tol's, then generated hues. The map and the charts use
// the same palette; the map adds a per-player hatch (map_style.h) as a second cue.
std::string palette_colour(std::size_t index);

// The whole map (map_render.cc): one <svg> element with a viewBox, territories (scenario
// outlines, else Voronoi cells around the areas with a rounded coast), land in terrain colours
// under the owner's tint and hatch, sea in blue with waves, rivers on shared borders, cities as
// markers inside their hinterland, forts and features as symbols, names and army counts with a
// halo (dropped when the territory is too small at this zoom), the arrows, and with
// style.legend_inside a legend. Each area is a <g> with id "area-<code>", data-code="<code>"
// and a <title> (code, name, kind, terrain, owner, armies). Deterministic; every text escaped.
std::string render_svg_map(const MapModel& model, const MapStyle& style = {});

// The legend as HTML (an <aside class="map-legend">): players (colour, hatch, name and code),
// the terrains and symbols this map shows, the arrow kinds when it has arrows.
std::string render_map_legend_html(const MapModel& model);

}  // namespace adj::render
