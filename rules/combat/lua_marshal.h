// Conversions between the combat-engine types and Lua values for script engines.
//
// push_* functions may raise Lua errors (allocation): call them only inside the sandbox's protected
// call (LuaSandbox::Body), with every argument owned outside. The *_from_lua functions never raise
// (raw access, no metamethods, no conversions) and run after the protected call returned; their
// errors name the field, e.g. "outcome.rounds[2].attacker_losses: must be an integer".
#pragma once

#include <string>
#include <vector>

#include "rules/combat/combat_engine.h"

struct lua_State;

namespace adj {

// JSON -> Lua: objects are tables with string keys, arrays are sequences (1-based), null is nil.
void push_json(lua_State* L, const Json& j);

// The `battle` argument of resolve(): id, kind, attacker, from, to, attacker_armies,
// attacker_units, ambush, extras, options, groups[] and world (see push_world). A lazy table
// (lua_views.cc): kind, to, attacker_armies, ambush and world are set at once, the others built
// on first read from the sandbox's current battle, which must be `in`.
void push_battle(lua_State* L, const BattleInput& in);

// The `world` object: world.turn, world:area(code), world:neighbours(code), world:edge(a, b),
// world:player(code), world:order_of_play(), world:rules(). The methods read the sandbox's
// current GameState (LuaSandbox::Access), so a world kept past its call reads nothing. During
// check_order (Access::order set) they show only the order's areas, the borders touching them,
// their owners and a GIFT's receiving kingdom: nil (or no neighbours) for anything else. Each
// method is charged its size against the instruction limit (LuaSandbox::charge).
void push_world(lua_State* L, const GameState& world);

// The `rng` argument: rng:die(sides) (1..sides) and rng:uniform(bound) (0..bound-1), drawing from
// the sandbox's current Rng.
void push_rng(lua_State* L);

// The `order` argument of check_order: line, action, verb ("MOVE"...), from, to, quantity
// ({kind = "all"|"exact"|"all_but", n}), extras, text.
void push_order(lua_State* L, const Order& order);

// Lua -> JSON (the value at `idx`). Tables with keys 1..n become arrays, with string keys
// objects, empty tables objects; numbers stay integers when they are. Errors name `path`.
Result<Json> json_from_lua(lua_State* L, int idx, const std::string& path);

// What one outcome may hold: `bytes` of data (string bytes plus 8 per value, every reference
// counted), and what passing it means for the error ("more than 65536 bytes of data, the limit of
// one battle's outcome").
struct OutcomeBound {
  std::size_t bytes = 1 << 20;
  std::string over = "more than 1 MB of data";
};

// Lua -> BattleOutcome (the value at `idx`), field by field: unknown fields and wrong types are
// errors naming the field; data past `bound` is an error naming the bound and where it was
// passed. Consistency is checked separately (outcome_inconsistency). `bytes` (when given) is set
// to what the outcome counted, up to where reading stopped.
Result<BattleOutcome> outcome_from_lua(lua_State* L, int idx, const OutcomeBound& bound = {},
                                       std::size_t* bytes = nullptr);

}  // namespace adj
