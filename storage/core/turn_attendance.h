// Who had no orders in a committed turn, as both stores keep it beside the turn record (table
// turn_attendance: migration 0018), so the attendance check reads a short
// list instead of every recent turn's whole summary.
#pragma once

#include <optional>
#include <string>

#include "storage/records.h"

namespace adj {

// The JSON array text to store for `c` (a dump of its codes), or nullopt when the commit does not
// say: c.without_orders when set; else the summary tree's "players_without_orders" when it is a
// list of codes; else "[]" when the tree is the whole summary and has no such member (nobody
// listed, as reading the summary gives). Nullopt for anything else there, and when only
// summary_text holds the summary: that turn is then read from its summary.
std::optional<std::string> without_orders_text(const TurnCommit& c);

}  // namespace adj
