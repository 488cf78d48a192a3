#include "rules/game/state_reader.h"

#include "rules/game/state_fields.h"

#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace adj {

namespace {

// One pass over the text. Every reader returns false when the text leaves the subset this reader
// handles (state_reader.h); the caller then falls back to the tree. What the structs hold, and
// their defaults, come from their descriptions (rules/game/state_fields.h).
class Reader {
 public:
  explicit Reader(std::string_view text) : p_(text.data()), end_(text.data() + text.size()) {}

  // A described struct (rules/game/state_fields.h): an object, or an array for a tuple type.
  template <class T>
  bool described(T& x);
  // Whether the text ends after optional whitespace.
  bool at_end() {
    ws();
    return p_ == end_;
  }
  // Whether the struct being read is a tuple (its members are matched by position).
  bool tuple() const { return tuple_; }

  // Where reading an object's members is: the key of the member whose value comes next.
  struct Cursor {
    std::string_view pending;
    bool done = false;  // the object's closing brace was read
  };
  // The object's opening brace and its first key (or its closing brace).
  bool first_member(Cursor& c) {
    if (!eat('{')) return false;
    if (eat('}')) return c.done = true;
    return key(c.pending) && eat(':');
  }
  // After a member's value: the next key, or the closing brace.
  bool next_member(Cursor& c) {
    if (eat(',')) return key(c.pending) && eat(':');
    return eat('}') && (c.done = true);
  }

  bool string(std::string& out);
  bool integer(int& out);
  bool optional_string(std::optional<std::string>& out);
  // null (nullopt) or a number as nlohmann reads it into a double.
  bool optional_number(std::optional<double>& out);
  // A string holding a decimal std::uint64_t, without sign, space or anything else.
  bool decimal(std::uint64_t& out);
  // Any value, parsed by nlohmann from its own span ({} directly).
  bool json(Json& out);
  // [v, ...] appended to `out`, each element read by read(out.back()).
  template <typename T, typename Read>
  bool list(std::vector<T>& out, Read&& read);

 private:
  void ws() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
  }
  bool eat(char c) {
    ws();
    if (p_ < end_ && *p_ == c) {
      ++p_;
      return true;
    }
    return false;
  }
  bool at_null() {
    ws();
    if (end_ - p_ >= 4 && std::string_view(p_, 4) == "null") {
      p_ += 4;
      return true;
    }
    return false;
  }

  // A key without escapes or bytes outside printable ASCII (others: false).
  bool key(std::string_view& out);
  bool escape(std::string& out);
  bool number(double& out);

  // [v, ...]: element() reads each value.
  template <typename Element>
  bool array(Element&& element);

  const char* p_;
  const char* end_;
  bool tuple_ = false;
};

// Bytes of the UTF-8 sequence at p that nlohmann's lexer accepts, 0 when it would refuse it.
int utf8_length(const char* p, const char* end) {
  const auto b = [&](int i) { return static_cast<unsigned char>(p[i]); };
  const auto in = [&](int i, unsigned lo, unsigned hi) {
    return p + i < end && b(i) >= lo && b(i) <= hi;
  };
  const unsigned c = b(0);
  if (c >= 0xC2 && c <= 0xDF) return in(1, 0x80, 0xBF) ? 2 : 0;
  if (c == 0xE0) return in(1, 0xA0, 0xBF) && in(2, 0x80, 0xBF) ? 3 : 0;
  if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF)
    return in(1, 0x80, 0xBF) && in(2, 0x80, 0xBF) ? 3 : 0;
  if (c == 0xED) return in(1, 0x80, 0x9F) && in(2, 0x80, 0xBF) ? 3 : 0;
  if (c == 0xF0) return in(1, 0x90, 0xBF) && in(2, 0x80, 0xBF) && in(3, 0x80, 0xBF) ? 4 : 0;
  if (c >= 0xF1 && c <= 0xF3)
    return in(1, 0x80, 0xBF) && in(2, 0x80, 0xBF) && in(3, 0x80, 0xBF) ? 4 : 0;
  if (c == 0xF4) return in(1, 0x80, 0x8F) && in(2, 0x80, 0xBF) && in(3, 0x80, 0xBF) ? 4 : 0;
  return 0;
}

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

bool hex4(const char* p, const char* end, std::uint32_t& out) {
  if (end - p < 4) return false;
  out = 0;
  for (int i = 0; i < 4; ++i) {
    const char c = p[i];
    const int d = c >= '0' && c <= '9'   ? c - '0'
                  : c >= 'a' && c <= 'f' ? c - 'a' + 10
                  : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                         : -1;
    if (d < 0) return false;
    out = out * 16 + static_cast<std::uint32_t>(d);
  }
  return true;
}

bool Reader::key(std::string_view& out) {
  if (!eat('"')) return false;
  const char* start = p_;
  while (p_ < end_) {
    const auto c = static_cast<unsigned char>(*p_);
    if (c == '"') {
      out = std::string_view(start, static_cast<std::size_t>(p_ - start));
      ++p_;
      return true;
    }
    if (c == '\\' || c < 0x20 || c >= 0x80) return false;
    ++p_;
  }
  return false;
}

bool Reader::string(std::string& out) {
  if (!eat('"')) return false;
  out.clear();
  const char* run = p_;
  while (p_ < end_) {
    const auto c = static_cast<unsigned char>(*p_);
    if (c == '"') {
      out.append(run, p_);
      ++p_;
      return true;
    }
    if (c < 0x20) return false;
    if (c == '\\') {
      out.append(run, p_);
      if (!escape(out)) return false;
      run = p_;
    } else if (c < 0x80) {
      ++p_;
    } else {
      const int n = utf8_length(p_, end_);
      if (n == 0) return false;
      p_ += n;
    }
  }
  return false;
}

bool Reader::escape(std::string& out) {
  if (end_ - p_ < 2) return false;
  const char c = p_[1];
  p_ += 2;
  switch (c) {
    case '"':
    case '\\':
    case '/':
      out += c;
      return true;
    case 'b':
      out += '\b';
      return true;
    case 'f':
      out += '\f';
      return true;
    case 'n':
      out += '\n';
      return true;
    case 'r':
      out += '\r';
      return true;
    case 't':
      out += '\t';
      return true;
    case 'u':
      break;
    default:
      return false;
  }
  std::uint32_t cp = 0;
  if (!hex4(p_, end_, cp)) return false;
  p_ += 4;
  if (cp >= 0xDC00 && cp <= 0xDFFF) return false;
  if (cp >= 0xD800 && cp <= 0xDBFF) {
    std::uint32_t low = 0;
    if (end_ - p_ < 6 || p_[0] != '\\' || p_[1] != 'u' || !hex4(p_ + 2, end_, low) ||
        low < 0xDC00 || low > 0xDFFF)
      return false;
    p_ += 6;
    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
  }
  append_utf8(out, cp);
  return true;
}

// An integer token in int range; false for fractions, exponents and anything else.
bool Reader::integer(int& out) {
  ws();
  bool negative = false;
  if (p_ < end_ && *p_ == '-') {
    negative = true;
    ++p_;
  }
  const char* digits = p_;
  std::int64_t v = 0;
  while (p_ < end_ && *p_ >= '0' && *p_ <= '9') {
    if (p_ - digits >= 11) return false;
    v = v * 10 + (*p_ - '0');
    ++p_;
  }
  if (p_ == digits || (*digits == '0' && p_ - digits > 1)) return false;
  if (p_ < end_ && (*p_ == '.' || *p_ == 'e' || *p_ == 'E')) return false;
  if (negative) v = -v;
  if (v < INT_MIN || v > INT_MAX) return false;
  out = static_cast<int>(v);
  return true;
}

// A number as nlohmann reads it into a double: an integer token converted, otherwise strtod.
bool Reader::number(double& out) {
  ws();
  const char* start = p_;
  if (p_ < end_ && *p_ == '-') ++p_;
  const char* digits = p_;
  while (p_ < end_ && *p_ >= '0' && *p_ <= '9') ++p_;
  if (p_ == digits || (*digits == '0' && p_ - digits > 1)) return false;
  bool fraction = false;
  if (p_ < end_ && *p_ == '.') {
    fraction = true;
    const char* f = ++p_;
    while (p_ < end_ && *p_ >= '0' && *p_ <= '9') ++p_;
    if (p_ == f) return false;
  }
  if (p_ < end_ && (*p_ == 'e' || *p_ == 'E')) {
    fraction = true;
    ++p_;
    if (p_ < end_ && (*p_ == '+' || *p_ == '-')) ++p_;
    const char* e = p_;
    while (p_ < end_ && *p_ >= '0' && *p_ <= '9') ++p_;
    if (p_ == e) return false;
  }
  const std::string token(start, p_);
  if (!fraction) {
    if (token.size() > 16) return false;  // nlohmann may read it as unsigned or as a double
    out = static_cast<double>(std::strtoll(token.c_str(), nullptr, 10));
    return true;
  }
  out = std::strtod(token.c_str(), nullptr);
  return std::isfinite(out);
}

bool Reader::optional_number(std::optional<double>& out) {
  if (at_null()) {
    out.reset();
    return true;
  }
  double v = 0;
  if (!number(v)) return false;
  out = v;
  return true;
}

bool Reader::decimal(std::uint64_t& out) {
  std::string text;
  if (!string(text) || text.empty()) return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

bool Reader::optional_string(std::optional<std::string>& out) {
  if (at_null()) {
    out.reset();
    return true;
  }
  std::string s;
  if (!string(s)) return false;
  out = std::move(s);
  return true;
}

bool Reader::json(Json& out) {
  ws();
  if (end_ - p_ >= 2 && p_[0] == '{' && p_[1] == '}') {
    p_ += 2;
    out = Json::object();
    return true;
  }
  const std::size_t n =
      json_value_length(std::string_view(p_, static_cast<std::size_t>(end_ - p_)));
  if (n == 0) return false;
  out = Json::parse(p_, p_ + n, nullptr, /*allow_exceptions=*/false);
  p_ += n;
  return !out.is_discarded();
}

template <typename Element>
bool Reader::array(Element&& element) {
  if (!eat('[')) return false;
  if (eat(']')) return true;
  for (;;) {
    if (!element()) return false;
    if (eat(',')) continue;
    return eat(']');
  }
}

template <typename T, typename Read>
bool Reader::list(std::vector<T>& out, Read&& read) {
  return array([&] {
    out.emplace_back();
    return read(out.back());
  });
}

// The members of a described struct as the text names them, one pass of the description each:
//  - kLockstep reads the members that come in the description's (key) order, the canonical text's,
//    from the cursor on, and stops at the first key out of that order (the cursor stays there);
//  - kMatch reads the member whose key (in a tuple: whose position) is `key`, any other;
//  - kFill gives every member the text left out its default (a required one: decline).
// Members are numbered in description order; `seen` has a bit per member read (a second one is a
// duplicate key: decline).
class TextMembers {
 public:
  enum class Pass { kLockstep, kMatch, kFill };
  TextMembers(Reader& r, Pass pass, std::uint64_t& seen, std::string_view key = {},
              std::size_t position = 0, Reader::Cursor* cursor = nullptr)
      : r_(r),
        pass_(pass),
        tuple_(r.tuple()),
        seen_(seen),
        key_(key),
        position_(position),
        cursor_(cursor) {}

  // kLockstep: moves the cursor past the last member read; whether all went well.
  ADJ_JSON_INLINE bool finish() {
    if (pass_ == Pass::kLockstep && ok_ && consumed_) {
      consumed_ = false;
      ok_ = r_.next_member(*cursor_);
    }
    return ok_;
  }

  bool matched() const { return matched_; }
  bool ok() const { return ok_; }

  ADJ_JSON_INLINE void integer(std::string_view k, int& m, json_form::Field f = {}) {
    if (at(k, f)) ok_ = r_.integer(m);
    if (fill(f)) m = 0;
  }
  ADJ_JSON_INLINE void string(std::string_view k, std::string& m, json_form::Field f = {}) {
    if (at(k, f)) ok_ = r_.string(m);
    if (fill(f)) m = f.or_member ? *f.or_member : f.or_text;
  }
  ADJ_JSON_INLINE void optional_string(std::string_view k, std::optional<std::string>& m,
                                       json_form::Field f = {}) {
    if (at(k, f)) ok_ = r_.optional_string(m);
    if (fill(f)) m.reset();
  }
  ADJ_JSON_INLINE void optional_number(std::string_view k, std::optional<double>& m,
                                       json_form::Field f = {}) {
    if (at(k, f)) ok_ = r_.optional_number(m);
    if (fill(f)) m.reset();
  }
  template <class E, std::size_t N>
  ADJ_JSON_INLINE void enumeration(std::string_view k, E& m, json_form::Names<E, N> n,
                                   json_form::Field f = {}) {
    if (at(k, f)) {
      std::string word;
      ok_ = r_.string(word);
      m = static_cast<E>(0);
      for (std::size_t i = 0; i < N; ++i)
        if (word == n.names[i]) m = static_cast<E>(i);
    }
    if (fill(f)) m = static_cast<E>(0);
  }
  ADJ_JSON_INLINE void json(std::string_view k, Json& m, json_form::Field f = {}) {
    if (at(k, f)) ok_ = r_.json(m);
    if (fill(f)) m = f.omit_null ? Json() : Json::object();
  }
  ADJ_JSON_INLINE void decimal(std::string_view k, std::uint64_t& m, json_form::Field f = {}) {
    if (at(k, f)) ok_ = r_.decimal(m);
    if (fill(f)) m = 0;
  }
  template <class T, class ToTree, class FromTree>
  void tree(std::string_view k, T& m, ToTree, FromTree from_tree, json_form::Field f = {}) {
    if (at(k, f)) {
      Json j;
      ok_ = r_.json(j);
      if (ok_) {
        auto read = from_tree(j);
        ok_ = read.ok();
        if (ok_) m = std::move(read).value();
      }
    }
    if (fill(f)) m = T();
  }
  void strings(std::string_view k, std::vector<std::string>& m, json_form::Field f = {}) {
    if (at(k, f)) ok_ = r_.list(m, [&](std::string& s) { return r_.string(s); });
    if (fill(f)) m.clear();
  }
  template <class T>
  void list(std::string_view k, std::vector<T>& m, json_form::Field f = {}) {
    if (at(k, f)) ok_ = r_.list(m, [&](T& x) { return r_.described(x); });
    if (fill(f)) m.clear();
  }

 private:
  // Match pass: whether member `k` is the one to read now (then it is marked seen).
  ADJ_JSON_INLINE bool at(std::string_view k, json_form::Field) {
    const std::size_t i = index_++;
    if (pass_ == Pass::kLockstep) {
      if (!ok_) return false;
      if (consumed_) {  // the value before was read: on to the next key
        consumed_ = false;
        if (!(ok_ = r_.next_member(*cursor_))) return false;
      }
      if (cursor_->done || k != cursor_->pending) return false;
      seen_ |= std::uint64_t{1} << i;
      return consumed_ = true;
    }
    if (pass_ != Pass::kMatch || matched_) return false;
    if (tuple_ ? i != position_ : k != key_) return false;
    matched_ = true;
    const std::uint64_t bit = std::uint64_t{1} << i;
    if (seen_ & bit) return ok_ = false;  // a duplicate key: the tree would keep the last
    seen_ |= bit;
    return true;
  }
  // Fill pass: whether the member the description just named was left out (then it takes its
  // default; a required one declines).
  ADJ_JSON_INLINE bool fill(json_form::Field f) {
    if (pass_ != Pass::kFill || (seen_ & (std::uint64_t{1} << (index_ - 1)))) return false;
    if (f.required) ok_ = false;
    return true;
  }

  Reader& r_;
  Pass pass_;
  bool tuple_;
  std::uint64_t& seen_;
  std::string_view key_;
  std::size_t position_;
  Reader::Cursor* cursor_;  // kLockstep only
  bool consumed_ = false;   // kLockstep: a member was read, the cursor is still on its key
  std::size_t index_ = 0;
  bool matched_ = false;
  bool ok_ = true;
};

template <class T>
bool Reader::described(T& x) {
  std::uint64_t seen = 0;
  Json ignored;
  const bool was_tuple = tuple_;
  tuple_ = json_form::kTuple<T>;
  bool ok = false;
  if (tuple_) {
    std::size_t n = 0;
    ok = array([&] {
      TextMembers m(*this, TextMembers::Pass::kMatch, seen, {}, n++);
      describe(m, x);
      return m.matched() ? m.ok() : json(ignored);  // more elements than members: checked
    });
  } else {
    // The members in key order in one pass; any others (an unknown key, keys out of order) one
    // pass each.
    Cursor c;
    ok = first_member(c);
    if (ok) {
      TextMembers in_order(*this, TextMembers::Pass::kLockstep, seen, {}, 0, &c);
      describe(in_order, x);
      ok = in_order.finish();
    }
    while (ok && !c.done) {
      TextMembers m(*this, TextMembers::Pass::kMatch, seen, c.pending);
      describe(m, x);
      ok = (m.matched() ? m.ok() : json(ignored)) && next_member(c);  // unknown: checked, dropped
    }
  }
  tuple_ = was_tuple;
  if (!ok) return false;
  TextMembers fill(*this, TextMembers::Pass::kFill, seen);
  describe(fill, x);
  return fill.ok();
}

}  // namespace

std::optional<GameState> read_state_direct(std::string_view text) {
  GameState s;
  Reader r(text);
  if (!r.described(s) || !r.at_end()) return std::nullopt;
  s.normalise();
  return s;
}

std::size_t json_value_length(std::string_view text) {
  std::size_t i = 0;
  const auto skip_string = [&] {  // from text[i] == '"' to just past its closing quote
    for (++i; i < text.size(); ++i) {
      if (text[i] == '\\') {
        ++i;  // the escaped character (\uXXXX's digits need no care)
      } else if (text[i] == '"') {
        ++i;
        return true;
      }
    }
    return false;
  };
  if (text.empty()) return 0;
  if (text[0] == '"') return skip_string() ? i : 0;
  if (text[0] != '{' && text[0] != '[')
    return std::min(text.find_first_of(",}] \n\r\t"), text.size());
  for (long depth = 0; i < text.size();) {
    const char c = text[i];
    if (c == '"') {
      if (!skip_string()) return 0;
      continue;
    }
    if (c == '{' || c == '[') ++depth;
    if ((c == '}' || c == ']') && --depth == 0) return i + 1;
    ++i;
  }
  return 0;
}

}  // namespace adj
