// Forms and requests made for one open turn: the answer when the game has moved on since, so a
// reloaded or stale "Run turn now" (or any other state-changing form) changes nothing.
#pragma once

#include <optional>
#include <string>

#include "rules/core/status.h"

namespace adj {

// FailedPrecondition (HTTP 409) saying that a request made for turn `sent_for` arrived while
// `open_turn` is open: "Turn 3 already ran; nothing was changed. ..." (or, after a rollback,
// that the game was rolled back). Ok when they are equal.
Status stale_turn(int sent_for, int open_turn);

// A request's turn field: nullopt when absent or empty; InvalidArgument unless a positive whole
// number below a million.
Result<std::optional<int>> parse_turn_field(const std::string& text);

}  // namespace adj
