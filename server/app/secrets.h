// Player secrets and link tokens at rest (libsodium). Secrets are stored only as Argon2id hashes
// (crypto_pwhash_str: salted, slow, self-describing strings "$argon2id$v=19$m=...,t=...,p=1$...");
// link tokens, 128 random bits each, only as keyless BLAKE2b hashes (crypto_generichash), which is
// enough for a value that cannot be guessed. The rules library never sees either: the validator
// gets a SecretCheck (rules/orders/validator.h) that calls verify_secret.
//
// Thread-safety: every function may be called from any thread. At most `max_concurrent` Argon2id
// computations (hash or verify) run at once in the process; further callers wait, so a flood of
// sign-ins or order files cannot take more than max_concurrent * memlimit bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "rules/core/status.h"

namespace adj {

struct SecretHashCost {
  unsigned long long opslimit = 2;   // Argon2id passes (libsodium INTERACTIVE is 2)
  std::size_t memlimit = 64u << 20;  // bytes (libsodium INTERACTIVE is 64 MiB)
  int max_concurrent = 2;            // Argon2id computations at once in the process
  // Of max_concurrent, the computations hash_secrets leaves to sign-ins and order checks while a
  // game is created (they share the gate): 1 in the daemon, 0 for a command line run.
  int reserved_for_checks = 0;
};

// The cost used from now on (new hashes; existing hashes keep the cost they were made with).
// InvalidArgument (nothing changed) when outside libsodium's bounds or max_concurrent < 1.
// Call it at start, before other threads hash. Defaults: SecretHashCost{}, overridden by the
// environment variables ADJUTANT_ARGON2_OPSLIMIT, ADJUTANT_ARGON2_MEMLIMIT_KIB and
// ADJUTANT_ARGON2_THREADS when set (read on first use).
Status set_secret_hash_cost(const SecretHashCost& cost);
SecretHashCost secret_hash_cost();

// Argon2id string of `secret` with a fresh random salt. Internal when libsodium fails (out of
// memory).
Result<std::string> hash_secret(std::string_view secret);
// hash_secret of each of `secrets`, in order, on max_concurrent - reserved_for_checks threads (at
// least one) at once: a game of thousands of players is created that many times faster. The
// first failure.
Result<std::vector<std::string>> hash_secrets(const std::vector<std::string>& secrets);
// About how long hash_secrets of `count` secrets takes on this machine, in seconds: a hash is
// timed (once per process, after a first one that pays for the memory) and scaled by the threads.
double hash_secrets_estimate(std::size_t count);
// True when `secret` matches `hash` (from hash_secret). False for an empty or malformed hash.
// Constant time in the secret (libsodium).
bool verify_secret(std::string_view secret, const std::string& hash);

// A new secret for a player: 12 characters from an alphabet without look-alikes (about 60 bits),
// e.g. "k7mq-x3vd-9tpe". Uniform (libsodium randombytes_uniform).
std::string new_secret();
// A new link token: 128 random bits as 32 lower-case hex digits.
std::string new_token();
// A new game seed: 64 random bits (libsodium randombytes_buf). Every game gets one unless its GM
// sets a seed; nobody can foresee its dice (docs/security.md).
std::uint64_t new_game_seed();
// The stored form of a link token: 64 lower-case hex digits (BLAKE2b-256). Any input is accepted.
std::string hash_token(std::string_view token);

// True when `secret` is acceptable as a player's new secret: 8 to 64 printable ASCII characters
// other than space and '#' (one word on a PLAYER line). `why` gets the reason otherwise.
bool acceptable_secret(std::string_view secret, std::string* why);

}  // namespace adj
