// The map on the web pages: the zoom from the query, the turn's arrows from a report or a turn
// record, and the view model of templates/_map.mustache (figure, zoom links, legend beside it).
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "server/render/map_region.h"
#include "server/render/report_arrows.h"
#include "server/render/svg_map.h"

namespace adj::web {

constexpr int kMaxMapZoom = 8;

// The "zoom" query parameter: a whole number 1..kMaxMapZoom; 1 for anything else.
int map_zoom(const std::map<std::string, std::string>& query);

// The turn's arrows (server/render/report_arrows.h).
using render::arrows_from_report;
using render::arrows_from_turn;

// What a region of a big map is drawn around when the query names no area (map_block): `areas`
// (codes) and how the note calls them ("your areas").
struct MapFocus {
  std::vector<std::string> areas;
  std::string words;
};

// The view model of the _map partial: {"map_svg", "map_legend", "zoom", "zoomed", "zoom_links":
// [{"label", "href", "current"}], "region"}; `path` is the page's own path (the links add
// ?zoom=n#map), `query` its query ("zoom", "around"). A map of more than render::kWholeMapAreas
// areas is drawn as a region (render::map_region): around the area the query's "around" names,
// else around `focus`; with neither, no map ("map_svg" empty). "region" is null for a whole map,
// else {"note" (what the map shows), "around" (the query's area, or ""), "path", "zoom" (null at
// 1), "whole_href" (`whole_href`: the whole map's address, or null for none)}.
nlohmann::json map_block(const render::MapModel& model,
                         const std::map<std::string, std::string>& query, const std::string& path,
                         const MapFocus& focus = {}, const std::string& whole_href = "");

}  // namespace adj::web
