// Helpers the script engine's marshalling files share (lua_marshal.cc, lua_views.cc,
// lua_rules_views.cc). Each may raise Lua errors (allocation): only inside the sandbox's protected
// call (LuaSandbox::Body).
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>

#include "rules/combat/lua_keys.h"
#include "rules/combat/lua_sandbox.h"
#include "rules/game/state.h"
#include "rules/orders/order.h"

extern "C" {
#include <lauxlib.h>
#include <lua.h>
}

namespace adj {

void push_json(lua_State* L, const Json& j);

namespace lua_detail {

// ---- C++ -> Lua (may raise; no C++ temporaries with destructors across Lua calls) ----

inline void push_str(lua_State* L, const std::string& s) { lua_pushlstring(L, s.data(), s.size()); }

// Sets fields of the table on top of the stack by interned key (raw sets: the tables built here
// have no __newindex).
struct Fields {
  lua_State* L;
  const LuaSandbox& box;
  explicit Fields(lua_State* l) : L(l), box(sandbox_of(l)) {}

  void key(LuaKey k) const { lua_rawgeti(L, LUA_REGISTRYINDEX, box.key_ref(k)); }
  void str(LuaKey k, const std::string& v) const {
    key(k);
    push_str(L, v);
    lua_rawset(L, -3);
  }
  void integer(LuaKey k, lua_Integer v) const {
    key(k);
    lua_pushinteger(L, v);
    lua_rawset(L, -3);
  }
  void json(LuaKey k, const Json& v) const {
    key(k);
    push_json(L, v);
    lua_rawset(L, -3);
  }
};

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

inline const GameState& current_world(lua_State* L) {
  const GameState* w = sandbox_of(L).access().world;
  if (!w) luaL_error(L, "the world is only available during the call it was given to");
  return *w;
}

// In check_order the world shows only what the order names (LuaSandbox::Access::order), the
// same at submission (a view of those parts) and at the turn run (the whole state).
inline bool area_visible(lua_State* L, std::string_view code) {
  const Order* o = sandbox_of(L).access().order;
  return !o || (o->verb != Verb::kGift && (code == o->from || code == o->to));
}

// The code argument `arg` as a string view into Lua's own string.
inline std::string_view code_arg(lua_State* L, int arg) {
  std::size_t n = 0;
  const char* s = luaL_checklstring(L, arg, &n);
  return {s, n};
}

// world:area(code) (lua_views.cc) and world:rules() (lua_rules_views.cc): lazy tables, built field
// by field as read.
int world_area(lua_State* L);
int world_rules(lua_State* L);

}  // namespace lua_detail
}  // namespace adj
