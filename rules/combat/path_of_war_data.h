// Path of War's data (the rules: path_of_war_engine.h): the options with their defaults and
// the tanks' hit points an area or a force carries. Pure functions over values; thread-safe.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "rules/combat/combat_engine.h"

namespace adj {

enum class PowVariant { kBoardgame, kVideogamer, kNoLuck };

struct PowTerrain {
  int from = 0;     // dice added when firing from an area with this tag
  int against = 0;  // dice added when firing at an area with this tag
};

// The engine's options with their defaults (docs/rules/path-of-war.md §2.2, OQ-PW6).
struct PowOptions {
  PowVariant variant = PowVariant::kBoardgame;
  int hit_points = 10;
  int shot_damage = 5;  // no-luck: HP per shot (default hit_points / 2, rounded up)
  int hit_on = 5;       // boardgame: the lowest die face that hits
  std::vector<int> damages = {1, 2, 4, 6, 9, 12};  // videogamer damage faces
  std::map<std::string, PowTerrain> terrain;
  int flanking = 1;
  int outnumbered = -1;
  int outnumbered_by = 3;
  int road = 1;
  int rails = 2;
  int min_dice = 1;
  int max_exchanges = 20;
  // Whether the defender fires back in every exchange ("everybody has a chance to fight back").
  // false: docs/rules/path-of-war.md OQ-PW1 (no automatic return fire: the defender hurts attackers
  // only with an ambush volley or its own attacks).
  bool return_fire = true;
  // OVERRUN after a first volley that did not clear the area (seed 001 5.5: "the attacker will be
  // thrown into confusion and forced to fight to the finish"): in every exchange of the assault
  // that follows, the attacker loses this many tanks more (most damaged first; "the attacker
  // loses one extra army in each round") and fires this many dice fewer.
  int overrun_confusion_losses = 1;
  int overrun_confusion_dice = 0;
  // Set only by the old option of the same name: the OVERRUN before issue 12 (one simultaneous
  // first exchange in which the defender fires this many extra dice, then an assault without
  // confusion). Games created with that option keep adjudicating as they did.
  std::optional<int> overrun_defender_bonus;
};

// Parses and checks `options` (the scenario's engine options). Errors are
// "/engine/options/<key>: <what is wrong>".
Result<PowOptions> pow_options_from_json(const Json& options);

// The words Path of War reads (CombatEngine::vocabulary) under `options` (the defaults when they
// do not parse): the terrain table's entries as terrain words and as true features, the "road"
// and "rails" features, the "sidemountain" border and the tanks' "hp" area state.
EngineVocabulary pow_vocabulary(const Json& options);

// HP of `armies` tanks from an engine_state object, healthiest first (unlisted tanks fresh;
// listed values are clamped to 1..hit_points; a list longer than `armies` keeps its healthiest).
std::vector<int> pow_hp_list(const Json& units, int armies, int hit_points);
// The engine_state form of a force: {} when every tank is fresh, else {"hp": [damaged, ...]}.
Json pow_units_json(std::vector<int> hp, int hit_points);

}  // namespace adj
