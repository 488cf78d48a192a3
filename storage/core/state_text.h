// The open-state index's rows cut out of a state's stored text instead of serialising the state's
// players, areas and borders once more (SqlStore::index_open_state). Pure functions
// over values; thread-safe.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rules/core/status.h"
#include "rules/game/state.h"

namespace adj {

// Views into one state text: the elements of its top-level "players", "areas" and "adjacency"
// arrays, in order, each exactly as it appears in the text.
struct StateTextParts {
  std::vector<std::string_view> players;
  std::vector<std::string_view> areas;
  std::vector<std::string_view> edges;
};

// `text` cut into those elements. REQUIRES: for the elements to equal to_json(element).dump(),
// `text` is to_json(state).dump() with the default (compact) settings, which is what the caller
// checks the element counts against. nullopt when `text` is not one JSON object of that compact
// shape with those three arrays (bounded: one pass, no recursion).
std::optional<StateTextParts> split_state_text(std::string_view text);

// The texts of the open-state index's rows of `state` (one per player, area and border, in the
// state's order). Move-only: the views point into `owned` or into the caller's state text.
struct OpenStateTexts : StateTextParts {
  OpenStateTexts() = default;
  OpenStateTexts(OpenStateTexts&&) = default;
  OpenStateTexts& operator=(OpenStateTexts&&) = default;
  OpenStateTexts(const OpenStateTexts&) = delete;
  OpenStateTexts& operator=(const OpenStateTexts&) = delete;

  std::vector<std::string> owned;  // the dumps made here, when not cut out of a state text
};

// Views into `state_text` when it is not empty and split_state_text finds as many players, areas
// and borders as `state` has (REQUIRES then: state_text is to_json(state).dump(), unchecked), which
// must outlive the result; else each element's to_json(...).dump(), made here. InvalidArgument
// (naming `where`) when an element cannot be dumped (invalid UTF-8).
Result<OpenStateTexts> open_state_texts(const GameState& state, std::string_view state_text,
                                        const std::string& where);

}  // namespace adj
