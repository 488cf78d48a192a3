// The map on the web pages: the zoom from the query, the turn's arrows from a report or a turn
// record, and the view model of templates/_map.mustache (figure, zoom links, legend beside it).
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "server/render/svg_map.h"

namespace adj::web {

constexpr int kMaxMapZoom = 8;

// The "zoom" query parameter: a whole number 1..kMaxMapZoom; 1 for anything else.
int map_zoom(const std::map<std::string, std::string>& query);

// The arrows of one player's report (rules/report/report.h JSON): the player's moves that
// succeeded without a battle, every battle the report holds (its own attacks and the attacks on
// it) as "attack" arrows from each attacking origin, and the retreats the battles caused. Each
// battle once; malformed entries are skipped.
std::vector<render::MapArrow> arrows_from_report(const nlohmann::json& report);

// The arrows of a resolved turn: every battle log (to_json(BattleLog) form, as the battle
// records keep it) with its retreats, and with `with_moves` also the moves without battle among
// the turn record's actions (every player's, to_json(ActionResult) form).
std::vector<render::MapArrow> arrows_from_turn(const std::vector<nlohmann::json>& battles,
                                               const nlohmann::json& actions, bool with_moves);

// The view model of the _map partial: {"map_svg", "map_legend", "zoom", "zoom_links": [{"label",
// "href", "current"}]}; `path` is the page's own path (the links add ?zoom=n#map).
nlohmann::json map_block(const render::MapModel& model, int zoom, const std::string& path);

}  // namespace adj::web
