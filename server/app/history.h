// A game's history for charts: the starting state and the roundup of every resolved turn, read
// from the stored turn records (nothing is recomputed). Over the GameStore interface only.
// Thread-safety: as the store (one thread at a time).
#pragma once

#include <string>
#include <vector>

#include "storage/game_store.h"

namespace adj {

struct GameHistory {
  Json start_state;            // to_json of turn 1's starting state (null when not loaded)
  std::vector<Json> roundups;  // report.h build_roundup documents, oldest first
};

// The roundups of the resolved turns before `open_turn` (at most the last `max_turns` of them;
// turns whose record lacks a roundup are skipped) and, when the game's first turn is among them
// or open_turn is 1, the starting state of turn 1. NotFound when the game does not exist.
Result<GameHistory> game_history(GameStore& games, const std::string& game, int open_turn,
                                 int max_turns);

}  // namespace adj
