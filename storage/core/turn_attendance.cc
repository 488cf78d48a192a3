#include "storage/core/turn_attendance.h"

namespace adj {

std::optional<std::string> without_orders_text(const TurnCommit& c) {
  if (c.without_orders) return Json(*c.without_orders).dump();
  if (const auto it = c.summary.find("players_without_orders"); it != c.summary.end()) {
    if (!it->is_array()) return std::nullopt;
    for (const Json& code : *it)
      if (!code.is_string()) return std::nullopt;
    return it->dump();
  }
  if (c.summary_text.empty()) return std::string("[]");
  return std::nullopt;
}

}  // namespace adj
