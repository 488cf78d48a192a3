// build_scene (map_render_internal.h): the layout at pixel scale, the territories (outlines or
// cells) and which of them touch, the anchors and room for labels, the cities' places inside
// their hinterlands (bounded by kMaxCitiesPlacedPerHinterland and kMaxCityPlacementWork), and each
// area's neighbours.
#include <algorithm>
#include <cmath>

#include "server/render/map_render_internal.h"

namespace adj::render::mapdraw {

namespace {

// The distance from q to the nearest side of p: the room for a label centred on q.
double room_at(const Polygon& p, Point q) {
  double best = INFINITY;
  for (std::size_t k = 0; k < p.size(); ++k) {
    const Point a = p[k], b = p[(k + 1) % p.size()];
    const double dx = b.x - a.x, dy = b.y - a.y, len2 = dx * dx + dy * dy;
    double t = len2 > 0 ? ((q.x - a.x) * dx + (q.y - a.y) * dy) / len2 : 0;
    t = std::clamp(t, 0.0, 1.0);
    best = std::min(best, std::hypot(q.x - a.x - t * dx, q.y - a.y - t * dy));
  }
  return std::isfinite(best) ? best : 0;
}

// Bounding box of a shape: a point outside it is not tested against the shape.
struct ShapeBox {
  double x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
};

void index_codes(Scene& sc) {
  for (std::size_t i = 0; i < sc.model.players.size(); ++i)
    sc.player_index.emplace(sc.model.players[i].code, i);
  for (std::size_t i = 0; i < sc.n; ++i) sc.area_index.emplace(sc.model.areas[i].code, i);
}

// Territories: an outline when the scenario gives one, else a cell around the area's site.
void shape_territories(Scene& sc) {
  const MapModel& model = sc.model;
  const Layout& lay = sc.lay;
  std::vector<std::size_t> site_area;
  std::vector<Point> sites;
  std::vector<double> radii;
  for (std::size_t i = 0; i < sc.n; ++i)
    if (!sc.marker[i]) {
      site_area.push_back(i);
      sites.push_back(lay.at[i]);
      radii.push_back(std::max(lay.radius[i], 1.0));
    }
  const std::vector<Cell> cells = territories(sites, radii, 28);
  sc.shape.assign(sc.n, {});
  for (std::size_t k = 0; k < sites.size(); ++k) {
    const std::size_t i = site_area[k];
    if (model.areas[i].outline && !lay.automatic) {
      // At pixel scale: a point within half a pixel of the previous one drawn adds nothing.
      Polygon& sh = sc.shape[i];
      for (const Point& q : *model.areas[i].outline) {
        const Point px{lay.offset.x + q.x * lay.scale, lay.offset.y + q.y * lay.scale};
        if (sh.empty() || std::hypot(px.x - sh.back().x, px.y - sh.back().y) >= 0.5)
          sh.push_back(px);
      }
      if (sh.size() < 3) sh = cells[k].polygon;
    } else {
      sc.shape[i] = cells[k].polygon;
    }
  }
  for (std::size_t k = 0; k < cells.size(); ++k)
    for (std::size_t e = 0; e < cells[k].neighbour.size(); ++e) {
      const long j = cells[k].neighbour[e];
      if (j < 0) continue;
      const std::size_t a = site_area[k], b = site_area[static_cast<std::size_t>(j)];
      sc.touching.insert({std::min(a, b), std::max(a, b)});
      const Polygon& p = cells[k].polygon;
      sc.shared_side[{a, b}] = {p[e], p[(e + 1) % p.size()]};
    }
}

// Anchors (labels, arrows) and the room around them, for the territories.
void anchor_territories(Scene& sc) {
  sc.anchor = sc.lay.at;
  sc.room.assign(sc.n, 0);
  for (std::size_t i = 0; i < sc.n; ++i) {
    if (sc.marker[i] || sc.shape[i].empty()) continue;
    const Point c = centroid(sc.shape[i]);
    if (contains(sc.shape[i], c)) sc.anchor[i] = c;
    sc.room[i] = room_at(sc.shape[i], sc.anchor[i]);
  }
}

// The place of city i inside its hinterland h (box hb): clear of h's label (the name above the
// anchor, the armies and symbols below it) — the city's own place if it is, else the nearest such
// point on rings around the label, else the point inside furthest from the label.
Point place_city(const Scene& sc, std::size_t i, std::size_t h, const ShapeBox& hb, MapWork& work) {
  const Polygon& hp = sc.shape[h];
  const std::vector<double>& room = sc.room;
  // Whether q is inside the hinterland with at least `margin` pixels around it, within the
  // work bound (false once it is spent).
  auto inside = [&](Point q, double margin) {
    if (hp.empty() || q.x < hb.x0 + margin || q.x > hb.x1 - margin || q.y < hb.y0 + margin ||
        q.y > hb.y1 - margin)
      return false;
    if (work.placement_ops + 2 * hp.size() > kMaxCityPlacementWork) return false;
    work.placement_ops += hp.size();
    if (!contains(hp, q)) return false;
    work.placement_ops += hp.size();
    return room_at(hp, q) >= margin;
  };
  const Point c = sc.anchor[h];
  const double fs = std::clamp(room[h] * 0.42, 9.0, 13.0);
  const double half_w =
      room[h] < 16 ? 0
                   : std::min(0.28 * fs * static_cast<double>(utf8_length(sc.model.areas[h].name)),
                              1.3 * room[h]) +
                         7;
  const double top = c.y - fs - 8, bottom = c.y + (room[h] >= 28 ? 32 : 18);
  // The city's own footprint: the marker, and its name under it.
  const double city_half_w =
      room[h] < 28 ? 8 : 0.3 * 10 * static_cast<double>(utf8_length(sc.model.areas[i].name) + 2);
  const double city_below = room[h] < 28 ? 8 : 22;
  auto fits = [&](Point q) {
    const bool on_label = half_w > 0 && std::fabs(q.x - c.x) < half_w + city_half_w &&
                          q.y + city_below > top && q.y - 8 < bottom;
    return !on_label && inside(q, 5);
  };
  Point p = sc.lay.at[i];
  if (fits(p)) return p;
  const double dx = p.x - c.x, dy = p.y - c.y;
  const double base = std::hypot(dx, dy) > 1e-6 ? std::atan2(dy, dx) : 0.6;
  bool found = false;
  for (double rad : {14.0, 22.0, 30.0, 40.0, 55.0, 75.0}) {
    for (int k = 0; k < 16 && !found; ++k) {
      const double off = (k % 2 ? -1 : 1) * ((k + 1) / 2) * (std::acos(-1.0) / 8);
      const Point q{c.x + rad * std::cos(base + off), c.y + rad * std::sin(base + off)};
      if (fits(q)) {
        p = q;
        found = true;
      }
    }
    if (found) break;
  }
  // No place clear of the label: the place inside furthest from it.
  double best = -1;
  for (double rad : {8.0, 14.0, 22.0, 30.0, 40.0})
    for (int k = 0; k < 16 && !found; ++k) {
      const double a = base + k * (std::acos(-1.0) / 8);
      const Point q{c.x + rad * std::cos(a), c.y + rad * std::sin(a)};
      const double score =
          std::min(std::fabs(q.x - c.x) / std::max(half_w, 1.0), std::fabs(q.y - c.y) / 14);
      if (score > best && inside(q, 4)) {
        best = score;
        p = q;
      }
    }
  if (!found && best < 0) p = hp.empty() ? p : c;
  return p;
}

// Cities, in area order: half their hinterland's room, and a place inside it within the bounds.
MapWork place_cities(Scene& sc) {
  std::vector<ShapeBox> box(sc.n);
  for (std::size_t i = 0; i < sc.n; ++i)
    for (const Point& q : sc.shape[i])
      box[i] = {std::min(box[i].x0, q.x), std::min(box[i].y0, q.y), std::max(box[i].x1, q.x),
                std::max(box[i].y1, q.y)};
  MapWork work;
  std::vector<std::size_t> placed(sc.n, 0);  // per hinterland
  for (std::size_t i = 0; i < sc.n; ++i) {
    if (!sc.marker[i]) continue;
    const std::size_t h = sc.area_index.at(sc.model.areas[i].hinterland);
    sc.room[i] = sc.room[h] * 0.5;
    if (placed[h] >= kMaxCitiesPlacedPerHinterland ||
        work.placement_ops + sc.shape[h].size() > kMaxCityPlacementWork) {
      ++work.cities_unplaced;
      continue;  // at its layout position
    }
    ++placed[h];
    sc.anchor[i] = place_city(sc, i, h, box[h], work);
  }
  return work;
}

void collect_borders(Scene& sc) {
  sc.borders.assign(sc.n, {});
  for (const auto& [ca, cb] : sc.model.edges) {
    auto ia = sc.area_index.find(ca), ib = sc.area_index.find(cb);
    if (ia == sc.area_index.end() || ib == sc.area_index.end() || ia->second == ib->second)
      continue;
    sc.borders[ia->second].insert(cb);
    sc.borders[ib->second].insert(ca);
  }
}

}  // namespace

Scene build_scene(const MapModel& model, const MapStyle& style) {
  const double zoom = std::isfinite(style.zoom) ? std::clamp(style.zoom, 1.0, 8.0) : 1.0;
  Scene sc(model);
  sc.flat = style.flat;
  sc.marker = drawn_as_markers(model);
  const auto territories_n =
      static_cast<double>(std::count(sc.marker.begin(), sc.marker.end(), false));
  // At 1x the canvas is about as wide as a desktop page shows it (map.css: the page's width), so
  // labels are drawn at about their size on screen.
  // The flat map (a mail's) is narrower: fewer pixels for the same labels, some shortened.
  const double per_area = style.flat ? 70 : 90;
  const double base = std::clamp(per_area * std::sqrt(territories_n), 1000.0, 1600.0);
  sc.lay = layout_areas(model, base * zoom);
  index_codes(sc);
  shape_territories(sc);
  anchor_territories(sc);
  const MapWork work = place_cities(sc);
  if (style.work) *style.work = work;
  collect_borders(sc);
  return sc;
}

}  // namespace adj::render::mapdraw
