// The sandbox's deterministic order and its guarded table library (lua_sandbox.h lists the
// rules): pairs visits keys sorted (booleans, numbers, strings), table.sort is a stable merge sort,
// and table.insert/remove/sort/concat/unpack/move take plain or read-only tables only, each charged
// its work. lua_library.cc installs them (lua_library_internal.h declares them).
//
// They run as the script's calls and may raise; they keep nothing but what the Lua state holds.
// Thread-safety: none (one Lua state, serialised by its owner).
#include <climits>
#include <cstdint>
#include <cstring>
#include <utility>

#include "rules/combat/lua_library_internal.h"
#include "rules/combat/lua_sandbox.h"

extern "C" {
#include <lauxlib.h>
#include <lua.h>
}

namespace adj {

namespace {

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

}  // namespace

namespace lua_lib {

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

}  // namespace lua_lib

}  // namespace adj
