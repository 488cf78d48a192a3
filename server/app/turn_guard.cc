#include "server/app/turn_guard.h"

#include <cctype>

namespace adj {

Status stale_turn(int sent_for, int open_turn) {
  if (sent_for == open_turn) return Status::Ok();
  if (sent_for < open_turn)
    return Status::FailedPrecondition(
        "Turn " + std::to_string(sent_for) + " already ran; nothing was changed. Turn " +
        std::to_string(open_turn) + " is open now: reload the page to see it.");
  return Status::FailedPrecondition(
      "This page was made for turn " + std::to_string(sent_for) +
      ", but the game was rolled back and turn " + std::to_string(open_turn) +
      " is open now; nothing was changed. Reload the page and try again.");
}

Result<std::optional<int>> parse_turn_field(const std::string& text) {
  if (text.empty()) return std::optional<int>();
  bool digits = text.size() <= 6;
  for (char c : text) digits = digits && std::isdigit(static_cast<unsigned char>(c));
  if (!digits || std::stoi(text) < 1)
    return Status::InvalidArgument("the turn must be a positive whole number, not '" +
                                   text.substr(0, 12) + "'");
  return std::optional<int>(std::stoi(text));
}

}  // namespace adj
