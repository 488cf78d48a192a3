// Press between players: the messages, kept for the game's life and its archive, and each game's
// press options (migration 0012). The application (server/app/press.h) decides who may send what
// and who may read it; the store keeps what it is given and counts for the bounds.
// Thread-safety: as the other stores, one object per thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rules/core/status.h"
#include "storage/records.h"

namespace adj {

// What kind of press a game allows, from least to most: "none"; "public" (only to everyone);
// "private" (also to some kingdoms); "anonymous" (private, and the sender may stay unnamed).
struct PressOptions {
  std::string press = "private";
  // Whether the GM desk shows private press (and the senders of anonymous messages).
  bool gm_reads_private = true;
  // Whether a position's new player (a takeover or the GM's replace) reads the position's private
  // press from before they took it over (migration 0019; off: they see only press to everyone
  // from before, and everything from their start on).
  bool new_holder_reads_earlier = false;
};

struct PressMessage {
  std::int64_t id = 0;  // assigned by the store
  std::string game;
  int turn = 0;  // the open turn when it was sent
  UnixTime sent_at = 0;
  std::string sender;                   // upper-case player code
  std::vector<std::string> recipients;  // upper-case player codes; empty when to_all
  bool to_all = false;
  bool anonymous = false;
  std::string body;
  std::string source;  // "web", "api", "email:<message-id>#<block>"
};

// Bounds checked in the storing transaction, so that concurrent senders cannot pass them.
struct PressBounds {
  int per_player_turn = 100;  // messages one player may send in one turn
  int per_game = 20000;       // messages in one game
};

class PressStore {
 public:
  virtual ~PressStore() = default;
  // The game's options; the defaults of PressOptions when never set. NotFound for an unknown
  // game.
  virtual Result<PressOptions> press_options(const std::string& game) = 0;
  // InvalidArgument (nothing written) for an unknown press level. NotFound for an unknown game.
  virtual Status set_press_options(const std::string& game, const PressOptions& o) = 0;
  // Appends a message; returns its id. A message whose source starts with "email:" and is stored
  // already for the game is not stored again: the stored id is returned. FailedPrecondition
  // (nothing written) when a bound is reached, the message naming it; InvalidArgument for an
  // empty sender or body, or no recipient without to_all; NotFound for an unknown game.
  virtual Result<std::int64_t> append_press(const PressMessage& m, const PressBounds& bounds) = 0;
  // Every message of the game, oldest first.
  virtual Result<std::vector<PressMessage>> press_messages(const std::string& game) = 0;
};

}  // namespace adj
