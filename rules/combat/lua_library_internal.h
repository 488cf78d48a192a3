// What the files of the sandbox's library share (lua_sandbox.h lists the set and its rules):
// lua_readonly_lazy.cc tells read-only and lazy tables apart, lua_safe_base.cc and
// lua_table_library.cc hold the wrapped functions that lua_library.cc installs as the safe globals.
// Internal to those files; everything else goes through lua_sandbox.h.
//
// The lua_CFunctions run as the script's calls (inside LuaSandbox::call) and may raise Lua errors;
// the helpers may raise where they say so. No ownership: every value lives in the Lua state.
// Thread-safety: none (one Lua state, serialised by its owner).
#pragma once

struct lua_State;

namespace adj::lua_lib {

// ---- lua_readonly_lazy.cc ----

// Whether the value at `idx` is a read-only library table (lua_freeze_top, lua_mark_frozen).
bool is_frozen(lua_State* L, int idx);
// Whether the metatable on top of the stack is a read-only table's; leaves the stack as it was.
bool is_frozen_metatable(lua_State* L);
// Completes the value at `idx` when it is a lazy table that is not read-only (an area, the battle,
// a kept call's environment or `engine`): it is then a plain table, or the call's environment with
// the classic metatable. May raise.
void complete_lazy(lua_State* L, int idx);

// ---- lua_safe_base.cc: the base library's functions, made safe ----

int safe_getmetatable(lua_State* L);  // upvalue 1: the base library's getmetatable
int safe_rawget(lua_State* L);
int safe_rawset(lua_State* L);
int safe_setmetatable(lua_State* L);
int safe_tostring(lua_State* L);
int safe_format(lua_State* L);  // string.format; upvalue 1: the real one
int sandbox_pcall(lua_State* L);
int sandbox_xpcall(lua_State* L);

// ---- lua_table_library.cc: deterministic order and the guarded table library ----

int sorted_pairs(lua_State* L);  // pairs
// table.insert/remove/sort/concat/unpack/move; upvalues: the real function (not called for sort),
// its name.
int table_guard(lua_State* L);

}  // namespace adj::lua_lib
