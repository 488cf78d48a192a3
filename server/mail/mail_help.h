// The plain-text answer to a HELP mail (no Markdown): the order syntax, the game's engine
// options, and examples built from the game's own map. For an authenticated player also their
// own areas with their neighbours, and examples from their position. Pure: a state in, text
// out; nothing private of another player (an unauthenticated HELP sees area codes and names
// only, as on the public map).
#pragma once

#include <string>
#include <string_view>

#include "rules/game/state.h"

namespace adj::mail {

// The engine-independent order syntax, plain text. Its combined-attack example uses the area
// codes of `st` when given (a land area with two land neighbours), else placeholders.
std::string help_syntax(const GameState* st = nullptr);

// The game part of a HELP answer. `player` is the authenticated player's code, or "" for an
// unauthenticated sender. `engine_help` is the engine's order_help() ("" for none).
std::string help_for_game(const GameState& state, const std::string& player,
                          std::string_view engine_help);

}  // namespace adj::mail
