// Lua -> C++ for script engines (rules/combat/lua_marshal.h): outcomes and JSON values, read
// after the protected call returned, never raising.
#include <climits>
#include <cmath>
#include <cstdint>

#include "rules/combat/lua_marshal.h"
#include "rules/combat/lua_sandbox.h"

extern "C" {
#include <lua.h>
}

namespace adj {

namespace {

// ---- Lua -> C++ (never raises: raw access, type checks before every read) ----

constexpr int kMaxDepth = 64;
constexpr long kMaxNodes = 1'000'000;
// What one outcome (or the engine's declarations) may hold: string bytes (values and keys) plus 8
// per value, counted for every reference (the same Lua string listed twice is two copies here).
constexpr std::size_t kMaxBytes = 1 << 20;
constexpr lua_Integer kMaxRounds = 10'000;
constexpr lua_Integer kMaxListItems = 10'000;  // dice per round, group_losses, groups

struct LuaReader {
  lua_State* L;
  const LuaSandbox& box;
  std::string root;  // "outcome" or "engine": what max_bytes bounds
  long nodes = 0;
  std::size_t bytes = 0;
  std::size_t max_bytes = kMaxBytes;
  std::string over = "more than 1 MB of data";  // what passing max_bytes means
};

Status bad_value(const std::string& path, const std::string& what);

// Counts `n` more bytes against max_bytes; the error names the root, the bound and where it was
// passed.
Status take_bytes(LuaReader& r, std::size_t n, const std::string& path) {
  if (n > r.max_bytes - r.bytes) return bad_value(r.root, r.over + " (at " + path + ")");
  r.bytes += n;
  return Status::Ok();
}

std::string type_of(lua_State* L, int idx) { return lua_typename(L, lua_type(L, idx)); }

Status bad_value(const std::string& path, const std::string& what) {
  return Status::InvalidArgument(path + ": " + what);
}

// Replaces a table with a metatable at `idx` (absolute) by what it shows to a script
// (lua_push_contents: a lazy table completed, the contents of a read-only one), so that raw reads
// see it as the script does; false (*error set) when that failed. Never raises.
bool contents_in_place(lua_State* L, int idx, std::string* error) {
  if (lua_type(L, idx) != LUA_TTABLE || !lua_getmetatable(L, idx)) return true;
  lua_pop(L, 1);
  if (!lua_push_contents_protected(L, idx, error)) return false;
  lua_replace(L, idx);
  return true;
}

Result<Json> to_json_value(LuaReader& r, int idx, const std::string& path, int depth) {
  lua_State* L = r.L;
  idx = lua_absindex(L, idx);
  if (++r.nodes > kMaxNodes) return bad_value(path, "more than a million values");
  ADJ_RETURN_IF_ERROR(take_bytes(r, 8, path));
  switch (lua_type(L, idx)) {
    case LUA_TNIL:
      return Json(nullptr);
    case LUA_TBOOLEAN:
      return Json(lua_toboolean(L, idx) != 0);
    case LUA_TNUMBER: {
      if (lua_isinteger(L, idx)) return Json(static_cast<std::int64_t>(lua_tointeger(L, idx)));
      const double d = lua_tonumber(L, idx);
      if (!std::isfinite(d)) return bad_value(path, "must be a finite number");
      return Json(d);
    }
    case LUA_TSTRING: {
      std::size_t n = 0;
      const char* s = lua_tolstring(L, idx, &n);
      ADJ_RETURN_IF_ERROR(take_bytes(r, n, path));
      return Json(std::string(s, n));
    }
    case LUA_TTABLE:
      break;
    default:
      return bad_value(path, "a " + type_of(L, idx) + " cannot be stored (only tables, strings, " +
                                 "numbers and booleans)");
  }
  if (depth > kMaxDepth) return bad_value(path, "nested more than 64 tables deep");
  if (!lua_checkstack(L, 4)) return bad_value(path, "nested too deep");
  if (std::string error; !contents_in_place(L, idx, &error)) return bad_value(path, error);
  std::size_t count = 0, strings = 0;
  lua_Integer max_int = 0;
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    lua_pop(L, 1);
    ++count;
    if (lua_type(L, -1) == LUA_TSTRING) {
      ++strings;
    } else if (lua_isinteger(L, -1) && lua_tointeger(L, -1) >= 1) {
      max_int = std::max(max_int, lua_tointeger(L, -1));
    } else {
      lua_pop(L, 1);
      return bad_value(path, "a table must be a list (keys 1..n) or an object (string keys)");
    }
  }
  if (strings == 0 && count > 0) {
    if (static_cast<std::size_t>(max_int) != count)
      return bad_value(path, "a list must have keys 1..n without holes");
    Json arr = Json::array();
    for (lua_Integer i = 1; i <= max_int; ++i) {
      lua_rawgeti(L, idx, i);
      Result<Json> v = to_json_value(r, -1, path + "[" + std::to_string(i) + "]", depth + 1);
      lua_pop(L, 1);
      if (!v.ok()) return v.status();
      arr.push_back(std::move(v).value());
    }
    return arr;
  }
  if (strings != count)
    return bad_value(path, "a table must be a list (keys 1..n) or an object (string keys)");
  Json obj = Json::object();
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    std::size_t n = 0;
    const char* k = lua_tolstring(L, -2, &n);
    if (Status s = take_bytes(r, n, path); !s.ok()) {
      lua_pop(L, 2);
      return s;
    }
    std::string key(k, n);
    Result<Json> v = to_json_value(r, -1, path + "." + key, depth + 1);
    lua_pop(L, 1);
    if (!v.ok()) {
      lua_pop(L, 1);
      return v.status();
    }
    obj[key] = std::move(v).value();
  }
  return obj;
}

// Where a value sits in the outcome, spelled only when an error needs it.
struct Path {
  const Path* parent = nullptr;
  std::string_view key;   // a field name, or empty for a list position
  lua_Integer index = 0;  // the list position (1-based) when key is empty
  std::string str() const {
    std::string s = parent ? parent->str() : std::string();
    if (!key.empty()) return s.empty() ? std::string(key) : s + "." + std::string(key);
    return s + "[" + std::to_string(index) + "]";
  }
};

Status bad_value(const Path& path, const std::string& what) { return bad_value(path.str(), what); }

Result<int> int_at(lua_State* L, int idx, const Path& path) {
  if (lua_type(L, idx) != LUA_TNUMBER)
    return bad_value(path, "must be an integer, not a " + type_of(L, idx));
  int isnum = 0;
  const lua_Integer v = lua_tointegerx(L, idx, &isnum);
  if (!isnum) return bad_value(path, "must be an integer");
  if (v < INT_MIN || v > INT_MAX) return bad_value(path, "out of range");
  return static_cast<int>(v);
}

Result<bool> bool_at(lua_State* L, int idx, const Path& path) {
  if (lua_type(L, idx) != LUA_TBOOLEAN)
    return bad_value(path, "must be a boolean, not a " + type_of(L, idx));
  return lua_toboolean(L, idx) != 0;
}

Result<std::string> string_at(LuaReader& r, int idx, const Path& path) {
  lua_State* L = r.L;
  if (lua_type(L, idx) != LUA_TSTRING)
    return bad_value(path, "must be a string, not a " + type_of(L, idx));
  std::size_t n = 0;
  const char* s = lua_tolstring(L, idx, &n);
  if (n > r.max_bytes - r.bytes) return take_bytes(r, n, path.str());
  r.bytes += n;
  return std::string(s, n);
}

// Fast paths for the common field types (no Result, no Status on success); on failure the
// *_at function gives the error. `L`, `v` (the value's index) and `p` (its path) in scope.
bool fast_int(lua_State* L, int idx, int& target) {
  if (lua_type(L, idx) != LUA_TNUMBER) return false;
  int isnum = 0;
  const lua_Integer v = lua_tointegerx(L, idx, &isnum);
  if (!isnum || v < INT_MIN || v > INT_MAX) return false;
  target = static_cast<int>(v);
  return true;
}
bool fast_int(lua_State* L, int idx, std::optional<int>& target) {
  int v = 0;
  if (!fast_int(L, idx, v)) return false;
  target = v;
  return true;
}
bool fast_bool(lua_State* L, int idx, bool& target) {
  if (lua_type(L, idx) != LUA_TBOOLEAN) return false;
  target = lua_toboolean(L, idx) != 0;
  return true;
}
// Counts the string's bytes against max_bytes (false past it: string_at names the error).
template <typename S>  // std::string or std::optional<std::string>
bool fast_string(LuaReader& r, int idx, S& target) {
  if (lua_type(r.L, idx) != LUA_TSTRING) return false;
  std::size_t n = 0;
  const char* chars = lua_tolstring(r.L, idx, &n);
  if (n > r.max_bytes - r.bytes) return false;
  r.bytes += n;
  target = std::string(chars, n);
  return true;
}
Result<Json> object_at(LuaReader& r, int idx, const Path& path) {
  if (lua_type(r.L, idx) != LUA_TTABLE)
    return bad_value(path, "must be a table, not a " + type_of(r.L, idx));
  idx = lua_absindex(r.L, idx);
  if (!lua_checkstack(r.L, 3)) return bad_value(path, "nested too deep");
  if (lua_getmetatable(r.L, idx)) {
    lua_pop(r.L, 1);  // maybe read-only: to_json_value looks behind it
  } else {
    lua_pushnil(r.L);
    if (!lua_next(r.L, idx)) return Json::object();  // empty: nothing to convert
    lua_pop(r.L, 2);
  }
  Result<Json> j = to_json_value(r, idx, path.str(), 0);
  if (j.ok() && !j->is_object())
    return bad_value(path, "must be an object (string keys), not a list");
  return j;
}

Status contents_in_place(lua_State* L, int idx, const Path& path) {
  std::string error;
  return contents_in_place(L, idx, &error) ? Status::Ok() : bad_value(path, error);
}

// The length of the list at `idx` (keys 1..n only), or an error naming `path`. A lazy or
// read-only table there is replaced by its contents first (contents_in_place).
Result<lua_Integer> list_at(lua_State* L, int idx, const Path& path) {
  if (lua_type(L, idx) != LUA_TTABLE)
    return bad_value(path, "must be a list, not a " + type_of(L, idx));
  idx = lua_absindex(L, idx);
  if (!lua_checkstack(L, 3)) return bad_value(path, "nested too deep");
  ADJ_RETURN_IF_ERROR(contents_in_place(L, idx, path));
  const lua_Integer n = static_cast<lua_Integer>(lua_rawlen(L, idx));
  lua_Integer count = 0;
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    lua_pop(L, 1);
    ++count;
    if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 1 || lua_tointeger(L, -1) > n) {
      lua_pop(L, 1);
      return bad_value(path, "must be a list (keys 1..n)");
    }
  }
  if (count != n) return bad_value(path, "must be a list without holes");
  return n;
}

Result<std::vector<int>> int_list_at(LuaReader& r, int idx, const Path& path) {
  lua_State* L = r.L;
  Result<lua_Integer> n = list_at(L, idx, path);
  if (!n.ok()) return n.status();
  if (*n > kMaxListItems)
    return bad_value(path, "more than " + std::to_string(kMaxListItems) + " values");
  const auto bytes = static_cast<std::size_t>(*n) * 8;
  if (bytes > r.max_bytes - r.bytes) return take_bytes(r, bytes, path.str());
  r.bytes += bytes;
  idx = lua_absindex(L, idx);
  std::vector<int> out;
  out.reserve(static_cast<std::size_t>(*n));
  for (lua_Integer i = 1; i <= *n; ++i) {
    lua_rawgeti(L, idx, i);
    int x = 0;
    if (!fast_int(L, -1, x)) {
      Result<int> v = int_at(L, -1, Path{&path, {}, i});
      lua_pop(L, 1);
      return v.status();
    }
    lua_pop(L, 1);
    out.push_back(x);
  }
  return out;
}

// Iterates the string-keyed fields of the table at `idx`: fn(key, value index) for each, in
// Lua's order; the first error stops it. Non-string keys are errors naming `path`.
template <typename Fn>
Status each_field(lua_State* L, int idx, const Path& path, Fn fn) {
  idx = lua_absindex(L, idx);
  if (!lua_checkstack(L, 4)) return bad_value(path, "nested too deep");
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    if (lua_type(L, -2) != LUA_TSTRING) {
      lua_pop(L, 2);
      return bad_value(path, "has a key that is not a field name");
    }
    std::size_t n = 0;
    const char* k = lua_tolstring(L, -2, &n);
    Status s = fn(std::string_view(k, n), lua_gettop(L));
    lua_pop(L, 1);
    if (!s.ok()) {
      lua_pop(L, 1);
      return s;
    }
  }
  return Status::Ok();
}

#define ADJ_INT(target) \
  if (!fast_int(L, v, target)) return int_at(L, v, p).status()
#define ADJ_BOOL(target) \
  if (!fast_bool(L, v, target)) return bool_at(L, v, p).status()
#define ADJ_STRING(target) \
  if (!fast_string(r, v, target)) return string_at(r, v, p).status()

#define ADJ_ASSIGN(target, expr)              \
  do {                                        \
    auto adj_v_ = (expr);                     \
    if (!adj_v_.ok()) return adj_v_.status(); \
    target = std::move(adj_v_).value();       \
  } while (0)

// Reads the round at `idx` into `round`.
Status round_from_lua(LuaReader& r, int idx, const Path& path, BattleRound& round) {
  lua_State* L = r.L;
  if (lua_type(L, idx) != LUA_TTABLE)
    return bad_value(path, "must be a table, not a " + type_of(L, idx));
  idx = lua_absindex(L, idx);
  ADJ_RETURN_IF_ERROR(contents_in_place(L, idx, path));
  Status s = each_field(L, idx, path, [&](std::string_view k, int v) -> Status {
    const Path p{&path, k};
    switch (r.box.key_of(k.data())) {
      case LuaKey::phase:
        ADJ_STRING(round.phase);
        break;
      case LuaKey::attacker_before:
        ADJ_INT(round.attacker_before);
        break;
      case LuaKey::defender_before:
        ADJ_INT(round.defender_before);
        break;
      case LuaKey::attacker_strength:
        ADJ_INT(round.attacker_strength);
        break;
      case LuaKey::defender_strength:
        ADJ_INT(round.defender_strength);
        break;
      case LuaKey::attacker_losses:
        ADJ_INT(round.attacker_losses);
        break;
      case LuaKey::defender_losses:
        ADJ_INT(round.defender_losses);
        break;
      case LuaKey::attacker_dice:
        ADJ_ASSIGN(round.attacker_dice, int_list_at(r, v, p));
        break;
      case LuaKey::defender_dice:
        ADJ_ASSIGN(round.defender_dice, int_list_at(r, v, p));
        break;
      case LuaKey::detail:
        ADJ_ASSIGN(round.detail, object_at(r, v, p));
        break;
      default:
        return bad_value(p, "unknown field of a round");
    }
    return Status::Ok();
  });
  return s;
}

}  // namespace

Result<Json> json_from_lua(lua_State* L, int idx, const std::string& path) {
  LuaReader r{L, sandbox_of(L), path};
  return to_json_value(r, idx, path, 0);
}

Result<BattleOutcome> outcome_from_lua(lua_State* L, int idx, const OutcomeBound& bound,
                                       std::size_t* bytes) {
  if (lua_type(L, idx) != LUA_TTABLE)
    return bad_value("outcome", "resolve must return a table, not a " + type_of(L, idx));
  LuaReader r{L, sandbox_of(L), "outcome"};
  r.max_bytes = bound.bytes;
  r.over = bound.over;
  struct Report {  // *bytes on every return
    LuaReader& r;
    std::size_t* out;
    ~Report() {
      if (out) *out = r.bytes;
    }
  } report{r, bytes};
  const Path root{nullptr, "outcome"};
  idx = lua_absindex(L, idx);
  ADJ_RETURN_IF_ERROR(contents_in_place(L, idx, root));
  Result<BattleOutcome> out{BattleOutcome{}};
  BattleOutcome& o = *out;
  Status s = each_field(L, idx, root, [&](std::string_view k, int v) -> Status {
    const Path p{&root, k};
    const LuaKey key = r.box.key_of(k.data());
    switch (key) {
      case LuaKey::attacker_wins:
        ADJ_BOOL(o.attacker_wins);
        return Status::Ok();
      case LuaKey::attacker_losses:
        ADJ_INT(o.attacker_losses);
        return Status::Ok();
      case LuaKey::defender_losses:
        ADJ_INT(o.defender_losses);
        return Status::Ok();
      case LuaKey::attacker_stops:
        ADJ_BOOL(o.attacker_stops);
        return Status::Ok();
      case LuaKey::defender_retreats_to:
        ADJ_STRING(o.defender_retreats_to);
        return Status::Ok();
      case LuaKey::attacker_retreats_to:
        ADJ_STRING(o.attacker_retreats_to);
        return Status::Ok();
      case LuaKey::fort_after:
        ADJ_INT(o.fort_after);
        return Status::Ok();
      case LuaKey::advancing:
        ADJ_INT(o.advancing);
        return Status::Ok();
      case LuaKey::attacker_units:
        ADJ_ASSIGN(o.attacker_units, object_at(r, v, p));
        return Status::Ok();
      case LuaKey::defender_units:
        ADJ_ASSIGN(o.defender_units, object_at(r, v, p));
        return Status::Ok();
      case LuaKey::detail:
        ADJ_ASSIGN(o.detail, object_at(r, v, p));
        return Status::Ok();
      case LuaKey::attacker_player_state:
        ADJ_ASSIGN(o.attacker_player_state, object_at(r, v, p));
        return Status::Ok();
      case LuaKey::defender_player_state:
        ADJ_ASSIGN(o.defender_player_state, object_at(r, v, p));
        return Status::Ok();
      case LuaKey::group_losses:
        ADJ_ASSIGN(o.group_losses, int_list_at(r, v, p));
        return Status::Ok();
      case LuaKey::rounds:
      case LuaKey::group_units:
      case LuaKey::group_retreats_to:
        break;
      default:
        return bad_value(p, "unknown field of an outcome");
    }
    {
      Result<lua_Integer> n = list_at(L, v, p);
      if (!n.ok()) return n.status();
      const lua_Integer most = key == LuaKey::rounds ? kMaxRounds : kMaxListItems;
      if (*n > most) return bad_value(p, "more than " + std::to_string(most) + " entries");
      if (key == LuaKey::rounds) o.rounds.reserve(static_cast<std::size_t>(*n));
      for (lua_Integer i = 1; i <= *n; ++i) {
        const Path pi{&p, {}, i};
        lua_rawgeti(L, v, i);
        Status e = Status::Ok();
        if (key == LuaKey::rounds) {
          e = round_from_lua(r, -1, pi, o.rounds.emplace_back());
        } else if (key == LuaKey::group_units) {
          Result<Json> u = object_at(r, -1, pi);
          if (u.ok())
            o.group_units.push_back(std::move(u).value());
          else
            e = u.status();
        } else if (lua_type(L, -1) == LUA_TBOOLEAN && !lua_toboolean(L, -1)) {
          o.group_retreats_to.push_back(std::nullopt);
        } else {
          Result<std::string> to = string_at(r, -1, pi);
          if (to.ok())
            o.group_retreats_to.push_back(std::move(to).value());
          else
            e = bad_value(pi, "must be an area code or false (home)");
        }
        lua_pop(L, 1);
        if (!e.ok()) return e;
      }
    }
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return out;
}

}  // namespace adj
