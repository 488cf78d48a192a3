// End-of-turn economy (docs/rules/dark-age.md §1.4): leftover BPs, income, upkeep, trade and
// blockades.
#pragma once

#include <map>
#include <string>

#include "rules/game/state.h"
#include "rules/turn/turn_result.h"

namespace adj {

// Rule 2.16: a city is blockaded when another player owns its hinterland and the hinterland holds
// more armies than half of the city's population plus armies (2*h > pop + armies).
bool blockaded(const GameState& state, const Area& city);

// Applies the end of the turn to `state` and fills `economy` (bp_start, bp_spent and bid must be
// set by the caller): leftover BPs become a bid and/or go to the treasury (OQ-1), income =
// population of owned areas (blockaded cities excepted) + the Viking bonus - upkeep per army,
// city trade goes to the treasuries of the city's and the hinterland's owners.
void apply_end_of_turn(GameState& state, std::map<std::string, Economy>& economy);

}  // namespace adj
