// The map's legend: its lines (legend_items: players, land, sea, the terrains, cities, forts and
// features this map shows, rivers, armies, the arrow kinds it has), the grid of them inside the
// SVG, their texts set apart for cairo in the flat map (map_render_internal.h), and
// render_map_legend_html (svg_map.h).
#include <algorithm>
#include <string_view>

#include "server/render/map_render_internal.h"

namespace adj::render::mapdraw {

namespace {

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

// A terrain family's line: the family, and the scenario's words for it when they
// are not just the family's name — at most kLegendWords of them, each shortened.
std::string family_text(const std::string& family, const std::set<std::string>& words) {
  std::string text = family;
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
  return text;
}

constexpr double kLegendCell = 190, kLegendRow = 20;

}  // namespace

std::vector<LegendItem> legend_items(const MapModel& m, const std::string& prefix, bool flat) {
  std::vector<LegendItem> out;
  const std::string land = mapstyle::terrain_fill("lowlands");
  const std::vector<bool> shown = players_shown(m);
  for (std::size_t i = 0; i < m.players.size(); ++i) {
    if (!shown[i]) continue;
    const std::string id = prefix + "own-" + std::to_string(i);
    if (flat) {
      out.push_back({"<rect width=\"14\" height=\"14\" fill=\"" + mapstyle::owner_flat(i) +
                         "\" stroke=\"#333\"/>",
                     m.players[i].name + " (" + m.players[i].code + ")", ""});
      continue;
    }
    out.push_back(
        {"<rect width=\"14\" height=\"14\" fill=\"" + land +
             "\"/><rect width=\"14\" height=\"14\" fill=\"url(#" + id + ")\" stroke=\"#333\"/>",
         m.players[i].name + " (" + m.players[i].code + ")", mapstyle::owner_pattern(i, id)});
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
  if (sea && flat)
    out.push_back({"<rect width=\"14\" height=\"14\" fill=\"" + std::string(mapstyle::kSeaFlat) +
                       "\" stroke=\"" + mapstyle::kSeaStroke + "\"/>",
                   "sea", ""});
  else if (sea)
    out.push_back({"<rect width=\"14\" height=\"14\" fill=\"url(#" + prefix + "sea)\" stroke=\"" +
                       mapstyle::kSeaStroke + "\"/>",
                   "sea", mapstyle::sea_pattern(prefix + "sea")});
  for (const auto& [family, words] : families)
    out.push_back({"<rect width=\"14\" height=\"14\" fill=\"" + mapstyle::terrain_fill(family) +
                       "\" stroke=\"#999\"/>" +
                       (mapstyle::terrain_has_glyph(family) ? glyph(family, 7, 7, 10) : ""),
                   family_text(family, words), ""});
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
  for (LegendItem& item : arrow_legend_items(m.arrows)) out.push_back(std::move(item));
  return out;
}

std::vector<LegendItem> arrow_legend_items(const std::vector<MapArrow>& arrows) {
  std::vector<LegendItem> out;
  std::set<std::string> kinds;
  for (const auto& a : arrows) kinds.insert(a.kind);
  for (const char* k : {"move", "attack", "retreat"})
    if (kinds.count(k))
      out.push_back({arrow_swatch(k),
                     std::string(k) + (std::string_view(k) == "attack" ? " (hover: result)" : ""),
                     ""});
  return out;
}

LegendGrid legend_grid(std::vector<LegendItem> items, double width) {
  LegendGrid g;
  g.items = std::move(items);
  g.per_row = static_cast<std::size_t>(std::max(1.0, (width - 16) / kLegendCell));
  g.rows = (g.items.size() + g.per_row - 1) / g.per_row;
  return g;
}

double legend_height(const LegendGrid& g, double map_height, std::optional<std::size_t> rows) {
  const std::size_t r = rows.value_or(g.rows);
  return map_height + (r ? static_cast<double>(r) * kLegendRow + 12 : 0);
}

void draw_legend(const LegendGrid& g, double map_height, std::string& s, std::size_t first,
                 std::vector<raster::Text>* texts) {
  if (g.items.size() <= first) return;
  s += "<g class=\"legend\" font-size=\"11\">\n";
  for (std::size_t k = first; k < g.items.size(); ++k) {
    const double x = 8 + static_cast<double>(k % g.per_row) * kLegendCell;
    const double y = map_height + 6 + static_cast<double>(k / g.per_row) * kLegendRow;
    s += "<g transform=\"translate(" + fmt(x) + " " + fmt(y) + ")\">" + g.items[k].swatch + "</g>";
    const std::string& label = g.items[k].label;
    if (texts && raster::drawable_text(label)) {
      texts->push_back({x + 20, y + 11, 11, false, false, false, 0x1a1a1a, label});
      s += "\n";
      continue;
    }
    s += "<text x=\"" + fmt(x + 20) + "\" y=\"" + fmt(y + 11) + "\" fill=\"#1a1a1a\">" +
         xml_escape(label) + "</text>\n";
  }
  s += "</g>\n";
}

}  // namespace adj::render::mapdraw

namespace adj::render {

std::string render_map_legend_html(const MapModel& model) {
  std::string s = "<aside class=\"map-legend\" aria-label=\"Map legend\">\n<h3>Legend</h3>\n<ul>\n";
  for (const mapstyle::LegendItem& item : mapdraw::legend_items(model, "lg-")) {
    s += "<li><svg class=\"swatch\" width=\"16\" height=\"16\" viewBox=\"0 0 14 14\" "
         "aria-hidden=\"true\">";
    if (!item.defs.empty()) s += "<defs>" + item.defs + "</defs>";
    s += item.swatch + "</svg> " + xml_escape(item.label) + "</li>\n";
  }
  return s + "</ul>\n</aside>\n";
}

}  // namespace adj::render
