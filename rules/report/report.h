// Player reports: built once as a JSON model from a turn's result (the single source), then
// rendered to text (email body, `adjutant report`) and later HTML. Pure functions.
#pragma once

#include <string>

#include "rules/turn/turn_result.h"

namespace adj {

// The report of `player` for the turn `result` resolved. `start` is that turn's starting state.
// What a player sees: their own actions and battles, attacks on their areas, their economy,
// their areas with defence settings, the areas bordering them (as at the end of the turn), the
// roundup of all kingdoms and the order of play, and a blank order template for the next turn.
// REQUIRES: player is a player of the game.
// `roundup` is build_roundup(result) (shared by every player's report of the turn).
Json build_report(const GameState& start, const TurnResult& result, const std::string& player,
                  const Json& roundup);

// The public roundup of a resolved turn: every kingdom's areas, armies, population and VPs.
Json build_roundup(const TurnResult& result);

// The plain-text rendering of a report built by build_report. Deterministic.
std::string render_report_text(const Json& report);

// One battle as shown to a player ("you" are `viewer`): the numbers before and after, the losses
// in every round, the dice drawn, the result.
Json battle_for_report(const BattleLog& battle);

}  // namespace adj
