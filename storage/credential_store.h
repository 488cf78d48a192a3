// Player credentials at rest: each player's secret as an Argon2id hash and their link and
// sign-in tokens as hashes (server/app/secrets.h makes both; the store never sees a secret or a
// token in clear). Implemented by SqliteStore (migrations 0005, 0021) and PgStore (0002, 0011).
// Thread-safety: as the other stores, one object per thread.
#pragma once

#include <string>

#include "rules/core/status.h"
#include "storage/records.h"

namespace adj {

// A stored link or sign-in token (by its hash).
struct TokenRecord {
  std::string game, player;
  bool session = false;  // a sign-in session; else the player's link token
  UnixTime created_at = 0;
  UnixTime last_used_at = 0;  // a session's last recorded use; created_at until the first
};

class CredentialStore {
 public:
  virtual ~CredentialStore() = default;
  // The player's secret hash. NotFound when the player has none (or the game is unknown).
  virtual Result<std::string> secret_hash(const std::string& game, const std::string& player) = 0;
  // Sets (or replaces) the player's secret hash. NotFound for an unknown game.
  virtual Status set_secret_hash(const std::string& game, const std::string& player,
                                 const std::string& hash, UnixTime now) = 0;
  // The player's link token becomes the one with `token_hash` (the previous link stops working;
  // sign-in sessions stay). NotFound for an unknown game.
  virtual Status set_link_token(const std::string& game, const std::string& player,
                                const std::string& token_hash, UnixTime now) = 0;
  // Adds a sign-in session token; the oldest sessions beyond kMaxSessions per player are dropped.
  virtual Status add_session_token(const std::string& game, const std::string& player,
                                   const std::string& token_hash, UnixTime now) = 0;
  // Removes every token (link and sessions) of the player.
  virtual Status revoke_tokens(const std::string& game, const std::string& player) = 0;
  // The token of `token_hash`; NotFound when unknown (the message never holds the hash).
  virtual Result<TokenRecord> token_record(const std::string& token_hash) = 0;
  // Records a use of the session `token_hash` at `now` (nothing for a link token or an unknown
  // hash).
  virtual Status touch_session(const std::string& token_hash, UnixTime now) = 0;
  // Removes the player's sign-in sessions except the one with `keep_hash` (all when empty); the
  // link token stays.
  virtual Status revoke_sessions(const std::string& game, const std::string& player,
                                 const std::string& keep_hash) = 0;

  static constexpr int kMaxSessions = 20;
};

}  // namespace adj
