// Part of a game state: what checking one order file reads of it (rules/orders/validator.h
// check_order_file). Pure functions over values; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "rules/game/state.h"

namespace adj {

// `state` with only: the players of `players` and those owning an area of the result, the areas
// of `areas`, and the borders with at least one end among those areas. Codes match exactly; codes
// that name nothing are left out. Everything else (game, turn, seed, engine, rules, order of play,
// scenario data) as in `state`. The result is normalised (sorted as a whole state is).
GameState cut_state(GameState state, const std::vector<std::string>& players,
                    const std::vector<std::string>& areas);

// Every area's code and name (nothing else set), sorted by code: what suggestions for an unknown
// area code read (rules/orders/suggest.h).
std::vector<Area> area_names_of(const GameState& state);

// The state without players, areas and borders (game, turn, seed, engine, rules, order of play,
// scenario data): the head_json document of the open-state index (SQLite 0014, PostgreSQL 0005).
Json head_json(const GameState& s);

}  // namespace adj
