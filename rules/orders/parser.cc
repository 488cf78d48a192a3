// The order-file parser: memchr line splitting, string_view tokens, no regex; the only heap
// allocations are the output strings and vectors (reserved once per file). The grammar and every
// message are documented in schemas/orders/grammar.md: keep the two in step.
#include "rules/orders/parser.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>

#include "base/ascii.h"

namespace adj {

namespace {

using std::string;
using std::string_view;

// Numbers longer than this are "too large" (keeps every value inside int).
constexpr std::size_t kMaxDigits = 9;
constexpr string_view kReplacementChar = "\xEF\xBF\xBD";  // U+FFFD

// ---------------------------------------------------------------------------------------------
// Characters.

inline bool is_digit(char c) { return c >= '0' && c <= '9'; }
inline bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
using ascii::upper;

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

// Length of the whitespace character at s[i], or 0.
inline std::size_t space_len(string_view s, std::size_t i) {
  const unsigned char c = static_cast<unsigned char>(s[i]);
  if (c == ' ' || c == '\t' || c == '\v' || c == '\f') return 1;
  if (c < 0x80) return 0;
  return unicode_space_len(s, i);
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

// An ASCII control character other than tab, VT and FF (which count as spaces), or DEL.
inline bool is_bad_ascii(unsigned char c) {
  return (c < 0x20 && c != '\t' && c != '\v' && c != '\f') || c == 0x7F;
}

inline bool is_printable_ascii_byte(unsigned char c) {
  return (c >= 0x20 && c < 0x7F) || c == '\t';
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

// ---------------------------------------------------------------------------------------------
// Tokens.

using ascii::iequals;
using ascii::istarts_with;

bool all_digits(string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!is_digit(c)) return false;
  return true;
}

bool all_alpha(string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!is_alpha(c)) return false;
  return true;
}

// An area or player code: a letter, then letters, digits or underscores.
bool is_code(string_view s) {
  if (s.empty() || !is_alpha(s[0])) return false;
  for (char c : s)
    if (!is_alpha(c) && !is_digit(c) && c != '_') return false;
  return true;
}

// REQUIRES: all_digits(s) && s.size() <= kMaxDigits.
int to_int(string_view s) {
  int n = 0;
  for (char c : s) n = n * 10 + (c - '0');
  return n;
}

string upper_copy(string_view s) {
  string out(s);
  for (char& c : out) c = upper(c);
  return out;
}

string quote(string_view s) {
  string out;
  out.reserve(s.size() + 2);
  out += '"';
  out.append(s);
  out += '"';
  return out;
}

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

// ---------------------------------------------------------------------------------------------
// Messages (the table in grammar.md lists each one).

string usage(Verb v) {
  switch (v) {
    case Verb::kMove:
    case Verb::kAssault:
    case Verb::kProbe:
    case Verb::kOverrun:
      return string(verb_name(v)) + " needs <from> <to> [<n> | AB-<n>]";
    case Verb::kAmbush:
      return "AMBUSH needs <where> <against>";
    case Verb::kRetreat:
      return "RETREAT needs <from> [<to>]";
    case Verb::kDefend:
      return "DEFEND needs <where>";
    case Verb::kLevy:
      return "LEVY needs <where> [<n>]";
    case Verb::kOrder:
      return "ORDER needs [<bps>]";
    case Verb::kGift:
      return "GIFT needs <kingdom> <bps>";
    case Verb::kMigrate:
      return "MIGRATE needs <from> <to> <n>";
    case Verb::kSupport:
      return "SUPPORT needs <where> <to>";
    case Verb::kRaid:
      return "RAID needs <from> <to> [<n> | AB-<n>]";
    case Verb::kInvade:
      return "INVADE needs <from> <to> [-]";
  }
  return "";
}

string extra_word(Verb v, string_view token) {
  return usage(v) + "; " + quote(token) + " is extra";
}

string too_large(string_view token) { return quote(token) + " is too large a number"; }

// ---------------------------------------------------------------------------------------------
// Order lines.

// Reads an area code for `v` into `out`. Returns "" or the reason the word is not one.
string area_arg(Verb v, string_view token, string& out) {
  if (all_digits(token) || istarts_with(token, "AB-")) return usage(v);
  if (!is_code(token)) return quote(token) + " is not an area code";
  out = upper_copy(token);
  return {};
}

// Reads an optional quantity and then KEYWORD <n> pairs. `all_but` allows AB-n.
// True when `word` followed by `next` is an option: a word of letters, then a number.
bool is_option(string_view word, string_view next) { return all_alpha(word) && all_digits(next); }

// Reads KEYWORD <n> pairs into o.extras, starting with the already read word `tok`.
string options(Tokens& t, string_view tok, Order& o) {
  while (!tok.empty()) {
    if (!all_alpha(tok))
      return "unexpected " + quote(tok) +
             " (extra options are written as a word and a number, e.g. CARD 3)";
    string_view val = t.next();
    if (!all_digits(val)) return quote(tok) + " needs a number after it";
    if (val.size() > kMaxDigits) return too_large(val);
    string key = upper_copy(tok);
    if (!o.extras.emplace(key, to_int(val)).second) return quote(key) + " is given twice";
    tok = t.next();
  }
  return {};
}

// Reads an optional quantity and then options. `all_but` allows AB-n.
string quantity_and_options(Tokens& t, Order& o, bool all_but) {
  string_view tok = t.next();
  if (tok.empty()) return {};
  if (all_digits(tok)) {
    if (tok.size() > kMaxDigits) return too_large(tok);
    o.qty = {Quantity::Kind::kExact, to_int(tok)};
    tok = t.next();
  } else if (istarts_with(tok, "AB-") || iequals(tok, "AB")) {
    if (!all_but)
      return quote(tok) + ": \"all but\" is only for MOVE, ASSAULT, PROBE, OVERRUN and RAID";
    string_view n = tok.size() > 3 ? tok.substr(3) : string_view();
    if (!all_digits(n)) return quote(tok) + " is not a number of armies";
    if (n.size() > kMaxDigits) return too_large(tok);
    o.qty = {Quantity::Kind::kAllBut, to_int(n)};
    tok = t.next();
  } else if (!is_option(tok, t.peek())) {
    return quote(tok) + " is not a valid quantity";
  }
  return options(t, tok, o);
}

// Reads the required plain number of GIFT and MIGRATE into o.qty.
string exact_number(string_view tok, Order& o) {
  if (istarts_with(tok, "AB-") || iequals(tok, "AB"))
    return quote(tok) + ": \"all but\" is only for MOVE, ASSAULT, PROBE, OVERRUN and RAID";
  if (!all_digits(tok)) return quote(tok) + " is not a number";
  if (tok.size() > kMaxDigits) return too_large(tok);
  o.qty = {Quantity::Kind::kExact, to_int(tok)};
  return {};
}

// Reads the options of AMBUSH, RETREAT, DEFEND, GIFT, MIGRATE and INVADE, which take no (further)
// quantity: any other word after their arguments is extra.
string standing_options(Verb v, Tokens& t, Order& o) {
  string_view tok = t.next();
  if (tok.empty()) return {};
  if (!is_option(tok, t.peek())) return extra_word(v, tok);
  return options(t, tok, o);
}

// Parses the words after the verb into `o`. Returns "" or the reason the line is rejected.
string order_body(Verb v, Tokens& t, Order& o) {
  switch (v) {
    case Verb::kMove:
    case Verb::kAssault:
    case Verb::kProbe:
    case Verb::kOverrun:
    case Verb::kRaid: {  // RAID takes its number of armies like MOVE (seed 5.1)
      string_view from = t.next(), to = t.next();
      if (to.empty()) return usage(v);
      if (string r = area_arg(v, from, o.from); !r.empty()) return r;
      if (string r = area_arg(v, to, o.to); !r.empty()) return r;
      return quantity_and_options(t, o, true);
    }
    case Verb::kSupport:
    case Verb::kAmbush: {
      string_view where = t.next(), against = t.next();
      if (against.empty()) return usage(v);
      if (string r = area_arg(v, where, o.from); !r.empty()) return r;
      if (string r = area_arg(v, against, o.to); !r.empty()) return r;
      return standing_options(v, t, o);
    }
    case Verb::kRetreat: {
      string_view where = t.next();
      if (where.empty()) return usage(v);
      if (string r = area_arg(v, where, o.from); !r.empty()) return r;
      // The second word is the retreat location unless it begins an option ("CARD 3").
      Tokens ahead = t;
      const string_view to = ahead.next();
      if (!to.empty() && !is_option(to, ahead.peek())) {
        t.next();
        if (string r = area_arg(v, to, o.to); !r.empty()) return r;
      }
      return standing_options(v, t, o);
    }
    case Verb::kDefend: {
      string_view where = t.next();
      if (where.empty()) return usage(v);
      if (string r = area_arg(v, where, o.from); !r.empty()) return r;
      return standing_options(v, t, o);
    }
    case Verb::kLevy: {
      string_view where = t.next();
      if (where.empty()) return usage(v);
      if (string r = area_arg(v, where, o.from); !r.empty()) return r;
      return quantity_and_options(t, o, false);
    }
    case Verb::kOrder:
      return quantity_and_options(t, o, false);
    case Verb::kGift: {
      string_view who = t.next(), n = t.next();
      if (n.empty()) return usage(v);
      if (all_digits(who) || istarts_with(who, "AB-") || !is_code(who))
        return quote(who) + " is not a kingdom code";
      o.to = upper_copy(who);
      if (string r = exact_number(n, o); !r.empty()) return r;
      return standing_options(v, t, o);
    }
    case Verb::kInvade: {
      // The turnsheet's number box is NOT USED: `-` or nothing (docs/rules/dark-age.md §1.9).
      string_view from = t.next(), to = t.next();
      if (to.empty()) return usage(v);
      if (string r = area_arg(v, from, o.from); !r.empty()) return r;
      if (string r = area_arg(v, to, o.to); !r.empty()) return r;
      if (t.peek() == "-") t.next();
      return standing_options(v, t, o);
    }
    case Verb::kMigrate: {
      string_view from = t.next(), to = t.next(), n = t.next();
      if (n.empty()) return usage(v);
      if (string r = area_arg(v, from, o.from); !r.empty()) return r;
      if (string r = area_arg(v, to, o.to); !r.empty()) return r;
      if (string r = exact_number(n, o); !r.empty()) return r;
      return standing_options(v, t, o);
    }
  }
  return usage(v);
}

enum class Header { kNone, kGame, kPlayer, kTurn, kEnd };

Header header_of(string_view word) {
  switch (word.size()) {
    case 3:
      return iequals(word, "END") ? Header::kEnd : Header::kNone;
    case 4:
      if (iequals(word, "GAME")) return Header::kGame;
      if (iequals(word, "TURN")) return Header::kTurn;
      return Header::kNone;
    case 6:
      return iequals(word, "PLAYER") ? Header::kPlayer : Header::kNone;
    default:
      return Header::kNone;
  }
}

class Parser {
 public:
  Parser(ParsedOrderFile& out, int actions_per_turn)
      : out_(out), max_(actions_per_turn < 0 ? 0 : actions_per_turn) {}

  // Handles one physical line (terminator removed). Returns false at END.
  bool line(string_view raw, int number);
  void finish();

 private:
  std::string line_prefix(int number) const { return "line " + std::to_string(number) + ": "; }
  void header(Header h, Tokens& t, int number);
  void reject(int number, std::optional<int> action, string text, string reason) {
    out_.lines.push_back({number, action, std::move(text), false, std::move(reason)});
  }
  // The slot an unnumbered line takes, or nullopt when all are used.
  std::optional<int> next_slot() {
    if (prev_ >= max_) return std::nullopt;
    return ++prev_;
  }
  // Why `o` (the last of out_.orders, numbered like the previous order line) may not join the
  // orders already in its slot as a combined attack; empty when it may.
  string join_reason(const Order& o) const;
  const string& too_many() {
    if (too_many_.empty())
      too_many_ = "too many actions: this game allows " + std::to_string(max_) + " per turn";
    return too_many_;
  }

  ParsedOrderFile& out_;
  int max_;
  int prev_ = 0;  // the slot of the last order line that took one
  int game_line_ = 0, player_line_ = 0, turn_line_ = 0;
  string too_many_;
};

void Parser::header(Header h, Tokens& t, int number) {
  switch (h) {
    case Header::kGame: {
      string_view id = t.next();
      if (id.empty()) {
        out_.fatal.push_back(line_prefix(number) + "GAME needs <game-id>");
        return;
      }
      if (string_view extra = t.next(); !extra.empty()) {
        out_.fatal.push_back(line_prefix(number) + "GAME needs just <game-id>; " + quote(extra) +
                             " is extra");
        return;
      }
      if (!out_.game) {
        out_.game = string(id);
        game_line_ = number;
      } else {
        bool same = out_.game->size() == id.size();
        for (std::size_t i = 0; same && i < id.size(); ++i)
          same = upper((*out_.game)[i]) == upper(id[i]);
        if (!same)
          out_.fatal.push_back(line_prefix(number) + "GAME " + quote(id) + " differs from GAME " +
                               quote(*out_.game) + " on line " + std::to_string(game_line_));
      }
      return;
    }
    case Header::kPlayer: {
      string_view code = t.next(), secret = t.next();
      // Messages here never name the words: one of them is the secret.
      if (secret.empty() || !is_code(code)) {
        out_.fatal.push_back(line_prefix(number) + "PLAYER needs <player-code> <secret>");
        return;
      }
      if (!t.next().empty()) {
        out_.fatal.push_back(line_prefix(number) +
                             "PLAYER needs <player-code> <secret> (the secret is one word)");
        return;
      }
      string up = upper_copy(code);
      if (!out_.player) {
        out_.player = std::move(up);
        out_.secret = string(secret);
        player_line_ = number;
      } else if (*out_.player != up || *out_.secret != secret) {
        out_.fatal.push_back(line_prefix(number) +
                             "this PLAYER line differs from the one on line " +
                             std::to_string(player_line_));
      }
      return;
    }
    case Header::kTurn: {
      string_view n = t.next();
      if (n.empty()) {
        out_.fatal.push_back(line_prefix(number) + "TURN needs <n>");
        return;
      }
      if (!all_digits(n) || n.size() > kMaxDigits) {
        out_.fatal.push_back(line_prefix(number) + quote(n) + " is not a turn number");
        return;
      }
      if (string_view extra = t.next(); !extra.empty()) {
        out_.fatal.push_back(line_prefix(number) + "TURN needs just <n>; " + quote(extra) +
                             " is extra");
        return;
      }
      int turn = to_int(n);
      if (!out_.turn) {
        out_.turn = turn;
        turn_line_ = number;
      } else if (*out_.turn != turn) {
        out_.fatal.push_back(line_prefix(number) + "TURN " + std::to_string(turn) +
                             " differs from TURN " + std::to_string(*out_.turn) + " on line " +
                             std::to_string(turn_line_));
      }
      return;
    }
    case Header::kNone:
    case Header::kEnd:
      return;
  }
}

// "3. MOVE A B" -> "MOVE A B": the order as the report lists it next to its action number.
string without_action_number(string_view s) {
  std::size_t i = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
  if (i == 0 || i == s.size() || (s[i] != '.' && s[i] != ')')) return string(s);
  ++i;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  return string(s.substr(i));
}

bool Parser::line(string_view raw, int number) {
  string_view content = raw;
  if (std::size_t hash = content.find('#'); hash != string_view::npos)
    content = content.substr(0, hash);
  // Lines made only of printable ASCII skip the UTF-8 checks.
  if (!is_printable_ascii(content) && !is_readable(content)) {
    if (only_noise(content)) return true;
    std::optional<int> slot = next_slot();
    reject(number, slot, sanitise(trim(content)),
           "this line is not readable text (it has control characters or bytes that are not "
           "UTF-8)");
    return true;
  }
  content = trim(content);
  if (content.empty()) return true;

  Tokens t(content);
  string_view word = t.next();

  // Header lines and END.
  if (Header h = header_of(word); h != Header::kNone) {
    if (h == Header::kEnd) return false;
    header(h, t, number);
    return true;
  }

  // DRAW: a proposal, not an action (ParsedOrderFile::draw_line).
  if (iequals(word, "DRAW")) {
    if (string_view extra = t.next(); !extra.empty()) {
      reject(number, std::nullopt, string(content),
             "DRAW takes nothing after it: write DRAW alone on its line to propose a draw");
      return true;
    }
    if (!out_.draw_line) out_.draw_line = number;
    return true;
  }

  // A leading action number: "3." or "3)", alone or glued to the verb.
  std::optional<int> slot;
  bool joining = false;
  string_view numtext;
  if (is_digit(word[0])) {
    std::size_t i = 0;
    while (i < word.size() && is_digit(word[i])) ++i;
    if (i == word.size()) {
      reject(number, next_slot(), string(content),
             "write the action number as \"" + string(word) + ".\" or \"" + string(word) + ")\"");
      return true;
    }
    if (word[i] == '.' || word[i] == ')') {
      numtext = word.substr(0, i);
      word = word.substr(i + 1);
      if (word.empty()) word = t.next();
      const bool huge = numtext.size() > kMaxDigits;
      const int k = huge ? 0 : to_int(numtext);
      if (huge || k < 1 || k > max_) {
        reject(
            number, std::nullopt, string(content),
            "action number " + string(numtext) + " is not between 1 and " + std::to_string(max_));
        return true;
      }
      // The same number again joins the previous line in a combined attack (checked below).
      joining = k == prev_ && k > 0;
      if (k < prev_) {
        reject(
            number, std::nullopt, string(content),
            "action number " + std::to_string(k) + " is not after action " + std::to_string(prev_));
        return true;
      }
      prev_ = k;
      slot = k;
      if (word.empty()) return true;  // "5." alone: action 5 is deliberately left empty
      if (iequals(word, "DRAW")) {
        reject(number, slot, string(content),
               "DRAW is not an action and takes no action number: write DRAW alone on its line");
        return true;
      }
      if (Header h = header_of(word); h == Header::kEnd) {
        return false;
      } else if (h != Header::kNone) {
        reject(number, slot, string(content),
               quote(upper_copy(word)) + " is not an action and cannot have an action number");
        return true;
      }
    }
  }
  if (!slot) {
    slot = next_slot();
    if (!slot) {
      reject(number, std::nullopt, string(content), too_many());
      return true;
    }
  }

  std::optional<Verb> verb = verb_from_name(word);
  if (!verb) {
    reject(number, slot, string(content), "unknown action " + quote(word));
    return true;
  }
  // Built in place; removed again if the line turns out to be wrong.
  Order& o = out_.orders.emplace_back();
  o.line = number;
  o.action = *slot;
  o.verb = *verb;
  string reason = order_body(*verb, t, o);
  if (!reason.empty()) {
    out_.orders.pop_back();
    reject(number, slot, string(content), std::move(reason));
    return true;
  }
  o.text = without_action_number(content);
  if (joining) {
    if (string why = join_reason(o); !why.empty()) {
      out_.orders.pop_back();
      reject(number, std::nullopt, string(content), std::move(why));  // uses no action
      return true;
    }
  }
  out_.lines.push_back({number, slot, string(content), true, {}});
  return true;
}

string Parser::join_reason(const Order& o) const {
  // The accepted orders of this slot so far (all but `o`, which is last).
  std::vector<const Order*> slot;
  for (std::size_t i = 0; i + 1 < out_.orders.size(); ++i)
    if (out_.orders[i].action == o.action) slot.push_back(&out_.orders[i]);
  const string n = std::to_string(o.action);
  const string rule =
      "only attacks with the same action on the same area, each from a different area, may share "
      "an action number (a combined attack)";
  if (!is_attack_verb(o.verb)) return "action number " + n + " is not after action " + n;
  // No accepted attack holds the action (it was left empty, "5.", or its line was rejected, by
  // the parser or, later, by the validator): the attack takes it on its own.
  if (slot.empty()) return {};
  const Order& first = *slot.front();
  if (!is_attack_verb(first.verb))
    return "action " + n + " is already used (" + first.text + "); " + rule;
  if (o.verb != first.verb)
    return "action " + n + " is a " + verb_name(first.verb) + " (" + first.text + "); a combined " +
           "attack uses one action: write " + verb_name(first.verb) + " here too, or use another " +
           "action number";
  if (o.to != first.to)
    return "action " + n + " attacks " + first.to + " (" + first.text + "); " + rule;
  if (!o.extras.empty())
    return "keyword arguments (" + o.extras.begin()->first + " ...) of a combined attack go on " +
           "its first line (" + first.text + ")";
  for (const Order* x : slot)
    if (x->from == o.from)
      return "action " + n + " already attacks from " + o.from + " (" + x->text +
             "); name each area once in a combined attack";
  return {};
}

void Parser::finish() {
  if (!out_.game) out_.fatal.push_back("the file has no GAME line (GAME <game-id>)");
  if (!out_.player)
    out_.fatal.push_back("the file has no PLAYER line (PLAYER <player-code> <secret>)");
}

}  // namespace

ParsedOrderFile parse_order_file(std::string_view text, int actions_per_turn) {
  ParsedOrderFile out;
  if (text.size() > kMaxOrderFileBytes) {
    out.fatal.push_back("the file is " + std::to_string(text.size()) +
                        " bytes; order files are limited to " + std::to_string(kMaxOrderFileBytes) +
                        " bytes");
    return out;
  }
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  if (text.starts_with("\xFF\xFE") || text.starts_with("\xFE\xFF")) {
    out.fatal.push_back(
        "the file is UTF-16 text; send orders as plain text (ASCII or UTF-8) instead");
    return out;
  }

  Parser parser(out, actions_per_turn);
  const char* const data = text.data();
  const std::size_t size = text.size();
  const bool has_cr = std::memchr(data, '\r', size) != nullptr;
  // Reserve for the worst case (every line an order line) so the vectors never move.
  std::size_t max_lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
  if (has_cr) max_lines += static_cast<std::size_t>(std::count(text.begin(), text.end(), '\r'));
  out.lines.reserve(max_lines);
  out.orders.reserve(std::min<std::size_t>(
      max_lines, static_cast<std::size_t>(actions_per_turn < 0 ? 0 : actions_per_turn)));

  std::size_t pos = 0;
  int number = 0;
  while (pos < size) {
    const void* nl = std::memchr(data + pos, '\n', size - pos);
    std::size_t end = nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - data) : size;
    if (has_cr)
      if (const void* cr = std::memchr(data + pos, '\r', end - pos))
        end = static_cast<std::size_t>(static_cast<const char*>(cr) - data);
    ++number;
    if (!parser.line(text.substr(pos, end - pos), number)) break;
    pos = end + 1;
    if (end < size && data[end] == '\r' && pos < size && data[pos] == '\n') ++pos;
  }
  parser.finish();
  return out;
}

std::string mask_player_secret(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t end = text.find_first_of("\r\n", pos);
    if (end == string_view::npos) end = text.size();
    string_view line = text.substr(pos, end - pos);
    string_view content = line.substr(0, std::min(line.find('#'), line.size()));
    Tokens t(content);
    if (header_of(t.next()) == Header::kPlayer && !t.next().empty() && !t.next().empty()) {
      // Everything after the code up to a comment is the secret (the parser refuses two words).
      Tokens again(content);
      again.next();
      string_view code = again.next();
      const std::size_t from = static_cast<std::size_t>(code.data() + code.size() - line.data());
      string_view rest = trim(line.substr(from, content.size() - from));
      const std::size_t at = static_cast<std::size_t>(rest.data() - line.data());
      out.append(line.substr(0, at));
      out.append("********");
      out.append(line.substr(at + rest.size()));
    } else {
      out.append(line);
    }
    if (end == text.size()) break;
    out.push_back(text[end]);
    pos = end + 1;
  }
  return out;
}

}  // namespace adj
