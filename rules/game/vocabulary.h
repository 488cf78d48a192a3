// The words a scenario may write for a game, and what each does: the engine's own
// (CombatEngine::vocabulary) together with what the rest of the program reads whatever the
// engine: the turn loop (the default terrain, rules.sticky_terrain, rules.raid_shelter_terrain
// under an engine with the Dark Age actions, a city's or a sea's terrain), the victory rules (the
// "vp" feature) and the map (terrain it colours, features and borders it draws; no effect on
// play). scenario_lint.h refuses a terrain word, feature key or border flag that none of them
// reads; docs/scenarios.md lists them per engine (a test checks it lists every word).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "rules/combat/combat_engine.h"
#include "rules/game/rules_config.h"

namespace adj {

// Everything a game under `engine` with `options` and `rules` reads, each word once with its
// effects joined by "; " (the engine's first). A list is open (any) when the engine's is.
EngineVocabulary game_vocabulary(const CombatEngine& engine, const Json& options,
                                 const RulesConfig& rules);

// What every game reads whatever its engine (the turn loop, victory and the map): the part of
// game_vocabulary that is not the engine's. `dark_age_actions`: the engine's trait of that name
// (RAID's sheltering terrain applies).
EngineVocabulary common_vocabulary(const RulesConfig& rules, bool dark_age_actions);

// `v` as a Markdown table (| kind | word | what it does |), one row a word in the order terrain,
// feature, border, area engine_state, player engine_state; a list that reads any word is one row
// "any word". docs/scenarios.md shows each engine's and common_vocabulary's (a test checks it);
// `adjutant scenario words` prints them.
std::string vocabulary_markdown(const EngineVocabulary& v);

// The terrain family the map draws for a terrain word (any case): "forest", "hills",
// "mountains", "wetlands", "town", "desert", or "lowlands" for any other word
// (server/render/map_style.h terrain_class).
std::string map_terrain_family(std::string_view terrain);

// The words map_terrain_family knows, with their family, sorted by word (lower case).
const std::vector<std::pair<std::string, std::string>>& map_terrain_words();

}  // namespace adj
