// The world's tables a script reads most, built lazily (lua_sandbox.h lua_set_lazy_fill): an area
// of world:area(), the battle of resolve() and world:rules() with its nested tables. A battle
// reads a handful of their fields, and building every field of every table (strings interned,
// JSON converted, the rules compared with the last call's) cost more than the whole battle of the
// C++ engine; a lazy table builds a field when it is first read.
//
// To a script they are tables as before: pairs, rawget, rawset, getmetatable, setmetatable, the
// table library and the outcome readers complete them first (lua_push_contents), and a write to a
// field not yet built completes the table before it is made. An area or a battle remembers its call
// (LuaSandbox::call_serial) and the item it shows in a hidden field, removed once complete; read
// in another call, it raises. world:rules() and its nested tables are one read-only object each
// per Lua state, showing the current call's rules.
#include <climits>
#include <cstdint>
#include <cstring>
#include <string_view>

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

// ---- world:rules(): read-only views of the current call's RulesConfig ----

// Each view is one empty table per Lua state (in its slot) whose metatable reads the rules of the
// current call; upvalue 1 of its functions is the view's slot.
const std::set<std::string>* view_list(const RulesConfig& r, LuaSlot v) {
  switch (v) {
    case LuaSlot::kStickyTerrainView:
      return &r.sticky_terrain;
    case LuaSlot::kGaelicNationsView:
      return &r.gaelic_nations;
    case LuaSlot::kRaidShelterTerrainView:
      return &r.raid_shelter_terrain;
    default:
      return nullptr;
  }
}

const std::map<std::string, int>* view_map(const RulesConfig& r, LuaSlot v) {
  if (v == LuaSlot::kTerrainBonusView) return &r.terrain_bonus;
  if (v == LuaSlot::kCostsView) return &r.costs;
  return nullptr;
}

int view_index(lua_State* L);
int view_len(lua_State* L);
int view_fill(lua_State* L);

int refuse_view_write(lua_State* L) { return luaL_error(L, "the rules are read-only"); }

void push_view(lua_State* L, LuaSlot v) {
  const LuaSandbox& box = sandbox_of(L);
  if (lua_rawgeti(L, LUA_REGISTRYINDEX, box.slot_ref(v)) == LUA_TTABLE) return;
  lua_pop(L, 1);
  lua_newtable(L);
  lua_createtable(L, 0, 6);
  const auto slot = static_cast<lua_Integer>(v);
  lua_pushinteger(L, slot);
  lua_pushcclosure(L, view_index, 1);
  lua_setfield(L, -2, "__index");
  lua_pushinteger(L, slot);
  lua_pushcclosure(L, view_len, 1);
  lua_setfield(L, -2, "__len");
  lua_pushcfunction(L, refuse_view_write);
  lua_setfield(L, -2, "__newindex");
  lua_pushboolean(L, 0);
  lua_setfield(L, -2, "__metatable");
  lua_pushinteger(L, slot);
  lua_pushcclosure(L, view_fill, 1);
  lua_set_lazy_fill(L);
  lua_mark_frozen(L);
  lua_setmetatable(L, -2);
  lua_pushvalue(L, -1);
  lua_rawseti(L, LUA_REGISTRYINDEX, box.slot_ref(v));
}

LuaSlot view_slot(lua_State* L) {
  return static_cast<LuaSlot>(lua_tointeger(L, lua_upvalueindex(1)));
}

// Pushes field k of the rules; false (nothing pushed) when there is none.
bool push_rules_field(lua_State* L, const RulesConfig& r, LuaKey k) {
  switch (k) {
    case LuaKey::actions_per_turn:
      lua_pushinteger(L, r.actions_per_turn);
      return true;
    case LuaKey::terrain_bonus:
      push_view(L, LuaSlot::kTerrainBonusView);
      return true;
    case LuaKey::city_bonus:
      lua_pushinteger(L, r.city_bonus);
      return true;
    case LuaKey::fort_weight:
      lua_pushinteger(L, r.fort_weight);
      return true;
    case LuaKey::sticky_terrain:
      push_view(L, LuaSlot::kStickyTerrainView);
      return true;
    case LuaKey::ambush_multiplier:
      lua_pushinteger(L, r.ambush_multiplier);
      return true;
    case LuaKey::max_assault_rounds:
      lua_pushinteger(L, r.max_assault_rounds);
      return true;
    case LuaKey::dispersal_fraction:
      lua_pushnumber(L, r.dispersal_fraction);
      return true;
    case LuaKey::leftover_bp_to_treasury:
      lua_pushboolean(L, r.leftover_bp_to_treasury);
      return true;
    case LuaKey::leftover_bp_bids:
      lua_pushboolean(L, r.leftover_bp_bids);
      return true;
    case LuaKey::army_upkeep:
      lua_pushinteger(L, r.army_upkeep);
      return true;
    case LuaKey::costs:
      push_view(L, LuaSlot::kCostsView);
      return true;
    case LuaKey::viking_nation:
      push_str(L, r.viking_nation);
      return true;
    case LuaKey::gaelic_nations:
      push_view(L, LuaSlot::kGaelicNationsView);
      return true;
    case LuaKey::raid_shelter_terrain:
      push_view(L, LuaSlot::kRaidShelterTerrainView);
      return true;
    case LuaKey::raid_pillage_population:
      lua_pushinteger(L, r.raid_pillage_population);
      return true;
    default:
      return false;
  }
}

constexpr LuaKey kRulesKeys[] = {LuaKey::actions_per_turn,
                                 LuaKey::terrain_bonus,
                                 LuaKey::city_bonus,
                                 LuaKey::fort_weight,
                                 LuaKey::sticky_terrain,
                                 LuaKey::ambush_multiplier,
                                 LuaKey::max_assault_rounds,
                                 LuaKey::dispersal_fraction,
                                 LuaKey::leftover_bp_to_treasury,
                                 LuaKey::leftover_bp_bids,
                                 LuaKey::army_upkeep,
                                 LuaKey::costs,
                                 LuaKey::viking_nation,
                                 LuaKey::gaelic_nations,
                                 LuaKey::raid_shelter_terrain,
                                 LuaKey::raid_pillage_population};

int view_index(lua_State* L) {
  const RulesConfig& r = current_world(L).rules;
  const LuaSlot v = view_slot(L);
  if (const auto* m = view_map(r, v)) {
    if (lua_type(L, 2) != LUA_TSTRING) return 0;
    std::size_t n = 0;
    const char* s = lua_tolstring(L, 2, &n);
    // Compared in place, entry by entry (the map's find would copy the key out of Lua's memory
    // cap); a rules map holds a handful of entries.
    LuaSandbox::charge(L, 1 + m->size());
    const std::string_view key(s, n);
    for (const auto& [name, value] : *m) {
      if (name != key) continue;
      lua_pushinteger(L, value);
      return 1;
    }
    return 0;
  }
  const auto* list = view_list(r, v);
  if (!list || lua_type(L, 2) != LUA_TNUMBER) return 0;
  int exact = 0;  // 2.0 is the key 2, as in a plain table
  const lua_Integer i = lua_tointegerx(L, 2, &exact);
  if (!exact) return 0;
  if (i < 1 || static_cast<std::uint64_t>(i) > list->size()) return 0;
  LuaSandbox::charge(L, static_cast<std::uint64_t>(i));  // a walk along the set
  auto it = list->begin();
  std::advance(it, i - 1);
  push_str(L, *it);
  return 1;
}

int view_len(lua_State* L) {
  const auto* list = view_list(current_world(L).rules, view_slot(L));
  lua_pushinteger(L, list ? static_cast<lua_Integer>(list->size()) : 0);
  return 1;
}

// The contents of a view: a new plain table (nested views stay views), charged its size.
int view_fill(lua_State* L) {
  const RulesConfig& r = current_world(L).rules;
  const LuaSlot v = view_slot(L);
  if (const auto* m = view_map(r, v)) {
    LuaSandbox::charge(L, m->size());
    push_int_map(L, *m);
  } else if (const auto* list = view_list(r, v)) {
    LuaSandbox::charge(L, list->size());
    push_string_list(L, *list);
  } else {
    lua_newtable(L);
  }
  return 1;
}

// world:rules() is one read-only proxy per Lua state (LuaSlot::kRulesView) of a plain table whose
// nested tables are views of the current call's rules, and whose other fields are values: a read
// is a plain table read. Those values are set again whenever a call's rules differ from the ones
// they were set from, kept beside it (LuaSlot::kRulesScalars, a userdata; comparing them is much
// cheaper than setting them), so no call sees another's rules.
struct RulesScalars {
  int actions_per_turn, city_bonus, fort_weight, ambush_multiplier, max_assault_rounds, army_upkeep,
      raid_pillage_population;
  double dispersal_fraction;
  bool leftover_bp_to_treasury, leftover_bp_bids;
  bool valid;  // false: the fields may not hold these values (never equal to scalars_of's)
};

RulesScalars scalars_of(const RulesConfig& r) {
  RulesScalars s;
  std::memset(&s, 0, sizeof s);  // padding too: the struct is compared with memcmp
  s.actions_per_turn = r.actions_per_turn;
  s.city_bonus = r.city_bonus;
  s.fort_weight = r.fort_weight;
  s.ambush_multiplier = r.ambush_multiplier;
  s.max_assault_rounds = r.max_assault_rounds;
  s.army_upkeep = r.army_upkeep;
  s.raid_pillage_population = r.raid_pillage_population;
  s.dispersal_fraction = r.dispersal_fraction;
  s.leftover_bp_to_treasury = r.leftover_bp_to_treasury;
  s.leftover_bp_bids = r.leftover_bp_bids;
  s.valid = true;
  return s;
}

// Sets every field of the rules table on top of the stack from `r`.
void set_rules_fields(lua_State* L, const RulesConfig& r) {
  const LuaSandbox& box = sandbox_of(L);
  for (LuaKey k : kRulesKeys) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, box.key_ref(k));
    push_rules_field(L, r, k);
    lua_rawset(L, -3);
  }
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

int world_rules(lua_State* L) {
  const RulesConfig& r = current_world(L).rules;
  const LuaSandbox& box = sandbox_of(L);
  const RulesScalars now = scalars_of(r);
  // The values the fields were set from: made (not valid) before the table, and marked not valid
  // while the fields are set, so that a memory error half-way leaves them to be set again.
  RulesScalars* kept = nullptr;
  if (lua_rawgeti(L, LUA_REGISTRYINDEX, box.slot_ref(LuaSlot::kRulesScalars)) == LUA_TUSERDATA) {
    kept = static_cast<RulesScalars*>(lua_touserdata(L, -1));
  } else {
    kept = static_cast<RulesScalars*>(lua_newuserdatauv(L, sizeof(RulesScalars), 0));
    std::memset(kept, 0, sizeof *kept);  // valid = false
    lua_rawseti(L, LUA_REGISTRYINDEX, box.slot_ref(LuaSlot::kRulesScalars));
  }
  lua_pop(L, 1);  // the registry keeps it
  if (lua_rawgeti(L, LUA_REGISTRYINDEX, box.slot_ref(LuaSlot::kRulesView)) != LUA_TTABLE) {
    lua_pop(L, 1);
    kept->valid = false;
    lua_createtable(L, 0, static_cast<int>(std::size(kRulesKeys)));
    set_rules_fields(L, r);
    lua_freeze_top(L);
    lua_pushvalue(L, -1);
    lua_rawseti(L, LUA_REGISTRYINDEX, box.slot_ref(LuaSlot::kRulesView));
    *kept = now;
    return 1;
  }
  lua_push_contents(L, -1);  // the plain table behind the proxy
  lua_rawgeti(L, LUA_REGISTRYINDEX, box.key_ref(LuaKey::viking_nation));
  lua_rawget(L, -2);
  std::size_t n = 0;
  const char* viking = lua_tolstring(L, -1, &n);
  const bool same = std::memcmp(kept, &now, sizeof now) == 0 && viking &&
                    std::string_view(viking, n) == r.viking_nation;
  lua_pop(L, 1);
  if (!same) {
    kept->valid = false;
    set_rules_fields(L, r);
    *kept = now;
  }
  lua_pop(L, 1);
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
