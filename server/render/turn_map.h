// One game's map after one turn as report mails attach it: drawn once, then painted per player
// (issue 33: a host's busiest minute mails hundreds of games, each to every player).
//
// prepare_turn_map does the expensive part once: the state's model and scene, the ground, areas,
// borders and cities rasterised (librsvg), the labels and the legend rasterised on a layer of
// their own, and the plain map's PNG. TurnMap::png(report) then draws only that report's arrows
// (a small SVG of the same size, on a transparent layer), stacks ground, arrows and labels in
// the bands of rows the arrows touch, deflates those, and takes the plain map's deflated bands
// for the others (map_raster.h). The picture is the one render_svg_map draws with those arrows:
// arrows over the areas and under the labels and the legend, the legend with a line per arrow
// kind the report has. A player's map shows only the arrows of the report it is given. In the
// flat style (PngLimits::flat) the texts of the labels and the legend's lines are drawn by cairo
// on their layers rather than by librsvg (raster::draw_texts: cached glyphs, a tenth of the
// time), so they differ from render_svg_map's in their pixels; texts cairo cannot draw alike stay
// librsvg's.
//
// Thread-safety: a prepared TurnMap is immutable; png() may be called from several threads at
// once (each call has its own layers; the prepared ones are only read).
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "server/render/map_png.h"
#include "server/render/state_map.h"
#include "server/render/svg_map.h"

namespace adj::render {

class TurnMap {
 public:
  struct Prepared;  // turn_map.cc
  explicit TurnMap(std::unique_ptr<Prepared> p);
  ~TurnMap();
  TurnMap(const TurnMap&) = delete;
  TurnMap& operator=(const TurnMap&) = delete;

  // The PNG with the arrows of `report` (a player's report JSON: arrows_from_report); the plain
  // map when `report` is null or has no arrow. Over the budget, drawn again with fewer pixels at
  // most twice, as state_map_png; the result may still be over (the caller checks).
  Result<std::string> png(const nlohmann::json* report) const;
  // The map without arrows.
  const std::string& plain_png() const;
  // How many times the ground and labels were rasterised: once, and once more each time a map
  // was over the budget and drawn again with fewer pixels.
  int base_renders() const { return base_renders_.load(); }

 private:
  std::unique_ptr<Prepared> p_;
  mutable std::atomic<int> base_renders_{0};
};

// The style prepare_turn_map draws `model` with at `limits`: a map narrower than
// limits.min_width is laid out that wide (MapStyle::zoom; labels keep their size) instead of
// being scaled up when rasterised. Drawn at one pixel a unit, librsvg copies its patterns' tiles
// instead of resampling them: a third of the time for the ground.
MapStyle png_map_style(const MapModel& model, const PngLimits& limits);

// The map of `state` (a state document, as state_map_png takes it; its "report" member, if any,
// is not drawn) prepared at `limits`: when the plain map's PNG is over `max_png_bytes` (0: no
// bound) it is drawn again with fewer pixels (aspect kept), at most twice. Errors as
// state_map_png's.
Result<std::shared_ptr<const TurnMap>> prepare_turn_map(const nlohmann::json& state,
                                                        const PngLimits& limits = {},
                                                        std::size_t max_png_bytes = kMapPngBudget);

}  // namespace adj::render
