// One description per serialised struct, two writers. A description is a function template
// `describe(V& v, T& x)` (or a write-only `write_x(W& w, const T& x)`) that names each member once,
// in the order of its key, with how it is written and read (Field); the visitor it is given
// decides what happens to each member:
//  - TextWriter writes compact JSON text straight into a string, byte for byte what
//    nlohmann::json's dump(-1, ' ', false, on_bad_utf8) writes for the tree TreeWriter builds from
//    the same description (the hot paths of a big turn: no tree);
//  - TreeWriter builds that tree (to_json: previews, the web, the API, tests);
//  - the readers of rules/game/state_fields.h (the tree's, and the stored text's of
//    rules/game/state_reader.h) read the members back with the same defaults.
// So a new member is one line of its description. Keys must be listed in sorted order (the order
// of nlohmann's objects, so the text is the tree's dump): TreeWriter throws std::logic_error on a
// key that is not after the one before it, which every test building a tree catches.
// Description keys are plain ASCII (written without escaping); a key that is data goes through
// data_key(), which escapes it. Pure; a writer is not thread-safe, but distinct writers are
// independent.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "rules/game/json_text.h"

// The text writer's and reader's per-member calls are inlined even at -O1 (the level the tests
// and benchmarks build at): a big turn makes tens of millions of them.
#define ADJ_JSON_INLINE [[gnu::always_inline]] inline

namespace adj::json_form {

using ErrorHandler = Json::error_handler_t;

// How one member is written and read. Writers use omit_*, is_private; readers use the rest.
struct Field {
  bool required = false;     // readers: absent is an error (tree) or declined (text)
  bool omit_empty = false;   // writers: left out when empty (a string or JSON value, a nullopt)
  bool omit_null = false;    // JSON: left out when null; readers: null when absent, else {}
  bool is_private = false;   // left out by writers for public players (battle worlds)
  const char* or_text = "";  // strings: the value when absent
  // Strings: when absent, this member's value (one listed before it, so the tree reader, which
  // reads in key order, has read it; the text reader applies defaults after the whole object).
  const std::string* or_member = nullptr;
};

// The names of an enumeration's values, indexed by the value; readers take a name they do not
// know, or an absent member, as the first.
template <class E, std::size_t N>
struct Names {
  const char* const (&names)[N];
};

// Elements of a list whose type describes a tuple ([a, b, c?]) rather than an object: members are
// written and read by position, their keys unused.
template <class T>
inline constexpr bool kTuple = false;

// Writes JSON text. Descriptions call key()/item() before each member/element and the value
// functions after; containers are opened and closed around them.
class TextWriter {
 public:
  explicit TextWriter(std::string& out, ErrorHandler on_bad_utf8 = ErrorHandler::strict,
                      bool public_players = false)
      : out_(out), h_(on_bad_utf8), public_(public_players) {}

  ADJ_JSON_INLINE bool public_players() const { return public_; }

  // The brace waits for the first key, to go out in the same append ("{}" when none comes).
  ADJ_JSON_INLINE void open_object() {
    brace_ = true;
    first_ = true;
  }
  ADJ_JSON_INLINE void close_object() {
    if (brace_)
      out_.append("{}", 2);
    else
      out_ += '}';
    brace_ = false;
    first_ = false;
  }
  ADJ_JSON_INLINE void open_array() {
    out_ += '[';
    first_ = true;
  }
  ADJ_JSON_INLINE void close_array() {
    out_ += ']';
    first_ = false;
  }
  // The next member's key (an element's place inside a tuple).
  ADJ_JSON_INLINE void key(std::string_view k) {
    if (tuple_) return item();
    // One append per key (this is most of the writer's work).
    char text[64];
    std::size_t n = 0;
    if (brace_) text[n++] = '{';
    brace_ = false;
    if (!first_) text[n++] = ',';
    first_ = false;
    text[n++] = '"';
    if (k.size() > sizeof text - 5) {  // never for the descriptions' keys; correct anyway
      out_.append(text, n);
      out_.append(k.data(), k.size());
      out_.append("\":", 2);
      return;
    }
    std::memcpy(text + n, k.data(), k.size());
    n += k.size();
    text[n++] = '"';
    text[n++] = ':';
    out_.append(text, n);
  }
  // The next member's key when it is data (a player's code), escaped as any string. Still in
  // sorted order.
  void data_key(std::string_view k) {
    if (brace_) out_ += '{';
    brace_ = false;
    if (!first_) out_ += ',';
    first_ = false;
    json_text::str(out_, k, h_);
    out_ += ':';
  }
  // The next element of an array.
  ADJ_JSON_INLINE void item() {
    if (!first_) out_ += ',';
    first_ = false;
  }

  ADJ_JSON_INLINE void value(std::string_view s) { json_text::str(out_, s, h_); }
  ADJ_JSON_INLINE void value(const std::string& s) { json_text::str(out_, s, h_); }
  ADJ_JSON_INLINE void value(const char* s) { json_text::str(out_, s, h_); }
  ADJ_JSON_INLINE void value(const std::optional<std::string>& s) {
    json_text::opt_str(out_, s, h_);
  }
  ADJ_JSON_INLINE void value(bool b) { json_text::boolean(out_, b); }
  template <std::integral I>
  requires(!std::same_as<I, bool>) void value(I v) {
    if constexpr (std::is_signed_v<I>)
      json_text::integer(out_, v);
    else
      json_text::unsigned_integer(out_, v);
  }
  ADJ_JSON_INLINE void value(double v) { json_text::value(out_, Json(v), h_); }
  ADJ_JSON_INLINE void value(const Json& j) { json_text::value(out_, j, h_); }
  ADJ_JSON_INLINE void value(const std::vector<int>& v) {
    open_array();
    for (int i : v) {
      item();
      value(i);
    }
    close_array();
  }
  // JSON text written as given (a value made by a TextWriter before).
  ADJ_JSON_INLINE void raw(std::string_view json) { out_ += json; }

  template <class V>
  ADJ_JSON_INLINE void member(std::string_view k, const V& v) {
    key(k);
    value(v);
  }

  // The members of state descriptions (rules/game/state_fields.h).
  ADJ_JSON_INLINE void integer(std::string_view k, int v, Field = {}) { member(k, v); }
  ADJ_JSON_INLINE void string(std::string_view k, const std::string& v, Field f = {}) {
    if (skip(f) || (f.omit_empty && v.empty())) return;
    member(k, v);
  }
  ADJ_JSON_INLINE void optional_string(std::string_view k, const std::optional<std::string>& v,
                                       Field f = {}) {
    if (f.omit_empty && !v) return;
    member(k, v);
  }
  ADJ_JSON_INLINE void optional_number(std::string_view k, const std::optional<double>& v,
                                       Field = {}) {
    if (v) member(k, *v);
  }
  template <class E, std::size_t N>
  ADJ_JSON_INLINE void enumeration(std::string_view k, E v, Names<E, N> n, Field = {}) {
    member(k, n.names[static_cast<std::size_t>(v)]);
  }
  ADJ_JSON_INLINE void json(std::string_view k, const Json& v, Field f = {}) {
    if ((f.omit_empty && v.empty()) || (f.omit_null && v.is_null())) return;
    member(k, v);
  }
  ADJ_JSON_INLINE void decimal(std::string_view k, std::uint64_t v, Field = {}) {
    key(k);
    out_ += '"';
    json_text::unsigned_integer(out_, v);
    out_ += '"';
  }
  template <class T, class ToTree, class FromTree>
  void tree(std::string_view k, const T& v, ToTree to_tree, FromTree, Field = {}) {
    member(k, to_tree(v));
  }
  void strings(std::string_view k, const std::vector<std::string>& v, Field = {}) {
    key(k);
    open_array();
    for (const std::string& s : v) {
      item();
      value(s);
    }
    close_array();
  }
  template <class T>
  void list(std::string_view k, const std::vector<T>& v, Field = {}) {
    key(k);
    open_array();
    for (const T& x : v) {
      item();
      element(x);
    }
    close_array();
  }
  // One described value (an object, or an array for a tuple type).
  template <class T>
  void element(const T& x) {
    if constexpr (kTuple<T>) {
      open_array();
      tuple_ = true;
      describe(*this, x);
      tuple_ = false;
      close_array();
    } else {
      open_object();
      describe(*this, x);
      close_object();
    }
  }

 private:
  ADJ_JSON_INLINE bool skip(Field f) const { return f.is_private && public_; }

  std::string& out_;
  ErrorHandler h_;
  bool public_;
  bool first_ = true;
  bool brace_ = false;  // an object was opened and nothing written into it yet
  bool tuple_ = false;
};

// Builds the tree of the same value. Members go in at the end of their object, so their keys must
// come in sorted order (checked: std::logic_error otherwise).
class TreeWriter {
 public:
  explicit TreeWriter(Json& root, bool public_players = false)
      : root_(root), public_(public_players) {}

  bool public_players() const { return public_; }

  void open_object() { open(Json::value_t::object); }
  void close_object() { stack_.pop_back(); }
  void open_array() { open(Json::value_t::array); }
  void close_array() { stack_.pop_back(); }
  void key(std::string_view k) { key_ = k; }
  void data_key(std::string_view k) { key_ = k; }
  void item() {}

  template <class V>
  void value(const V& v) {
    slot() = Json(v);
  }
  void value(Json&& j) { slot() = std::move(j); }
  void value(std::string_view s) { slot() = std::string(s); }
  void value(const std::optional<std::string>& s) { slot() = s ? Json(*s) : Json(nullptr); }
  // Text from a TextWriter (a value both forms share).
  void raw(std::string_view json) { slot() = Json::parse(json); }

  template <class V>
  void member(std::string_view k, const V& v) {
    key(k);
    value(v);
  }

  void integer(std::string_view k, int v, Field = {}) { member(k, v); }
  void string(std::string_view k, const std::string& v, Field f = {}) {
    if ((f.is_private && public_) || (f.omit_empty && v.empty())) return;
    member(k, v);
  }
  void optional_string(std::string_view k, const std::optional<std::string>& v, Field f = {}) {
    if (f.omit_empty && !v) return;
    member(k, v);
  }
  void optional_number(std::string_view k, const std::optional<double>& v, Field = {}) {
    if (v) member(k, *v);
  }
  template <class E, std::size_t N>
  void enumeration(std::string_view k, E v, Names<E, N> n, Field = {}) {
    member(k, n.names[static_cast<std::size_t>(v)]);
  }
  void json(std::string_view k, const Json& v, Field f = {}) {
    if ((f.omit_empty && v.empty()) || (f.omit_null && v.is_null())) return;
    member(k, v);
  }
  void decimal(std::string_view k, std::uint64_t v, Field = {}) { member(k, std::to_string(v)); }
  template <class T, class ToTree, class FromTree>
  void tree(std::string_view k, const T& v, ToTree to_tree, FromTree, Field = {}) {
    key(k);
    slot() = to_tree(v);
  }
  void strings(std::string_view k, const std::vector<std::string>& v, Field = {}) { member(k, v); }
  template <class T>
  void list(std::string_view k, const std::vector<T>& v, Field = {}) {
    key(k);
    open_array();
    for (const T& x : v) element(x);
    close_array();
  }
  template <class T>
  void element(const T& x) {
    if constexpr (kTuple<T>) {
      open_array();
      describe(*this, x);
      close_array();
    } else {
      open_object();
      describe(*this, x);
      close_object();
    }
  }

 private:
  // Where the next value goes: the root, the end of the open array, or the open object under the
  // last key (which must sort after the object's last key).
  Json& slot() {
    if (stack_.empty()) return root_;
    Json& top = *stack_.back();
    if (top.is_array()) {
      top.get_ref<Json::array_t&>().emplace_back();
      return top.back();
    }
    Json::object_t& o = top.get_ref<Json::object_t&>();
    if (!o.empty() && !(o.rbegin()->first < key_))
      throw std::logic_error("json_form: key \"" + std::string(key_) + "\" is not after \"" +
                             o.rbegin()->first + "\" in a description");
    return o.emplace_hint(o.end(), std::string(key_), nullptr)->second;
  }
  void open(Json::value_t type) {
    Json& s = slot();
    s = Json(type);
    stack_.push_back(&s);
  }

  Json& root_;
  bool public_;
  std::string_view key_;
  std::vector<Json*> stack_;  // the open containers; pointers stay valid (see slot())
};

// The text of a described value, appended to `out`.
template <class T>
void write_text(std::string& out, const T& x, ErrorHandler on_bad_utf8 = ErrorHandler::strict,
                bool public_players = false) {
  TextWriter w(out, on_bad_utf8, public_players);
  w.element(x);
}
// The tree of a described value.
template <class T>
Json write_tree(const T& x, bool public_players = false) {
  Json j;
  TreeWriter w(j, public_players);
  w.element(x);
  return j;
}

}  // namespace adj::json_form
