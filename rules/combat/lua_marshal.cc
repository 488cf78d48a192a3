#include "rules/combat/lua_marshal.h"

#include <climits>
#include <cmath>
#include <cstdint>
#include <limits>

#include "rules/combat/lua_sandbox.h"

extern "C" {
#include <lauxlib.h>
#include <lua.h>
}

namespace adj {

namespace {

// ---- C++ -> Lua (may raise; no C++ temporaries with destructors across Lua calls) ----

void push_str(lua_State* L, const std::string& s) { lua_pushlstring(L, s.data(), s.size()); }

void set_str(lua_State* L, const char* key, const std::string& s) {
  push_str(L, s);
  lua_setfield(L, -2, key);
}
void set_cstr(lua_State* L, const char* key, const char* s) {
  lua_pushstring(L, s);
  lua_setfield(L, -2, key);
}
void set_int(lua_State* L, const char* key, lua_Integer v) {
  lua_pushinteger(L, v);
  lua_setfield(L, -2, key);
}
void set_bool(lua_State* L, const char* key, bool v) {
  lua_pushboolean(L, v);
  lua_setfield(L, -2, key);
}
void set_json(lua_State* L, const char* key, const Json& j) {
  push_json(L, j);
  lua_setfield(L, -2, key);
}
void set_opt(lua_State* L, const char* key, const std::optional<std::string>& s) {
  if (s) set_str(L, key, *s);
}

template <typename Map>
void push_int_map(lua_State* L, const Map& m) {
  lua_createtable(L, 0, static_cast<int>(m.size()));
  for (auto it = m.begin(); it != m.end(); ++it) {
    push_str(L, it->first);
    lua_pushinteger(L, it->second);
    lua_rawset(L, -3);
  }
}

template <typename Set>
void push_string_list(lua_State* L, const Set& s) {
  lua_createtable(L, static_cast<int>(s.size()), 0);
  lua_Integer i = 0;
  for (auto it = s.begin(); it != s.end(); ++it) {
    push_str(L, *it);
    lua_rawseti(L, -2, ++i);
  }
}

const GameState& current_world(lua_State* L) {
  const GameState* w = sandbox_of(L).access().world;
  if (!w) luaL_error(L, "the world is only available during the call it was given to");
  return *w;
}

// Mirrors to_json(const Area&) (rules/game/state.cc); null members are left out (nil).
void push_area(lua_State* L, const Area& a) {
  lua_createtable(L, 0, 16);
  set_str(L, "code", a.code);
  set_str(L, "name", a.name);
  set_cstr(L, "kind", to_string(a.kind));
  set_str(L, "terrain", a.terrain);
  set_opt(L, "owner", a.owner);
  set_int(L, "population", a.population);
  set_int(L, "fort", a.fort);
  set_int(L, "trade", a.trade);
  set_int(L, "armies", a.armies);
  set_cstr(L, "mode", to_string(a.mode));
  set_opt(L, "retreat_to", a.retreat_to);
  set_opt(L, "ambush_against", a.ambush_against);
  set_json(L, "features", a.features);
  set_json(L, "engine_state", a.engine_state);
  if (!a.hinterland.empty()) set_str(L, "hinterland", a.hinterland);
  if (a.x) {
    lua_pushnumber(L, *a.x);
    lua_setfield(L, -2, "x");
  }
  if (a.y) {
    lua_pushnumber(L, *a.y);
    lua_setfield(L, -2, "y");
  }
  if (!a.outline.is_null()) set_json(L, "outline", a.outline);
}

// The code argument `arg` as a string view into Lua's own string.
std::string_view code_arg(lua_State* L, int arg) {
  std::size_t n = 0;
  const char* s = luaL_checklstring(L, arg, &n);
  return {s, n};
}

int world_area(lua_State* L) {
  const GameState& w = current_world(L);
  const Area* a = w.find_area(code_arg(L, 2));
  if (!a) return 0;
  push_area(L, *a);
  return 1;
}

int world_neighbours(lua_State* L) {
  const GameState& w = current_world(L);
  push_string_list(L, w.neighbours(code_arg(L, 2)));
  return 1;
}

int world_edge(lua_State* L) {
  const GameState& w = current_world(L);
  const Edge* e = w.find_edge(code_arg(L, 2), code_arg(L, 3));
  if (!e) return 0;
  lua_createtable(L, 0, 3);
  set_str(L, "a", e->a);
  set_str(L, "b", e->b);
  set_json(L, "features", e->features);
  return 1;
}

// Mirrors to_json(const Player&) without the secret and the address.
int world_player(lua_State* L) {
  const GameState& w = current_world(L);
  const Player* p = w.find_player(code_arg(L, 2));
  if (!p) return 0;
  lua_createtable(L, 0, 8);
  set_str(L, "code", p->code);
  set_str(L, "name", p->name);
  set_str(L, "nation", p->nation);
  set_int(L, "bp", p->bp);
  set_int(L, "treasury", p->treasury);
  set_int(L, "vp", p->vp);
  set_int(L, "reserve", p->reserve);
  set_json(L, "engine_state", p->engine_state);
  return 1;
}

int world_order_of_play(lua_State* L) {
  push_string_list(L, current_world(L).order_of_play);
  return 1;
}

// Mirrors to_json(const RulesConfig&) (rules/game/rules_config.cc).
int world_rules(lua_State* L) {
  const RulesConfig& r = current_world(L).rules;
  lua_createtable(L, 0, 16);
  set_int(L, "actions_per_turn", r.actions_per_turn);
  push_int_map(L, r.terrain_bonus);
  lua_setfield(L, -2, "terrain_bonus");
  set_int(L, "city_bonus", r.city_bonus);
  set_int(L, "fort_weight", r.fort_weight);
  push_string_list(L, r.sticky_terrain);
  lua_setfield(L, -2, "sticky_terrain");
  set_int(L, "ambush_multiplier", r.ambush_multiplier);
  set_int(L, "max_assault_rounds", r.max_assault_rounds);
  lua_pushnumber(L, r.dispersal_fraction);
  lua_setfield(L, -2, "dispersal_fraction");
  set_bool(L, "leftover_bp_to_treasury", r.leftover_bp_to_treasury);
  set_bool(L, "leftover_bp_bids", r.leftover_bp_bids);
  set_int(L, "army_upkeep", r.army_upkeep);
  push_int_map(L, r.costs);
  lua_setfield(L, -2, "costs");
  set_str(L, "viking_nation", r.viking_nation);
  push_string_list(L, r.gaelic_nations);
  lua_setfield(L, -2, "gaelic_nations");
  push_string_list(L, r.raid_shelter_terrain);
  lua_setfield(L, -2, "raid_shelter_terrain");
  set_int(L, "raid_pillage_population", r.raid_pillage_population);
  return 1;
}

Rng& current_rng(lua_State* L) {
  Rng* r = sandbox_of(L).access().rng;
  if (!r) luaL_error(L, "the rng is only available during resolve");
  return *r;
}

int rng_die(lua_State* L) {
  Rng& r = current_rng(L);
  const lua_Integer sides = luaL_checkinteger(L, 2);
  luaL_argcheck(L, sides >= 1 && sides <= INT_MAX, 2, "sides must be 1..2147483647");
  lua_pushinteger(L, r.die(static_cast<int>(sides)));
  return 1;
}

int rng_uniform(lua_State* L) {
  Rng& r = current_rng(L);
  const lua_Integer bound = luaL_checkinteger(L, 2);
  luaL_argcheck(L, bound >= 1 && bound <= 0xffffffffLL, 2, "bound must be 1..4294967295");
  lua_pushinteger(L, r.uniform(static_cast<std::uint32_t>(bound)));
  return 1;
}

// Pushes a table and gives it the metatable `name` ({__index = methods, __metatable = false}),
// created on first use in this state.
void push_object(lua_State* L, const char* name, const luaL_Reg* methods, int fields) {
  lua_createtable(L, 0, fields);
  if (luaL_newmetatable(L, name)) {
    lua_newtable(L);
    luaL_setfuncs(L, methods, 0);
    lua_setfield(L, -2, "__index");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
  }
  lua_setmetatable(L, -2);
}

// ---- Lua -> C++ (never raises: raw access, type checks before every read) ----

constexpr int kMaxDepth = 64;
constexpr long kMaxNodes = 1'000'000;

struct Reader {
  lua_State* L;
  long nodes = 0;
};

std::string type_of(lua_State* L, int idx) { return lua_typename(L, lua_type(L, idx)); }

Status bad(const std::string& path, const std::string& what) {
  return Status::InvalidArgument(path + ": " + what);
}

Result<Json> to_json_value(Reader& r, int idx, const std::string& path, int depth) {
  lua_State* L = r.L;
  idx = lua_absindex(L, idx);
  if (++r.nodes > kMaxNodes) return bad(path, "more than a million values");
  switch (lua_type(L, idx)) {
    case LUA_TNIL:
      return Json(nullptr);
    case LUA_TBOOLEAN:
      return Json(lua_toboolean(L, idx) != 0);
    case LUA_TNUMBER: {
      if (lua_isinteger(L, idx)) return Json(static_cast<std::int64_t>(lua_tointeger(L, idx)));
      const double d = lua_tonumber(L, idx);
      if (!std::isfinite(d)) return bad(path, "must be a finite number");
      return Json(d);
    }
    case LUA_TSTRING: {
      std::size_t n = 0;
      const char* s = lua_tolstring(L, idx, &n);
      return Json(std::string(s, n));
    }
    case LUA_TTABLE:
      break;
    default:
      return bad(path, "a " + type_of(L, idx) + " cannot be stored (only tables, strings, " +
                           "numbers and booleans)");
  }
  if (depth > kMaxDepth) return bad(path, "nested more than 64 tables deep");
  if (!lua_checkstack(L, 4)) return bad(path, "nested too deep");
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
      return bad(path, "a table must be a list (keys 1..n) or an object (string keys)");
    }
  }
  if (strings == 0 && count > 0) {
    if (static_cast<std::size_t>(max_int) != count)
      return bad(path, "a list must have keys 1..n without holes");
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
    return bad(path, "a table must be a list (keys 1..n) or an object (string keys)");
  Json obj = Json::object();
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    std::size_t n = 0;
    const char* k = lua_tolstring(L, -2, &n);
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

Result<int> int_at(lua_State* L, int idx, const std::string& path) {
  if (lua_type(L, idx) != LUA_TNUMBER)
    return bad(path, "must be an integer, not a " + type_of(L, idx));
  int isnum = 0;
  const lua_Integer v = lua_tointegerx(L, idx, &isnum);
  if (!isnum) return bad(path, "must be an integer");
  if (v < INT_MIN || v > INT_MAX) return bad(path, "out of range");
  return static_cast<int>(v);
}

Result<bool> bool_at(lua_State* L, int idx, const std::string& path) {
  if (lua_type(L, idx) != LUA_TBOOLEAN)
    return bad(path, "must be a boolean, not a " + type_of(L, idx));
  return lua_toboolean(L, idx) != 0;
}

Result<std::string> string_at(lua_State* L, int idx, const std::string& path) {
  if (lua_type(L, idx) != LUA_TSTRING)
    return bad(path, "must be a string, not a " + type_of(L, idx));
  std::size_t n = 0;
  const char* s = lua_tolstring(L, idx, &n);
  return std::string(s, n);
}

Result<Json> object_at(Reader& r, int idx, const std::string& path) {
  if (lua_type(r.L, idx) != LUA_TTABLE)
    return bad(path, "must be a table, not a " + type_of(r.L, idx));
  Result<Json> j = to_json_value(r, idx, path, 0);
  if (j.ok() && !j->is_object()) return bad(path, "must be an object (string keys), not a list");
  return j;
}

// The length of the list at `idx` (keys 1..n only), or an error naming `path`.
Result<lua_Integer> list_at(lua_State* L, int idx, const std::string& path) {
  if (lua_type(L, idx) != LUA_TTABLE) return bad(path, "must be a list, not a " + type_of(L, idx));
  idx = lua_absindex(L, idx);
  if (!lua_checkstack(L, 3)) return bad(path, "nested too deep");
  const lua_Integer n = static_cast<lua_Integer>(lua_rawlen(L, idx));
  lua_Integer count = 0;
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    lua_pop(L, 1);
    ++count;
    if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 1 || lua_tointeger(L, -1) > n) {
      lua_pop(L, 1);
      return bad(path, "must be a list (keys 1..n)");
    }
  }
  if (count != n) return bad(path, "must be a list without holes");
  return n;
}

Result<std::vector<int>> int_list_at(lua_State* L, int idx, const std::string& path) {
  Result<lua_Integer> n = list_at(L, idx, path);
  if (!n.ok()) return n.status();
  idx = lua_absindex(L, idx);
  std::vector<int> out;
  for (lua_Integer i = 1; i <= *n; ++i) {
    lua_rawgeti(L, idx, i);
    Result<int> v = int_at(L, -1, path + "[" + std::to_string(i) + "]");
    lua_pop(L, 1);
    if (!v.ok()) return v.status();
    out.push_back(*v);
  }
  return out;
}

// Iterates the string-keyed fields of the table at `idx`: fn(key, value index) for each, in
// Lua's order; the first error stops it. Non-string keys are errors naming `path`.
template <typename Fn>
Status each_field(lua_State* L, int idx, const std::string& path, Fn fn) {
  idx = lua_absindex(L, idx);
  if (!lua_checkstack(L, 4)) return bad(path, "nested too deep");
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    if (lua_type(L, -2) != LUA_TSTRING) {
      lua_pop(L, 2);
      return bad(path, "has a key that is not a field name");
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

#define ADJ_ASSIGN(target, expr)              \
  do {                                        \
    auto adj_v_ = (expr);                     \
    if (!adj_v_.ok()) return adj_v_.status(); \
    target = std::move(adj_v_).value();       \
  } while (0)

Result<BattleRound> round_from_lua(Reader& r, int idx, const std::string& path) {
  lua_State* L = r.L;
  if (lua_type(L, idx) != LUA_TTABLE) return bad(path, "must be a table, not a " + type_of(L, idx));
  BattleRound round;
  Status s = each_field(L, idx, path, [&](std::string_view k, int v) -> Status {
    const std::string p = path + "." + std::string(k);
    if (k == "phase")
      ADJ_ASSIGN(round.phase, string_at(L, v, p));
    else if (k == "attacker_before")
      ADJ_ASSIGN(round.attacker_before, int_at(L, v, p));
    else if (k == "defender_before")
      ADJ_ASSIGN(round.defender_before, int_at(L, v, p));
    else if (k == "attacker_strength")
      ADJ_ASSIGN(round.attacker_strength, int_at(L, v, p));
    else if (k == "defender_strength")
      ADJ_ASSIGN(round.defender_strength, int_at(L, v, p));
    else if (k == "attacker_losses")
      ADJ_ASSIGN(round.attacker_losses, int_at(L, v, p));
    else if (k == "defender_losses")
      ADJ_ASSIGN(round.defender_losses, int_at(L, v, p));
    else if (k == "attacker_dice")
      ADJ_ASSIGN(round.attacker_dice, int_list_at(L, v, p));
    else if (k == "defender_dice")
      ADJ_ASSIGN(round.defender_dice, int_list_at(L, v, p));
    else if (k == "detail")
      ADJ_ASSIGN(round.detail, object_at(r, v, p));
    else
      return bad(p, "unknown field of a round");
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return round;
}

}  // namespace

void push_json(lua_State* L, const Json& j) {
  luaL_checkstack(L, 3, "JSON nested too deep");
  switch (j.type()) {
    case Json::value_t::boolean:
      lua_pushboolean(L, j.get<bool>());
      return;
    case Json::value_t::number_integer:
      lua_pushinteger(L, j.get<std::int64_t>());
      return;
    case Json::value_t::number_unsigned: {
      const std::uint64_t u = j.get<std::uint64_t>();
      if (u <= static_cast<std::uint64_t>(std::numeric_limits<lua_Integer>::max()))
        lua_pushinteger(L, static_cast<lua_Integer>(u));
      else
        lua_pushnumber(L, static_cast<lua_Number>(u));
      return;
    }
    case Json::value_t::number_float:
      lua_pushnumber(L, j.get<double>());
      return;
    case Json::value_t::string:
      push_str(L, j.get_ref<const std::string&>());
      return;
    case Json::value_t::array: {
      lua_createtable(L, static_cast<int>(j.size()), 0);
      lua_Integer i = 0;
      for (auto it = j.begin(); it != j.end(); ++it) {
        push_json(L, *it);
        lua_rawseti(L, -2, ++i);
      }
      return;
    }
    case Json::value_t::object: {
      lua_createtable(L, 0, static_cast<int>(j.size()));
      for (auto it = j.begin(); it != j.end(); ++it) {
        push_str(L, it.key());
        push_json(L, it.value());
        lua_rawset(L, -3);
      }
      return;
    }
    default:
      lua_pushnil(L);
      return;
  }
}

void push_world(lua_State* L, const GameState& world) {
  static const luaL_Reg kMethods[] = {
      {"area", world_area},     {"neighbours", world_neighbours},       {"edge", world_edge},
      {"player", world_player}, {"order_of_play", world_order_of_play}, {"rules", world_rules},
      {nullptr, nullptr}};
  push_object(L, "adj.world", kMethods, 1);
  set_int(L, "turn", world.turn);
}

void push_rng(lua_State* L) {
  static const luaL_Reg kMethods[] = {
      {"die", rng_die}, {"uniform", rng_uniform}, {nullptr, nullptr}};
  push_object(L, "adj.rng", kMethods, 0);
}

void push_battle(lua_State* L, const BattleInput& in) {
  lua_createtable(L, 0, 14);
  set_str(L, "id", in.id);
  set_cstr(L, "kind", to_string(in.kind));
  set_str(L, "attacker", in.attacker);
  set_str(L, "from", in.from);
  set_str(L, "to", in.to);
  set_int(L, "attacker_armies", in.attacker_armies);
  set_json(L, "attacker_units", in.attacker_units);
  set_bool(L, "ambush", in.ambush);
  push_int_map(L, in.extras);
  lua_setfield(L, -2, "extras");
  if (in.options) {
    set_json(L, "options", *in.options);
  } else {
    lua_newtable(L);
    lua_setfield(L, -2, "options");
  }
  const bool one = in.groups.empty();
  const std::size_t n = one ? 1 : in.groups.size();
  lua_createtable(L, static_cast<int>(n), 0);
  for (std::size_t k = 0; k < n; ++k) {
    lua_createtable(L, 0, 6);
    if (one) {
      set_str(L, "player", in.attacker);
      set_str(L, "from", in.from);
      set_int(L, "armies", in.attacker_armies);
      set_json(L, "units", in.attacker_units);
      set_int(L, "action", 0);
      set_int(L, "line", 0);
    } else {
      const AttackGroup& g = in.groups[k];
      set_str(L, "player", g.player);
      set_str(L, "from", g.from);
      set_int(L, "armies", g.armies);
      set_json(L, "units", g.units);
      set_int(L, "action", g.action);
      set_int(L, "line", g.line);
    }
    lua_rawseti(L, -2, static_cast<lua_Integer>(k + 1));
  }
  lua_setfield(L, -2, "groups");
  push_world(L, *in.world);
  lua_setfield(L, -2, "world");
}

void push_order(lua_State* L, const Order& order) {
  lua_createtable(L, 0, 8);
  set_int(L, "line", order.line);
  set_int(L, "action", order.action);
  set_cstr(L, "verb", verb_name(order.verb));
  set_str(L, "from", order.from);
  set_str(L, "to", order.to);
  lua_createtable(L, 0, 2);
  set_cstr(L, "kind",
           order.qty.kind == Quantity::Kind::kAll     ? "all"
           : order.qty.kind == Quantity::Kind::kExact ? "exact"
                                                      : "all_but");
  set_int(L, "n", order.qty.n);
  lua_setfield(L, -2, "quantity");
  push_int_map(L, order.extras);
  lua_setfield(L, -2, "extras");
  set_str(L, "text", order.text);
}

Result<Json> json_from_lua(lua_State* L, int idx, const std::string& path) {
  Reader r{L};
  return to_json_value(r, idx, path, 0);
}

Result<BattleOutcome> outcome_from_lua(lua_State* L, int idx) {
  if (lua_type(L, idx) != LUA_TTABLE)
    return bad("outcome", "resolve must return a table, not a " + type_of(L, idx));
  Reader r{L};
  BattleOutcome o;
  Status s = each_field(L, idx, "outcome", [&](std::string_view k, int v) -> Status {
    const std::string p = "outcome." + std::string(k);
    if (k == "attacker_wins")
      ADJ_ASSIGN(o.attacker_wins, bool_at(L, v, p));
    else if (k == "attacker_losses")
      ADJ_ASSIGN(o.attacker_losses, int_at(L, v, p));
    else if (k == "defender_losses")
      ADJ_ASSIGN(o.defender_losses, int_at(L, v, p));
    else if (k == "attacker_stops")
      ADJ_ASSIGN(o.attacker_stops, bool_at(L, v, p));
    else if (k == "defender_retreats_to")
      ADJ_ASSIGN(o.defender_retreats_to, string_at(L, v, p));
    else if (k == "attacker_retreats_to")
      ADJ_ASSIGN(o.attacker_retreats_to, string_at(L, v, p));
    else if (k == "fort_after")
      ADJ_ASSIGN(o.fort_after, int_at(L, v, p));
    else if (k == "advancing")
      ADJ_ASSIGN(o.advancing, int_at(L, v, p));
    else if (k == "attacker_units")
      ADJ_ASSIGN(o.attacker_units, object_at(r, v, p));
    else if (k == "defender_units")
      ADJ_ASSIGN(o.defender_units, object_at(r, v, p));
    else if (k == "detail")
      ADJ_ASSIGN(o.detail, object_at(r, v, p));
    else if (k == "attacker_player_state")
      ADJ_ASSIGN(o.attacker_player_state, object_at(r, v, p));
    else if (k == "defender_player_state")
      ADJ_ASSIGN(o.defender_player_state, object_at(r, v, p));
    else if (k == "group_losses")
      ADJ_ASSIGN(o.group_losses, int_list_at(L, v, p));
    else if (k == "rounds" || k == "group_units" || k == "group_retreats_to") {
      Result<lua_Integer> n = list_at(L, v, p);
      if (!n.ok()) return n.status();
      for (lua_Integer i = 1; i <= *n; ++i) {
        const std::string pi = p + "[" + std::to_string(i) + "]";
        lua_rawgeti(L, v, i);
        Status e = Status::Ok();
        if (k == "rounds") {
          Result<BattleRound> round = round_from_lua(r, -1, pi);
          if (round.ok())
            o.rounds.push_back(std::move(round).value());
          else
            e = round.status();
        } else if (k == "group_units") {
          Result<Json> u = object_at(r, -1, pi);
          if (u.ok())
            o.group_units.push_back(std::move(u).value());
          else
            e = u.status();
        } else if (lua_type(L, -1) == LUA_TBOOLEAN && !lua_toboolean(L, -1)) {
          o.group_retreats_to.push_back(std::nullopt);
        } else {
          Result<std::string> to = string_at(L, -1, pi);
          if (to.ok())
            o.group_retreats_to.push_back(std::move(to).value());
          else
            e = bad(pi, "must be an area code or false (home)");
        }
        lua_pop(L, 1);
        if (!e.ok()) return e;
      }
    } else {
      return bad(p, "unknown field of an outcome");
    }
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return o;
}

}  // namespace adj
