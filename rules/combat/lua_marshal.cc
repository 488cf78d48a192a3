#include "rules/combat/lua_marshal.h"

#include <climits>
#include <cmath>
#include <cstdint>
#include <limits>

#include "rules/combat/lua_marshal_detail.h"
#include "rules/combat/lua_sandbox.h"

extern "C" {
#include <lauxlib.h>
#include <lua.h>
}

namespace adj {

using namespace lua_detail;

namespace {

// ---- C++ -> Lua (may raise; no C++ temporaries with destructors across Lua calls) ----

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

bool player_visible(lua_State* L, const GameState& w, std::string_view code) {
  const Order* o = sandbox_of(L).access().order;
  if (!o) return true;
  if (o->verb == Verb::kGift) return code == o->to;
  for (const std::string* a : {&o->from, &o->to}) {
    const Area* area = a->empty() ? nullptr : w.find_area(*a);
    if (area && area->owner && *area->owner == code) return true;
  }
  return false;
}

int world_neighbours(lua_State* L) {
  const GameState& w = current_world(L);
  if (!area_visible(L, code_arg(L, 2))) {
    lua_newtable(L);
    return 1;
  }
  const auto& list = w.neighbours(code_arg(L, 2));
  LuaSandbox::charge(L, list.size());
  push_string_list(L, list);
  return 1;
}

int world_edge(lua_State* L) {
  const GameState& w = current_world(L);
  if (!area_visible(L, code_arg(L, 2)) && !area_visible(L, code_arg(L, 3))) return 0;
  const Edge* e = w.find_edge(code_arg(L, 2), code_arg(L, 3));
  if (!e) return 0;
  lua_createtable(L, 0, 3);
  const Fields f(L);
  f.str(LuaKey::a, e->a);
  f.str(LuaKey::b, e->b);
  f.json(LuaKey::features, e->features);
  return 1;
}

// Mirrors to_json(const Player&) without the secret and the address.
int world_player(lua_State* L) {
  const GameState& w = current_world(L);
  if (!player_visible(L, w, code_arg(L, 2))) return 0;
  const Player* p = w.find_player(code_arg(L, 2));
  if (!p) return 0;
  lua_createtable(L, 0, 8);
  const Fields f(L);
  f.str(LuaKey::code, p->code);
  f.str(LuaKey::name, p->name);
  f.str(LuaKey::nation, p->nation);
  f.integer(LuaKey::bp, p->bp);
  f.integer(LuaKey::treasury, p->treasury);
  f.integer(LuaKey::vp, p->vp);
  f.integer(LuaKey::reserve, p->reserve);
  f.json(LuaKey::engine_state, p->engine_state);
  return 1;
}

int world_order_of_play(lua_State* L) {
  const GameState& w = current_world(L);
  LuaSandbox::charge(L, w.order_of_play.size());
  push_string_list(L, w.order_of_play);
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

// Pushes the state's one object in `slot`: a userdata without fields or user values whose
// protected metatable's __index is a table of `methods` (kept in `methods_slot` unless it is
// LuaSlot::kCount). Being a userdata, a script cannot store anything in it, so one object serves
// every call. Created on first use.
void push_object(lua_State* L, LuaSlot slot, LuaSlot methods_slot, const luaL_Reg* methods) {
  const LuaSandbox& box = sandbox_of(L);
  if (lua_rawgeti(L, LUA_REGISTRYINDEX, box.slot_ref(slot)) == LUA_TUSERDATA) return;
  lua_pop(L, 1);
  lua_newuserdatauv(L, 0, 0);
  lua_createtable(L, 0, 2);
  lua_newtable(L);
  luaL_setfuncs(L, methods, 0);
  if (methods_slot != LuaSlot::kCount) {
    lua_pushvalue(L, -1);
    lua_rawseti(L, LUA_REGISTRYINDEX, box.slot_ref(methods_slot));
  }
  lua_setfield(L, -2, "__index");
  lua_pushboolean(L, 0);
  lua_setfield(L, -2, "__metatable");
  lua_setmetatable(L, -2);
  lua_pushvalue(L, -1);
  lua_rawseti(L, LUA_REGISTRYINDEX, box.slot_ref(slot));
}

}  // namespace

namespace {

void push_json_at(lua_State* L, const Json& j, int depth) {
  if (depth > 200) luaL_error(L, "JSON nested more than 200 deep");
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
      LuaSandbox::charge(L, j.size());
      lua_createtable(L, static_cast<int>(j.size()), 0);
      lua_Integer i = 0;
      for (auto it = j.begin(); it != j.end(); ++it) {
        push_json_at(L, *it, depth + 1);
        lua_rawseti(L, -2, ++i);
      }
      return;
    }
    case Json::value_t::object: {
      LuaSandbox::charge(L, j.size());
      lua_createtable(L, 0, static_cast<int>(j.size()));
      for (auto it = j.begin(); it != j.end(); ++it) {
        push_str(L, it.key());
        push_json_at(L, it.value(), depth + 1);
        lua_rawset(L, -3);
      }
      return;
    }
    default:
      lua_pushnil(L);
      return;
  }
}

}  // namespace

void push_json(lua_State* L, const Json& j) { push_json_at(L, j, 0); }

void push_world(lua_State* L, const GameState& world) {
  static const luaL_Reg kMethods[] = {
      {"area", world_area},     {"neighbours", world_neighbours},       {"edge", world_edge},
      {"player", world_player}, {"order_of_play", world_order_of_play}, {"rules", world_rules},
      {nullptr, nullptr}};
  push_object(L, LuaSlot::kWorld, LuaSlot::kWorldMethods, kMethods);
  // world.turn: a field of the method table, set for the call (scripts cannot reach the table).
  const Fields f(L);
  lua_rawgeti(L, LUA_REGISTRYINDEX, f.box.slot_ref(LuaSlot::kWorldMethods));
  f.integer(LuaKey::turn, world.turn);
  lua_pop(L, 1);
}

void push_rng(lua_State* L) {
  static const luaL_Reg kMethods[] = {
      {"die", rng_die}, {"uniform", rng_uniform}, {nullptr, nullptr}};
  push_object(L, LuaSlot::kRng, LuaSlot::kCount, kMethods);
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

}  // namespace adj
