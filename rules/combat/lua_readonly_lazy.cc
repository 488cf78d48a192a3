// Read-only and lazy tables of the sandbox (lua_sandbox.h): the read-only proxy every library
// table is (lua_freeze_top), the private keys that mark read-only and lazy tables in their
// metatables, and what a table shows to a script (lua_push_contents). The library's wrapped
// functions ask here whether a table is read-only or lazy (lua_library_internal.h).
//
// The keys are this file's static addresses; the tables and metatables belong to the Lua state.
// Thread-safety: none (one Lua state, serialised by its owner).
#include <string>

#include "rules/combat/lua_library_internal.h"
#include "rules/combat/lua_sandbox.h"

extern "C" {
#include <lauxlib.h>
#include <lua.h>
}

namespace adj {

namespace {

// Registry keys (their addresses).
char kFrozenMarker;  // present in the metatable of every read-only library table
char kFrozenTarget;  // in a read-only proxy's metatable: the real table
char kLazyFill;      // in a lazy table's metatable: the function that completes it

int refuse_write(lua_State* L) { return luaL_error(L, "library tables are read-only"); }

// __len of a read-only proxy: the length of the real table (upvalue 1).
int frozen_len(lua_State* L) {
  lua_pushinteger(L, static_cast<lua_Integer>(lua_rawlen(L, lua_upvalueindex(1))));
  return 1;
}

// Replaces the table at the top of the stack by a read-only proxy of it.
void freeze_top(lua_State* L) {
  lua_newtable(L);           // proxy
  lua_createtable(L, 0, 4);  // its metatable
  lua_pushvalue(L, -3);      // the real table
  lua_setfield(L, -2, "__index");
  lua_pushvalue(L, -3);
  lua_pushcclosure(L, frozen_len, 1);
  lua_setfield(L, -2, "__len");
  lua_pushcfunction(L, refuse_write);
  lua_setfield(L, -2, "__newindex");
  lua_pushboolean(L, 0);
  lua_setfield(L, -2, "__metatable");
  lua_pushboolean(L, 1);
  lua_rawsetp(L, -2, &kFrozenMarker);
  lua_pushvalue(L, -3);
  lua_rawsetp(L, -2, &kFrozenTarget);
  lua_setmetatable(L, -2);
  lua_remove(L, -2);
}

bool is_lazy(lua_State* L, int idx) {
  if (!lua_getmetatable(L, idx)) return false;
  const bool lazy = lua_rawgetp(L, -1, &kLazyFill) != LUA_TNIL;
  lua_pop(L, 2);
  return lazy;
}

}  // namespace

namespace lua_lib {

bool is_frozen(lua_State* L, int idx) {
  if (!lua_getmetatable(L, idx)) return false;
  const bool frozen = lua_rawgetp(L, -1, &kFrozenMarker) != LUA_TNIL;
  lua_pop(L, 2);
  return frozen;
}

bool is_frozen_metatable(lua_State* L) {
  const bool frozen = lua_rawgetp(L, -1, &kFrozenMarker) != LUA_TNIL;
  lua_pop(L, 1);
  return frozen;
}

void complete_lazy(lua_State* L, int idx) {
  if (lua_type(L, idx) != LUA_TTABLE || !is_lazy(L, idx) || is_frozen(L, idx)) return;
  lua_push_contents(L, idx);
  lua_pop(L, 1);
}

}  // namespace lua_lib

void lua_freeze_top(lua_State* L) { freeze_top(L); }

void lua_set_lazy_fill(lua_State* L) { lua_rawsetp(L, -2, &kLazyFill); }

int lua_lazy_newindex(lua_State* L) {
  lua_settop(L, 3);
  lua_push_contents(L, 1);
  lua_pop(L, 1);
  lua_rawset(L, 1);
  return 0;
}

void lua_new_lazy_metatable(lua_State* L, int (*newindex)(lua_State*), int (*fill)(lua_State*)) {
  lua_createtable(L, 0, 4);
  lua_insert(L, -2);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, newindex);
  lua_setfield(L, -2, "__newindex");
  lua_pushboolean(L, 0);
  lua_setfield(L, -2, "__metatable");
  lua_pushcfunction(L, fill);
  lua_set_lazy_fill(L);
}

void lua_mark_frozen(lua_State* L) {
  lua_pushboolean(L, 1);
  lua_rawsetp(L, -2, &kFrozenMarker);
}

void lua_push_contents(lua_State* L, int idx) {
  idx = lua_absindex(L, idx);
  luaL_checkstack(L, 4, "contents");
  if (lua_getmetatable(L, idx)) {
    if (lua_rawgetp(L, -1, &kFrozenTarget) == LUA_TTABLE) {
      lua_remove(L, -2);
      return;
    }
    lua_pop(L, 1);
    if (lua_rawgetp(L, -1, &kLazyFill) == LUA_TFUNCTION) {
      lua_remove(L, -2);
      lua_pushvalue(L, idx);
      lua_call(L, 1, 1);
      return;
    }
    lua_pop(L, 2);
  }
  lua_pushvalue(L, idx);
}

namespace {
int push_contents_job(lua_State* L) {
  lua_push_contents(L, 1);
  return 1;
}
}  // namespace

bool lua_push_contents_protected(lua_State* L, int idx, std::string* error) {
  idx = lua_absindex(L, idx);
  if (!lua_checkstack(L, 4)) {
    *error = "nested too deep";
    return false;
  }
  if (!lua_getmetatable(L, idx)) {
    lua_pushvalue(L, idx);
    return true;
  }
  lua_pop(L, 1);
  lua_pushcfunction(L, push_contents_job);
  lua_pushvalue(L, idx);
  const int rc = lua_pcall(L, 1, 1, 0);
  if (rc == LUA_OK) return true;
  *error = rc == LUA_ERRMEM ? "not enough memory to read it" : lua_error_text(L);
  lua_pop(L, 1);
  return false;
}

}  // namespace adj
