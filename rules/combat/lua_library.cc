// The sandbox's library (LuaSandbox's safe globals; lua_sandbox.h lists the set and the rules):
// what a script may call, wrapped so that every call is bounded, deterministic and unable to keep
// state in shared tables. Built here from the full libraries, which are then dropped: the
// functions charged their work (charged_call, string.rep), and the read-only tables that hold
// them. The wrapped base functions are in lua_safe_base.cc, pairs and the table library in
// lua_table_library.cc, read-only and lazy tables in lua_readonly_lazy.cc.
//
// Everything built lives in the Lua state (its registry and the environment's metatable).
// Thread-safety: none (one Lua state, serialised by its owner).
#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "rules/combat/lua_library_internal.h"
#include "rules/combat/lua_sandbox.h"

extern "C" {
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
}

namespace adj {

namespace {

// string.rep without its unbounded loop: an empty result is made at once (the real one loops n
// times copying nothing), and the rest is charged n * (#s + #sep) / 64 before it runs.
// Upvalue 1: the real string.rep.
int sandbox_rep(lua_State* L) {
  std::size_t l = 0, lsep = 0;
  luaL_checklstring(L, 1, &l);
  const lua_Integer n = luaL_checkinteger(L, 2);
  luaL_optlstring(L, 3, "", &lsep);
  if (n <= 0 || l + lsep == 0) {
    lua_pushliteral(L, "");
    return 1;
  }
  const std::uint64_t each = static_cast<std::uint64_t>(l) + lsep;
  const std::uint64_t count = static_cast<std::uint64_t>(n);
  LuaSandbox::charge(L, count > UINT64_MAX / each ? UINT64_MAX : count * each / 64 + 1);
  const int top = lua_gettop(L);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, top, 1);
  return 1;
}

// A library function charged its work: 1, plus the first argument's bytes / 64 when upvalue 2 is
// true (functions that scan it: tonumber, upper, lower, reverse, pack's and unpack's formats,
// utf8.len and utf8.offset), plus one per result (byte, unpack, codepoint push up to a million
// values). Upvalue 1: the real function.
int charged_call(lua_State* L) {
  std::uint64_t units = 1;
  if (lua_toboolean(L, lua_upvalueindex(2)) && lua_type(L, 1) == LUA_TSTRING)
    units += lua_rawlen(L, 1) / 64;
  LuaSandbox::charge(L, units);
  const int top = lua_gettop(L);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, top, LUA_MULTRET);
  const int results = lua_gettop(L);
  LuaSandbox::charge(L, static_cast<std::uint64_t>(results));
  return results;
}

// Stores the field `k` of the table at `from` in the table on top, wrapped in charged_call.
void set_charged(lua_State* L, int from, const char* k, bool scans_first) {
  lua_getfield(L, from, k);
  lua_pushboolean(L, scans_first);
  lua_pushcclosure(L, charged_call, 2);
  lua_setfield(L, -2, k);
}

// Copies the named fields of the table at `from` into a new table, freezes it and stores it in
// the table at `into` under `name`.
void copy_frozen(lua_State* L, int from, int into, const char* name,
                 std::initializer_list<const char*> keep) {
  lua_newtable(L);
  for (const char* k : keep) {
    lua_getfield(L, from, k);
    lua_setfield(L, -2, k);
  }
  lua_freeze_top(L);
  lua_setfield(L, into, name);
}

// The helpers below build the library on the stack open_library lays out: 1 _G, 2 string,
// 3 table, 4 math, 5 utf8 (the full libraries), 6 the safe globals. Each may raise.

// The safe globals' functions from the base library.
void set_base_globals(lua_State* L) {
  for (const char* k :
       {"assert", "error", "ipairs", "rawequal", "rawlen", "select", "type", "_VERSION"}) {
    lua_getfield(L, 1, k);
    lua_setfield(L, 6, k);
  }
  lua_pushvalue(L, 6);
  set_charged(L, 1, "tonumber", true);  // scans a string argument
  lua_pop(L, 1);
  lua_pushcfunction(L, lua_lib::sandbox_pcall);
  lua_setfield(L, 6, "pcall");
  lua_pushcfunction(L, lua_lib::sandbox_xpcall);
  lua_setfield(L, 6, "xpcall");
  lua_pushcfunction(L, lua_lib::safe_rawset);
  lua_setfield(L, 6, "rawset");
  lua_pushcfunction(L, lua_lib::safe_rawget);
  lua_setfield(L, 6, "rawget");
  lua_getfield(L, 1, "getmetatable");
  lua_pushcclosure(L, lua_lib::safe_getmetatable, 1);
  lua_setfield(L, 6, "getmetatable");
  lua_pushcfunction(L, lua_lib::safe_setmetatable);
  lua_setfield(L, 6, "setmetatable");
  lua_pushcfunction(L, lua_lib::safe_tostring);
  lua_setfield(L, 6, "tostring");
  lua_pushcfunction(L, lua_lib::sorted_pairs);
  lua_setfield(L, 6, "pairs");
}

// The read-only string table, also the methods of every string.
void set_string_library(lua_State* L) {
  lua_newtable(L);                                // 7: string
  for (const char* k : {"char", "len", "sub"}) {  // O(1) or paid by their result's allocation
    lua_getfield(L, 2, k);
    lua_setfield(L, 7, k);
  }
  set_charged(L, 2, "byte", false);
  for (const char* k : {"lower", "upper", "reverse", "pack", "packsize", "unpack"})
    set_charged(L, 2, k, true);
  lua_getfield(L, 2, "rep");
  lua_pushcclosure(L, sandbox_rep, 1);
  lua_setfield(L, 7, "rep");
  lua_getfield(L, 2, "format");
  lua_pushcclosure(L, lua_lib::safe_format, 1);
  lua_setfield(L, 7, "format");
  lua_freeze_top(L);  // 7: the read-only string
  // Strings' metatable: methods from the read-only string table, nothing else.
  lua_pushliteral(L, "");
  lua_createtable(L, 0, 2);
  lua_pushvalue(L, 7);
  lua_setfield(L, -2, "__index");
  lua_pushboolean(L, 0);
  lua_setfield(L, -2, "__metatable");
  lua_setmetatable(L, -2);
  lua_pop(L, 1);
  lua_setfield(L, 6, "string");
}

// The read-only table table, every function but pack guarded (table_guard).
void set_table_library(lua_State* L) {
  lua_newtable(L);  // table, guarded
  lua_getfield(L, 3, "pack");
  lua_setfield(L, -2, "pack");
  for (const char* k : {"concat", "insert", "move", "remove", "sort", "unpack"}) {
    lua_getfield(L, 3, k);
    lua_pushstring(L, k);
    lua_pushcclosure(L, lua_lib::table_guard, 2);
    lua_setfield(L, -2, k);
  }
  lua_freeze_top(L);
  lua_setfield(L, 6, "table");
}

// The read-only math and utf8 tables.
void set_math_and_utf8(lua_State* L) {
  copy_frozen(L, 4, 6, "math",
              {"abs",        "ceil", "floor", "fmod", "huge",      "max",  "maxinteger", "min",
               "mininteger", "modf", "pi",    "sqrt", "tointeger", "type", "ult",        "exp",
               "log",        "sin",  "cos",   "tan",  "asin",      "acos", "atan"});
  lua_newtable(L);  // utf8
  for (const char* k : {"char", "charpattern", "codes"}) {
    lua_getfield(L, 5, k);
    lua_setfield(L, -2, k);
  }
  set_charged(L, 5, "codepoint", false);
  set_charged(L, 5, "len", true);
  set_charged(L, 5, "offset", true);
  lua_freeze_top(L);
  lua_setfield(L, 6, "utf8");
}

// Every call's environment looks globals up there (the read-only globals at 6); its own writes stay
// in it: the metatable of every call's environment (LuaSlot::kEnvMeta).
void set_env_meta(lua_State* L) {
  lua_createtable(L, 0, 2);
  lua_pushvalue(L, 6);
  lua_setfield(L, -2, "__index");
  lua_pushboolean(L, 0);
  lua_setfield(L, -2, "__metatable");
  lua_rawseti(L, LUA_REGISTRYINDEX, sandbox_of(L).slot_ref(LuaSlot::kEnvMeta));
}

// Nothing else keeps the full libraries reachable from scripts: drop them from the registry's
// loaded table and the global table.
void drop_full_libraries(lua_State* L) {
  lua_pushglobaltable(L);
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    lua_pop(L, 1);
    lua_pushvalue(L, -1);
    lua_pushnil(L);
    lua_rawset(L, -4);
  }
  lua_pop(L, 1);
  lua_pushnil(L);
  lua_setfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
}

int open_library(lua_State* L) {
  luaL_requiref(L, "_G", luaopen_base, 0);
  luaL_requiref(L, "string", luaopen_string, 0);
  luaL_requiref(L, "table", luaopen_table, 0);
  luaL_requiref(L, "math", luaopen_math, 0);
  luaL_requiref(L, "utf8", luaopen_utf8, 0);
  // Stack: 1 _G, 2 string, 3 table, 4 math, 5 utf8.
  lua_newtable(L);  // 6: the safe globals
  set_base_globals(L);
  set_string_library(L);
  set_table_library(L);
  set_math_and_utf8(L);
  lua_freeze_top(L);  // 6: the read-only globals
  set_env_meta(L);
  drop_full_libraries(L);
  return 0;
}

}  // namespace

int lua_open_sandbox_library(lua_State* L) { return open_library(L); }

}  // namespace adj
