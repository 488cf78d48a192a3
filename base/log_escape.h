// Escaping outside data for the logs. Every value that came from outside the process (URL paths
// and queries, headers, SMTP commands and addresses, Message-IDs, subjects, game ids from requests,
// file names, error texts that may quote any of these) goes through log_escape() before it reaches
// spdlog, so that no input can forge a log line or a key=value field. Pure; thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace adj {

// Bytes of input kept by default; the rest is cut and "..." appended.
inline constexpr std::size_t kLogValueMax = 256;

// `s` made safe inside a double-quoted logfmt value: backslash and double quote become \\ and \",
// CR, LF and tab become \r \n \t, every other control byte (below 0x20, and 0x7f), and every byte
// not part of well-formed UTF-8, becomes \xNN. Well-formed UTF-8 sequences are kept. At most
// `max_bytes` bytes of `s` are escaped (never cutting a UTF-8 sequence); when `s` is longer,
// "..." follows. The result contains no byte below 0x20, no 0x7f and no bare '"'.
std::string log_escape(std::string_view s, std::size_t max_bytes = kLogValueMax);

// Length of the well-formed UTF-8 sequence of two or more bytes starting at s[i] (RFC 3629: no
// overlongs, no surrogates, nothing above U+10FFFF), or 0 (also for an ASCII byte).
// REQUIRES: i < s.size().
std::size_t utf8_sequence_length(std::string_view s, std::size_t i);

}  // namespace adj
