// Exalted mass combat's data (the rules: exalted_engine.h): the game's options with their
// defaults, each player's profile resolved to numbers, the wounds an area or a force carries,
// and check_game. Pure functions over values; thread-safe.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "rules/combat/combat_engine.h"

namespace adj {

// COUNTER n: at most n counterattacks per battle (area engine_state "counter").
inline constexpr int kExMaxCounter = 100;

// The game's option values with their defaults (the project's decisions,
// docs/rules/exalted-mass-combat.md §5.3).
struct ExOptions {
  int soldiers_per_army = 100;
  int magnitude_cap = -1;
  bool dv_round_up = true;
  std::map<std::string, int> terrain_dv = {
      {"forest", 1}, {"hills", 1}, {"uplands", 1}, {"wetlands", 1}, {"mountains", 2}};
  int city_dv = 1, fort_dv = 1, defend_dv = 1;
  int external_penalty = 0, river_penalty = 1;
  std::map<std::string, int> exchanges = {
      {"move", 1}, {"probe", 1}, {"overrun", 10}, {"assault", 10}};
  bool counter_always = false;  // counterattack "always" (before issue 12) or "elected"
  bool defender_turns = true;   // defender_turns "assault" or "never"
  int overrun_confusion = 1;
  bool combined_units = true;  // combined "units" or "one_unit"
  int retreat_margin = 1;
  bool attacker_reroll = false, defender_reroll = false;
  int stunt_dice = 0;
  int heal_per_turn = 0;
  Json default_profile = Json::object();
};

// The option names check_game knows.
const std::set<std::string>& ex_known_options();
// o[k] when it is an integer, else `d`.
int ex_int_or(const Json& o, const char* k, int d);
// Whether `j` is an integer in lo..hi.
bool ex_int_in(const Json& j, int lo, int hi);
// The options of a game. REQUIRES: they passed check_game (malformed values fall back to the
// defaults).
ExOptions ex_options_of(const Json* options);

// A profile resolved to numbers.
struct ExProfile {
  int wits = 2, war = 2, charisma = 2, intelligence = 2;
  int accuracy = 2, damage = 1, defense = 1, might = 0, hardness = 0, track = 3;
  std::map<std::string, int> soak = {{"bashing", 2}, {"lethal", 1}, {"aggravated", 0}};
  std::string damage_type = "lethal";
  bool has_solo = false;
  int solo_attribute = 0, solo_ability = 0, solo_extra = 0, solo_damage = 0, essence = 0,
      overwhelming = 0;
};
// The profile of `code`'s forces: the built-in default (mortal militia), then the options'
// default_profile, then the player's profile.
ExProfile ex_profile_of(const GameState& w, const std::optional<std::string>& code,
                        const ExOptions& o);

// The wounds (health levels lost) of an area's or a force's wounded armies, most wounded first,
// at most `armies` of them.
std::vector<int> ex_wounds_of(const Json& state, int armies);
// Stores `w` as the state's "wounds" (none when empty).
void ex_store_wounds(Json& state, std::vector<int> w);

// The words Exalted mass combat reads (CombatEngine::vocabulary) under `options` (defaults for
// malformed values): the terrain_dv entries, the "river" border, the areas' counter and wounds,
// the players' profile.
EngineVocabulary ex_vocabulary(const Json& options);

// CombatEngine::check_game of Exalted mass combat: the options, the profiles, each area's
// COUNTER and wounds (InvalidArgument naming the path).
Status ex_check_game(const GameState& state);

}  // namespace adj
