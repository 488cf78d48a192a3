// The sandbox's library (LuaSandbox's safe globals) and its read-only and lazy tables: what a
// script may call, wrapped so that every call is bounded, deterministic and unable to keep state
// in shared tables (lua_sandbox.h lists the set and the rules).
#include <climits>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>

#include "rules/combat/lua_sandbox.h"

extern "C" {
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
}

namespace adj {

namespace {

// Registry keys (their addresses).
char kFrozenMarker;  // present in the metatable of every read-only library table
char kCopyMarker;    // present in metatables installed by the sandbox's setmetatable
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

bool is_frozen(lua_State* L, int idx) {
  if (!lua_getmetatable(L, idx)) return false;
  const bool frozen = lua_rawgetp(L, -1, &kFrozenMarker) != LUA_TNIL;
  lua_pop(L, 2);
  return frozen;
}

bool is_lazy(lua_State* L, int idx) {
  if (!lua_getmetatable(L, idx)) return false;
  const bool lazy = lua_rawgetp(L, -1, &kLazyFill) != LUA_TNIL;
  lua_pop(L, 2);
  return lazy;
}

// Completes the value at `idx` when it is a lazy table that is not read-only (an area, the battle,
// a kept call's environment or `engine`): it is then a plain table, or the call's environment with
// the classic metatable. May raise.
void complete_lazy(lua_State* L, int idx) {
  if (lua_type(L, idx) != LUA_TTABLE || !is_lazy(L, idx) || is_frozen(L, idx)) return;
  lua_push_contents(L, idx);
  lua_pop(L, 1);
}

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
      if (lua_rawgetp(L, -1, &kFrozenMarker) != LUA_TNIL)
        return luaL_error(L, "setmetatable: library tables are read-only");
      lua_pop(L, 1);
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

// Key order for pairs: booleans, then numbers, then strings (bytewise), each ascending.
int key_rank(lua_State* L, int idx) {
  switch (lua_type(L, idx)) {
    case LUA_TBOOLEAN:
      return 0;
    case LUA_TNUMBER:
      return 1;
    default:
      return 2;
  }
}

// Whether the key at `a` comes before the key at `b` (both booleans, numbers or strings).
bool key_less(lua_State* L, int a, int b, int) {
  const int ra = key_rank(L, a), rb = key_rank(L, b);
  if (ra != rb) return ra < rb;
  if (ra == 0) return !lua_toboolean(L, a) && lua_toboolean(L, b);
  if (ra == 1) return lua_compare(L, a, b, LUA_OPLT);
  std::size_t la = 0, lb = 0;
  const char* x = lua_tolstring(L, a, &la);
  const char* y = lua_tolstring(L, b, &lb);
  const int c = std::memcmp(x, y, la < lb ? la : lb);
  return c < 0 || (c == 0 && la < lb);
}

// table.sort's order: the comparator at `cmp` (absolute index), or `<` when cmp is 0. May raise.
bool value_less(lua_State* L, int a, int b, int cmp) {
  if (cmp == 0) return lua_compare(L, a, b, LUA_OPLT);
  lua_pushvalue(L, cmp);
  lua_pushvalue(L, a);
  lua_pushvalue(L, b);
  lua_call(L, 2, 1);
  const bool less = lua_toboolean(L, -1);
  lua_pop(L, 1);
  return less;
}

using Less = bool (*)(lua_State* L, int a, int b, int cmp);

// Sorts t[1..n] (t at absolute index `t`, a table without metatable) by `less`, stably: the
// result depends only on the elements and the answers of `less`, so it is the same on every run
// even for ties or an inconsistent comparator (Lua's own sort picks pivots from the clock).
// Insertion sort up to 12 elements, bottom-up merge sort above. Charged one instruction per
// comparison (the comparator's own instructions count as usual). May raise.
void stable_sort(lua_State* L, int t, lua_Integer n, Less less, int cmp) {
  if (n < 2) return;
  luaL_checkstack(L, 8, "sort");
  if (n <= 12) {
    for (lua_Integer i = 2; i <= n; ++i) {
      lua_rawgeti(L, t, i);  // the element to place
      const int x = lua_gettop(L);
      lua_Integer j = i - 1;
      for (; j >= 1; --j) {
        LuaSandbox::charge(L, 1);
        lua_rawgeti(L, t, j);
        if (!less(L, x, lua_gettop(L), cmp)) {
          lua_pop(L, 1);
          break;
        }
        lua_rawseti(L, t, j + 1);  // shift t[j] up
      }
      lua_rawseti(L, t, j + 1);
    }
    return;
  }
  if (n >= INT_MAX) luaL_error(L, "table.sort: too many elements");
  lua_createtable(L, static_cast<int>(n), 0);  // the other buffer
  int src = t, dst = lua_gettop(L);
  for (lua_Integer width = 1; width < n; width *= 2) {
    LuaSandbox::charge(L, static_cast<std::uint64_t>(n));
    for (lua_Integer lo = 1; lo <= n; lo += 2 * width) {
      const lua_Integer mid = lo + width > n + 1 ? n + 1 : lo + width;
      const lua_Integer hi = mid + width > n + 1 ? n + 1 : mid + width;
      lua_Integer i = lo, j = mid;
      for (lua_Integer k = lo; k < hi; ++k) {
        if (i < mid && j < hi) {
          lua_rawgeti(L, src, j);
          lua_rawgeti(L, src, i);
          const int top = lua_gettop(L);
          if (less(L, top - 1, top, cmp)) {  // right < left: the right one first
            lua_pop(L, 1);
            ++j;
          } else {
            lua_remove(L, -2);
            ++i;
          }
        } else {
          lua_rawgeti(L, src, i < mid ? i++ : j++);
        }
        lua_rawseti(L, dst, k);
      }
    }
    std::swap(src, dst);
  }
  if (src != t) {
    LuaSandbox::charge(L, static_cast<std::uint64_t>(n));
    for (lua_Integer k = 1; k <= n; ++k) {
      lua_rawgeti(L, src, k);
      lua_rawseti(L, t, k);
    }
  }
  lua_pop(L, 1);
}

// table.sort(t [, comp]) over stable_sort.
int sandbox_sort(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  int cmp = 0;
  if (!lua_isnoneornil(L, 2)) {
    luaL_checktype(L, 2, LUA_TFUNCTION);
    cmp = 2;
  }
  lua_settop(L, 2);
  stable_sort(L, 1, static_cast<lua_Integer>(lua_rawlen(L, 1)), value_less, cmp);
  return 0;
}

// Iterator of sorted_pairs: upvalues table, keys, position.
int sorted_next(lua_State* L) {
  const lua_Integer i = lua_tointeger(L, lua_upvalueindex(3)) + 1;
  if (lua_rawgeti(L, lua_upvalueindex(2), i) == LUA_TNIL) return 1;
  lua_pushinteger(L, i);
  lua_replace(L, lua_upvalueindex(3));
  lua_pushvalue(L, -1);
  lua_rawget(L, lua_upvalueindex(1));
  return 2;
}

// pairs(t) in a deterministic order (Lua's own order depends on a per-process hash seed):
// booleans, numbers, then strings, ascending. Other key types are refused. Charged one
// instruction per key and the sort's comparisons.
int sorted_pairs(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_settop(L, 1);
  lua_push_contents(L, 1);  // the real table behind a read-only proxy, a lazy table completed
  lua_replace(L, 1);
  lua_newtable(L);  // 2: keys
  lua_Integer n = 0;
  lua_pushnil(L);
  while (lua_next(L, 1)) {
    lua_pop(L, 1);
    const int t = lua_type(L, -1);
    if (t != LUA_TNUMBER && t != LUA_TSTRING && t != LUA_TBOOLEAN)
      return luaL_error(L, "pairs: a %s key has no deterministic order", lua_typename(L, t));
    lua_pushvalue(L, -1);
    lua_rawseti(L, 2, ++n);
  }
  LuaSandbox::charge(L, static_cast<std::uint64_t>(n));
  stable_sort(L, 2, n, key_less, 0);
  lua_pushvalue(L, 1);
  lua_pushvalue(L, 2);
  lua_pushinteger(L, 0);
  lua_pushcclosure(L, sorted_next, 3);
  lua_pushnil(L);
  lua_pushnil(L);
  return 3;
}

// The elements a range i..j covers (0 when empty), without overflow.
std::uint64_t range_size(lua_Integer i, lua_Integer j) {
  return j < i ? 0 : static_cast<std::uint64_t>(j) - static_cast<std::uint64_t>(i) + 1;
}

// The raw length of what the table at `idx` shows (lua_push_contents). May raise.
lua_Integer plain_len(lua_State* L, int idx) {
  lua_push_contents(L, idx);
  const auto n = static_cast<lua_Integer>(lua_rawlen(L, -1));
  lua_pop(L, 1);
  return n;
}

// Charges a table function the elements it will touch: concat and unpack their range, insert
// and remove the elements they shift, move its range. Raises on bad arguments as the real ones.
void charge_table_work(lua_State* L, const char* name) {
  std::uint64_t units = 1;
  if (std::strcmp(name, "concat") == 0 || std::strcmp(name, "unpack") == 0) {
    const int first = name[0] == 'c' ? 3 : 2;
    luaL_checktype(L, 1, LUA_TTABLE);
    const lua_Integer i = luaL_optinteger(L, first, 1);
    const lua_Integer j =
        lua_isnoneornil(L, first + 1) ? plain_len(L, 1) : luaL_checkinteger(L, first + 1);
    std::uint64_t n = range_size(i, j);
    // unpack refuses more than the stack holds (about a million values) before any work.
    if (name[0] == 'u' && n > 1'000'000) n = 1'000'000;
    units += n;
  } else if (std::strcmp(name, "insert") == 0 || std::strcmp(name, "remove") == 0) {
    luaL_checktype(L, 1, LUA_TTABLE);
    const lua_Integer n = plain_len(L, 1);
    const bool at = name[0] == 'i' ? lua_gettop(L) >= 3 : lua_gettop(L) >= 2;
    if (at) units += range_size(luaL_checkinteger(L, 2), n);
  } else if (std::strcmp(name, "move") == 0) {
    units += range_size(luaL_checkinteger(L, 2), luaL_checkinteger(L, 3));
  }
  LuaSandbox::charge(L, units);
}

// table.insert/remove/sort/concat/unpack/move read a table's length and elements through its
// metamethods from C, outside the instruction count: a __len of 2^62 with a C function as __index
// would loop for ever. So they take plain tables (or read-only library tables) only, and
// table.move at most 2^22 elements; each is charged its work (charge_table_work), and sort is
// stable_sort. Upvalues: the real function (none for sort), its name.
int table_guard(lua_State* L) {
  const char* name = lua_tostring(L, lua_upvalueindex(2));
  const int top = lua_gettop(L);
  for (int i = 1; i <= top; ++i) {
    if (lua_type(L, i) != LUA_TTABLE || is_frozen(L, i)) continue;
    complete_lazy(L, i);  // then a plain table, or the call's environment (refused)
    if (lua_getmetatable(L, i))
      return luaL_error(L, "table.%s: a table with a metatable is not accepted", name);
  }
  if (std::strcmp(name, "move") == 0) {
    const lua_Integer f = luaL_checkinteger(L, 2), e = luaL_checkinteger(L, 3);
    if (e >= f && (f < 0 ? e > f + (lua_Integer{1} << 22) : e - f >= (lua_Integer{1} << 22)))
      return luaL_error(L, "table.move: at most 4194304 elements");
  }
  if (std::strcmp(name, "sort") == 0) {
    if (lua_type(L, 1) == LUA_TTABLE && is_frozen(L, 1))
      return luaL_error(L, "table.sort: library tables are read-only");
    return sandbox_sort(L);
  }
  charge_table_work(L, name);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, top, LUA_MULTRET);
  return lua_gettop(L);
}

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

// Copies the named fields of the table at `from` into a new table, freezes it and stores it in
// the table at `into` under `name`.
void copy_frozen(lua_State* L, int from, int into, const char* name,
                 std::initializer_list<const char*> keep) {
  lua_newtable(L);
  for (const char* k : keep) {
    lua_getfield(L, from, k);
    lua_setfield(L, -2, k);
  }
  freeze_top(L);
  lua_setfield(L, into, name);
}

int open_library(lua_State* L) {
  luaL_requiref(L, "_G", luaopen_base, 0);
  luaL_requiref(L, "string", luaopen_string, 0);
  luaL_requiref(L, "table", luaopen_table, 0);
  luaL_requiref(L, "math", luaopen_math, 0);
  luaL_requiref(L, "utf8", luaopen_utf8, 0);
  // Stack: 1 _G, 2 string, 3 table, 4 math, 5 utf8.
  lua_newtable(L);  // 6: the safe globals
  for (const char* k :
       {"assert", "error", "ipairs", "rawequal", "rawlen", "select", "type", "_VERSION"}) {
    lua_getfield(L, 1, k);
    lua_setfield(L, 6, k);
  }
  lua_pushvalue(L, 6);
  set_charged(L, 1, "tonumber", true);  // scans a string argument
  lua_pop(L, 1);
  lua_pushcfunction(L, sandbox_pcall);
  lua_setfield(L, 6, "pcall");
  lua_pushcfunction(L, sandbox_xpcall);
  lua_setfield(L, 6, "xpcall");
  lua_pushcfunction(L, safe_rawset);
  lua_setfield(L, 6, "rawset");
  lua_pushcfunction(L, safe_rawget);
  lua_setfield(L, 6, "rawget");
  lua_getfield(L, 1, "getmetatable");
  lua_pushcclosure(L, safe_getmetatable, 1);
  lua_setfield(L, 6, "getmetatable");
  lua_pushcfunction(L, safe_setmetatable);
  lua_setfield(L, 6, "setmetatable");
  lua_pushcfunction(L, safe_tostring);
  lua_setfield(L, 6, "tostring");
  lua_pushcfunction(L, sorted_pairs);
  lua_setfield(L, 6, "pairs");

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
  lua_pushcclosure(L, safe_format, 1);
  lua_setfield(L, 7, "format");
  freeze_top(L);  // 7: the read-only string
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

  lua_newtable(L);  // table, guarded
  lua_getfield(L, 3, "pack");
  lua_setfield(L, -2, "pack");
  for (const char* k : {"concat", "insert", "move", "remove", "sort", "unpack"}) {
    lua_getfield(L, 3, k);
    lua_pushstring(L, k);
    lua_pushcclosure(L, table_guard, 2);
    lua_setfield(L, -2, k);
  }
  freeze_top(L);
  lua_setfield(L, 6, "table");
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
  freeze_top(L);
  lua_setfield(L, 6, "utf8");
  freeze_top(L);  // 6: the read-only globals

  // Every call's environment looks globals up there; its own writes stay in it.
  lua_createtable(L, 0, 2);
  lua_pushvalue(L, 6);
  lua_setfield(L, -2, "__index");
  lua_pushboolean(L, 0);
  lua_setfield(L, -2, "__metatable");
  lua_rawseti(L, LUA_REGISTRYINDEX, sandbox_of(L).slot_ref(LuaSlot::kEnvMeta));

  // Nothing else keeps the full libraries reachable from scripts: drop them from the registry's
  // loaded table and the global table.
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
  return 0;
}

}  // namespace

int lua_open_sandbox_library(lua_State* L) { return open_library(L); }

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
