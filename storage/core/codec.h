// Conversions between record fields and their column forms: JSON documents as text, unsigned
// 64-bit seeds as decimal text, lists as lines and a turn's players without orders. Pure
// functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rules/core/status.h"
#include "rules/game/state.h"
#include "storage/records.h"

namespace adj {

// Compact JSON text. InvalidArgument (naming `what`) when a string holds invalid UTF-8.
Result<std::string> json_to_text(const Json& j, std::string_view what);
// Parses stored JSON text. Corruption (naming `what`) when it does not parse.
Result<Json> json_from_text(std::string_view text, std::string_view what);

// Corruption (naming `what`) unless `text` is a decimal number that fits in 64 bits.
Result<std::uint64_t> seed_from_text(std::string_view text, std::string_view what);

// A list stored one item a line (written by ascii::joined(items, '\n')), back: "" is the empty
// list; an empty line between two is an empty item.
std::vector<std::string> lines_from_text(const std::string& text);

// Parses a stored GameState and checks it is the one asked for. Corruption otherwise.
Result<GameState> state_from_text(std::string_view text, const std::string& game, int turn);

// Who had no orders in a committed turn, as both stores keep it beside the turn record (table
// turn_attendance: migration 0018), so the attendance check reads a short list instead of every
// recent turn's whole summary. The JSON array text to store for `c` (a dump of its codes), or
// nullopt when the commit does not say: c.without_orders when set; else the summary tree's
// "players_without_orders" when it is a list of codes; else "[]" when the tree is the whole
// summary and has no such member (nobody listed, as reading the summary gives). Nullopt for
// anything else there, and when only summary_text holds the summary: that turn is then read
// from its summary.
std::optional<std::string> without_orders_text(const TurnCommit& c);

}  // namespace adj
