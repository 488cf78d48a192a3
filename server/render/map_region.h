// The part of a big map a web page draws: a page inlines the whole map up to kWholeMapAreas areas;
// beyond that (a generated world of thousands of players is tens of megabytes of SVG and seconds
// of CPU a page) it draws the areas nearest some chosen ones (a player's lands, an area asked
// for). Pure functions over values; thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "server/render/svg_map.h"

namespace adj::render {

// The most areas a page's map draws whole.
inline constexpr std::size_t kWholeMapAreas = 1500;
// The most areas of a region (map_region).
inline constexpr std::size_t kRegionAreas = 300;

// `whole` cut to the areas nearest `seeds` (area codes; those naming no area are ignored):
// breadth first over its edges from the seeds, each distance in the model's order, until `most`
// areas (at least the seeds that fit), an area of another component never. Keeps the areas in the
// model's order, the edges and rivers between kept areas, and the arrows whose two ends are kept;
// the players stay whole (a player's colour is its index) with MapModel::region set, so the
// legend lists only those owning a kept area or drawing a kept arrow. No seed: no area.
MapModel map_region(const MapModel& whole, const std::vector<std::string>& seeds,
                    std::size_t most = kRegionAreas);

// Per player of model.players: whether the map shows it (its pattern, its legend line): every
// player of a whole map; of a region, those owning one of its areas or drawing one of its arrows.
std::vector<bool> players_shown(const MapModel& model);

// The codes of the areas `player` owns in `model`, in the model's order.
std::vector<std::string> areas_of(const MapModel& model, const std::string& player);

}  // namespace adj::render
