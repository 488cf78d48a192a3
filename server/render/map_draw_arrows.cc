// The map's arrow layer (map_render_internal.h): each movement as a curve in its player's colour
// over a casing (dark on light colours, white on dark ones), bolder for attacks, dashed for
// retreats, repeated arrows between the same areas bent further apart. Nothing when the model
// has no arrows.
#include <algorithm>
#include <cmath>

#include "server/render/map_render_internal.h"

namespace adj::render::mapdraw {

namespace {

// One arrow's <g>, from a to b (already cut short): `rep` earlier arrows went between the same
// two areas in the same direction.
std::string arrow_group(const Scene& sc, const MapArrow& ar, Point a, Point b, int rep) {
  const bool attack = ar.kind == "attack", retreat = ar.kind == "retreat";
  const double width = attack ? 4.5 : retreat ? 2.2 : 2.8;
  const Curve c = arrow_curve(a, b, 0.16 + 0.1 * rep, width * 2.6 + 3);
  auto pi = sc.player_index.find(ar.player);
  const std::string colour = pi == sc.player_index.end() ? "#555555" : palette_colour(pi->second);
  const std::string casing = mapstyle::luminance(colour) > 0.6 ? "#333" : "#fff";
  // The stroke stops where the head starts, so that the round cap does not show past it.
  const Point mid_base{(c.head[1].x + c.head[2].x) / 2, (c.head[1].y + c.head[2].y) / 2};
  const std::string d = "M" + fmt(c.start.x) + " " + fmt(c.start.y) + "Q" + fmt(c.control.x) + " " +
                        fmt(c.control.y) + " " + fmt(mid_base.x) + " " + fmt(mid_base.y);
  const std::string head = "M" + fmt(c.head[0].x) + " " + fmt(c.head[0].y) + "L" +
                           fmt(c.head[1].x) + " " + fmt(c.head[1].y) + " " + fmt(c.head[2].x) +
                           " " + fmt(c.head[2].y) + "Z";
  const std::string dash = retreat ? " stroke-dasharray=\"6 4\"" : "";
  return "<g class=\"arrow " + xml_escape(ar.kind) + "\" data-from=\"" + xml_escape(ar.from) +
         "\" data-to=\"" + xml_escape(ar.to) + "\"><title>" + xml_escape(ar.label) +
         "</title><path d=\"" + d + "\" stroke=\"" + casing + "\" stroke-width=\"" +
         fmt(width + 2.5) + "\"" + dash + "/><path d=\"" + head + "\" fill=\"" + casing +
         "\" stroke=\"" + casing + "\" stroke-width=\"2.5\" stroke-linejoin=\"round\"/><path d=\"" +
         d + "\" stroke=\"" + colour + "\" stroke-width=\"" + fmt(width) + "\"" + dash +
         "/><path d=\"" + head + "\" fill=\"" + colour + "\"/></g>\n";
}

}  // namespace

void draw_arrows(const Scene& sc, const std::vector<MapArrow>& arrows, std::string& s) {
  if (arrows.empty()) return;
  s += "<g class=\"arrows\" fill=\"none\" stroke-linecap=\"round\">\n";
  std::map<std::pair<std::size_t, std::size_t>, int> repeats;
  for (const MapArrow& ar : arrows) {
    auto ia = sc.area_index.find(ar.from), ib = sc.area_index.find(ar.to);
    if (ia == sc.area_index.end() || ib == sc.area_index.end() || ia->second == ib->second)
      continue;
    Point a = sc.anchor[ia->second], b = sc.anchor[ib->second];
    const double len = std::hypot(b.x - a.x, b.y - a.y);
    if (len < 1) continue;
    // Cut short at both ends, at the target by up to 0.45 of its room.
    const double cut_a = std::min(0.2 * len, 8.0);
    const double cut_b = std::min(0.3 * len, std::max(8.0, sc.room[ib->second] * 0.45));
    const Point u{(b.x - a.x) / len, (b.y - a.y) / len};
    a = {a.x + u.x * cut_a, a.y + u.y * cut_a};
    b = {b.x - u.x * cut_b, b.y - u.y * cut_b};
    const int rep = repeats[{ia->second, ib->second}]++;
    s += arrow_group(sc, ar, a, b, rep);
  }
  s += "</g>\n";
}

}  // namespace adj::render::mapdraw
