// The order-file parser's parts (parser.h is the interface): the characters and text of a line
// (order_text.cc), the words of one order line and their messages (order_words.cc), and the
// parser itself (parser.cc). The messages are documented in schemas/orders/grammar.md. Internal
// to rules/orders; pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "base/ascii.h"
#include "rules/orders/order.h"

namespace adj::order_parse {

using ascii::iequals;
using ascii::istarts_with;
using ascii::upper;
using std::string;
using std::string_view;

// Numbers longer than this are "too large" (keeps every value inside int).
inline constexpr std::size_t kMaxDigits = 9;
inline constexpr string_view kReplacementChar = "\xEF\xBF\xBD";  // U+FFFD

// Characters and text (order_text.cc).
inline bool is_digit(char c) { return c >= '0' && c <= '9'; }

inline bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// An ASCII control character other than tab, VT and FF (which count as spaces), or DEL.
inline bool is_bad_ascii(unsigned char c) {
  return (c < 0x20 && c != '\t' && c != '\v' && c != '\f') || c == 0x7F;
}

inline bool is_printable_ascii_byte(unsigned char c) {
  return (c >= 0x20 && c < 0x7F) || c == '\t';
}

// Length of the multi-byte space character (NBSP and the other Unicode spaces, zero-width ones and
// a stray BOM) starting at s[i], or 0. REQUIRES: s[i] >= 0x80.
std::size_t unicode_space_len(string_view s, std::size_t i);
// Length of the whitespace character at s[i], or 0.
inline std::size_t space_len(string_view s, std::size_t i) {
  const unsigned char c = static_cast<unsigned char>(s[i]);
  if (c == ' ' || c == '\t' || c == '\v' || c == '\f') return 1;
  if (c < 0x80) return 0;
  return unicode_space_len(s, i);
}

// Length of the whitespace character that ends s, or 0.
std::size_t trailing_space_len(string_view s);
// s without the whitespace (ASCII or Unicode spaces) at either end.
string_view trim(string_view s);
// True when s is only printable ASCII and tabs. Checks 8 bytes at a time: a word with no byte
// >= 0x80, < 0x20 or == 0x7F is printable; any other word is checked byte by byte.
bool is_printable_ascii(string_view s);
// True when s is UTF-8 text without NUL or control characters.
bool is_readable(string_view s);
// s with every byte that is not readable text replaced by U+FFFD, so the result is valid UTF-8.
string sanitise(string_view s);
// True when s holds nothing but whitespace and control characters (e.g. a DOS end-of-file mark).
bool only_noise(string_view s);

// The words of one order line (order_words.cc).

// Whitespace-separated words of one line, read left to right.
class Tokens {
 public:
  explicit Tokens(string_view s) : s_(s) {}

  // The next word, or "" at the end of the line.
  string_view next() {
    std::size_t i = pos_;
    while (i < s_.size()) {
      std::size_t n = space_len(s_, i);
      if (n == 0) break;
      i += n;
    }
    std::size_t start = i;
    while (i < s_.size() && space_len(s_, i) == 0) ++i;
    pos_ = i;
    return s_.substr(start, i - start);
  }

  string_view peek() {
    std::size_t saved = pos_;
    string_view t = next();
    pos_ = saved;
    return t;
  }

 private:
  string_view s_;
  std::size_t pos_ = 0;
};

bool all_digits(string_view s);
bool all_alpha(string_view s);
// An area or player code: a letter, then letters, digits or underscores.
bool is_code(string_view s);
// REQUIRES: all_digits(s) && s.size() <= kMaxDigits.
int to_int(string_view s);
string quote(string_view s);
string usage(Verb v);
string extra_word(Verb v, string_view token);
string too_large(string_view token);
// Reads an area code for `v` into `out`. Returns "" or the reason the word is not one.
string area_arg(Verb v, string_view token, string& out);
// Reads an optional quantity and then KEYWORD <n> pairs. `all_but` allows AB-n.
// True when `word` followed by `next` is an option: a word of letters, then a number.
bool is_option(string_view word, string_view next);
// Reads KEYWORD <n> pairs into o.extras, starting with the already read word `tok`.
string options(Tokens& t, string_view tok, Order& o);
// Reads an optional quantity and then options. `all_but` allows AB-n.
string quantity_and_options(Tokens& t, Order& o, bool all_but);
// Reads the required plain number of GIFT and MIGRATE into o.qty.
string exact_number(string_view tok, Order& o);
// Reads the options of AMBUSH, RETREAT, DEFEND, GIFT, MIGRATE and INVADE, which take no (further)
// quantity: any other word after their arguments is extra.
string standing_options(Verb v, Tokens& t, Order& o);
// Parses the words after the verb into `o`. Returns "" or the reason the line is rejected.
string order_body(Verb v, Tokens& t, Order& o);

}  // namespace adj::order_parse
