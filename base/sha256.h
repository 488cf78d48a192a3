// SHA-256 of a byte string (libsodium's crypto_hash_sha256): the fingerprint kept of a refused
// order file (stored_text.h) and the content hashes of mail (server/mail). Thread-safe; libsodium
// needs no sodium_init() for hashing.
#pragma once

#include <string>
#include <string_view>

namespace adj {

// The SHA-256 of `data` as 64 lower-case hex digits.
std::string sha256_hex_of(std::string_view data);

}  // namespace adj
