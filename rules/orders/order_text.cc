#include <cstring>

#include "rules/orders/parser_internal.h"

namespace adj::order_parse {

// ---------------------------------------------------------------------------------------------
// Characters.

// Length of the multi-byte space character (NBSP and the other Unicode spaces, zero-width ones and
// a stray BOM) starting at s[i], or 0. REQUIRES: s[i] >= 0x80.
std::size_t unicode_space_len(string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) -> unsigned {
    return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0u;
  };
  const unsigned c0 = b(0);
  if (c0 == 0xC2) return (b(1) == 0xA0 || b(1) == 0x85) ? 2 : 0;  // U+00A0, U+0085
  if (c0 == 0xE2) {
    const unsigned c1 = b(1), c2 = b(2);
    if (c1 == 0x80 && ((c2 >= 0x80 && c2 <= 0x8B) || c2 == 0xAF)) return 3;  // U+2000..200B, 202F
    if (c1 == 0x81 && (c2 == 0x9F || c2 == 0xA0)) return 3;                  // U+205F, U+2060
    return 0;
  }
  if (c0 == 0xE3) return (b(1) == 0x80 && b(2) == 0x80) ? 3 : 0;  // U+3000
  if (c0 == 0xEF) return (b(1) == 0xBB && b(2) == 0xBF) ? 3 : 0;  // U+FEFF
  return 0;
}

// Length of the whitespace character that ends s, or 0.
std::size_t trailing_space_len(string_view s) {
  if (s.empty()) return 0;
  const unsigned char last = static_cast<unsigned char>(s.back());
  if (last < 0x80) return space_len(s, s.size() - 1);
  for (std::size_t len : {std::size_t{2}, std::size_t{3}})
    if (s.size() >= len && unicode_space_len(s, s.size() - len) == len) return len;
  return 0;
}

string_view trim(string_view s) {
  while (!s.empty()) {
    std::size_t n = space_len(s, 0);
    if (n == 0) break;
    s.remove_prefix(n);
  }
  while (!s.empty()) {
    std::size_t n = trailing_space_len(s);
    if (n == 0) break;
    s.remove_suffix(n);
  }
  return s;
}

// Length of the well-formed UTF-8 sequence at s[i] (RFC 3629: no overlongs, no surrogates, at
// most U+10FFFF), or 0 when the bytes there are not UTF-8. REQUIRES: s[i] >= 0x80.
std::size_t utf8_len(string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) -> unsigned {
    return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0u;
  };
  const auto cont = [](unsigned c) { return (c & 0xC0u) == 0x80u; };
  const unsigned c0 = b(0), c1 = b(1);
  if (c0 >= 0xC2 && c0 <= 0xDF) return cont(c1) ? 2 : 0;
  if (c0 >= 0xE0 && c0 <= 0xEF) {
    if (c0 == 0xE0 && c1 < 0xA0) return 0;   // overlong
    if (c0 == 0xED && c1 >= 0xA0) return 0;  // surrogates
    return cont(c1) && cont(b(2)) ? 3 : 0;
  }
  if (c0 >= 0xF0 && c0 <= 0xF4) {
    if (c0 == 0xF0 && c1 < 0x90) return 0;   // overlong
    if (c0 == 0xF4 && c1 >= 0x90) return 0;  // above U+10FFFF
    return cont(c1) && cont(b(2)) && cont(b(3)) ? 4 : 0;
  }
  return 0;
}

// True when s is only printable ASCII and tabs. Checks 8 bytes at a time: a word with no byte
// >= 0x80, < 0x20 or == 0x7F is printable; any other word is checked byte by byte.
bool is_printable_ascii(string_view s) {
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
  constexpr std::uint64_t kHighs = 0x8080808080808080ULL;
  const char* p = s.data();
  const std::size_t n = s.size();
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    std::uint64_t w;
    std::memcpy(&w, p + i, 8);
    const std::uint64_t del = w ^ (kOnes * 0x7F);
    const std::uint64_t odd =
        (w & kHighs) | ((w - kOnes * 0x20) & ~w & kHighs) | ((del - kOnes) & ~del & kHighs);
    if (odd == 0) continue;
    for (std::size_t k = i; k < i + 8; ++k)
      if (!is_printable_ascii_byte(static_cast<unsigned char>(p[k]))) return false;
  }
  for (; i < n; ++i)
    if (!is_printable_ascii_byte(static_cast<unsigned char>(p[i]))) return false;
  return true;
}

// True when s is UTF-8 text without NUL or control characters.
bool is_readable(string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if (is_bad_ascii(c)) return false;
      ++i;
      continue;
    }
    std::size_t n = utf8_len(s, i);
    if (n == 0) return false;
    if (n == 2 && c == 0xC2 && static_cast<unsigned char>(s[i + 1]) < 0xA0 &&
        static_cast<unsigned char>(s[i + 1]) != 0x85)
      return false;  // C1 control
    i += n;
  }
  return true;
}

// s with every byte that is not readable text replaced by U+FFFD, so the result is valid UTF-8.
string sanitise(string_view s) {
  string out;
  out.reserve(s.size() + 8);
  for (std::size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if (is_bad_ascii(c))
        out += kReplacementChar;
      else
        out += static_cast<char>(c);
      ++i;
      continue;
    }
    std::size_t n = utf8_len(s, i);
    if (n == 0 || (n == 2 && c == 0xC2 && static_cast<unsigned char>(s[i + 1]) < 0xA0 &&
                   static_cast<unsigned char>(s[i + 1]) != 0x85)) {
      out += kReplacementChar;
      i += n == 0 ? 1 : n;
      continue;
    }
    out.append(s.substr(i, n));
    i += n;
  }
  return out;
}

// True when s holds nothing but whitespace and control characters (e.g. a DOS end-of-file mark).
bool only_noise(string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80 && is_bad_ascii(c)) {
      ++i;
      continue;
    }
    std::size_t n = space_len(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

}  // namespace adj::order_parse
