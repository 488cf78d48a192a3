// The generator's engine-neutral plan of a world (internal to rules/world): the grid's areas, who
// holds them and how they border, before an engine's words are put on them.
#pragma once

#include <string>
#include <vector>

#include "rules/rng/rng.h"
#include "rules/world/world_generator.h"

namespace adj::world {

struct PlanArea {
  enum class Kind { kLand, kCity, kSea };
  Kind kind = Kind::kLand;
  std::string code, name;
  int owner = -1;  // player index, -1 neutral
  bool capital = false;
  int home_slot = -1;    // for a home land area other than the capital: its index in the home mix
  int hinterland = -1;   // a city's land area
  bool coastal = false;  // land bordering a sea
  double x = 0, y = 0;
  int armies = 0, population = 0, fort = 0, trade = 0;
  std::string terrain;
};

struct PlanBorder {
  int a = 0, b = 0;      // area indices, a < b
  bool flagged = false;  // carries the engine's border flag (a river, a side mountain)
};

struct PlanPlayer {
  std::string code, name;
  int capital = -1;  // area index
};

struct WorldPlan {
  std::vector<PlanArea> areas;
  std::vector<PlanBorder> borders;
  std::vector<PlanPlayer> players;
  int home_areas = 0;  // land areas per player
};

// What an engine's worlds look like (world_dressing.cc).
struct EngineLook {
  std::string capital_terrain;
  std::vector<std::string> home_mix;  // the other home areas' terrain, cycled (every player alike)
  std::vector<std::string> palette;   // neutral land terrain, repeated words weigh more
  bool cities = false;                // city areas with hinterlands
  bool seas = false;                  // seas unless the options say otherwise
  const char* border_flag = nullptr;  // "river", "sidemountain" or none
  int border_flag_percent = 0;        // of the borders between two neutral land areas
};
const EngineLook* engine_look(const std::string& engine);

// Lays out the grid, the homes, the seas, cities, names and codes, armies and terrain.
// REQUIRES: options checked by generate_world.
WorldPlan make_plan(const WorldOptions& options, const EngineLook& look, bool seas);

// The scenario document of `plan` for `options.engine` (its options, rules, features, border
// flags and engine_state).
nlohmann::json dress_world(const WorldOptions& options, const WorldPlan& plan);

// A digest of a scenario's world (players, areas, borders, engine, rules, victory): 16 hex digits.
std::string world_digest(const nlohmann::json& scenario);

}  // namespace adj::world
