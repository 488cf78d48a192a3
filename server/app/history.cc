#include "server/app/history.h"

#include <algorithm>

#include "server/app/services.h"

namespace adj {

Result<GameHistory> game_history(GameStore& games, const std::string& game, int open_turn,
                                 int max_turns) {
  GameHistory h;
  const int first = std::max(1, open_turn - std::max(0, max_turns));
  if (first == 1) {
    Result<GameState> start = games.load_state(game, 1);
    if (!start.ok()) return start.status();
    h.start_state = to_json(*start);
    for (auto& p : h.start_state["players"]) p.erase("secret");
  }
  for (int t = first; t < open_turn; ++t) {
    Result<Json> record = games.turn_record(game, t);
    if (!record.ok()) {
      if (record.status().code() == StatusCode::kNotFound) continue;
      return record.status();
    }
    const Json& r = *record;
    if (r.contains("summary") && r["summary"].is_object() && r["summary"].contains("roundup") &&
        r["summary"]["roundup"].is_object())
      h.roundups.push_back(r["summary"]["roundup"]);
  }
  return h;
}

Result<GameHistory> Services::history(const std::string& game, int open_turn, int max_turns) {
  return game_history(s_.games, game, open_turn, max_turns);
}

}  // namespace adj
