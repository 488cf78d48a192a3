// Suggestions for an unknown area code in an order: the game's area codes nearest to what was
// written, by edit distance over codes and names (case-insensitive). Pure and bounded: words
// longer than kMaxSuggestInput are not compared, and the distance table is at most
// (kMaxSuggestInput + 1) x (longest name + 1) per area.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "rules/game/state.h"

namespace adj {

inline constexpr std::size_t kMaxSuggestInput = 32;

// Levenshtein distance of a and b, ASCII case-insensitive; stops early and returns limit + 1
// once every path exceeds `limit`.
std::size_t edit_distance(std::string_view a, std::string_view b, std::size_t limit);

// Up to `max` area codes of `state` close to `word`: a code within 1 edit (2 for codes of five
// or more characters), or a name within 2 edits (8 or more characters; 1 for 5 to 7, none
// shorter) or starting with the word (of three or more characters). Nearest first, then by code.
// Empty when nothing is close.
std::vector<std::string> nearest_area_codes(std::string_view word, const GameState& state,
                                            std::size_t max = 3);
// The same over a list of areas of which only code and name are read (sorted by code or not): a
// caller holding part of a state passes every area's code and name.
std::vector<std::string> nearest_area_codes(std::string_view word, const std::vector<Area>& areas,
                                            std::size_t max = 3);

// "; did you mean HRS or HRT?" for nearest_area_codes(word, state); "" when there is none.
std::string did_you_mean(std::string_view word, const GameState& state);
std::string did_you_mean(std::string_view word, const std::vector<Area>& areas);

}  // namespace adj
