// The world of one game at one moment: a regular value type (copyable, comparable through its
// JSON form). GameState is what a turn starts from and what it produces; it is what storage keeps
// per turn and what the combat engines read. Pure data: no I/O, no clock.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "rules/core/status.h"
#include "rules/game/rules_config.h"

namespace adj {

using Json = nlohmann::json;

enum class AreaKind { kLand, kCity, kSea };
enum class DefenceMode { kRetreat, kDefend, kAmbush };

const char* to_string(AreaKind kind);
const char* to_string(DefenceMode mode);

struct Player {
  std::string code;  // upper-case, e.g. "WSX"
  std::string name;
  std::string email;
  // The PLAYER line's secret as a scenario gives it: input only. The server hashes it when the game
  // is created and stores states without it (empty); never echoed in acknowledgements or reports.
  std::string secret;
  std::string nation;  // nationality for capture effects; defaults to the player's code
  int bp = 0;          // BPs available for the open turn
  int treasury = 0;
  int vp = 0;
  int reserve = 0;                     // armies dispersed to reserve (docs/rules/dark-age.md OQ-8)
  Json engine_state = Json::object();  // engine-owned per-player data (cards, tokens, profiles)
};

struct Area {
  std::string code;  // upper-case, e.g. "HRS"
  std::string name;
  AreaKind kind = AreaKind::kLand;
  std::string terrain = "lowlands";
  std::string hinterland;  // cities only: the land area around it
  std::optional<std::string> owner;
  int population = 0;
  int fort = 0;
  int trade = 0;   // cities: trade level
  int armies = 0;  // armies present (they belong to the owner, or to nobody)
  DefenceMode mode = DefenceMode::kRetreat;
  std::optional<std::string> retreat_to;
  std::optional<std::string> ambush_against;
  std::optional<double> x, y;          // map coordinates, if the scenario gives them
  Json features = Json::object();      // scenario-given static attributes engines may read
  Json engine_state = Json::object();  // engine-owned per-area data (tank hit points, units)
  // The scenario's map outline ([[x, y], ...]), kept verbatim for the map, which validates it
  // (server/render/map_geometry.h parse_outline); null when absent. No engine reads it.
  Json outline;
};

struct Edge {
  std::string a, b;                // area codes, a < b after normalisation
  Json features = Json::object();  // e.g. {"river": true, "sidemountain": true}
};

struct EngineSpec {
  // Not an aggregate: {name, options} leaves the script unset without a missing-field warning.
  EngineSpec(std::string n = "dark-age", Json o = Json::object())
      : name(std::move(n)), options(std::move(o)) {}

  std::string name;
  Json options;
  // A script engine ("lua"): the stored version of the game's script that runs (JSON
  // "script": {"version", "sha256"}; absent for built-in engines). The text is stored once per
  // version with the game (storage/engine_script_store.h), not in every turn's state.
  int script_version = 0;     // 0: none
  std::string script_sha256;  // lowercase hex of the source bytes
};

// A hash index from codes to positions in a vector of items with a `code` (players, areas),
// rebuilt by GameState::normalise(). Every hit is checked against the item at that position, so
// an index left stale by a change made without normalise() only misses (the caller then searches
// as without it), never gives a wrong item. Copies with its owner (positions, not pointers).
class CodeIndex {
 public:
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);
  template <class T>
  void build(const std::vector<T>& items) {
    std::size_t size = 16;
    while (size < items.size() * 2) size *= 2;
    slots_.assign(size, 0);
    for (std::size_t i = 0; i < items.size(); ++i) {
      std::size_t s = hash(items[i].code) & (size - 1);
      bool known = false;
      for (; slots_[s] != 0; s = (s + 1) & (size - 1))
        if (items[slots_[s] - 1].code == items[i].code) known = true;  // the first one stays
      if (!known) slots_[s] = static_cast<std::uint32_t>(i + 1);
    }
  }
  // The position of the first item with `code` as indexed, or npos.
  template <class T>
  std::size_t find(const std::vector<T>& items, std::string_view code) const {
    if (slots_.empty()) return npos;
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t s = hash(code) & mask; slots_[s] != 0; s = (s + 1) & mask) {
      const std::size_t pos = slots_[s] - 1;
      if (pos < items.size() && items[pos].code == code) return pos;
    }
    return npos;
  }

 private:
  static std::size_t hash(std::string_view code) { return std::hash<std::string_view>()(code); }
  std::vector<std::uint32_t> slots_;  // position + 1; 0: empty. Size: a power of two.
};

struct GameState {
  std::string game_id;
  std::string name;
  int turn = 1;  // the open turn: orders are collected for it and it is the next to run
  std::uint64_t seed = 0;
  EngineSpec engine;
  RulesConfig rules;
  std::vector<Player> players;             // sorted by code
  std::vector<Area> areas;                 // sorted by code
  std::vector<Edge> edges;                 // sorted by (a, b)
  std::vector<std::string> order_of_play;  // player codes; empty before turn 1 is drawn
  Json scenario_extra = Json::object();    // unrecognised top-level scenario data kept verbatim

  // Lookups. Codes are matched exactly (callers upper-case first). Null when absent.
  const Area* find_area(std::string_view code) const;
  Area* find_area(std::string_view code);
  const Player* find_player(std::string_view code) const;
  Player* find_player(std::string_view code);
  bool adjacent(std::string_view a, std::string_view b) const;
  const Edge* find_edge(std::string_view a, std::string_view b) const;
  // Whether the border a-b has the feature `name` set to true (absent, or not a boolean: false).
  bool edge_flag(std::string_view a, std::string_view b, std::string_view name) const;
  // Neighbour codes of an area, sorted (empty for an unknown area). The reference stays valid
  // until the next normalise() or the state's destruction.
  const std::vector<std::string>& neighbours(std::string_view code) const;

  // Rebuilds the adjacency index; call after changing edges. Sorting is canonical.
  void normalise();

 private:
  std::map<std::string, std::vector<std::string>, std::less<>> adj_;
  CodeIndex player_index_, area_index_;
};

// Whether `features` (an area's or an edge's) has `name` set to true; anything else is false
// (scenario data is not trusted to hold booleans there).
bool feature_flag(const Json& features, std::string_view name);

// Canonical JSON form (the storage format and `game show --json`). Round-trips exactly.
Json to_json(const GameState& state);
// The same forms for single elements (as they appear inside the state's JSON).
Json to_json(const Player& p);
Json to_json(const Area& a);
Json to_json(const Edge& e);
// The "engine" object as game states and battle inputs write it: {name, options[, script:
// {version, sha256}]} (rules/game/json_text.h writes it from this tree).
Json engine_json(const EngineSpec& spec);
// The "engine" object back (engine_json's form). Errors: Corruption naming what is wrong.
Result<EngineSpec> engine_spec_from_json(const Json& e);
Result<GameState> state_from_json(const Json& j);

}  // namespace adj
