// A direct reader of a GameState's stored JSON text (the canonical form to_json writes): it
// builds the GameState in one pass over the text, without a JSON tree of the whole state, which
// at 50,000 areas is most of the cost and the largest transient allocation of loading it.
//
// It reads a subset of what state_from_json(Json::parse(text)) reads, and for that subset gives
// exactly the same GameState: the values it does not model (engine, rules, features,
// engine_state, outline, edge features, scenario_extra, unknown keys) are parsed by nlohmann from
// their own span of the text. Outside the subset (a value of another type than the canonical
// one, a duplicate key, a number out of range, invalid UTF-8, anything it does not expect) it
// returns nullopt, and the caller parses through the tree, which gives the state or names the
// error. Both readers take the members, their keys and their defaults from the descriptions of
// rules/game/state_fields.h. Pure: no I/O; thread-safe (no shared state).
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

#include "rules/game/state.h"

namespace adj {

std::optional<GameState> read_state_direct(std::string_view text);

// The length of the JSON value at the start of `text` (no white space before it), found without
// checking it: a string to its closing quote, an object or array by counting brackets outside
// strings, anything else up to ',', '}', ']', white space or the end. 0 when a string, object or
// array is cut short (or `text` is empty).
std::size_t json_value_length(std::string_view text);

}  // namespace adj
