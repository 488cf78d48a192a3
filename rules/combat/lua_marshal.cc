#include "rules/combat/lua_marshal.h"

#include <climits>
#include <cmath>
#include <cstdint>
#include <limits>

#include "rules/combat/lua_sandbox.h"

extern "C" {
#include <lauxlib.h>
#include <lua.h>
}

namespace adj {

namespace {

// ---- C++ -> Lua (may raise; no C++ temporaries with destructors across Lua calls) ----

void push_str(lua_State* L, const std::string& s) { lua_pushlstring(L, s.data(), s.size()); }

// Sets fields of the table on top of the stack by interned key (raw sets: the tables built here
// have no __newindex).
struct Fields {
  lua_State* L;
  const LuaSandbox& box;
  explicit Fields(lua_State* l) : L(l), box(sandbox_of(l)) {}

  void key(LuaKey k) const { lua_rawgeti(L, LUA_REGISTRYINDEX, box.key_ref(k)); }
  // Sets field k to the value on top of the stack (popping it).
  void set_top(LuaKey k) const {
    key(k);
    lua_insert(L, -2);
    lua_rawset(L, -3);
  }
  void str(LuaKey k, const std::string& v) const {
    key(k);
    push_str(L, v);
    lua_rawset(L, -3);
  }
  void cstr(LuaKey k, const char* v) const {
    key(k);
    lua_pushstring(L, v);
    lua_rawset(L, -3);
  }
  void integer(LuaKey k, lua_Integer v) const {
    key(k);
    lua_pushinteger(L, v);
    lua_rawset(L, -3);
  }
  void boolean(LuaKey k, bool v) const {
    key(k);
    lua_pushboolean(L, v);
    lua_rawset(L, -3);
  }
  void number(LuaKey k, double v) const {
    key(k);
    lua_pushnumber(L, v);
    lua_rawset(L, -3);
  }
  void json(LuaKey k, const Json& v) const {
    key(k);
    push_json(L, v);
    lua_rawset(L, -3);
  }
  void opt(LuaKey k, const std::optional<std::string>& v) const {
    if (v) str(k, *v);
  }
};

void set_str(lua_State* L, const char* key, const std::string& s) {
  push_str(L, s);
  lua_setfield(L, -2, key);
}
void set_cstr(lua_State* L, const char* key, const char* s) {
  lua_pushstring(L, s);
  lua_setfield(L, -2, key);
}
void set_int(lua_State* L, const char* key, lua_Integer v) {
  lua_pushinteger(L, v);
  lua_setfield(L, -2, key);
}
void set_bool(lua_State* L, const char* key, bool v) {
  lua_pushboolean(L, v);
  lua_setfield(L, -2, key);
}

template <typename Map>
void push_int_map(lua_State* L, const Map& m) {
  lua_createtable(L, 0, static_cast<int>(m.size()));
  for (auto it = m.begin(); it != m.end(); ++it) {
    push_str(L, it->first);
    lua_pushinteger(L, it->second);
    lua_rawset(L, -3);
  }
}

template <typename Set>
void push_string_list(lua_State* L, const Set& s) {
  lua_createtable(L, static_cast<int>(s.size()), 0);
  lua_Integer i = 0;
  for (auto it = s.begin(); it != s.end(); ++it) {
    push_str(L, *it);
    lua_rawseti(L, -2, ++i);
  }
}

const GameState& current_world(lua_State* L) {
  const GameState* w = sandbox_of(L).access().world;
  if (!w) luaL_error(L, "the world is only available during the call it was given to");
  return *w;
}

// In check_order the world shows only what the order names (LuaSandbox::Access::order), the
// same at submission (a view of those parts) and at the turn run (the whole state).
bool area_visible(lua_State* L, std::string_view code) {
  const Order* o = sandbox_of(L).access().order;
  return !o || (o->verb != Verb::kGift && (code == o->from || code == o->to));
}

bool player_visible(lua_State* L, const GameState& w, std::string_view code) {
  const Order* o = sandbox_of(L).access().order;
  if (!o) return true;
  if (o->verb == Verb::kGift) return code == o->to;
  for (const std::string* a : {&o->from, &o->to}) {
    const Area* area = a->empty() ? nullptr : w.find_area(*a);
    if (area && area->owner && *area->owner == code) return true;
  }
  return false;
}

// Mirrors to_json(const Area&) (rules/game/state.cc); null members are left out (nil).
void push_area(lua_State* L, const Area& a) {
  lua_createtable(L, 0, 16);
  const Fields f(L);
  f.str(LuaKey::code, a.code);
  f.str(LuaKey::name, a.name);
  f.cstr(LuaKey::kind, to_string(a.kind));
  f.str(LuaKey::terrain, a.terrain);
  f.opt(LuaKey::owner, a.owner);
  f.integer(LuaKey::population, a.population);
  f.integer(LuaKey::fort, a.fort);
  f.integer(LuaKey::trade, a.trade);
  f.integer(LuaKey::armies, a.armies);
  f.cstr(LuaKey::mode, to_string(a.mode));
  f.opt(LuaKey::retreat_to, a.retreat_to);
  f.opt(LuaKey::ambush_against, a.ambush_against);
  f.json(LuaKey::features, a.features);
  f.json(LuaKey::engine_state, a.engine_state);
  if (!a.hinterland.empty()) f.str(LuaKey::hinterland, a.hinterland);
  if (a.x) f.number(LuaKey::x, *a.x);
  if (a.y) f.number(LuaKey::y, *a.y);
  if (!a.outline.is_null()) f.json(LuaKey::outline, a.outline);
}

// The code argument `arg` as a string view into Lua's own string.
std::string_view code_arg(lua_State* L, int arg) {
  std::size_t n = 0;
  const char* s = luaL_checklstring(L, arg, &n);
  return {s, n};
}

int world_area(lua_State* L) {
  const GameState& w = current_world(L);
  if (!area_visible(L, code_arg(L, 2))) return 0;
  const Area* a = w.find_area(code_arg(L, 2));
  if (!a) return 0;
  push_area(L, *a);
  return 1;
}

int world_neighbours(lua_State* L) {
  const GameState& w = current_world(L);
  if (!area_visible(L, code_arg(L, 2))) {
    lua_newtable(L);
    return 1;
  }
  const auto& list = w.neighbours(code_arg(L, 2));
  LuaSandbox::charge(L, list.size());
  push_string_list(L, list);
  return 1;
}

int world_edge(lua_State* L) {
  const GameState& w = current_world(L);
  if (!area_visible(L, code_arg(L, 2)) && !area_visible(L, code_arg(L, 3))) return 0;
  const Edge* e = w.find_edge(code_arg(L, 2), code_arg(L, 3));
  if (!e) return 0;
  lua_createtable(L, 0, 3);
  const Fields f(L);
  f.str(LuaKey::a, e->a);
  f.str(LuaKey::b, e->b);
  f.json(LuaKey::features, e->features);
  return 1;
}

// Mirrors to_json(const Player&) without the secret and the address.
int world_player(lua_State* L) {
  const GameState& w = current_world(L);
  if (!player_visible(L, w, code_arg(L, 2))) return 0;
  const Player* p = w.find_player(code_arg(L, 2));
  if (!p) return 0;
  lua_createtable(L, 0, 8);
  const Fields f(L);
  f.str(LuaKey::code, p->code);
  f.str(LuaKey::name, p->name);
  f.str(LuaKey::nation, p->nation);
  f.integer(LuaKey::bp, p->bp);
  f.integer(LuaKey::treasury, p->treasury);
  f.integer(LuaKey::vp, p->vp);
  f.integer(LuaKey::reserve, p->reserve);
  f.json(LuaKey::engine_state, p->engine_state);
  return 1;
}

int world_order_of_play(lua_State* L) {
  const GameState& w = current_world(L);
  LuaSandbox::charge(L, w.order_of_play.size());
  push_string_list(L, w.order_of_play);
  return 1;
}

// Mirrors to_json(const RulesConfig&) (rules/game/rules_config.cc), read-only (nested tables too).
// The table is built once per distinct RulesConfig and reused: being read-only, it carries no
// state from one call to the next.
int world_rules(lua_State* L) {
  const RulesConfig& r = current_world(L).rules;
  LuaSandbox& box = sandbox_of(L);
  const auto* cached = static_cast<const RulesConfig*>(box.marshal_cache.get());
  if (cached && *cached == r) {
    if (lua_rawgeti(L, LUA_REGISTRYINDEX, box.slot_ref(LuaSlot::kRules)) == LUA_TTABLE) return 1;
    lua_pop(L, 1);
  }
  lua_createtable(L, 0, 16);
  set_int(L, "actions_per_turn", r.actions_per_turn);
  push_int_map(L, r.terrain_bonus);
  lua_freeze_top(L);
  lua_setfield(L, -2, "terrain_bonus");
  set_int(L, "city_bonus", r.city_bonus);
  set_int(L, "fort_weight", r.fort_weight);
  push_string_list(L, r.sticky_terrain);
  lua_freeze_top(L);
  lua_setfield(L, -2, "sticky_terrain");
  set_int(L, "ambush_multiplier", r.ambush_multiplier);
  set_int(L, "max_assault_rounds", r.max_assault_rounds);
  lua_pushnumber(L, r.dispersal_fraction);
  lua_setfield(L, -2, "dispersal_fraction");
  set_bool(L, "leftover_bp_to_treasury", r.leftover_bp_to_treasury);
  set_bool(L, "leftover_bp_bids", r.leftover_bp_bids);
  set_int(L, "army_upkeep", r.army_upkeep);
  push_int_map(L, r.costs);
  lua_freeze_top(L);
  lua_setfield(L, -2, "costs");
  set_str(L, "viking_nation", r.viking_nation);
  push_string_list(L, r.gaelic_nations);
  lua_freeze_top(L);
  lua_setfield(L, -2, "gaelic_nations");
  push_string_list(L, r.raid_shelter_terrain);
  lua_freeze_top(L);
  lua_setfield(L, -2, "raid_shelter_terrain");
  set_int(L, "raid_pillage_population", r.raid_pillage_population);
  lua_freeze_top(L);
  lua_pushvalue(L, -1);
  lua_rawseti(L, LUA_REGISTRYINDEX, box.slot_ref(LuaSlot::kRules));
  box.marshal_cache = std::make_shared<const RulesConfig>(r);  // last: nothing raises after it
  return 1;
}

Rng& current_rng(lua_State* L) {
  Rng* r = sandbox_of(L).access().rng;
  if (!r) luaL_error(L, "the rng is only available during resolve");
  return *r;
}

int rng_die(lua_State* L) {
  Rng& r = current_rng(L);
  const lua_Integer sides = luaL_checkinteger(L, 2);
  luaL_argcheck(L, sides >= 1 && sides <= INT_MAX, 2, "sides must be 1..2147483647");
  lua_pushinteger(L, r.die(static_cast<int>(sides)));
  return 1;
}

int rng_uniform(lua_State* L) {
  Rng& r = current_rng(L);
  const lua_Integer bound = luaL_checkinteger(L, 2);
  luaL_argcheck(L, bound >= 1 && bound <= 0xffffffffLL, 2, "bound must be 1..4294967295");
  lua_pushinteger(L, r.uniform(static_cast<std::uint32_t>(bound)));
  return 1;
}

// Pushes the state's one object in `slot`: a userdata without fields or user values whose
// protected metatable's __index is a table of `methods` (kept in `methods_slot` unless it is
// LuaSlot::kCount). Being a userdata, a script cannot store anything in it, so one object serves
// every call. Created on first use.
void push_object(lua_State* L, LuaSlot slot, LuaSlot methods_slot, const luaL_Reg* methods) {
  const LuaSandbox& box = sandbox_of(L);
  if (lua_rawgeti(L, LUA_REGISTRYINDEX, box.slot_ref(slot)) == LUA_TUSERDATA) return;
  lua_pop(L, 1);
  lua_newuserdatauv(L, 0, 0);
  lua_createtable(L, 0, 2);
  lua_newtable(L);
  luaL_setfuncs(L, methods, 0);
  if (methods_slot != LuaSlot::kCount) {
    lua_pushvalue(L, -1);
    lua_rawseti(L, LUA_REGISTRYINDEX, box.slot_ref(methods_slot));
  }
  lua_setfield(L, -2, "__index");
  lua_pushboolean(L, 0);
  lua_setfield(L, -2, "__metatable");
  lua_setmetatable(L, -2);
  lua_pushvalue(L, -1);
  lua_rawseti(L, LUA_REGISTRYINDEX, box.slot_ref(slot));
}

}  // namespace

namespace {

void push_json_at(lua_State* L, const Json& j, int depth) {
  if (depth > 200) luaL_error(L, "JSON nested more than 200 deep");
  luaL_checkstack(L, 3, "JSON nested too deep");
  switch (j.type()) {
    case Json::value_t::boolean:
      lua_pushboolean(L, j.get<bool>());
      return;
    case Json::value_t::number_integer:
      lua_pushinteger(L, j.get<std::int64_t>());
      return;
    case Json::value_t::number_unsigned: {
      const std::uint64_t u = j.get<std::uint64_t>();
      if (u <= static_cast<std::uint64_t>(std::numeric_limits<lua_Integer>::max()))
        lua_pushinteger(L, static_cast<lua_Integer>(u));
      else
        lua_pushnumber(L, static_cast<lua_Number>(u));
      return;
    }
    case Json::value_t::number_float:
      lua_pushnumber(L, j.get<double>());
      return;
    case Json::value_t::string:
      push_str(L, j.get_ref<const std::string&>());
      return;
    case Json::value_t::array: {
      LuaSandbox::charge(L, j.size());
      lua_createtable(L, static_cast<int>(j.size()), 0);
      lua_Integer i = 0;
      for (auto it = j.begin(); it != j.end(); ++it) {
        push_json_at(L, *it, depth + 1);
        lua_rawseti(L, -2, ++i);
      }
      return;
    }
    case Json::value_t::object: {
      LuaSandbox::charge(L, j.size());
      lua_createtable(L, 0, static_cast<int>(j.size()));
      for (auto it = j.begin(); it != j.end(); ++it) {
        push_str(L, it.key());
        push_json_at(L, it.value(), depth + 1);
        lua_rawset(L, -3);
      }
      return;
    }
    default:
      lua_pushnil(L);
      return;
  }
}

}  // namespace

void push_json(lua_State* L, const Json& j) { push_json_at(L, j, 0); }

void push_world(lua_State* L, const GameState& world) {
  static const luaL_Reg kMethods[] = {
      {"area", world_area},     {"neighbours", world_neighbours},       {"edge", world_edge},
      {"player", world_player}, {"order_of_play", world_order_of_play}, {"rules", world_rules},
      {nullptr, nullptr}};
  push_object(L, LuaSlot::kWorld, LuaSlot::kWorldMethods, kMethods);
  // world.turn: a field of the method table, set for the call (scripts cannot reach the table).
  const Fields f(L);
  lua_rawgeti(L, LUA_REGISTRYINDEX, f.box.slot_ref(LuaSlot::kWorldMethods));
  f.integer(LuaKey::turn, world.turn);
  lua_pop(L, 1);
}

void push_rng(lua_State* L) {
  static const luaL_Reg kMethods[] = {
      {"die", rng_die}, {"uniform", rng_uniform}, {nullptr, nullptr}};
  push_object(L, LuaSlot::kRng, LuaSlot::kCount, kMethods);
}

namespace {

// __index of a battle: the fields that cost a table each (attacker_units, extras, options, groups)
// are built on first read and then stored in the battle table.
int battle_index(lua_State* L) {
  const BattleInput* in = sandbox_of(L).access().battle;
  if (!in) return luaL_error(L, "the battle is only available during resolve");
  if (lua_type(L, 2) != LUA_TSTRING) return 0;
  const std::string_view key = lua_tostring(L, 2);
  if (key == "attacker_units") {
    push_json(L, in->attacker_units);
  } else if (key == "extras") {
    push_int_map(L, in->extras);
  } else if (key == "options") {
    if (in->options)
      push_json(L, *in->options);
    else
      lua_newtable(L);
  } else if (key == "groups") {
    const bool one = in->groups.empty();
    const std::size_t n = one ? 1 : in->groups.size();
    lua_createtable(L, static_cast<int>(n), 0);
    const Fields f(L);
    for (std::size_t k = 0; k < n; ++k) {
      lua_createtable(L, 0, 6);
      if (one) {
        f.str(LuaKey::player, in->attacker);
        f.str(LuaKey::from, in->from);
        f.integer(LuaKey::armies, in->attacker_armies);
        f.json(LuaKey::units, in->attacker_units);
        f.integer(LuaKey::action, 0);
        f.integer(LuaKey::line, 0);
      } else {
        const AttackGroup& g = in->groups[k];
        f.str(LuaKey::player, g.player);
        f.str(LuaKey::from, g.from);
        f.integer(LuaKey::armies, g.armies);
        f.json(LuaKey::units, g.units);
        f.integer(LuaKey::action, g.action);
        f.integer(LuaKey::line, g.line);
      }
      lua_rawseti(L, -2, static_cast<lua_Integer>(k + 1));
    }
  } else {
    return 0;
  }
  lua_pushvalue(L, 2);
  lua_pushvalue(L, -2);
  lua_rawset(L, 1);
  return 1;
}

}  // namespace

void push_battle(lua_State* L, const BattleInput& in) {
  lua_createtable(L, 0, 12);
  const Fields f(L);
  if (lua_rawgeti(L, LUA_REGISTRYINDEX, f.box.slot_ref(LuaSlot::kBattleMeta)) != LUA_TTABLE) {
    lua_pop(L, 1);
    lua_createtable(L, 0, 2);
    lua_pushcfunction(L, battle_index);
    lua_setfield(L, -2, "__index");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_pushvalue(L, -1);
    lua_rawseti(L, LUA_REGISTRYINDEX, f.box.slot_ref(LuaSlot::kBattleMeta));
  }
  lua_setmetatable(L, -2);
  f.str(LuaKey::id, in.id);
  f.cstr(LuaKey::kind, to_string(in.kind));
  f.str(LuaKey::attacker, in.attacker);
  f.str(LuaKey::from, in.from);
  f.str(LuaKey::to, in.to);
  f.integer(LuaKey::attacker_armies, in.attacker_armies);
  f.boolean(LuaKey::ambush, in.ambush);
  push_world(L, *in.world);
  f.set_top(LuaKey::world);
}

void push_order(lua_State* L, const Order& order) {
  lua_createtable(L, 0, 8);
  set_int(L, "line", order.line);
  set_int(L, "action", order.action);
  set_cstr(L, "verb", verb_name(order.verb));
  set_str(L, "from", order.from);
  set_str(L, "to", order.to);
  lua_createtable(L, 0, 2);
  set_cstr(L, "kind",
           order.qty.kind == Quantity::Kind::kAll     ? "all"
           : order.qty.kind == Quantity::Kind::kExact ? "exact"
                                                      : "all_but");
  set_int(L, "n", order.qty.n);
  lua_setfield(L, -2, "quantity");
  push_int_map(L, order.extras);
  lua_setfield(L, -2, "extras");
  set_str(L, "text", order.text);
}

}  // namespace adj
