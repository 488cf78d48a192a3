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

#include "rules/orders/parser_internal.h"

namespace adj::order_parse {

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
      string up = upper(string(code));
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
               quote(upper(string(word))) + " is not an action and cannot have an action number");
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

}  // namespace adj::order_parse

namespace adj {

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

  order_parse::Parser parser(out, actions_per_turn);
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
  using namespace order_parse;
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
