// The base library's functions a script may call, made safe (lua_sandbox.h lists the rules):
// getmetatable, rawget, rawset and setmetatable see what a table shows (read-only tables refused,
// lazy ones completed first; setmetatable installs a private copy of the metatable and refuses
// __gc and __mode), tostring and string.format print no address, and pcall and xpcall do not catch
// a memory error. lua_library.cc installs them (lua_library_internal.h declares them).
//
// They run as the script's calls and may raise; they keep nothing but what the Lua state holds.
// Thread-safety: none (one Lua state, serialised by its owner).
#include <cstddef>
#include <cstring>

#include "rules/combat/lua_library_internal.h"
#include "rules/combat/lua_sandbox.h"

extern "C" {
#include <lauxlib.h>
#include <lua.h>
}

namespace adj {

namespace {

// Registry key (its address): present in metatables installed by the sandbox's setmetatable.
char kCopyMarker;

// tostring without addresses: tables and userdata with __tostring use it; otherwise tables,
// functions, threads and userdata print as their type name.
void push_safe_string(lua_State* L, int idx) {
  idx = lua_absindex(L, idx);
  const int t = lua_type(L, idx);
  if (t == LUA_TTABLE || t == LUA_TUSERDATA) {
    if (luaL_getmetafield(L, idx, "__tostring") != LUA_TNIL) {
      lua_pop(L, 1);
      luaL_tolstring(L, idx, nullptr);
      return;
    }
    lua_pushstring(L, lua_typename(L, t));
  } else if (t == LUA_TFUNCTION || t == LUA_TTHREAD || t == LUA_TLIGHTUSERDATA) {
    lua_pushstring(L, lua_typename(L, t));
  } else {
    luaL_tolstring(L, idx, nullptr);
  }
}

// pcall and xpcall as the base library's, except that a memory error is raised again: breaking
// the memory limit ends the call (as the instruction limit does).
int finish_pcall(lua_State* L, int status, int extra) {
  if (status == LUA_ERRMEM) return lua_error(L);
  if (status != LUA_OK) {
    lua_pushboolean(L, 0);
    lua_pushvalue(L, -2);
    return 2;
  }
  return lua_gettop(L) - extra;
}

}  // namespace

namespace lua_lib {

// getmetatable(v) as the base library's (upvalue 1), after completing a lazy table: a complete
// one is plain (nil) or the call's environment (its protected metatable: false), as a fresh run of
// the top level would give.
int safe_getmetatable(lua_State* L) {
  luaL_checkany(L, 1);
  lua_settop(L, 1);
  complete_lazy(L, 1);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, 1, 1);
  return 1;
}

// rawget(t, k) as the base library's, on what the table shows (lua_push_contents): a lazy table is
// completed first, and a read-only one's fields are read behind it.
int safe_rawget(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checkany(L, 2);
  lua_settop(L, 2);
  if (lua_getmetatable(L, 1)) {  // a lazy table completed, a read-only one's contents
    lua_pop(L, 1);
    lua_push_contents(L, 1);
    lua_replace(L, 1);
  }
  lua_rawget(L, 1);
  return 1;
}

// rawset(t, k, v) as the base library's, except that read-only tables refuse it and a lazy table
// is completed first (so that a field set to nil stays nil).
int safe_rawset(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checkany(L, 2);
  luaL_checkany(L, 3);
  if (is_frozen(L, 1)) return luaL_error(L, "rawset: library tables are read-only");
  lua_settop(L, 3);
  complete_lazy(L, 1);
  lua_rawset(L, 1);
  lua_settop(L, 1);
  return 1;
}

// setmetatable(t, mt): refuses library tables, __gc and __mode; installs a private copy of `mt`
// (so that fields added to `mt` later, such as __mode, have no effect) whose __metatable is `mt`,
// so getmetatable(t) == mt as usual.
int safe_setmetatable(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  const int t = lua_type(L, 2);
  luaL_argexpected(L, t == LUA_TNIL || t == LUA_TTABLE, 2, "nil or table");
  lua_settop(L, 2);
  complete_lazy(L, 1);  // then plain, or the call's environment with its protected metatable
  if (lua_getmetatable(L, 1)) {
    const bool ours = lua_rawgetp(L, -1, &kCopyMarker) != LUA_TNIL;
    lua_pop(L, 1);
    if (!ours) {
      if (is_frozen_metatable(L))
        return luaL_error(L, "setmetatable: library tables are read-only");
      if (lua_getfield(L, -1, "__metatable") != LUA_TNIL)
        return luaL_error(L, "cannot change a protected metatable");
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
  }
  if (t == LUA_TNIL) {
    lua_setmetatable(L, 1);
    return 1;
  }
  complete_lazy(L, 2);  // a lazy table as the metatable: copied complete
  for (const char* banned : {"__gc", "__mode"}) {
    lua_pushstring(L, banned);
    if (lua_rawget(L, 2) != LUA_TNIL)
      return luaL_error(L,
                        "setmetatable: %s is not available (its effect depends on when the "
                        "garbage collector runs)",
                        banned);
    lua_pop(L, 1);
  }
  lua_newtable(L);  // 3: the copy
  lua_pushnil(L);
  while (lua_next(L, 2)) {
    LuaSandbox::charge(L, 1);
    lua_pushvalue(L, -2);
    lua_insert(L, -2);
    lua_rawset(L, 3);
  }
  lua_pushboolean(L, 1);
  lua_rawsetp(L, 3, &kCopyMarker);
  lua_pushstring(L, "__metatable");
  if (lua_rawget(L, 3) == LUA_TNIL) {
    lua_pop(L, 1);
    lua_pushvalue(L, 2);
    lua_setfield(L, 3, "__metatable");
  } else {
    lua_pop(L, 1);
  }
  lua_setmetatable(L, 1);
  lua_settop(L, 1);
  return 1;
}

// tostring(v) without addresses (push_safe_string).
int safe_tostring(lua_State* L) {
  luaL_checkany(L, 1);
  push_safe_string(L, 1);
  return 1;
}

// string.format without %p, printing tables and functions by type name (upvalue 1: the real one).
int safe_format(lua_State* L) {
  std::size_t n = 0;
  const char* fmt = luaL_checklstring(L, 1, &n);
  LuaSandbox::charge(L, 1 + n / 64);
  for (std::size_t i = 0; i + 1 < n; ++i) {
    if (fmt[i] != '%') continue;
    std::size_t j = i + 1;
    while (j < n && std::strchr("-+ #0123456789.", fmt[j])) ++j;
    if (j < n && fmt[j] == 'p') return luaL_error(L, "string.format: %%p is not available");
    i = j;
  }
  const int top = lua_gettop(L);
  for (int i = 2; i <= top; ++i) {
    const int t = lua_type(L, i);
    if (t == LUA_TTABLE || t == LUA_TFUNCTION || t == LUA_TTHREAD || t == LUA_TUSERDATA ||
        t == LUA_TLIGHTUSERDATA) {
      push_safe_string(L, i);
      lua_replace(L, i);
    }
  }
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, top, 1);
  return 1;
}

// pcall(f, ...) and xpcall(f, msgh, ...) over finish_pcall.
int sandbox_pcall(lua_State* L) {
  luaL_checkany(L, 1);
  lua_pushboolean(L, 1);
  lua_insert(L, 1);
  return finish_pcall(L, lua_pcall(L, lua_gettop(L) - 2, LUA_MULTRET, 0), 0);
}

int sandbox_xpcall(lua_State* L) {
  const int n = lua_gettop(L);
  luaL_checktype(L, 2, LUA_TFUNCTION);
  lua_pushboolean(L, 1);
  lua_pushvalue(L, 1);
  lua_rotate(L, 3, 2);
  return finish_pcall(L, lua_pcall(L, n - 2, LUA_MULTRET, 2), 2);
}

}  // namespace lua_lib

}  // namespace adj
