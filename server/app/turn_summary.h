// The summary of a committed turn (TurnCommit::summary, stored as the turn record's
// summary_json): the digest, the roundup, who sent no orders, every accepted order line and every
// action's result, the players proposing a draw and the ending, if any. Pure functions; they read
// their arguments only, so they may run on a thread beside the reports.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "rules/game/victory.h"
#include "rules/turn/turn_resolver.h"

namespace adj {

// What the summary is made of (borrowed: each pointer must outlive the call).
struct TurnSummaryParts {
  const std::string* digest = nullptr;
  const Json* roundup = nullptr;
  const std::vector<std::string>* players_without_orders = nullptr;
  const OrderBook* orders = nullptr;  // the order lines' text, per player
  const std::vector<ActionResult>* actions = nullptr;
  const std::set<std::string>* draws = nullptr;   // "draw" when not empty
  const std::optional<Ending>* ending = nullptr;  // "ending" when set
};

// The summary as a tree. It and turn_summary_text come from one description of the summary
// (turn_summary.cc, rules/game/json_form.h), so a member is added to both at once.
Json turn_summary(const TurnSummaryParts& parts);

// turn_summary(parts).dump(), written without the tree (at 10,000 players the tree of 160,000
// actions is ~200 MB); a run stores it (TurnCommit::summary_text). Throws Json::type_error where
// dump() would (invalid UTF-8).
std::string turn_summary_text(const TurnSummaryParts& parts);

}  // namespace adj
