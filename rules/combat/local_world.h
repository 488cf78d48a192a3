// A battle as a self-contained JSON document: the battle calculator's input format
// (schemas/battle.schema.json) and what battle logs store for --replay.
//
// Two forms:
//  - full:    {"kind", "to", "attacker": {"player", "from", "armies", "units"?, "extras"?},
//              "areas": [...], "adjacency": [...], "players"?: [...], "ambush"?, "seed"?,
//              "engine"?: {"name", "options"}, "rules"?: {...}}
//             areas/adjacency/players use the game-state JSON form (rules/game/state.h).
//  - compact: {"kind", "attacker": {"armies", "terrain"?, "river"?, "retreat"?, ...},
//              "defender": {"armies", "population"?, "fort"?, "terrain"?, "kind"?, "mode"?,
//              "retreat"?, ...}, ...}: a two-area world (attacker in "ATT", defender owned by
//              "DEF" in "TGT"); attacker.river puts a river on the ATT-TGT edge; each side's
//              "retreat" chains empty areas of its own from its area. What is left out is listed
//              in PreparedBattle::assumptions and the output's "assumptions".
#pragma once

#include <map>
#include <memory>
#include <string>

#include "rules/combat/combat_engine.h"

namespace adj {

// The full form of `in`, with the world cut down to the areas within two steps of the target
// (plus the origin) and the players owning them; its order of play lists those players only, in
// the world's order. `order_position`, when given, maps each code of in.world->order_of_play to
// its index there (first occurrence), so that cutting the order costs the battle's size rather
// than the game's; without it the order is scanned. The document is BattleInputWriter's text
// (rules/combat/battle_input_text.h, the one writer of the form, which the turn loop uses)
// parsed: strings that are not UTF-8 hold U+FFFD where the bytes were, as in the stored input.
// `engine`, when given, is the engine that fights the battle (its world_radius(); a script
// engine is not found by name); otherwise the world's engine name is looked up. The engine
// object records the script version and sha256 of a script engine (EngineSpec).
Json battle_input_json(const BattleInput& in,
                       const std::map<std::string, std::size_t>* order_position = nullptr,
                       const CombatEngine* engine = nullptr);

// A battle ready to resolve. Not copyable: `input.world` points into `world`.
struct PreparedBattle {
  std::unique_ptr<GameState> world;
  BattleInput input;
  Seed seed = 0;
  const CombatEngine* engine = nullptr;
  std::shared_ptr<const CombatEngine> owned_engine;  // holds `engine` when the caller gave one
  // What the compact form assumed about the map (no river, no retreat paths), for the output.
  Json assumptions = Json::array();
};

// Parses either form. `engine_override` (may be empty) wins over the document's engine name;
// `engine` (may be null: found by name), when given, fights the battle whatever the document
// names (a script engine built by the caller from the script the document's engine.script
// names; the document's engine object, script included, is kept in the world's EngineSpec).
// Errors name the JSON path and what is wrong.
Result<std::unique_ptr<PreparedBattle>> prepare_battle(
    const Json& doc, std::string_view engine_override,
    std::shared_ptr<const CombatEngine> engine = nullptr);

// The battle's outcome as JSON, with every die drawn (as stored in battle logs).
Json outcome_json(const PreparedBattle& b, const BattleOutcome& out,
                  const std::vector<Draw>& draws);

// Runs the battle `trials` times from seeds derived from b.seed ("trial:i") and summarises:
// attacker win probability, mean and percentile losses on each side.
Result<Json> battle_trials(const PreparedBattle& b, int trials);

}  // namespace adj
