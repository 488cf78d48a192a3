#include "server/render/turn_map.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "server/render/map_raster.h"
#include "server/render/map_render_internal.h"
#include "server/render/report_arrows.h"

namespace adj::render {

namespace {

// The layers rasterised at one size, and the plain map made of them.
struct Raster {
  PngLimits limits;
  raster::Pixels under, over;  // svg_under; svg_over (transparent where it draws nothing)
  double scale = 1;            // pixels per SVG unit
  bool alpha = false;          // the ground is not opaque: RGBA
  std::shared_ptr<const raster::Palette> palette;  // the plain map's (PngLimits::palette), if any
  raster::Encoding encoding() const { return {alpha, palette.get()}; }
  int level = raster::kPngZlibLevel;  // zlib's, for every band
  int plain_rows = 0;
  std::vector<raster::Band> plain_bands;
  std::string plain_png;
};

int band_count(int rows) { return (rows + raster::kBandRows - 1) / raster::kBandRows; }

// The flat style's map (PngLimits::flat) is flat colours and text: at most flat_colours() colours
// of its own (its crisp text stays legible; arrows still add theirs), deflated at zlib
// level kFlatZlibLevel. Measured on a 20-player map: 64 colours instead of 240, 8% fewer
// bytes; level 6 instead of 3, 12% fewer for 10 ms more (docs/performance.md).
constexpr int kFlatColours = 64;
constexpr int kFlatZlibLevel = 6;
// What a flat map needs besides its owners' colours (terrain, sea, ink, the legend's): a game of
// more players than kFlatColours - kFlatInk gets an entry more for each, so that no owner's
// colour is drawn as another's (at 64 in all, 29 of 90 owners were), up to the palette's room
// (240 in all: past 196 players owners may share an entry; 13 of 250 did).
constexpr int kFlatInk = 44;

int flat_colours(std::size_t players) {
  const int most = raster::Palette::kMost - raster::Palette::kForArrows;
  return std::clamp(kFlatInk + static_cast<int>(std::min<std::size_t>(players, 256)), kFlatColours,
                    most);
}

// The scene of `model` laid out at least `min_width` units wide (0: as it comes); `style` is the
// one it was built with. A layout's width grows with the zoom less than in proportion (its
// margins stay), so the zoom is raised until it fits, which takes one or two more layouts.
void zoomed_scene(const MapModel& model, int min_width, MapStyle& style,
                  std::optional<mapdraw::Scene>& scene) {
  scene.emplace(mapdraw::build_scene(model, style));
  for (int tries = 0; tries < 4 && scene->lay.width < min_width && style.zoom < 8; ++tries) {
    style.zoom = std::min(8.0, style.zoom * (min_width + 0.5) / scene->lay.width);
    scene.emplace(mapdraw::build_scene(model, style));
  }
}

}  // namespace

struct TurnMap::Prepared {
  MapModel model;                       // the state's, without arrows
  std::optional<mapdraw::Scene> scene;  // of `model`
  mapdraw::LegendGrid legend;           // its lines (no arrow kind)
  double height = 0;  // the documents' height: the legend with room for every arrow kind
  std::string under_svg, over_svg;
  std::vector<raster::Text> texts;  // the flat map's labels' and legend's texts, over over_svg
  std::size_t max_png_bytes = 0;
  Raster raster;
  int renders = 0;

  // The image's rows with a legend of `rows` rows at `r`'s scale.
  int image_rows(const Raster& r, std::size_t rows) const {
    const double h = mapdraw::legend_height(legend, scene->lay.height, rows) * r.scale;
    return std::clamp(static_cast<int>(std::lround(h)), 1, r.under.height);
  }
  Result<Raster> rasterise(const PngLimits& limits) const;
  Result<std::string> paint(const Raster& r, const std::vector<MapArrow>& arrows) const;
};

namespace {

// `limits` with fewer pixels than `r`'s, by how far `png` is over `max` and a margin.
PngLimits smaller(const Raster& r, const std::string& png, std::size_t max) {
  const double f = 0.85 * std::sqrt(static_cast<double>(max) / static_cast<double>(png.size()));
  PngLimits out = r.limits;
  out.max_width = std::max(1, static_cast<int>(r.under.width * f));
  out.max_height = std::max(1, static_cast<int>(r.under.height * f));
  return out;
}

}  // namespace

Result<Raster> TurnMap::Prepared::rasterise(const PngLimits& limits) const {
  if (limits.max_width < 1 || limits.max_height < 1)
    return Status::InvalidArgument("svg_to_png: the pixel limits must be positive");
  Raster r;
  r.limits = limits;
  r.level = limits.flat ? kFlatZlibLevel : raster::kPngZlibLevel;
  ADJ_TRY(const raster::Svg under, raster::Svg::load(under_svg, limits));
  ADJ_TRY(const raster::Svg over, raster::Svg::load(over_svg, limits));
  const auto [w, h] = under.pixel_size(limits);
  ADJ_TRY(r.under, raster::Pixels::blank(w, h, limits.opaque));
  ADJ_RETURN_IF_ERROR(under.draw(r.under));
  ADJ_TRY(r.over, raster::Pixels::blank(w, h, false));
  ADJ_RETURN_IF_ERROR(over.draw(r.over));
  r.scale = h / height;
  ADJ_RETURN_IF_ERROR(raster::draw_texts(r.over, texts, r.scale));
  r.alpha = !r.under.opaque();
  r.plain_rows = image_rows(r, legend.rows);
  raster::Pixels plain = r.under;
  raster::stack(plain, r.over, 0, r.plain_rows);
  if (limits.palette && !r.alpha)  // room left for the colours of players' arrows
    if (auto colours =
            raster::Palette::of(plain, 0, r.plain_rows,
                                limits.flat ? flat_colours(model.players.size())
                                            : raster::Palette::kMost - raster::Palette::kForArrows))
      r.palette = std::make_shared<const raster::Palette>(std::move(*colours));
  for (int b = 0; b < band_count(r.plain_rows); ++b) {
    ADJ_TRY(raster::Band band, raster::deflate_band(plain, b, r.plain_rows, r.encoding(), r.level));
    r.plain_bands.push_back(std::move(band));
  }
  std::vector<const raster::Band*> bands;
  for (const raster::Band& b : r.plain_bands) bands.push_back(&b);
  ADJ_TRY(r.plain_png, raster::assemble_png(w, r.plain_rows, r.encoding(), bands));
  return r;
}

Result<std::string> TurnMap::Prepared::paint(const Raster& r,
                                             const std::vector<MapArrow>& arrows) const {
  mapdraw::LegendGrid g = legend;
  for (auto& item : mapdraw::arrow_legend_items(arrows)) g.items.push_back(std::move(item));
  g = mapdraw::legend_grid(std::move(g.items), scene->lay.width);
  std::vector<raster::Text> arrow_texts;  // the arrows' legend lines, in the flat style
  const std::string svg = mapdraw::svg_arrows(*scene, arrows, g, legend.items.size(), height,
                                              r.limits.flat ? &arrow_texts : nullptr);
  ADJ_TRY(const raster::Svg doc, raster::Svg::load(svg, r.limits));
  ADJ_TRY(raster::Pixels top, raster::Pixels::blank(r.under.width, r.under.height, false));
  ADJ_RETURN_IF_ERROR(doc.draw(top));
  ADJ_RETURN_IF_ERROR(raster::draw_texts(top, arrow_texts, r.scale));
  const int rows = image_rows(r, g.rows);
  raster::Pixels work = r.under;
  // Per band: the plain map's (a whole band it has whole, where no arrow draws), or stacked here.
  std::vector<bool> plain(static_cast<std::size_t>(band_count(rows)));
  std::vector<std::pair<int, int>> stacked;
  for (int b = 0; b < band_count(rows); ++b) {
    const int y0 = b * raster::kBandRows, y1 = std::min(rows, y0 + raster::kBandRows);
    plain[static_cast<std::size_t>(b)] =
        y1 - y0 == raster::kBandRows && y1 <= r.plain_rows && top.clear(y0, y1);
    if (plain[static_cast<std::size_t>(b)]) continue;
    raster::stack(work, top, y0, y1);
    raster::stack(work, r.over, y0, y1);
    stacked.emplace_back(y0, y1);
  }
  // The plain map's palette, and the arrows' colours after it (the plain bands' entries stand).
  std::optional<raster::Palette> colours;
  raster::Encoding e = r.encoding();
  if (r.palette) e.palette = &colours.emplace(r.palette->extended(work, stacked));
  std::vector<raster::Band> own;
  own.reserve(stacked.size());
  std::vector<const raster::Band*> bands;
  for (int b = 0; b < band_count(rows); ++b) {
    if (plain[static_cast<std::size_t>(b)]) {
      bands.push_back(&r.plain_bands[static_cast<std::size_t>(b)]);
      continue;
    }
    ADJ_TRY(raster::Band band, raster::deflate_band(work, b, rows, e, r.level));
    own.push_back(std::move(band));
    bands.push_back(&own.back());
  }
  return raster::assemble_png(r.under.width, rows, e, bands);
}

TurnMap::TurnMap(std::unique_ptr<Prepared> p) : p_(std::move(p)) { base_renders_ = p_->renders; }
TurnMap::~TurnMap() = default;

const std::string& TurnMap::plain_png() const { return p_->raster.plain_png; }

Result<std::string> TurnMap::png(const nlohmann::json* report) const {
  const std::vector<MapArrow> arrows =
      report ? arrows_from_report(*report) : std::vector<MapArrow>{};
  if (arrows.empty()) return p_->raster.plain_png;
  auto png = p_->paint(p_->raster, arrows);
  // A map over the budget with its arrows: fewer pixels, as prepare_turn_map does for the plain
  // one (rare: that one fits with a margin).
  std::optional<Raster> less;
  for (int retry = 0;
       retry < 2 && p_->max_png_bytes > 0 && png.ok() && png->size() > p_->max_png_bytes; ++retry) {
    auto r = p_->rasterise(smaller(less ? *less : p_->raster, *png, p_->max_png_bytes));
    ++base_renders_;
    if (!r.ok()) return r.status();
    less = std::move(r).value();
    png = p_->paint(*less, arrows);
  }
  return png;
}

MapStyle png_map_style(const MapModel& model, const PngLimits& limits) {
  MapStyle style;
  style.flat = limits.flat;
  std::optional<mapdraw::Scene> scene;
  zoomed_scene(model, limits.min_width, style, scene);
  return style;
}

Result<std::shared_ptr<const TurnMap>> prepare_turn_map(const nlohmann::json& state,
                                                        const PngLimits& limits,
                                                        std::size_t max_png_bytes) {
  if (!state.is_object())
    return Status::InvalidArgument("state_map_png: the state is not an object");
  auto p = std::make_unique<TurnMap::Prepared>();
  nlohmann::json drawn = drawable_state(state);
  drawn.erase("report");
  p->model = map_model_from_state(drawn);
  MapStyle style;
  style.flat = limits.flat;
  zoomed_scene(p->model, limits.min_width, style, p->scene);
  p->scene->bare = true;
  const mapdraw::Scene& sc = *p->scene;
  p->legend = mapdraw::legend_grid(mapdraw::legend_items(p->model, "", limits.flat), sc.lay.width);
  const std::size_t most = p->legend.items.size() + mapdraw::kArrowLegendItems;
  p->height = mapdraw::legend_height(p->legend, sc.lay.height,
                                     (most + p->legend.per_row - 1) / p->legend.per_row);
  p->under_svg = mapdraw::svg_under(sc, p->height);
  p->over_svg = mapdraw::svg_over(sc, p->legend, p->height, limits.flat ? &p->texts : nullptr);
  p->max_png_bytes = max_png_bytes;
  ADJ_TRY(p->raster, p->rasterise(limits));
  p->renders = 1;
  for (int retry = 0; retry < 2 && max_png_bytes > 0 && p->raster.plain_png.size() > max_png_bytes;
       ++retry) {
    ADJ_TRY(p->raster, p->rasterise(smaller(p->raster, p->raster.plain_png, max_png_bytes)));
    ++p->renders;
  }
  return std::shared_ptr<const TurnMap>(std::make_shared<TurnMap>(std::move(p)));
}

}  // namespace adj::render
