#include "base/sha256.h"

#include <sodium.h>

namespace adj {

std::string sha256_hex_of(std::string_view data) {
  unsigned char digest[crypto_hash_sha256_BYTES];
  crypto_hash_sha256(digest, reinterpret_cast<const unsigned char*>(data.data()), data.size());
  char hex[2 * crypto_hash_sha256_BYTES + 1];
  sodium_bin2hex(hex, sizeof hex, digest, sizeof digest);
  return std::string(hex, 2 * crypto_hash_sha256_BYTES);
}

}  // namespace adj
