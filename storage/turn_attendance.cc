#include "storage/turn_attendance.h"

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

// LEFT JOIN: the turn record's summary is read only for a turn without a row (COALESCE evaluates
// its second argument only when the first is NULL, and the turn's ran_at is taken from the row).
const char* const kTurnsWithoutOrdersSqlite =
    "SELECT t.turn, "
    "CASE WHEN a.turn IS NOT NULL THEN a.without_orders "
    "ELSE json_extract(t.summary_json, '$.players_without_orders') END, "
    "coalesce(a.ran_at, t.ran_at) "
    "FROM turns t LEFT JOIN turn_attendance a ON a.game_id = t.game_id AND a.turn = t.turn "
    "WHERE t.game_id = ? AND t.turn >= ? ORDER BY t.turn DESC";

const char* const kTurnsWithoutOrdersPg =
    "SELECT t.turn, "
    "CASE WHEN a.turn IS NOT NULL THEN a.without_orders "
    "ELSE nullif(t.summary_json::jsonb -> 'players_without_orders', 'null'::jsonb)::text END, "
    "coalesce(a.ran_at, t.ran_at) "
    "FROM turns t LEFT JOIN turn_attendance a ON a.game_id = t.game_id AND a.turn = t.turn "
    "WHERE t.game_id = $1 AND t.turn >= $2 ORDER BY t.turn DESC";

}  // namespace adj
