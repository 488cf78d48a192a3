// Player credentials at rest: each player's secret as an Argon2id hash and their link and
// sign-in tokens as hashes (server/app/secrets.h makes both; the store never sees a secret or a
// token in clear). Implemented by SqliteStore (migration 0005).
// Thread-safety: as the other stores, one object per thread.
#pragma once

#include <string>
#include <utility>

#include "rules/core/status.h"
#include "storage/records.h"

namespace adj {

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
  // The (game, player) of a token hash; NotFound when unknown.
  virtual Result<std::pair<std::string, std::string>> token_owner(
      const std::string& token_hash) = 0;

  static constexpr int kMaxSessions = 20;
};

}  // namespace adj
