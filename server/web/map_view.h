// The map on the web pages: the zoom from the query, the turn's arrows from a report or a turn
// record, and the view model of templates/_map.mustache (figure, zoom links, legend beside it).
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "server/render/report_arrows.h"
#include "server/render/svg_map.h"

namespace adj::web {

constexpr int kMaxMapZoom = 8;

// The "zoom" query parameter: a whole number 1..kMaxMapZoom; 1 for anything else.
int map_zoom(const std::map<std::string, std::string>& query);

// The turn's arrows (server/render/report_arrows.h).
using render::arrows_from_report;
using render::arrows_from_turn;

// The view model of the _map partial: {"map_svg", "map_legend", "zoom", "zoom_links": [{"label",
// "href", "current"}]}; `path` is the page's own path (the links add ?zoom=n#map).
nlohmann::json map_block(const render::MapModel& model, int zoom, const std::string& path);

}  // namespace adj::web
