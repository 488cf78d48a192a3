// A world generator: a scenario document (schemas/scenario.schema.json) for any number of players
// and any of the built-in engines, as Atlantis, Eressea and GalaxyNG make a world for whoever
// signs up.
//
// The world is a hex grid cut into one block per player, every block the same shape: the
// player's home areas are the cells nearest the block's centre (the capital), so every player
// has the same number of areas, armies, cities and the same home terrain mix, and the capitals
// are evenly spaced over the map (as far apart as the map allows). The cells between the homes
// are neutral land; with seas a ring of sea areas surrounds the land. Each engine gets the data
// it reads (terrain words, forts, cities, rivers, roads, ports, units, cards, profiles).
//
// Pure and deterministic: the same options (seed included) give the same document, byte for
// byte, on every platform. Thread-safe (no shared state).
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "rules/core/status.h"

namespace adj::world {

inline constexpr int kMinPlayers = 2;
inline constexpr int kMaxPlayers = 500;
inline constexpr int kMinAreasPerPlayer = 2;
inline constexpr int kMaxAreasPerPlayer = 12;
inline constexpr int kDefaultAreasPerPlayer = 5;

struct WorldOptions {
  std::string engine = "dark-age";                // one of generator_engines()
  int players = 6;                                // kMinPlayers..kMaxPlayers
  int areas_per_player = kDefaultAreasPerPlayer;  // home land areas of each player
  std::optional<bool> seas;  // a ring of sea areas; unset: the engine's default (seas_by_default)
  std::uint64_t seed = 1;
  std::string name;  // the game's name; empty: "<Engine> world for N players"
  std::string id;    // the game id; empty: "<engine>-<N>p-<seed>"
  // The document's "generated" member says to make the world again, when the GM starts the
  // game, for the players who signed up (regenerate_world).
  bool for_signups = false;
  // The most players the world was first made for (kept when it is made again for fewer); 0:
  // `players`.
  int max_players = 0;
};

// What makes the starts fair, as figures. Every player has exactly these; capital distances are
// in borders crossed (the shortest path over land and sea).
struct WorldFairness {
  int players = 0;
  int home_areas = 0;                       // land areas per player, the capital included
  int home_cities = 0;                      // city areas per player (engines with cities)
  int home_armies = 0;                      // armies per player
  std::map<std::string, int> home_terrain;  // terrain word -> home areas of that terrain
  int capital_min_hops = 0;                 // the two nearest capitals
  double capital_mean_hops = 0;             // mean over every player of its nearest capital
  int land_areas = 0, city_areas = 0, sea_areas = 0, borders = 0;
  int neutral_areas = 0;  // land areas nobody holds
};

// The engines the generator dresses a world for ("dark-age", "path-of-war", "crt",
// "virtuti-militari", "exalted-mass-combat").
const std::vector<std::string>& generator_engines();
// Whether worlds for `engine` have seas unless WorldOptions::seas says otherwise.
bool seas_by_default(const std::string& engine);

// The scenario document, and its fairness figures in *fairness when not null. InvalidArgument
// naming the option when one is out of range or the engine is not one of generator_engines().
Result<nlohmann::json> generate_world(const WorldOptions& options,
                                      WorldFairness* fairness = nullptr);

// `scenario` (a generated world: its "generated" member) made again for `players` players with
// the same engine, seed, areas per player, seas, id and name. The first kingdoms keep their codes
// and names (they are drawn first), so sign-ups' preferences still name them. InvalidArgument
// when `scenario` was not generated or `players` is out of range.
Result<nlohmann::json> regenerate_world(const nlohmann::json& scenario, int players,
                                        WorldFairness* fairness = nullptr);
// True when `scenario` is a generated world to be made again for its sign-ups, unchanged since it
// was generated (its "generated.digest" still matches: a world the GM edited by hand is kept as
// it is, not replaced by a pristine one).
bool generated_for_signups(const nlohmann::json& scenario);
// The most players `scenario` (a generated world) was made for: "generated.max_players", else
// its number of players.
int generated_max_players(const nlohmann::json& scenario);

// The figures as lines for people ("6 players, each with 5 areas (lowlands 2, forest 1, ...)").
std::string fairness_text(const WorldFairness& f);
// The figures as JSON (the desk and the API).
nlohmann::json fairness_json(const WorldFairness& f);

}  // namespace adj::world
