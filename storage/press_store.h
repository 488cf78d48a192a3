// Press between players: the messages, kept for the game's life and its archive, and each game's
// press options (migration 0012). The application (server/app/press.h) decides who may send what
// and who may read it; the store keeps what it is given and counts for the bounds.
// Thread-safety: as the other stores, one object per thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rules/core/status.h"
#include "storage/notice_store.h"
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
  // The GM's address for this game (migration 0023): where messages to the GM are forwarded and
  // what mail and pages name when they say "ask the GM". "" for the host's default, or none.
  std::string gm_address;
};

// The sender or recipient code that stands for the game's GM in press (no player code can hold
// '#': scenario codes are letters and digits).
inline constexpr const char* kGmPressCode = "#GM";

struct PressMessage {
  std::int64_t id = 0;  // assigned by the store
  std::string game;
  int turn = 0;  // the open turn when it was sent
  UnixTime sent_at = 0;
  std::string sender;  // upper-case player code, or kGmPressCode
  std::vector<std::string>
      recipients;  // upper-case player codes (or kGmPressCode); empty when to_all
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

// Where a player's press digest stands (migration 0022): the last press id mailed to them and
// when. A player never mailed a digest has none.
struct PressDigestMark {
  std::string player;
  std::int64_t last_id = 0;
  UnixTime sent_at = 0;
};

struct PressDigestState {
  std::int64_t last_press_id = 0;  // the game's newest message; 0 for none
  std::vector<PressDigestMark> marks;
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
  // The game's messages with an id above `after_id` (0: every message), oldest first. NotFound
  // for an unknown game.
  virtual Result<std::vector<PressMessage>> press_messages_after(const std::string& game,
                                                                 std::int64_t after_id) = 0;

  // ---- Digests (server/app/press_digest.h) ----
  // The game's newest press id and every player's mark. NotFound for an unknown game.
  virtual Result<PressDigestState> press_digest_state(const std::string& game) = 0;
  // Claims one digest in one transaction: moves `player`'s mark from `from_id` (0: no mark yet)
  // to `to_id` with sent_at `now`, and appends `notice` (NoticeStore::append_notice's checks;
  // none when nullptr: the player had nothing to read). Returns false, writing nothing, when
  // the mark is no longer at `from_id` (another thread or process claimed it first) or the
  // notice's dedupe key was used before. NotFound for an unknown game; InvalidArgument for
  // to_id <= from_id or an empty player.
  virtual Result<bool> queue_press_digest(const std::string& game, const std::string& player,
                                          std::int64_t from_id, std::int64_t to_id, UnixTime now,
                                          const Notice* notice) = 0;
};

}  // namespace adj
