// SHA-256 (FIPS 180-4) of a byte string, for the application layer, which links no crypto
// library: the fingerprint kept of a refused order file (stored_text.h). Pure; thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace adj {

// The SHA-256 of `data` as 64 lower-case hex digits.
std::string sha256_hex_of(std::string_view data);

}  // namespace adj
