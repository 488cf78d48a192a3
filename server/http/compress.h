// One-shot compression of whole answers, for the response cache (made once per cached answer,
// never per request). Pure functions over bytes; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace adj::http {

// gzip (RFC 1952) of `data` at zlib level 9, or nullopt when zlib fails.
std::optional<std::string> gzip_compress(std::string_view data);

// Brotli (RFC 7932) of `data` at `quality` (0..11; text mode, window 22), or nullopt on failure.
std::optional<std::string> brotli_compress(std::string_view data, int quality = 9);

// The inverse of gzip_compress, bounded: nullopt when `data` is not gzip or inflates past
// `max_size` bytes. For tests and for checking what was made.
std::optional<std::string> gzip_decompress(std::string_view data, std::size_t max_size);

}  // namespace adj::http
