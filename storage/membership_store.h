// Sign-ups for games open for sign-ups, and each position's contact: the address the game mails
// and the person's name, kept apart from the turn states so that a rollback never reverts them.
// A contact overrides the email of the player in every state the store loads. Implemented by
// SqlStore (storage/core/sql_store_membership.cc; SQLite migrations 0010 and 0020), for both
// backends. Thread-safety: as the other stores, one object per thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rules/core/status.h"
#include "storage/records.h"

namespace adj {

struct Signup {
  std::int64_t id = 0;  // assigned by the store
  std::string game;
  std::string email;
  std::vector<std::string> preferences;  // player codes, most wanted first
  // "pending" (on the list), "approved" (by the GM), "assigned" (plays `player`), "unassigned"
  // (the game started without them).
  std::string state = "pending";
  std::string player;
  std::string channel;  // "mail", "web", "api", "cli"
  UnixTime created_at = 0;
};

struct Contact {
  std::string player;  // upper-case code
  std::string email;   // "" for a vacant position
  std::string name;    // the person's name; "" when not given
  UnixTime updated_at = 0;
};

// A sign-up or standby request made on a public channel, waiting for the address to confirm it
// with the code mailed to it (server/app/confirmations.h). Never on a list until confirmed.
struct PendingConfirmation {
  std::int64_t id = 0;  // assigned by the store
  std::string game;
  std::string kind;       // "signup" or "standby"
  std::string address;    // as given
  std::string client;     // who asked: client_key of the HTTP client, "mail:<address>" for mail
  std::string payload;    // JSON object text: what confirming records (preferences, channel)
  std::string code_hash;  // hash_token of the code (server/app/secrets.h); 64 hex digits
  UnixTime created_at = 0;
  UnixTime expires_at = 0;
  std::optional<UnixTime> confirmed_at;
};

// Bounds add_confirmation checks, counted from the stored rows (so every thread and process
// shares them): requests created within the last `window` seconds per client and per address
// (compared without regard to case), and unconfirmed, unexpired requests per game.
struct ConfirmationLimits {
  int per_client = 10;
  int per_address = 3;
  UnixTime window = 3600;
  int per_game = 500;
};

class MembershipStore {
 public:
  virtual ~MembershipStore() = default;
  // Appends a pending sign-up (s.id, s.state and s.player are ignored); returns its id. Checked in
  // one transaction: NotFound for an unknown game; AlreadyExists when the address (compared
  // without regard to case) is on the game's list; the list is full when it has `max`
  // sign-ups (FailedPrecondition); FailedPrecondition (archived_refusal, storage/admin_store.h)
  // when the game is archived; InvalidArgument for an empty email.
  virtual Result<std::int64_t> add_signup(const Signup& s, int max) = 0;
  // The game's sign-ups, oldest first. NotFound for an unknown game.
  virtual Result<std::vector<Signup>> signups(const std::string& game) = 0;
  // Sets a sign-up's state and position. NotFound when the game has no sign-up `id`.
  virtual Status set_signup_state(const std::string& game, std::int64_t id,
                                  const std::string& state, const std::string& player) = 0;
  // Deletes sign-up `id` of the game. NotFound when the game has no such sign-up.
  virtual Status remove_signup(const std::string& game, std::int64_t id) = 0;

  // In one transaction: deletes every request expired at c.created_at (of any game), then
  // stores `c` (id and confirmed_at ignored). Unavailable naming the bound ("client", "address"
  // or "game" in the message) when a limit of `l` is reached; NotFound for an unknown game;
  // FailedPrecondition (archived_refusal) when the game is archived;
  // InvalidArgument for an empty address or client, a kind other than signup/standby or a hash
  // that is not 64 characters.
  virtual Result<std::int64_t> add_confirmation(const PendingConfirmation& c,
                                                const ConfirmationLimits& l) = 0;
  // In one transaction: the request with this code hash, unconfirmed and not expired at `now`,
  // is marked confirmed at `now` and returned (so a code works once); nullopt otherwise.
  virtual Result<std::optional<PendingConfirmation>> use_confirmation(const std::string& code_hash,
                                                                      UnixTime now) = 0;

  // Sets (or replaces) the contact of a position. NotFound for an unknown game.
  virtual Status set_contact(const std::string& game, const Contact& c) = 0;
  // Every contact of the game, by player code. NotFound for an unknown game.
  virtual Result<std::vector<Contact>> contacts(const std::string& game) = 0;
};

}  // namespace adj
