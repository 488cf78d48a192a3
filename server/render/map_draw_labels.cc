// The map's label layer (map_render_internal.h): per area its name, owner and armies, and its
// symbols (terrain, fort level, features), each dropped when the area's room at this zoom is too
// small for it. Texts have a white halo so that they read on any territory.
#include <algorithm>

#include "server/render/map_render_internal.h"

namespace adj::render::mapdraw {

namespace {

// Text with a white halo (stroke painted under the fill), readable on any territory.
std::string halo_text(double x, double y, double size, const std::string& escaped,
                      const std::string& extra, const char* fill = "#1a1a1a") {
  return "<text x=\"" + fmt(x) + "\" y=\"" + fmt(y) + "\" font-size=\"" + fmt(size) +
         "\" text-anchor=\"middle\" fill=\"" + fill +
         "\" stroke=\"#fff\" stroke-width=\"3\" stroke-linejoin=\"round\" paint-order=\"stroke\"" +
         extra + ">" + escaped + "</text>";
}

// A city marker's name and armies under it (room r), or "" when there is no room.
std::string city_label(const MapArea& a, Point p, double r) {
  if (r < 14) return "";
  const double fs = std::clamp(r * 0.3, 9.0, 11.0);
  const auto max_chars = static_cast<std::size_t>(std::max(0.0, 2.4 * r / (0.56 * fs)));
  if (max_chars < 4) return "";
  std::string text = shorten(a.name.empty() ? a.code : a.name, max_chars);
  return halo_text(p.x, p.y + 7 + fs, fs, xml_escape(text) + " " + std::to_string(a.armies),
                   " font-style=\"italic\" class=\"city-name\"") +
         "\n";
}

// The armies badge (owner code and count) centred under p.
std::string army_badge(Point p, const std::string& badge_text) {
  const double bw = 6.0 * static_cast<double>(utf8_length(badge_text)) + 8;
  return "<rect x=\"" + fmt(p.x - bw / 2) + "\" y=\"" + fmt(p.y + 1) + "\" width=\"" + fmt(bw) +
         "\" height=\"13\" rx=\"6\" fill=\"#fff\" fill-opacity=\"0.9\" stroke=\"#333\" "
         "stroke-width=\"0.8\"/><text class=\"armies\" x=\"" +
         fmt(p.x) + "\" y=\"" + fmt(p.y + 11) +
         "\" font-size=\"10\" font-weight=\"bold\" text-anchor=\"middle\" fill=\"#1a1a1a\">" +
         badge_text + "</text>";
}

// Up to five symbols in a row under the badge: the terrain (land only), the fort with its level
// when above 1, the features.
std::string symbol_row(const MapArea& a, Point p, bool sea) {
  std::vector<std::string> glyphs;
  const std::string family = mapstyle::terrain_class(a.terrain);
  if (!sea && !a.terrain.empty() && mapstyle::terrain_has_glyph(family)) glyphs.push_back(family);
  if (a.fort > 0) glyphs.push_back("fort");
  for (const auto& sym : a.symbols) glyphs.push_back(symbol_name(sym));
  if (glyphs.size() > 5) glyphs.resize(5);
  const double gs = 10, gap = 13;
  double x = p.x - gap * static_cast<double>(glyphs.size() - 1) / 2;
  std::string s;
  for (const auto& g : glyphs) {
    s += glyph(g, x, p.y + 23, gs);
    if (g == "fort" && a.fort > 1)
      s += "<text x=\"" + fmt(x + 5) + "\" y=\"" + fmt(p.y + 30) +
           "\" font-size=\"7\" font-weight=\"bold\">" + std::to_string(a.fort) + "</text>";
    x += gap;
  }
  return s;
}

// A territory's label at its anchor: with room under 7 nothing, under 16 the army count alone,
// else the name, the badge and from 28 on the symbols. Seas without armies show no badge.
std::string territory_label(const Scene& sc, std::size_t i) {
  const MapArea& a = sc.model.areas[i];
  const Point p = sc.anchor[i];
  const double r = sc.room[i];
  const bool sea = a.kind == "sea";
  const char* ink = sea ? mapstyle::kSeaText : "#1a1a1a";
  if (r < 7) return "";
  std::string owner_code;
  if (sc.player_index.count(a.owner)) owner_code = a.owner;
  const std::string badge_text =
      (owner_code.empty() ? "" : xml_escape(owner_code) + " ") + std::to_string(a.armies);
  const bool show_badge = !sea || a.armies > 0;
  if (r < 16) {
    if (!show_badge) return "";
    return halo_text(p.x, p.y + 3, std::clamp(r * 0.7, 7.0, 9.0), std::to_string(a.armies),
                     " font-weight=\"bold\"", ink) +
           "\n";
  }
  const double fs = std::clamp(r * 0.42, 9.0, 13.0);
  // Too long a name is shortened when most of it still shows, else replaced by the code.
  const auto max_chars = static_cast<std::size_t>(2.2 * r / (0.56 * fs));
  std::string name = a.name.empty() ? a.code : a.name;
  if (const std::size_t len = utf8_length(name); len > max_chars)
    name = max_chars >= 5 && 10 * (max_chars - 1) >= 7 * len ? shorten(name, max_chars) : a.code;
  std::string s = halo_text(p.x, p.y - 3, fs, xml_escape(name),
                            sea ? " font-style=\"italic\" class=\"name\"" : " class=\"name\"", ink);
  if (show_badge) s += army_badge(p, badge_text);
  if (r >= 28) s += symbol_row(a, p, sea);
  return s + "\n";
}

}  // namespace

void draw_labels(const Scene& sc, std::string& s) {
  s += "<g class=\"labels\">\n";
  for (std::size_t i = 0; i < sc.n; ++i)
    s += sc.marker[i] ? city_label(sc.model.areas[i], sc.anchor[i], sc.room[i])
                      : territory_label(sc, i);
  s += "</g>\n";
}

}  // namespace adj::render::mapdraw
