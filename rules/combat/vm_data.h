// Virtuti Militari's data (the rules: virtuti_militari_engine.h): the unit and dice tables
// (schemas/vm_data.schema.json), the units an area or an attacking force holds, the game's
// options with their defaults, and the cards and air tokens of a player. Pure functions over
// values; thread-safe.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "rules/combat/combat_engine.h"

namespace adj {

// One VM unit (one army on the map).
struct VmUnit {
  std::string type;
  int level = 1;
  int hp = 0;
  bool exhausted = false;
  int group = 0;  // index of the attack group it came with (not stored)
};

struct VmLevel {
  int attack = 0, defense = 0, hp = 1;
  std::string die;
};

// Parsed, validated unit and dice data.
struct VmData {
  std::map<std::string, std::vector<int>> dice;  // die -> pips on faces 1..6
  std::map<std::string, std::vector<VmLevel>> units;
  std::map<std::string, bool> naval;
  std::string default_unit;
  int air_strength = 1;
  std::string air_die;
  bool placeholder = false;

  const VmLevel& level_of(const VmUnit& u) const { return units.at(u.type).at(u.level - 1); }
  bool is_naval(const VmUnit& u) const { return naval.count(u.type) && naval.at(u.type); }
  VmUnit fresh(const std::string& type) const;
};

// Parses data (an object following vm_data.schema.json, or a bundled table name); errors are
// "<path_prefix>/...: what is wrong".
Result<VmData> vm_parse_data(const Json& data, const std::string& path_prefix);
// The data a game uses (options "data" or the bundled default).
Result<VmData> vm_data_of(const Json& options);
// Units of an engine_state object, padded with fresh default units (or cut) to `armies`.
std::vector<VmUnit> vm_units_of(const Json& state, int armies, const VmData& data);
Json vm_units_json(const std::vector<VmUnit>& units);

// The option names check_game knows, the order kinds of order_bonus, and the weathers.
const std::set<std::string>& vm_known_options();
const std::set<std::string>& vm_bonus_keys();
const std::set<std::string>& vm_weathers();

// The game's option values with their defaults (the project's decisions,
// docs/rules/virtuti-militari.md §3.3).
struct VmOptions {
  std::map<std::string, int> bonus = {{"move", 1},   {"assault", 2}, {"probe", 0},  {"overrun", 1},
                                      {"defend", 1}, {"ambush", 2},  {"support", 1}};
  int fort_strength = 1;
  bool forts_used_up = true;
  std::vector<std::string> initiative;
  std::string weather = "clear";
  bool air_spent = false;  // seed: "Used Air Support Tokens return to Faction's ... pool"
  int air_per_turn = 0;
  int shore = 1;  // Shore Bombardment points per supporting Fleet
  bool overrun_halves = true;
  bool overrun_failed_eliminated = true;
};

// The options of a game. REQUIRES: they passed check_game (malformed values fall back to the
// defaults).
VmOptions vm_options_of(const Json* options);
// An area's weather: its feature "weather", else the game's.
std::string vm_weather_of(const Area& a, const VmOptions& o);

// Raw unit entries of an engine_state, padded with {} (a fresh default unit) or cut to `armies`.
std::vector<Json> vm_entries_of(const Json& state, int armies);
// Stores `entries` as the state's "units" (none when every one is fresh).
void vm_store_entries(Json& state, const std::vector<Json>& entries);

// Whether `j` is an integer in lo..hi.
bool vm_is_int(const Json& j, int lo, int hi);

// A card from a hand; empty `id` when the card is malformed.
struct VmCard {
  std::string id;
  int strength = 0;
  std::vector<std::string> dice;
  int hp = 0;
};
VmCard vm_card_of(const Json& c);
// A player's hand of cards (an empty array for none or no player) and air support tokens.
const Json& vm_hand_of(const Player* p);
int vm_air_of(const Player* p);
// A card of a hand against the data's dice: InvalidArgument naming `path` and the field.
Status vm_check_card(const Json& c, const std::string& path, const VmData& data);

// CombatEngine::check_game of Virtuti Militari: the options, the unit data, each area's weather
// and units and each player's air tokens and hand (InvalidArgument naming the path).
Status vm_check_game(const GameState& state);

// The words Virtuti Militari reads (CombatEngine::vocabulary): no terrain; the "weather" and
// "port" features, the "river" and "frozen" borders, the areas' units, support and defence, the
// players' hand and air tokens.
EngineVocabulary vm_vocabulary();

}  // namespace adj
