// The map's label layer (map_render_internal.h): per area its name, owner and armies, and its
// symbols (terrain, fort level, features). Texts have a white halo so that they read on any
// territory.
//
// No two labels overlap, and every land area and city carries at least its code where the map has
// room for it (a map too dense for its width leaves some unlabelled): first each
// area's smallest label (its code, with the army count when it fits) is placed, nudged around its
// anchor when it would cover one placed before; then, largest territories first, each label is
// grown (the name, the badge, the symbols) as far as it stays clear of every other label. Text
// extents are estimated from the font size (kCharWidth per character, generous for sans-serif),
// so the check holds in any browser. Each area's label is a <g data-for="<code>">.
#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <numeric>

#include "server/render/map_render_internal.h"

namespace adj::render::mapdraw {

namespace {

// Width of one character in font-size units (sans-serif averages about 0.55; digits and capitals
// are wider), and the halo's stroke on each side.
constexpr double kCharWidth = 0.62;
constexpr double kHalo = 1.5;

struct Box {
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  bool hits(const Box& o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
};

// A text's width in characters of kCharWidth: the ellipsis that shorten() adds is about a whole
// em wide, not kCharWidth (a label ending in one overlapped its neighbour by a few pixels).
double text_units(const std::string& text) {
  double n = static_cast<double>(utf8_length(text));
  for (std::size_t at = text.find("\u2026"); at != std::string::npos;
       at = text.find("\u2026", at + 1))
    n += 1.0 / kCharWidth - 1;
  return n;
}

// The box of a centred text line with baseline y, `units` wide (text_units).
Box text_box(double x, double y, double size, double units) {
  const double w = kCharWidth * size * units + 2 * kHalo;
  return {x - w / 2, y - 0.8 * size - kHalo, x + w / 2, y + 0.25 * size + kHalo};
}

// Text with a white halo (stroke painted under the fill), readable on any territory.
std::string halo_text(double x, double y, double size, const std::string& escaped,
                      const std::string& extra, const char* fill = "#1a1a1a", bool flat = false) {
  if (flat)
    return "<text x=\"" + fmt(x) + "\" y=\"" + fmt(y) + "\" font-size=\"" + fmt(size) +
           "\" text-anchor=\"middle\" fill=\"" + fill + "\"" + extra + ">" + escaped + "</text>";
  return "<text x=\"" + fmt(x) + "\" y=\"" + fmt(y) + "\" font-size=\"" + fmt(size) +
         "\" text-anchor=\"middle\" fill=\"" + fill +
         "\" stroke=\"#fff\" stroke-width=\"3\" stroke-linejoin=\"round\" paint-order=\"stroke\"" +
         extra + ">" + escaped + "</text>";
}

// The armies badge (`raw`: owner code and count, not escaped) centred under p, and its box. With
// `apart`, its text goes there when cairo can draw it (raster::drawable_text).
std::string army_badge(Point p, const std::string& raw, Box* box,
                       std::vector<raster::Text>* apart) {
  const std::string badge_text = xml_escape(raw);
  const double bw = 6.0 * static_cast<double>(utf8_length(badge_text)) + 8;
  *box = {p.x - bw / 2, p.y + 1, p.x + bw / 2, p.y + 14};
  std::string s = "<rect x=\"" + fmt(p.x - bw / 2) + "\" y=\"" + fmt(p.y + 1) + "\" width=\"" +
                  fmt(bw) +
                  "\" height=\"13\" rx=\"6\" fill=\"#fff\" fill-opacity=\"0.9\" stroke=\"#333\" "
                  "stroke-width=\"0.8\"/>";
  if (apart && raster::drawable_text(raw)) {
    apart->push_back({p.x, p.y + 11, 10, true, false, true, 0x1a1a1a, raw});
    return s;
  }
  return s + "<text class=\"armies\" x=\"" + fmt(p.x) + "\" y=\"" + fmt(p.y + 11) +
         "\" font-size=\"10\" font-weight=\"bold\" text-anchor=\"middle\" fill=\"#1a1a1a\">" +
         badge_text + "</text>";
}

// Up to five symbols in a row under the badge: the terrain (land only), the fort with its level
// when above 1, the features. "" when there is none.
std::string symbol_row(const MapArea& a, Point p, bool sea, Box* box,
                       std::vector<raster::Text>* apart) {
  std::vector<std::string> glyphs;
  const std::string family = mapstyle::terrain_class(a.terrain);
  if (!sea && !a.terrain.empty() && mapstyle::terrain_has_glyph(family)) glyphs.push_back(family);
  if (a.fort > 0) glyphs.push_back("fort");
  for (const auto& sym : a.symbols) glyphs.push_back(symbol_name(sym));
  if (glyphs.size() > 5) glyphs.resize(5);
  if (glyphs.empty()) return "";
  const double gs = 10, gap = 13;
  double x = p.x - gap * static_cast<double>(glyphs.size() - 1) / 2;
  *box = {x - gs / 2 - 1, p.y + 17, x + gap * static_cast<double>(glyphs.size() - 1) + gs / 2 + 4,
          p.y + 31};
  std::string s;
  for (const auto& g : glyphs) {
    s += glyph(g, x, p.y + 23, gs);
    if (g == "fort" && a.fort > 1 && apart)
      apart->push_back({x + 5, p.y + 30, 7, true, false, false, 0, std::to_string(a.fort)});
    else if (g == "fort" && a.fort > 1)
      s += "<text x=\"" + fmt(x + 5) + "\" y=\"" + fmt(p.y + 30) +
           "\" font-size=\"7\" font-weight=\"bold\">" + std::to_string(a.fort) + "</text>";
    x += gap;
  }
  return s;
}

// One way to label an area: its SVG, its texts drawn apart (draw_labels' `texts`) and the boxes
// it covers.
struct Label {
  std::string svg;
  std::vector<raster::Text> texts;
  std::vector<Box> boxes;
};

// The labels of area i from the richest to the smallest, all at `p` (the anchor, or where the
// smallest was nudged to). Seas may go without one. `apart`: the texts cairo can draw go to each
// label's `texts` instead of its SVG.
std::vector<Label> label_variants(const Scene& sc, std::size_t i, Point p, bool apart) {
  const MapArea& a = sc.model.areas[i];
  const double r = sc.room[i];
  const bool sea = a.kind == "sea", city = sc.marker[i];
  const char* ink = sea ? mapstyle::kSeaText : "#1a1a1a";
  const std::string cls = city  ? " font-style=\"italic\" class=\"city-name\""
                          : sea ? " font-style=\"italic\" class=\"name\""
                                : " class=\"name\"";
  std::string owner_code;
  if (sc.player_index.count(a.owner)) owner_code = a.owner;
  const std::string badge_text =
      (owner_code.empty() ? "" : owner_code + " ") + std::to_string(a.armies);
  const bool show_badge = !sea || a.armies > 0;
  std::vector<Label> out;
  // The code-only labels are class "code", the others "name" (or "city-name").
  const auto add_text = [&](Label& l, const std::string& text, double fs, double y,
                            bool code = false) {
    if (apart && raster::drawable_text(text))
      l.texts.push_back({p.x, y, fs, false, (city || sea) && !code, true,
                         static_cast<std::uint32_t>(std::stoul(ink + 1, nullptr, 16)), text});
    else
      l.svg +=
          halo_text(p.x, y, fs, xml_escape(text), code ? " class=\"code\"" : cls, ink, sc.flat);
    l.boxes.push_back(text_box(p.x, y, fs, text_units(text)));
  };
  const double fs = city ? std::clamp(r * 0.3, 9.0, 11.0) : std::clamp(r * 0.42, 9.0, 13.0);
  const std::string name = a.name.empty() ? a.code : a.name;
  const auto max_chars = static_cast<std::size_t>(std::max(0.0, 2.2 * r / (kCharWidth * fs)));
  std::vector<std::string> names;
  if (utf8_length(name) <= max_chars || max_chars >= 5) names.push_back(shorten(name, max_chars));
  if (names.empty() || names.back() != a.code) names.push_back(a.code);
  if (city) {  // name and armies under the marker
    for (const std::string& n : names) {
      Label l;
      add_text(l, n + " " + std::to_string(a.armies), fs, p.y + 7 + fs);
      out.push_back(std::move(l));
    }
    Label code;
    add_text(code, a.code, 9, p.y + 7 + 9, true);
    out.push_back(std::move(code));
    return out;
  }
  for (const std::string& n : names)
    for (int rich = 2; rich >= 0; --rich) {  // 2: badge and symbols, 1: badge, 0: the name
      if (rich > 0 && !show_badge) continue;
      Label l;
      add_text(l, n, fs, p.y - 3);
      if (rich > 0) {
        Box b;
        l.svg += army_badge(p, badge_text, &b, apart ? &l.texts : nullptr);
        l.boxes.push_back(b);
      }
      if (rich == 2) {
        Box b;
        const std::string row =
            r >= 28 ? symbol_row(a, p, sea, &b, apart ? &l.texts : nullptr) : "";
        if (row.empty()) continue;
        l.svg += row;
        l.boxes.push_back(b);
      }
      out.push_back(std::move(l));
    }
  // The smallest: the code (with the army count when there is one to tell), a little smaller.
  Label code;
  add_text(code, show_badge ? a.code + " " + std::to_string(a.armies) : a.code, 9, p.y + 3, true);
  out.push_back(std::move(code));
  Label bare;
  add_text(bare, a.code, 8, p.y + 3, true);
  out.push_back(std::move(bare));
  return out;
}

// The labels placed so far, per area, with a grid of kCell-pixel cells over them so that a check
// looks only at the labels nearby (the check stays linear in the number of areas).
class Placed {
 public:
  explicit Placed(std::size_t n) : boxes_(n), version_(n, 0) {}

  bool clear(const Label& l, std::size_t self) const {
    for (const Box& a : l.boxes)
      for (long gx = cell(a.x0); gx <= cell(a.x1); ++gx)
        for (long gy = cell(a.y0); gy <= cell(a.y1); ++gy) {
          const auto it = grid_.find({gx, gy});
          if (it == grid_.end()) continue;
          for (const auto& [j, version] : it->second) {
            if (j == self || version != version_[j]) continue;
            for (const Box& b : boxes_[j])
              if (a.hits(b)) return false;
          }
        }
    return true;
  }
  // Area i's label becomes `boxes` (its earlier boxes no longer count).
  void set(std::size_t i, std::vector<Box> boxes) {
    ++version_[i];
    for (const Box& b : boxes)
      for (long gx = cell(b.x0); gx <= cell(b.x1); ++gx)
        for (long gy = cell(b.y0); gy <= cell(b.y1); ++gy)
          grid_[{gx, gy}].emplace_back(i, version_[i]);
    boxes_[i] = std::move(boxes);
  }

 private:
  static constexpr double kCell = 32;
  static long cell(double v) { return static_cast<long>(std::floor(v / kCell)); }
  std::vector<std::vector<Box>> boxes_;
  std::vector<unsigned> version_;
  std::map<std::pair<long, long>, std::vector<std::pair<std::size_t, unsigned>>> grid_;
};

}  // namespace

void draw_labels(const Scene& sc, std::string& s, std::vector<raster::Text>* texts) {
  Placed placed(sc.n);
  std::vector<std::string> svg(sc.n);
  std::vector<std::vector<raster::Text>> apart(sc.n);
  std::vector<Point> at(sc.anchor.begin(), sc.anchor.end());
  // Seas are labelled only where there is room: they are no order's subject.
  const auto needs_label = [&](std::size_t i) { return sc.model.areas[i].kind != "sea"; };
  // 1. The smallest label of every land area and city, nudged where it would cover another.
  for (std::size_t i = 0; i < sc.n; ++i) {
    if (!needs_label(i)) continue;
    const Point p = sc.anchor[i];
    const double dy = 11, dx = 14;
    const Point tries[] = {p,
                           {p.x, p.y - dy},
                           {p.x, p.y + dy},
                           {p.x - dx, p.y},
                           {p.x + dx, p.y},
                           {p.x - dx, p.y - dy},
                           {p.x + dx, p.y + dy},
                           {p.x + dx, p.y - dy},
                           {p.x - dx, p.y + dy},
                           {p.x, p.y - 2 * dy},
                           {p.x, p.y + 2 * dy}};
    bool done = false;
    for (const Point& q : tries) {
      std::vector<Label> v = label_variants(sc, i, q, texts != nullptr);
      for (std::size_t k = v.size() - 2; k < v.size() && !done; ++k) {  // code (and armies)
        if (!placed.clear(v[k], i)) continue;
        placed.set(i, std::move(v[k].boxes));
        svg[i] = std::move(v[k].svg);
        apart[i] = std::move(v[k].texts);
        at[i] = q;
        done = true;
      }
      if (done) break;
    }
    // Nowhere clear (a map too dense for its width, e.g. thousands of areas at 1x): no label
    // rather than one over another's; zooming in gives it room.
    if (!done) at[i] = {std::nan(""), std::nan("")};
  }
  // 2. Largest territories first, each label as rich as stays clear of the others.
  std::vector<std::size_t> order(sc.n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return sc.room[a] > sc.room[b]; });
  for (std::size_t i : order) {
    if (sc.room[i] < 7) continue;
    if (at[i].x != sc.anchor[i].x || at[i].y != sc.anchor[i].y) continue;  // already crowded
    std::vector<Label> v = label_variants(sc, i, sc.anchor[i], texts != nullptr);
    const std::size_t smallest = needs_label(i) ? v.size() - 2 : v.size();
    for (std::size_t k = 0; k < smallest; ++k) {
      if (sc.room[i] < 16 && k + 2 < v.size()) continue;  // too small for a name
      if (!placed.clear(v[k], i)) continue;
      placed.set(i, std::move(v[k].boxes));
      svg[i] = std::move(v[k].svg);
      apart[i] = std::move(v[k].texts);
      break;
    }
  }
  s += "<g class=\"labels\"" + crisp(sc) + ">\n";
  for (std::size_t i = 0; i < sc.n; ++i) {
    if (svg[i].empty()) continue;
    s += sc.bare
             ? svg[i] + "\n"
             : "<g data-for=\"" + xml_escape(sc.model.areas[i].code) + "\">" + svg[i] + "</g>\n";
  }
  s += "</g>\n";
  if (texts)
    for (auto& t : apart) std::move(t.begin(), t.end(), std::back_inserter(*texts));
}

}  // namespace adj::render::mapdraw
