#include "rules/game/json_text.h"

#include <charconv>

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
  if (plain(s)) {
    out += '"';
    out += s;
    out += '"';
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

void player(std::string& out, const Player& p, bool public_player, ErrorHandler h) {
  // Keys in sorted order (nlohmann's object is a std::map).
  out += "{\"bp\":";
  integer(out, p.bp);
  out += ",\"code\":";
  str(out, p.code, h);
  if (!public_player) {
    out += ",\"email\":";
    str(out, p.email, h);
  }
  out += ",\"engine_state\":";
  value(out, p.engine_state, h);
  out += ",\"name\":";
  str(out, p.name, h);
  out += ",\"nation\":";
  str(out, p.nation, h);
  out += ",\"reserve\":";
  integer(out, p.reserve);
  if (!public_player && !p.secret.empty()) {
    out += ",\"secret\":";
    str(out, p.secret, h);
  }
  out += ",\"treasury\":";
  integer(out, p.treasury);
  out += ",\"vp\":";
  integer(out, p.vp);
  out += '}';
}

void area(std::string& out, const Area& a, ErrorHandler h) {
  out += "{\"ambush_against\":";
  opt_str(out, a.ambush_against, h);
  out += ",\"armies\":";
  integer(out, a.armies);
  out += ",\"code\":";
  str(out, a.code, h);
  out += ",\"engine_state\":";
  value(out, a.engine_state, h);
  out += ",\"features\":";
  value(out, a.features, h);
  out += ",\"fort\":";
  integer(out, a.fort);
  if (!a.hinterland.empty()) {
    out += ",\"hinterland\":";
    str(out, a.hinterland, h);
  }
  out += ",\"kind\":\"";
  out += to_string(a.kind);
  out += "\",\"mode\":\"";
  out += to_string(a.mode);
  out += "\",\"name\":";
  str(out, a.name, h);
  if (!a.outline.is_null()) {
    out += ",\"outline\":";
    value(out, a.outline, h);
  }
  out += ",\"owner\":";
  opt_str(out, a.owner, h);
  out += ",\"population\":";
  integer(out, a.population);
  out += ",\"retreat_to\":";
  opt_str(out, a.retreat_to, h);
  out += ",\"terrain\":";
  str(out, a.terrain, h);
  out += ",\"trade\":";
  integer(out, a.trade);
  if (a.x) {
    out += ",\"x\":";
    value(out, Json(*a.x), h);
  }
  if (a.y) {
    out += ",\"y\":";
    value(out, Json(*a.y), h);
  }
  out += '}';
}

void edge(std::string& out, const Edge& e, ErrorHandler h) {
  out += '[';
  str(out, e.a, h);
  out += ',';
  str(out, e.b, h);
  if (!e.features.empty()) {
    out += ',';
    value(out, e.features, h);
  }
  out += ']';
}

void engine(std::string& out, const EngineSpec& spec, ErrorHandler h) {
  value(out, engine_json(spec), h);
}

void state(std::string& out, const GameState& s, ErrorHandler h) {
  out += "{\"adjacency\":[";
  for (std::size_t i = 0; i < s.edges.size(); ++i) {
    if (i) out += ',';
    edge(out, s.edges[i], h);
  }
  out += "],\"areas\":[";
  for (std::size_t i = 0; i < s.areas.size(); ++i) {
    if (i) out += ',';
    area(out, s.areas[i], h);
  }
  out += "],\"engine\":";
  engine(out, s.engine, h);
  out += ",\"game\":";
  str(out, s.game_id, h);
  out += ",\"name\":";
  str(out, s.name, h);
  out += ",\"order_of_play\":[";
  for (std::size_t i = 0; i < s.order_of_play.size(); ++i) {
    if (i) out += ',';
    str(out, s.order_of_play[i], h);
  }
  out += "],\"players\":[";
  for (std::size_t i = 0; i < s.players.size(); ++i) {
    if (i) out += ',';
    player(out, s.players[i], false, h);
  }
  out += "],\"rules\":";
  value(out, to_json(s.rules), h);
  out += ",\"scenario_extra\":";
  value(out, s.scenario_extra, h);
  out += ",\"seed\":\"";
  unsigned_integer(out, s.seed);
  out += "\",\"turn\":";
  integer(out, s.turn);
  out += '}';
}

}  // namespace adj::json_text
