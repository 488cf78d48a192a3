// world:rules() (lua_marshal.h push_world): one read-only object per Lua state, showing the current
// call's RulesConfig (LuaSandbox::Access::world). Its numbers, strings and booleans are plain
// fields, set again only when a call's rules differ from the ones they were set from; its nested
// tables (terrain_bonus, costs, sticky_terrain, gaelic_nations, raid_shelter_terrain) are read-only
// views, one per Lua state each, that read the current call's rules when indexed (lazy tables:
// lua_sandbox.h lua_set_lazy_fill), so no call sees another's rules.
//
// The objects live in the Lua state's registry (LuaSlot::kRulesView, kRulesScalars and the view
// slots); the rules are the caller's. Thread-safety: none (one Lua state, serialised by its owner).
#include <cstdint>
#include <cstring>
#include <iterator>
#include <string_view>

#include "rules/combat/lua_marshal_detail.h"

namespace adj {

using namespace lua_detail;

namespace {

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

}  // namespace adj
