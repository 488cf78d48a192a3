// Conversions between record fields and their column forms: JSON documents as text and unsigned
// 64-bit seeds as decimal text. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "rules/core/status.h"
#include "rules/game/state.h"

namespace adj::sqlite {

// Compact JSON text. InvalidArgument (naming `what`) when a string holds invalid UTF-8.
Result<std::string> json_to_text(const Json& j, std::string_view what);
// Parses stored JSON text. Corruption (naming `what`) when it does not parse.
Result<Json> json_from_text(std::string_view text, std::string_view what);

std::string seed_to_text(std::uint64_t seed);
// Corruption (naming `what`) unless `text` is a decimal number that fits in 64 bits.
Result<std::uint64_t> seed_from_text(std::string_view text, std::string_view what);

// Parses a stored GameState and checks it is the one asked for. Corruption otherwise.
Result<GameState> state_from_text(std::string_view text, const std::string& game, int turn);

}  // namespace adj::sqlite
