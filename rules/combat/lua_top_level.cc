// Running a script's top level once instead of before every call (LuaSandbox::keep_top_level).
//
// A call must see exactly the state the top level leaves, and nothing a call does may reach the
// next one. Running the chunk again in a fresh environment gives that by construction; keeping
// the top level's results gives it when nothing they hold can change:
//   - globals: each call gets a fresh environment whose misses read the kept one (__index), so a
//     call's global writes stay in its own table; `_G` is the call's table; a write that would
//     hide a kept global, pairs, rawget and rawset make it a complete copy first (kept_env_fill);
//   - functions have no fields; their upvalues (cells the top level's locals left) are set back
//     to the values the top level left before every call;
//   - numbers, strings and booleans are values; the library tables are read-only;
//   - `engine`, the one table allowed (string keys; numbers, strings and booleans), is a fresh
//     table for each call that reads the top level's until the call changes it (engine_fill).
// Anything else (a table in a global or an upvalue, a C closure with state such as pairs'
// iterator, a metatable on `engine`) and the chunk keeps running before every call.
#include <cstdint>
#include <string_view>

#include "rules/combat/lua_sandbox.h"

extern "C" {
#include <lauxlib.h>
#include <lua.h>
}

namespace adj {

namespace {

bool is_scalar(int type) {
  return type == LUA_TNIL || type == LUA_TBOOLEAN || type == LUA_TNUMBER || type == LUA_TSTRING;
}

// Whether the table at `idx` holds only string keys and scalar values, without a metatable.
// Never raises.
bool plain_data(lua_State* L, int idx) {
  idx = lua_absindex(L, idx);
  if (lua_getmetatable(L, idx)) {
    lua_pop(L, 1);
    return false;
  }
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    const int kt = lua_type(L, -2);
    if (kt != LUA_TSTRING || !is_scalar(lua_type(L, -1))) {
      lua_pop(L, 2);
      return false;
    }
    lua_pop(L, 1);
  }
  return true;
}

// Copies every field of the table at `from` that the table at `into` lacks (raw), charged one
// instruction each.
void copy_missing(lua_State* L, int from, int into) {
  lua_Integer n = 0;
  lua_pushnil(L);
  while (lua_next(L, from)) {
    ++n;
    lua_pushvalue(L, -2);
    if (lua_rawget(L, into) == LUA_TNIL) {
      lua_pop(L, 1);
      lua_pushvalue(L, -2);
      lua_insert(L, -2);
      lua_rawset(L, into);
    } else {
      lua_pop(L, 2);
    }
  }
  LuaSandbox::charge(L, static_cast<std::uint64_t>(n));
}

// The kept `engine` a call sees is a fresh empty table whose metatable (LuaSlot::kKeptEngine)
// reads the top level's table (__index). The first write to a field it lacks, pairs, rawget,
// rawset, setmetatable or an outcome reader complete it (a copy of every field) and drop the
// metatable: from then on it is the call's own plain table, as a fresh run of the top level would
// give.
int engine_fill(lua_State* L) {
  lua_settop(L, 1);
  if (!lua_getmetatable(L, 1)) return 1;  // already complete
  lua_getfield(L, 2, "__index");          // 3: the top level's table
  copy_missing(L, 3, 1);
  lua_pushnil(L);
  lua_setmetatable(L, 1);
  lua_settop(L, 1);
  return 1;
}

// Pushes the registry value in `slot`.
void push_slot(lua_State* L, LuaSlot slot) {
  lua_rawgeti(L, LUA_REGISTRYINDEX, sandbox_of(L).slot_ref(slot));
}

// A call's environment is a table of its own whose misses read the kept one. A write that would
// hide a kept global (`helper = nil`), pairs, rawget and rawset complete it first: every kept
// global copied in (charged one instruction each), the classic environment's metatable put on,
// so that from then on it is what a fresh run of the top level would have left.
int kept_env_fill(lua_State* L) {
  lua_settop(L, 1);
  if (!lua_getmetatable(L, 1)) return 1;
  lua_pop(L, 1);
  push_slot(L, LuaSlot::kKeptEnv);  // 2
  copy_missing(L, 2, 1);
  push_slot(L, LuaSlot::kEnvMeta);
  lua_setmetatable(L, 1);
  lua_settop(L, 1);
  return 1;
}

int kept_env_newindex(lua_State* L) {
  lua_settop(L, 3);
  push_slot(L, LuaSlot::kKeptEnv);
  lua_pushvalue(L, 2);
  const bool kept = lua_rawget(L, -2) != LUA_TNIL;
  lua_pop(L, 2);
  if (kept) {
    lua_pushcfunction(L, kept_env_fill);
    lua_pushvalue(L, 1);
    lua_call(L, 1, 0);
  }
  lua_rawset(L, 1);
  return 0;
}

// Runs protected. Argument 1: the environment the chunk ran in. Returns true when the top level
// can be kept, having set the registry slots; false (and nothing set) otherwise.
int keep_job(lua_State* L) {
  LuaSandbox& box = sandbox_of(L);
  const int env = 1;
  luaL_checkstack(L, 16, "keep_top_level");
  lua_rawgeti(L, LUA_REGISTRYINDEX, box.slot_ref(LuaSlot::kChunk));
  const int chunk = lua_gettop(L);
  const void* env_cell = lua_upvalueid(L, chunk, 1);  // _ENV, shared by every function's _ENV
  lua_newtable(L);
  const int seen = lua_gettop(L);  // functions visited
  lua_newtable(L);
  const int upvalues = lua_gettop(L);  // {function, index, value} triples, flat
  lua_newtable(L);
  const int work = lua_gettop(L);  // functions to visit
  lua_newtable(L);
  const int found = lua_gettop(L);  // found.engine: the engine table
  lua_newtable(L);
  const int cells = lua_gettop(L);  // upvalue cells recorded (by lua_upvalueid), each once
  lua_Integer n_work = 0, n_up = 0;
  bool g_is_env = false;

  lua_pushnil(L);
  while (lua_next(L, env)) {
    if (lua_type(L, -2) != LUA_TSTRING) {
      lua_pushboolean(L, 0);
      return 1;
    }
    const char* k = lua_tostring(L, -2);
    const int t = lua_type(L, -1);
    if (std::string_view(k) == "_G") {
      if (!lua_rawequal(L, -1, env)) {  // the top level set _G to something else: left as it is
        lua_pushboolean(L, 0);
        return 1;
      }
      g_is_env = true;
    } else if (std::string_view(k) == "engine" && t == LUA_TTABLE && plain_data(L, -1)) {
      lua_pushvalue(L, -1);
      lua_setfield(L, found, "engine");
    } else if (t == LUA_TFUNCTION) {
      lua_pushvalue(L, -1);
      lua_rawseti(L, work, ++n_work);
    } else if (!is_scalar(t)) {
      lua_pushboolean(L, 0);
      return 1;
    }
    lua_pop(L, 1);
  }

  if (!g_is_env) {  // the top level removed _G: each call's would be there again
    lua_pushboolean(L, 0);
    return 1;
  }

  while (n_work > 0) {
    lua_rawgeti(L, work, n_work);
    lua_pushnil(L);
    lua_rawseti(L, work, n_work--);
    const int f = lua_gettop(L);
    lua_pushvalue(L, f);
    if (lua_rawget(L, seen) != LUA_TNIL) {
      lua_pop(L, 2);
      continue;
    }
    lua_pop(L, 1);
    lua_pushvalue(L, f);
    lua_pushboolean(L, 1);
    lua_rawset(L, seen);
    const bool c = lua_iscfunction(L, f);
    for (int i = 1;; ++i) {
      if (!lua_getupvalue(L, f, i)) break;
      const int t = lua_type(L, -1);
      if (c) {
        // A C closure's upvalues are its own state: only constants (the sandbox's wrappers keep
        // the real function and a flag or a name) are safe to share between calls.
        if (t != LUA_TFUNCTION && t != LUA_TBOOLEAN && t != LUA_TSTRING) {
          lua_pushboolean(L, 0);
          return 1;
        }
      } else if (lua_upvalueid(L, f, i) == env_cell) {
        lua_pop(L, 1);
        continue;
      } else if (!is_scalar(t) && t != LUA_TFUNCTION) {
        lua_pushboolean(L, 0);
        return 1;
      } else if (lua_rawgetp(L, cells, lua_upvalueid(L, f, i)) == LUA_TNIL) {
        lua_pop(L, 1);
        lua_pushboolean(L, 1);
        lua_rawsetp(L, cells, lua_upvalueid(L, f, i));
        lua_pushvalue(L, f);
        lua_rawseti(L, upvalues, ++n_up);
        lua_pushinteger(L, i);
        lua_rawseti(L, upvalues, ++n_up);
        lua_pushvalue(L, -1);
        lua_rawseti(L, upvalues, ++n_up);
      } else {
        lua_pop(L, 1);  // a cell another function shares: recorded once
      }
      if (t == LUA_TFUNCTION) {
        lua_pushvalue(L, -1);
        lua_rawseti(L, work, ++n_work);
      }
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
  }

  // Keepable. The calls' environments read the kept one; `_G` and `engine` are their own.
  lua_pushnil(L);
  lua_setfield(L, env, "_G");
  if (lua_getfield(L, found, "engine") == LUA_TTABLE) {
    lua_pushnil(L);
    lua_setfield(L, env, "engine");
    lua_new_lazy_metatable(L, lua_lazy_newindex, engine_fill);  // of every call's `engine`
  } else {
    lua_pop(L, 1);
    lua_pushboolean(L, 0);
  }
  lua_rawseti(L, LUA_REGISTRYINDEX, box.slot_ref(LuaSlot::kKeptEngine));
  lua_pushvalue(L, upvalues);
  lua_rawseti(L, LUA_REGISTRYINDEX, box.slot_ref(LuaSlot::kKeptUpvalues));
  lua_pushvalue(L, env);
  lua_rawseti(L, LUA_REGISTRYINDEX, box.slot_ref(LuaSlot::kKeptEnv));
  lua_pushvalue(L, env);
  lua_new_lazy_metatable(L, kept_env_newindex, kept_env_fill);
  lua_rawseti(L, LUA_REGISTRYINDEX, box.slot_ref(LuaSlot::kKeptEnvMeta));
  lua_pushboolean(L, 1);
  return 1;
}

}  // namespace

bool LuaSandbox::keep_top_level() {
  if (top_level_kept_ || lua_type(L_, -1) != LUA_TTABLE) return false;
  lua_pushcfunction(L_, keep_job);
  lua_pushvalue(L_, -2);
  if (lua_pcall(L_, 1, 1, 0) != LUA_OK) {
    lua_pop(L_, 1);
    return false;
  }
  top_level_kept_ = lua_toboolean(L_, -1);
  lua_pop(L_, 1);
  // The strings the top level made stay reachable from every call (string mark).
  if (top_level_kept_) kept_string_mark_ = string_mark_;
  return top_level_kept_;
}

void lua_enter_kept_top_level(lua_State* L) {
  const LuaSandbox& box = sandbox_of(L);
  lua_rawgeti(L, LUA_REGISTRYINDEX, box.slot_ref(LuaSlot::kKeptEnv));  // 1: the definitions
  lua_createtable(L, 0, 2);                                            // 2: the call's environment
  lua_rawgeti(L, LUA_REGISTRYINDEX, box.slot_ref(LuaSlot::kKeptEnvMeta));
  lua_setmetatable(L, 2);
  lua_pushliteral(L, "_G");  // raw sets: the environment's __newindex is for the script
  lua_pushvalue(L, 2);
  lua_rawset(L, 2);
  if (lua_rawgeti(L, LUA_REGISTRYINDEX, box.slot_ref(LuaSlot::kKeptEngine)) == LUA_TTABLE) {
    lua_newtable(L);  // the call's `engine`: see engine_fill
    lua_insert(L, -2);
    lua_setmetatable(L, -2);
    lua_pushliteral(L, "engine");
    lua_insert(L, -2);
    lua_rawset(L, 2);
  } else {
    lua_pop(L, 1);
  }
  lua_rawgeti(L, LUA_REGISTRYINDEX, box.slot_ref(LuaSlot::kChunk));
  lua_pushvalue(L, 2);
  lua_setupvalue(L, -2, 1);  // _ENV of every function of the script
  lua_pop(L, 1);
  lua_rawgeti(L, LUA_REGISTRYINDEX, box.slot_ref(LuaSlot::kKeptUpvalues));
  const int ups = lua_gettop(L);
  const auto n = static_cast<lua_Integer>(lua_rawlen(L, ups));
  LuaSandbox::charge(L, static_cast<std::uint64_t>(n / 3));
  for (lua_Integer i = 1; i + 2 <= n; i += 3) {
    lua_rawgeti(L, ups, i);  // the function
    lua_rawgeti(L, ups, i + 1);
    const auto index = static_cast<int>(lua_tointeger(L, -1));
    lua_pop(L, 1);
    lua_rawgeti(L, ups, i + 2);  // the value the top level left
    lua_setupvalue(L, -2, index);
    lua_pop(L, 1);
  }
  lua_settop(L, 1);
}

}  // namespace adj
