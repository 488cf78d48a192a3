// The turn on the map: arrows for the moves and battles of a player's report or of a resolved turn.
// Pure; malformed entries are skipped, never thrown on.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "server/render/svg_map.h"

namespace adj::render {

// The arrows of one player's report (rules/report/report.h JSON): the player's moves that
// succeeded without a battle, every battle the report holds (its own attacks and the attacks on
// it) as "attack" arrows from each attacking origin, and the retreats the battles caused. Each
// battle once.
std::vector<MapArrow> arrows_from_report(const nlohmann::json& report);

// The arrows of a resolved turn: every battle log (to_json(BattleLog) form, as the battle
// records keep it) with its retreats, and with `with_moves` also the moves without battle among
// the turn record's actions (every player's, to_json(ActionResult) form).
std::vector<MapArrow> arrows_from_turn(const std::vector<nlohmann::json>& battles,
                                       const nlohmann::json& actions, bool with_moves);

}  // namespace adj::render
