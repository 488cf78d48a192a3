// The world's tables a script reads most, built lazily (lua_sandbox.h lua_set_lazy_fill): an area
// of world:area() and the battle of resolve() with its nested tables (world:rules() is in
// lua_rules_views.cc). A battle reads a handful of their fields, and building every field of every
// table (strings interned, JSON converted) cost more than the whole battle of the C++ engine; a
// lazy table builds a field when it is first read.
//
// To a script they are tables as before: pairs, rawget, rawset, getmetatable, setmetatable, the
// table library and the outcome readers complete them first (lua_push_contents), and a write to a
// field not yet built completes the table before it is made. An area or a battle remembers its call
// (LuaSandbox::call_serial) and the item it shows in a hidden field, removed once complete; read
// in another call, it raises.
//
// The tables belong to the Lua state; they read the sandbox's current world and battle
// (LuaSandbox::Access), which the caller owns. Thread-safety: none (one Lua state, serialised by
// its owner).
#include <cstddef>
#include <cstdint>

#include "rules/combat/lua_marshal.h"
#include "rules/combat/lua_marshal_detail.h"

namespace adj {

using namespace lua_detail;

namespace {

// The hidden field of a lazy area or battle not yet complete (its key is this address), an
// integer: bits 0-17 the fields built so far (by their place in the table's key list: a field
// built and then set to nil by the script must stay nil), bits 18-41 the area's index in the world
// (world:area() refuses areas past 2^24), bits 42-63 the call's serial (low 22 bits; a table
// cannot outlive its call: nothing a script keeps survives it). Completing the table removes the
// field and the metatable.
char kLazyRef;

struct LazyRef {
  std::uint64_t built = 0;
  std::uint64_t index = 0;
};

constexpr std::uint64_t kBuiltBits = 18, kIndexBits = 24, kSerialMask = (1u << 22) - 1;

void set_lazy_ref(lua_State* L, int table, const LazyRef& ref) {
  const std::uint64_t serial = sandbox_of(L).call_serial() & kSerialMask;
  lua_pushinteger(L, static_cast<lua_Integer>((serial << (kBuiltBits + kIndexBits)) |
                                              (ref.index << kBuiltBits) | ref.built));
  lua_rawsetp(L, table, &kLazyRef);
}

// The hidden field of the lazy table at stack index 1; false when the table is complete. Raises
// when the table belongs to another call.
bool lazy_ref_of(lua_State* L, const char* what, LazyRef* ref) {
  if (lua_rawgetp(L, 1, &kLazyRef) != LUA_TNUMBER) {
    lua_pop(L, 1);
    return false;
  }
  const auto v = static_cast<std::uint64_t>(lua_tointeger(L, -1));
  lua_pop(L, 1);
  const LuaSandbox& box = sandbox_of(L);
  if ((v >> (kBuiltBits + kIndexBits)) != (box.call_serial() & kSerialMask) || !box.access().world)
    luaL_error(L, "the %s is only available during the call it was given to", what);
  ref->built = v & ((std::uint64_t{1} << kBuiltBits) - 1);
  ref->index = (v >> kBuiltBits) & ((std::uint64_t{1} << kIndexBits) - 1);
  return true;
}

// The bit of `k` in a table's key list, or 0 when it is not one of them.
template <std::size_t N>
constexpr std::uint64_t bit_of(const LuaKey (&keys)[N], LuaKey k) {
  static_assert(N <= kBuiltBits);
  for (std::size_t i = 0; i < N; ++i)
    if (keys[i] == k) return std::uint64_t{1} << i;
  return 0;
}

// The bits of every key of `some` in `keys`.
template <std::size_t N, std::size_t M>
constexpr std::uint64_t bits_of(const LuaKey (&keys)[N], const LuaKey (&some)[M]) {
  std::uint64_t bits = 0;
  for (LuaKey k : some) bits |= bit_of(keys, k);
  return bits;
}

// The interned field name at stack index 2, or LuaKey::kCount.
LuaKey key_at(lua_State* L) {
  if (lua_type(L, 2) != LUA_TSTRING) return LuaKey::kCount;
  return sandbox_of(L).key_of(lua_tostring(L, 2));
}

// Pushes the metatable in `slot`, made on first use (lua_new_lazy_metatable with `index`).
void push_lazy_meta(lua_State* L, LuaSlot slot, lua_CFunction index, lua_CFunction fill) {
  const LuaSandbox& box = sandbox_of(L);
  if (lua_rawgeti(L, LUA_REGISTRYINDEX, box.slot_ref(slot)) == LUA_TTABLE) return;
  lua_pop(L, 1);
  lua_pushcfunction(L, index);
  lua_new_lazy_metatable(L, lua_lazy_newindex, fill);
  lua_pushvalue(L, -1);
  lua_rawseti(L, LUA_REGISTRYINDEX, box.slot_ref(slot));
}

// Completes the lazy table at stack index 1 with `push_field` for every key in `keys` not built
// yet (`built`) nor set, drops its hidden field and returns it.
template <typename PushField, std::size_t N>
int fill_lazy(lua_State* L, const LuaKey (&keys)[N], std::uint64_t built, PushField push_field) {
  const LuaSandbox& box = sandbox_of(L);
  for (std::size_t i = 0; i < N; ++i) {
    const LuaKey k = keys[i];
    if (built & (std::uint64_t{1} << i)) continue;
    lua_rawgeti(L, LUA_REGISTRYINDEX, box.key_ref(k));
    if (lua_rawget(L, 1) != LUA_TNIL) {
      lua_pop(L, 1);
      continue;
    }
    lua_pop(L, 1);
    lua_rawgeti(L, LUA_REGISTRYINDEX, box.key_ref(k));
    if (push_field(k))
      lua_rawset(L, 1);
    else
      lua_pop(L, 1);
  }
  lua_pushnil(L);
  lua_rawsetp(L, 1, &kLazyRef);
  lua_pushnil(L);  // complete: a plain table from now on
  lua_setmetatable(L, 1);
  lua_settop(L, 1);
  return 1;
}

// Returns the field value on top of the stack; a table or userdata is first stored as field
// (stack index 2) of the table at 1 and marked built in `ref` (bit `bit`), so that every read gives
// the same object. Numbers, strings and booleans are values: built again on the next read, they
// are not stored (a store is a hash insertion, dearer than a battle's one read of each).
int keep_field(lua_State* L, LazyRef ref, std::uint64_t bit) {
  if (lua_type(L, -1) == LUA_TTABLE || lua_type(L, -1) == LUA_TUSERDATA) {
    lua_pushvalue(L, 2);
    lua_pushvalue(L, -2);
    lua_rawset(L, 1);
    ref.built |= bit;
    set_lazy_ref(L, 1, ref);
  }
  return 1;
}

// The __index of a lazy table with key list `keys`: the field, built unless it was built before
// (then the script removed it: nil), or nil when the table is complete.
template <std::size_t N, typename PushField>
int lazy_field(lua_State* L, const char* what, const LuaKey (&keys)[N], PushField push_field) {
  LazyRef ref;
  if (!lazy_ref_of(L, what, &ref)) return 0;
  const LuaKey k = key_at(L);
  const std::uint64_t bit = k == LuaKey::kCount ? 0 : bit_of(keys, k);
  if (!bit || (ref.built & bit) || !push_field(ref, k)) return 0;
  return keep_field(L, ref, bit);
}

// ---- areas: mirror to_json(const Area&) (rules/game/state.cc); null members are nil ----

constexpr LuaKey kAreaKeys[] = {
    LuaKey::code,     LuaKey::name,         LuaKey::kind,       LuaKey::terrain,
    LuaKey::owner,    LuaKey::population,   LuaKey::fort,       LuaKey::trade,
    LuaKey::armies,   LuaKey::mode,         LuaKey::retreat_to, LuaKey::ambush_against,
    LuaKey::features, LuaKey::engine_state, LuaKey::hinterland, LuaKey::x,
    LuaKey::y,        LuaKey::outline};

// Pushes field k of `a`; false (nothing pushed) when the area has none.
bool push_area_field(lua_State* L, const Area& a, LuaKey k) {
  switch (k) {
    case LuaKey::code:
      push_str(L, a.code);
      return true;
    case LuaKey::name:
      push_str(L, a.name);
      return true;
    case LuaKey::kind:
      lua_pushstring(L, to_string(a.kind));
      return true;
    case LuaKey::terrain:
      push_str(L, a.terrain);
      return true;
    case LuaKey::owner:
      if (!a.owner) return false;
      push_str(L, *a.owner);
      return true;
    case LuaKey::population:
      lua_pushinteger(L, a.population);
      return true;
    case LuaKey::fort:
      lua_pushinteger(L, a.fort);
      return true;
    case LuaKey::trade:
      lua_pushinteger(L, a.trade);
      return true;
    case LuaKey::armies:
      lua_pushinteger(L, a.armies);
      return true;
    case LuaKey::mode:
      lua_pushstring(L, to_string(a.mode));
      return true;
    case LuaKey::retreat_to:
      if (!a.retreat_to) return false;
      push_str(L, *a.retreat_to);
      return true;
    case LuaKey::ambush_against:
      if (!a.ambush_against) return false;
      push_str(L, *a.ambush_against);
      return true;
    case LuaKey::features:
      push_json(L, a.features);
      return true;
    case LuaKey::engine_state:
      push_json(L, a.engine_state);
      return true;
    case LuaKey::hinterland:
      if (a.hinterland.empty()) return false;
      push_str(L, a.hinterland);
      return true;
    case LuaKey::x:
      if (!a.x) return false;
      lua_pushnumber(L, *a.x);
      return true;
    case LuaKey::y:
      if (!a.y) return false;
      lua_pushnumber(L, *a.y);
      return true;
    case LuaKey::outline:
      if (a.outline.is_null()) return false;
      push_json(L, a.outline);
      return true;
    default:
      return false;
  }
}

// Fields set when the table is made: what a battle reads most (cheaper to set than to read through
// __index, a C call each).
constexpr LuaKey kEagerAreaKeys[] = {LuaKey::kind, LuaKey::terrain, LuaKey::population,
                                     LuaKey::fort, LuaKey::armies};

const Area& area_at(lua_State* L, std::uint64_t index) {
  const GameState& w = current_world(L);
  if (index >= w.areas.size())
    luaL_error(L, "the area is only available during the call it was given to");
  return w.areas[index];
}

int area_index(lua_State* L) {
  return lazy_field(L, "area", kAreaKeys, [L](const LazyRef& ref, LuaKey k) {
    return push_area_field(L, area_at(L, ref.index), k);
  });
}

int area_fill(lua_State* L) {
  lua_settop(L, 1);
  LazyRef ref;
  if (!lazy_ref_of(L, "area", &ref)) return 1;
  const Area& a = area_at(L, ref.index);
  return fill_lazy(L, kAreaKeys, ref.built, [&](LuaKey k) { return push_area_field(L, a, k); });
}

// ---- the battle ----

constexpr LuaKey kBattleKeys[] = {LuaKey::id,     LuaKey::kind,    LuaKey::attacker,
                                  LuaKey::from,   LuaKey::to,      LuaKey::attacker_armies,
                                  LuaKey::ambush, LuaKey::world,   LuaKey::attacker_units,
                                  LuaKey::extras, LuaKey::options, LuaKey::groups};
// Set when the table is made (see kEagerAreaKeys): what every battle reads.
constexpr LuaKey kEagerBattleKeys[] = {LuaKey::kind, LuaKey::to, LuaKey::attacker_armies,
                                       LuaKey::ambush, LuaKey::world};

bool push_battle_field(lua_State* L, const BattleInput& in, LuaKey k) {
  switch (k) {
    case LuaKey::id:
      push_str(L, in.id);
      return true;
    case LuaKey::kind:
      lua_pushstring(L, to_string(in.kind));
      return true;
    case LuaKey::attacker:
      push_str(L, in.attacker);
      return true;
    case LuaKey::from:
      push_str(L, in.from);
      return true;
    case LuaKey::to:
      push_str(L, in.to);
      return true;
    case LuaKey::attacker_armies:
      lua_pushinteger(L, in.attacker_armies);
      return true;
    case LuaKey::ambush:
      lua_pushboolean(L, in.ambush);
      return true;
    case LuaKey::world:
      push_world(L, *in.world);
      return true;
    case LuaKey::attacker_units:
      push_json(L, in.attacker_units);
      return true;
    case LuaKey::extras:
      push_int_map(L, in.extras);
      return true;
    case LuaKey::options:
      if (in.options)
        push_json(L, *in.options);
      else
        lua_newtable(L);
      return true;
    case LuaKey::groups: {
      const bool one = in.groups.empty();
      const std::size_t n = one ? 1 : in.groups.size();
      lua_createtable(L, static_cast<int>(n), 0);
      const Fields f(L);
      for (std::size_t g = 0; g < n; ++g) {
        lua_createtable(L, 0, 6);
        if (one) {
          f.str(LuaKey::player, in.attacker);
          f.str(LuaKey::from, in.from);
          f.integer(LuaKey::armies, in.attacker_armies);
          f.json(LuaKey::units, in.attacker_units);
          f.integer(LuaKey::action, 0);
          f.integer(LuaKey::line, 0);
        } else {
          const AttackGroup& ag = in.groups[g];
          f.str(LuaKey::player, ag.player);
          f.str(LuaKey::from, ag.from);
          f.integer(LuaKey::armies, ag.armies);
          f.json(LuaKey::units, ag.units);
          f.integer(LuaKey::action, ag.action);
          f.integer(LuaKey::line, ag.line);
        }
        lua_rawseti(L, -2, static_cast<lua_Integer>(g + 1));
      }
      return true;
    }
    default:
      return false;
  }
}

const BattleInput& current_battle(lua_State* L) {
  const BattleInput* in = sandbox_of(L).access().battle;
  if (!in) luaL_error(L, "the battle is only available during resolve");
  return *in;
}

int battle_index(lua_State* L) {
  return lazy_field(L, "battle", kBattleKeys, [L](const LazyRef&, LuaKey k) {
    return push_battle_field(L, current_battle(L), k);
  });
}

int battle_fill(lua_State* L) {
  lua_settop(L, 1);
  LazyRef ref;
  if (!lazy_ref_of(L, "battle", &ref)) return 1;
  const BattleInput& in = current_battle(L);
  return fill_lazy(L, kBattleKeys, ref.built,
                   [&](LuaKey k) { return push_battle_field(L, in, k); });
}

}  // namespace

namespace lua_detail {

int world_area(lua_State* L) {
  const GameState& w = current_world(L);
  if (!area_visible(L, code_arg(L, 2))) return 0;
  const Area* a = w.find_area(code_arg(L, 2));
  if (!a) return 0;
  lua_createtable(L, 0, 8);
  push_lazy_meta(L, LuaSlot::kAreaMeta, area_index, area_fill);
  lua_setmetatable(L, -2);
  const LuaSandbox& box = sandbox_of(L);
  LazyRef ref;
  ref.index = static_cast<std::uint64_t>(a - w.areas.data());
  if (ref.index >> kIndexBits) luaL_error(L, "world:area: more areas than a script can read");
  for (LuaKey k : kEagerAreaKeys) {  // an area always has these
    lua_rawgeti(L, LUA_REGISTRYINDEX, box.key_ref(k));
    push_area_field(L, *a, k);
    lua_rawset(L, -3);
  }
  ref.built = bits_of(kAreaKeys, kEagerAreaKeys);
  set_lazy_ref(L, lua_gettop(L), ref);
  return 1;
}

}  // namespace lua_detail

void push_battle(lua_State* L, const BattleInput& in) {
  lua_createtable(L, 0, 8);
  push_lazy_meta(L, LuaSlot::kBattleMeta, battle_index, battle_fill);
  lua_setmetatable(L, -2);
  const LuaSandbox& box = sandbox_of(L);
  LazyRef ref;
  for (LuaKey k : kEagerBattleKeys) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, box.key_ref(k));
    push_battle_field(L, in, k);
    lua_rawset(L, -3);
  }
  ref.built = bits_of(kBattleKeys, kEagerBattleKeys);
  set_lazy_ref(L, lua_gettop(L), ref);
}

}  // namespace adj
