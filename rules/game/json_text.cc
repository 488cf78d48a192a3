#include "rules/game/json_text.h"

#include <charconv>
#include <cstring>

#include "rules/game/state_fields.h"

namespace adj::json_text {

namespace {

// Bytes dump() writes as they are: printable ASCII other than '"' and '\\'.
bool plain(std::string_view s) {
  for (unsigned char c : s)
    if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\') return false;
  return true;
}

bool empty_container(const Json& j) { return (j.is_object() || j.is_array()) && j.empty(); }

}  // namespace

void value(std::string& out, const Json& j, ErrorHandler on_bad_utf8) {
  if (empty_container(j)) {
    out += j.is_object() ? "{}" : "[]";
    return;
  }
  nlohmann::detail::serializer<Json> s(nlohmann::detail::output_adapter<char, std::string>(out),
                                       ' ', on_bad_utf8);
  s.dump(j, false, false, 0);
}

void str(std::string& out, std::string_view s, ErrorHandler on_bad_utf8) {
  if (plain(s)) {  // one append: "s"
    const std::size_t at = out.size();
    out.resize(at + s.size() + 2);
    char* to = out.data() + at;
    to[0] = '"';
    if (!s.empty()) std::memcpy(to + 1, s.data(), s.size());
    to[s.size() + 1] = '"';
    return;
  }
  value(out, Json(std::string(s)), on_bad_utf8);  // escapes and UTF-8 checks as dump() does
}

void opt_str(std::string& out, const std::optional<std::string>& s, ErrorHandler on_bad_utf8) {
  if (s)
    str(out, *s, on_bad_utf8);
  else
    out += "null";
}

void integer(std::string& out, std::int64_t v) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

void unsigned_integer(std::string& out, std::uint64_t v) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

// The state's forms come from its descriptions (rules/game/state_fields.h).
void player(std::string& out, const Player& p, bool public_player, ErrorHandler h) {
  json_form::write_text(out, p, h, public_player);
}

void area(std::string& out, const Area& a, ErrorHandler h) { json_form::write_text(out, a, h); }

void edge(std::string& out, const Edge& e, ErrorHandler h) { json_form::write_text(out, e, h); }

void engine(std::string& out, const EngineSpec& spec, ErrorHandler h) {
  value(out, engine_json(spec), h);
}

void state(std::string& out, const GameState& s, ErrorHandler h) {
  json_form::write_text(out, s, h);
}

}  // namespace adj::json_text
