// The map's visual vocabulary: terrain colours, symbols, owner hatches, the sea's waves, and the
// legend entries that explain them. Shared by the SVG map and its HTML legend so that both say
// the same thing. Pure functions; every returned fragment is well-formed SVG.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace adj::render::mapstyle {

// One decimal place: enough for pixels, and stable text.
std::string fmt(double v);

// Perceived brightness of "#rrggbb" in [0, 1] (0.5 for anything else).
double luminance(const std::string& hex);

// The terrain family the map draws for a terrain word: "lowlands" (also clear, plains, unknown
// words), "forest", "hills" (rough, uplands), "mountains", "wetlands", "town" (village, castle),
// "desert". The words are rules/game/vocabulary.h's map_terrain_words (scenario_lint accepts
// them under every engine).
std::string terrain_class(const std::string& terrain);
// The land colour of a terrain family.
std::string terrain_fill(const std::string& family);
// Whether the family has a symbol (glyph(family, ...)): all but "lowlands".
bool terrain_has_glyph(const std::string& family);

// A symbol centred at (x, y) in a box `s` pixels wide: the terrain families above, and "fort",
// "castle", "road", "rails", "mud", "frozen", "vp", "city". Unknown names: "".
std::string glyph(const std::string& name, double x, double y, double s);

// The fill of an owned territory: <pattern id="<id>"> with the player's colour, translucent, and
// the player's own hatch (direction, crossing or dots by index), drawn over the land colour.
std::string owner_pattern(std::size_t player_index, const std::string& id);
// The sea: light blue with waves, `periods` x `periods` waves in one tile. librsvg's cost of a
// pattern grows with the tiles an element covers and with what one tile holds, so a sea area,
// used many times over small areas, takes the default; the water around the land, one rectangle
// under the whole map, takes kWaterPeriods (a 20-player map: 9 ms instead of 125).
inline constexpr int kSeaPeriods = 8;
inline constexpr int kWaterPeriods = 32;
std::string sea_pattern(const std::string& id, int periods = kSeaPeriods);

// The flat colour of the flat map's owned territories (MapStyle::flat): the player's colour
// mixed with the lowlands' (terrain_fill("lowlands")), "#rrggbb".
std::string owner_flat(std::size_t player_index);
// The flat map's sea, flat; its water around the land is kWaterFlat.
constexpr const char* kSeaFlat = "#cfe3f4";
constexpr const char* kWaterFlat = "#dde8ee";

constexpr const char* kSeaStroke = "#5b8fc0";
constexpr const char* kSeaText = "#1d4f80";
constexpr const char* kRiver = "#3f7fc4";

// One line of a legend: a swatch drawn in a 14x14 box, its text (UTF-8, not escaped) and the
// <defs> content the swatch needs when it stands alone (patterns), "" when none.
struct LegendItem {
  std::string swatch;
  std::string label;
  std::string defs;
};

}  // namespace adj::render::mapstyle
