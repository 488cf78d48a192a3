#include "server/render/map_style.h"

#include <cmath>
#include <cstdio>
#include <string_view>

#include "rules/game/vocabulary.h"
#include "server/render/svg_map.h"

namespace adj::render::mapstyle {

std::string fmt(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", v);
  return b;
}

double luminance(const std::string& hex) {
  if (hex.size() != 7 || hex[0] != '#') return 0.5;
  auto c = [&](int i) {
    unsigned v = 0;
    for (int k = 0; k < 2; ++k) {
      const char ch = hex[static_cast<std::size_t>(1 + 2 * i + k)];
      v = v * 16 + static_cast<unsigned>(ch >= '0' && ch <= '9'   ? ch - '0'
                                         : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
                                         : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10
                                                                  : 0);
    }
    return v / 255.0;
  };
  return 0.299 * c(0) + 0.587 * c(1) + 0.114 * c(2);
}

std::string terrain_class(const std::string& terrain) { return map_terrain_family(terrain); }

std::string terrain_fill(const std::string& family) {
  if (family == "forest") return "#d2e3b5";
  if (family == "hills") return "#eadbb2";
  if (family == "mountains") return "#ddd2c6";
  if (family == "wetlands") return "#d2e4d6";
  if (family == "town") return "#eee2d0";
  if (family == "desert") return "#f3e6b8";
  return "#efebcf";
}

bool terrain_has_glyph(const std::string& family) {
  return family == "forest" || family == "hills" || family == "mountains" || family == "wetlands" ||
         family == "town" || family == "desert";
}

std::string glyph(const std::string& name, double x, double y, double s) {
  const double h = s / 2;
  auto P = [&](double dx, double dy) { return fmt(x + dx * h) + " " + fmt(y + dy * h); };
  const std::string w = fmt(s * 0.12);
  if (name == "forest")
    return "<path d=\"M" + P(0, -1) + "L" + P(0.75, 0.45) + "L" + P(-0.75, 0.45) +
           "Z\" fill=\"#3d7a3a\"/><path d=\"M" + P(0, 0.45) + "L" + P(0, 1) +
           "\" stroke=\"#6b4a2a\" stroke-width=\"" + w + "\"/>";
  if (name == "hills")
    return "<path d=\"M" + P(-1, 0.5) + "Q" + P(-0.5, -0.6) + " " + P(0, 0.5) + "Q" + P(0.5, -0.6) +
           " " + P(1, 0.5) + "\" fill=\"none\" stroke=\"#8a6a3a\" stroke-width=\"" + fmt(s * 0.16) +
           "\"/>";
  if (name == "mountains")
    return "<path d=\"M" + P(-1, 0.8) + "L" + P(-0.3, -0.8) + "L" + P(0.15, 0.1) + "L" +
           P(0.45, -0.35) + "L" + P(1, 0.8) + "Z\" fill=\"#7d6e60\"/>";
  if (name == "wetlands")
    return "<path d=\"M" + P(-0.9, -0.4) + "H" + fmt(x + 0.3 * h) + "M" + P(-0.5, 0.1) + "H" +
           fmt(x + 0.9 * h) + "M" + P(-0.9, 0.6) + "H" + fmt(x + 0.3 * h) +
           "\" stroke=\"#3f8a7a\" stroke-width=\"" + fmt(s * 0.13) + "\"/>";
  if (name == "town")
    return "<path d=\"M" + P(-0.7, 0.9) + "V" + fmt(y - 0.1 * h) + "L" + P(0, -0.9) + "L" +
           P(0.7, -0.1) + "V" + fmt(y + 0.9 * h) + "Z\" fill=\"#a0522d\"/>";
  if (name == "desert")
    return "<path d=\"M" + P(-1, 0.6) + "Q" + P(0, -0.6) + " " + P(1, 0.6) +
           "\" fill=\"none\" stroke=\"#b08a30\" stroke-width=\"" + fmt(s * 0.14) + "\"/>";
  if (name == "fort" || name == "castle")
    return "<path d=\"M" + P(-0.8, 1) + "V" + fmt(y - 0.9 * h) + "H" + fmt(x - 0.4 * h) + "V" +
           fmt(y - 0.5 * h) + "H" + fmt(x - 0.2 * h) + "V" + fmt(y - 0.9 * h) + "H" +
           fmt(x + 0.2 * h) + "V" + fmt(y - 0.5 * h) + "H" + fmt(x + 0.4 * h) + "V" +
           fmt(y - 0.9 * h) + "H" + fmt(x + 0.8 * h) + "V" + fmt(y + h) + "Z\" fill=\"" +
           (name == "fort" ? "#3b3b3b" : "#7a2e2e") + "\"/>";
  if (name == "road")
    return "<path d=\"M" + P(-1, 0.7) + "L" + P(1, -0.7) + "\" stroke=\"#6d6d6d\" stroke-width=\"" +
           fmt(s * 0.3) + "\"/><path d=\"M" + P(-1, 0.7) + "L" + P(1, -0.7) +
           "\" stroke=\"#fff\" stroke-width=\"" + fmt(s * 0.08) + "\" stroke-dasharray=\"" +
           fmt(s * 0.2) + "\"/>";
  if (name == "rails")
    return "<path d=\"M" + P(-1, 0) + "H" + fmt(x + h) + "M" + P(-0.6, -0.5) + "V" +
           fmt(y + 0.5 * h) + "M" + P(0, -0.5) + "V" + fmt(y + 0.5 * h) + "M" + P(0.6, -0.5) + "V" +
           fmt(y + 0.5 * h) + "\" stroke=\"#222\" stroke-width=\"" + w + "\"/>";
  if (name == "mud")
    return "<ellipse cx=\"" + fmt(x) + "\" cy=\"" + fmt(y + 0.2 * h) + "\" rx=\"" + fmt(0.9 * h) +
           "\" ry=\"" + fmt(0.55 * h) + "\" fill=\"#7b5b3a\"/>";
  if (name == "frozen")
    return "<path d=\"M" + P(0, -1) + "V" + fmt(y + h) + "M" + P(-0.87, -0.5) + "L" + P(0.87, 0.5) +
           "M" + P(-0.87, 0.5) + "L" + P(0.87, -0.5) + "\" stroke=\"#2f7dc4\" stroke-width=\"" +
           fmt(s * 0.14) + "\"/>";
  if (name == "vp")
    return "<path d=\"M" + P(0, -1) + "L" + P(0.29, -0.4) + "L" + P(0.95, -0.31) + "L" +
           P(0.47, 0.15) + "L" + P(0.59, 0.81) + "L" + P(0, 0.5) + "L" + P(-0.59, 0.81) + "L" +
           P(-0.47, 0.15) + "L" + P(-0.95, -0.31) + "L" + P(-0.29, -0.4) +
           "Z\" fill=\"#e0b000\" stroke=\"#6b5200\" stroke-width=\"" + fmt(s * 0.06) + "\"/>";
  if (name == "city")
    return "<rect x=\"" + fmt(x - 0.7 * h) + "\" y=\"" + fmt(y - 0.7 * h) + "\" width=\"" +
           fmt(1.4 * h) + "\" height=\"" + fmt(1.4 * h) +
           "\" fill=\"#fff\" stroke=\"#1a1a1a\" stroke-width=\"" + fmt(s * 0.16) + "\"/>";
  return "";
}

// librsvg draws a pattern tile by tile, with a cost per tile that dwarfs the tile's content
// (a 20-player map's 1,800-pixel PNG took 5.2 s with 7-unit hatch tiles, 1.0 s with these). So
// each tile holds kTileRepeat x kTileRepeat periods of the motif: the same picture, far fewer
// tiles.
constexpr int kTileRepeat = 8;

std::string owner_pattern(std::size_t i, const std::string& id) {
  const std::string colour = palette_colour(i);
  const bool dark = luminance(colour) < 0.45;
  const std::string ink = dark ? "#ffffff" : "#000000";
  const std::string ink_op = dark ? "0.55" : "0.4";
  static const int kAngle[] = {45, -45, 0, 90, 45, 0, 0, 30};
  const std::size_t style = i % 8;
  const int period = style == 7 ? 11 : 7;
  const std::string tile = std::to_string(period * kTileRepeat);
  std::string s = "<pattern id=\"" + id + "\" patternUnits=\"userSpaceOnUse\" width=\"" + tile +
                  "\" height=\"" + tile + "\" patternTransform=\"rotate(" +
                  std::to_string(kAngle[style]) + ")\">";
  s += "<rect width=\"" + tile + "\" height=\"" + tile + "\" fill=\"" + colour +
       "\" fill-opacity=\"0.62\"/>";
  const std::string ink_attrs =
      "\" stroke=\"" + ink + "\" stroke-opacity=\"" + ink_op + "\" stroke-width=\"1.3\"/>";
  if (style == 5) {  // a dot in the middle of every period
    s += "<path d=\"";
    for (int r = 0; r < kTileRepeat; ++r)
      for (int c = 0; c < kTileRepeat; ++c)
        s += "M" + fmt(period * (c + 0.5)) + " " + fmt(period * (r + 0.5)) + "h0";
    s += "\" stroke=\"" + ink + "\" stroke-opacity=\"" + ink_op +
         "\" stroke-width=\"2.8\" stroke-linecap=\"round\"/>";
    return s + "</pattern>";
  }
  std::string d;  // a line across the middle of every period (and down it for styles 4 and 6)
  for (int k = 0; k < kTileRepeat; ++k) d += "M0 " + fmt(period * (k + 0.5)) + "H" + tile;
  if (style == 4 || style == 6)
    for (int k = 0; k < kTileRepeat; ++k) d += "M" + fmt(period * (k + 0.5)) + " 0V" + tile;
  return s + "<path d=\"" + d + ink_attrs + "</pattern>";
}

std::string owner_flat(std::size_t i) {
  const std::string colour = palette_colour(i), land = terrain_fill("lowlands");
  constexpr double kWeight = 0.62;  // the full map's tint (owner_pattern's fill-opacity)
  const auto channel = [](const std::string& hex, int k) {
    return std::stoi(hex.substr(static_cast<std::size_t>(1 + 2 * k), 2), nullptr, 16);
  };
  char out[8];
  int c[3];
  for (int k = 0; k < 3; ++k)
    c[k] = static_cast<int>(
        std::lround(kWeight * channel(colour, k) + (1 - kWeight) * channel(land, k)));
  std::snprintf(out, sizeof out, "#%02x%02x%02x", c[0], c[1], c[2]);
  return out;
}

std::string sea_pattern(const std::string& id, int periods) {
  // A wave every 24 x 12 units: one row of them, drawn again one period lower for each row.
  const std::string w = std::to_string(24 * periods), h = std::to_string(12 * periods);
  std::string row = "M0 7q3-3 6 0";
  for (int k = 1; k < 4 * periods; ++k) row += "t6 0";
  std::string s = "<pattern id=\"" + id + "\" patternUnits=\"userSpaceOnUse\" width=\"" + w +
                  "\" height=\"" + h + "\"><rect width=\"" + w + "\" height=\"" + h +
                  "\" fill=\"#cfe3f4\"/><path id=\"" + id + "-row\" d=\"" + row +
                  "\" fill=\"none\" stroke=\"#8db9e0\" stroke-width=\"1\"/>";
  for (int r = 1; r < periods; ++r)
    s += "<use href=\"#" + id + "-row\" y=\"" + std::to_string(12 * r) + "\"/>";
  return s + "</pattern>";
}

}  // namespace adj::render::mapstyle
