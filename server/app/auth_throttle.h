// Slows down guessing of secrets and tokens: one limiter every channel asks before it checks a
// secret or token (HTTP Basic, the sign-in forms, bearer tokens, order files by API, web and mail)
// and tells afterwards whether the check failed.
//
// Keys (strings; throttle_key_* below builds them):
//   "addr:<ip>"             the client: HTTP client address (the peer, or the address a
//                           trusted proxy forwards; IPv6 by its /64, which one host usually
//                           owns whole), SMTP peer address;
//   "sender:<address>"      mail: the envelope sender (lower case);
//   "player:<game>/<code>"  the account being guessed (game and code lower case);
//   "gm"                    the GM token.
// Each failed check counts against every key of the attempt. After `max_failures` failures
// within `window_seconds` a key is locked for `first_lock_seconds`, doubling with each further
// lockout up to `max_lock_seconds`; a key with no failure for `quiet_seconds` starts afresh.
//
// What a lock does (decision: no number of wrong guesses from one client makes another client's
// right secret, sign-in link, token or the GM's sign-in fail):
//   - a locked CLIENT key refuses that client's attempts WITHOUT checking the secret (so a
//     lockout also saves the slow hash); the caller answers 429 with Retry-After (web) or "too
//     many failed attempts; try again after <time>" (mail), never saying whether the secret
//     would have been right;
//   - a locked ACCOUNT key (player or "gm") refuses nobody: every attempt is still checked, a
//     right one succeeds, and a wrong one locks its client at once ("one strike", the client's
//     next lockout, doubling as usual), except a client that has succeeded on that account before
//     (the same "addr:" or "sender:" key, up to kTrustedClients remembered per account, kept as
//     long as the account key), which is counted as usual. So while an account is under attack
//     each client address gets one guess per lockout of its own, and the player (or GM) signs in
//     as always. Bearer credentials of 128 bits or more (sign-in links, API and session tokens,
//     the GM token) are thus never refused because of an account lock; only the client's own.
//   - The account's lockouts still tell the player ("failed attempts" mail, auth_alert.h).
//   - Other account keys (a takeover code's, throttle_lock_refuses_others) keep the stricter
//     rule: while locked they refuse every client the account does not trust, unchecked.
// Behind a reverse proxy the client is the address the proxy forwards (`serve --trusted-proxy`,
// base/client_address.h); without that flag every client shares the proxy's address and
// its lock.
//
// Memory: at most `max_keys` keys per class (clients, accounts); when full, the least recently
// failed unlocked key is dropped (a locked one only when all are locked), so spraying addresses
// costs the attacker its own counters, never unbounded memory. Accounts are only recorded for
// players that exist (the caller passes no player key for an unknown code).
//
// Pure logic: the clock is passed in (now, seconds). Thread-safety: every method of
// AuthThrottle may be called from any thread (one mutex).
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "rules/orders/validator.h"
#include "storage/throttle_store.h"

namespace adj {

struct ThrottleConfig {
  bool enabled = true;
  int max_failures = 5;                 // failures within the window before a lockout
  std::int64_t window_seconds = 600;    // failures older than this no longer count
  std::int64_t first_lock_seconds = 1;  // the first lockout; each further one doubles
  std::int64_t max_lock_seconds = 3600;
  std::int64_t quiet_seconds = 86400;  // no failure for this long: the key starts afresh
  std::size_t max_keys = 100000;       // per class (clients; accounts)
};

inline constexpr std::size_t kTrustedClients = 4;
inline constexpr std::size_t kRecentClients = 5;

// Seconds until `s` is unlocked at `now` (0: not locked).
std::int64_t throttle_wait(const ThrottleState& s, std::int64_t now);
// Counts one failure at `now`; true when it started a new lockout.
bool throttle_fail(ThrottleState& s, const ThrottleConfig& c, std::int64_t now);
// Starts the next lockout of `s` at `now` (first_lock_seconds doubled per earlier one, capped).
void throttle_lock(ThrottleState& s, const ThrottleConfig& c, std::int64_t now);
// Remembers `client` in `list` (newest first, at most `cap`, no repeats).
void throttle_remember(std::vector<std::string>& list, const std::string& client, std::size_t cap);
bool throttle_trusts(const ThrottleState& s, const std::string& client);
// Whether `s` can be forgotten at `now` (not locked, quiet, nothing trusted worth keeping).
bool throttle_idle(const ThrottleState& s, const ThrottleConfig& c, std::int64_t now);

// Key builders. `ip` is a textual IPv4 or IPv6 address (an IPv6 address is cut to its /64; an
// IPv4-mapped IPv6 address becomes the IPv4 address).
std::string throttle_key_addr(const std::string& ip);
std::string throttle_key_sender(const std::string& address);
std::string throttle_key_player(const std::string& game, const std::string& code);
inline constexpr const char* kThrottleKeyGm = "gm";

// What an order file's acknowledgement says about its PLAYER line's secret (the validator
// checks game, then player, then secret, then turn, and says which one refused the file):
// kNotChecked (refused before the secret: no GAME or PLAYER line, another game),
// kUnknownPlayer, kWrong, kRight (accepted, or refused only after the secret matched).
enum class SecretVerdict { kNotChecked, kUnknownPlayer, kWrong, kRight };
SecretVerdict secret_check_of(const OrderAck& ack);

// The keys of one attempt: the client (addr: or sender:, may be empty) and the account (player:
// or gm; empty when the attempt names no existing player).
struct ThrottleKeys {
  std::string client;
  std::string account;
};

struct ThrottleVerdict {
  bool allowed = true;
  std::int64_t retry_after = 0;  // seconds, when refused
};

// What a recorded failure did: new lockouts (for the "failed attempts" mail to the player).
struct ThrottleEvent {
  bool client_locked = false;   // the failure started a lockout of the client key
  bool account_locked = false;  // ... of the account key
  ThrottleState account;        // the account key's state after the failure
};

// The decision and the transition for one attempt, over the states of its keys (null: no such
// key). Shared by the in-memory AuthThrottle and the stored one (StoredThrottle). The decision
// reads the client key, and the account key only when throttle_lock_refuses_others(); the
// transition counts a failure against both keys and applies the one-strike rule above.
ThrottleVerdict throttle_verdict(const ThrottleState* client, const ThrottleState* account,
                                 const ThrottleKeys& keys, std::int64_t now);
// Whether a lock of this account key refuses clients it does not trust: not for a player's or
// the GM's own credentials ("player:...", "gm"); yes for any other account key, such as a
// takeover code's "takeover:<game>/<kingdom>" (server/app/attendance.h), where refusing keeps
// a position from being taken by guessing from many clients.
bool throttle_lock_refuses_others(const std::string& account_key);
ThrottleEvent throttle_apply(ThrottleState* client, ThrottleState* account,
                             const std::string& client_key, bool ok, const ThrottleConfig& c,
                             std::int64_t now);

// The limiter interface the channels call: check() before comparing a secret or token,
// record() after (only when a check was made). Thread-safety: see each implementation.
class Throttle {
 public:
  virtual ~Throttle() = default;
  virtual const ThrottleConfig& config() const = 0;
  // Refused while the client key is locked, or (other than player and GM keys) the account key
  // is locked and does not trust the client. Allowed when disabled.
  virtual ThrottleVerdict check(const ThrottleKeys& keys, std::int64_t now) = 0;
  // A failure counts against both keys, and locks the client at once while the account is
  // locked (one strike); a success makes the client trusted by the account. Nothing when
  // disabled.
  virtual ThrottleEvent record(const ThrottleKeys& keys, bool ok, std::int64_t now) = 0;
};

// In memory (the HTTP channels of `adjutant serve`): every method may be called from any
// thread (one mutex).
class AuthThrottle : public Throttle {
 public:
  explicit AuthThrottle(ThrottleConfig config = {}) : config_(config) {}
  const ThrottleConfig& config() const override { return config_; }
  ThrottleVerdict check(const ThrottleKeys& keys, std::int64_t now) override;
  ThrottleEvent record(const ThrottleKeys& keys, bool ok, std::int64_t now) override;

  // Keys locked at `now` (the /metrics gauge) and keys tracked.
  std::size_t locked(std::int64_t now) const;
  std::size_t size() const;

 private:
  struct Table {
    struct Entry {
      ThrottleState state;
      std::list<std::string>::iterator order;
    };
    std::unordered_map<std::string, Entry> map;
    std::list<std::string> order;  // most recently failed first
  };
  Table& table_of(const std::string& key);
  ThrottleState* find(const std::string& key);
  ThrottleState& touch(const std::string& key, std::int64_t now);

  ThrottleConfig config_;
  mutable std::mutex mu_;
  Table clients_, accounts_;
};

}  // namespace adj

namespace adj {

// Over a ThrottleStore (mail: the daemon's mail thread and `adjutant ingest` processes share the
// counts through the database). One object per thread, like the store it borrows. A store error
// on check() allows the attempt (the secret is still checked; failing closed would let a broken
// database lock every player out) and is logged by the caller through last_error().
class StoredThrottle : public Throttle {
 public:
  StoredThrottle(ThrottleStore& store, ThrottleConfig config) : store_(store), config_(config) {}
  const ThrottleConfig& config() const override { return config_; }
  ThrottleVerdict check(const ThrottleKeys& keys, std::int64_t now) override;
  ThrottleEvent record(const ThrottleKeys& keys, bool ok, std::int64_t now) override;
  const Status& last_error() const { return last_error_; }

 private:
  ThrottleStore& store_;
  ThrottleConfig config_;
  Status last_error_;
};

}  // namespace adj
