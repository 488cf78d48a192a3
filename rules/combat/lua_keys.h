// Field names the script engine's marshalling uses, interned once per Lua state (LuaSandbox keeps
// each one referenced from the registry for the state's life).
//
// Pushing a key is one registry read (no hashing, no string cache lookup), and a key read back
// from a table is recognised by its address (LuaSandbox::key_of): short Lua strings (all of
// these) are interned, so two equal ones are the same object, and a string not in this list
// never has the address of one in it.
//
// Thread-safety: as the Lua state's.
#pragma once

#include <cstddef>

namespace adj {

// clang-format off
#define ADJ_LUA_KEYS(X)                                                                         \
  /* areas, edges, players, the world */                                                        \
  X(code) X(name) X(kind) X(terrain) X(owner) X(population) X(fort) X(trade) X(armies) X(mode)  \
  X(retreat_to) X(ambush_against) X(features) X(engine_state) X(hinterland) X(x) X(y)           \
  X(outline) X(a) X(b) X(nation) X(bp) X(treasury) X(vp) X(reserve) X(turn)                     \
  /* the battle */                                                                              \
  X(id) X(attacker) X(from) X(to) X(attacker_armies) X(ambush) X(world) X(player) X(units)      \
  X(action) X(line) X(extras) X(options) X(groups) X(attacker_units)                            \
  /* outcome fields */                                                                          \
  X(attacker_wins) X(attacker_losses) X(defender_losses) X(attacker_stops)                      \
  X(defender_retreats_to) X(attacker_retreats_to) X(group_retreats_to) X(fort_after)            \
  X(advancing) X(group_losses) X(group_units) X(defender_units) X(attacker_player_state)        \
  X(defender_player_state) X(rounds) X(detail)                                                  \
  /* round fields (and attacker_losses, defender_losses, detail) */                             \
  X(phase) X(attacker_before) X(defender_before) X(attacker_strength) X(defender_strength)      \
  X(attacker_dice) X(defender_dice)                                                             \
  /* world:rules() */                                                                           \
  X(actions_per_turn) X(terrain_bonus) X(city_bonus) X(fort_weight) X(sticky_terrain)           \
  X(ambush_multiplier) X(max_assault_rounds) X(dispersal_fraction) X(leftover_bp_to_treasury)   \
  X(leftover_bp_bids) X(army_upkeep) X(costs) X(viking_nation) X(gaelic_nations)                \
  X(raid_shelter_terrain) X(raid_pillage_population)
// clang-format on

enum class LuaKey : int {
#define ADJ_LUA_KEY_ENUM(k) k,
  ADJ_LUA_KEYS(ADJ_LUA_KEY_ENUM)
#undef ADJ_LUA_KEY_ENUM
      kCount
};

inline constexpr const char* kLuaKeyNames[] = {
#define ADJ_LUA_KEY_NAME(k) #k,
    ADJ_LUA_KEYS(ADJ_LUA_KEY_NAME)
#undef ADJ_LUA_KEY_NAME
};

inline constexpr std::size_t kLuaKeyCount = static_cast<std::size_t>(LuaKey::kCount);
static_assert(sizeof(kLuaKeyNames) / sizeof(kLuaKeyNames[0]) == kLuaKeyCount);

}  // namespace adj
