// Rule parameters of a game, from the scenario's "rules" object, with the project's decisions
// (docs/rules/dark-age.md §1.12 recommendations) as defaults. Every number is configurable per
// game.
#pragma once

#include <map>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "rules/core/status.h"

namespace adj {

struct RulesConfig {
  int actions_per_turn = 16;
  // Defence level = armies + population + fort_weight * fort + terrain/city bonus (OQ-4).
  std::map<std::string, int> terrain_bonus = {
      {"lowlands", 0}, {"uplands", 0}, {"forest", 1}, {"wetlands", 1}, {"mountains", 1}};
  int city_bonus = 3;
  int fort_weight = 1;
  // Difficult ("sticky") terrain stops armies that enter it for the rest of the turn.
  std::set<std::string> sticky_terrain = {"forest", "wetlands", "mountains"};
  int ambush_multiplier = 2;            // OQ-3: attacker losses in the first round are multiplied
  int max_assault_rounds = 50;          // OQ-5
  double dispersal_fraction = 0.0;      // OQ-8: share of lost armies returned to reserve
  bool leftover_bp_to_treasury = true;  // OQ-1
  bool leftover_bp_bids = true;         // OQ-1: leftover BPs count as an implicit ORDER bid
  int army_upkeep = 0;                  // BPs per army deducted from income (none known)
  std::map<std::string, int> costs = {{"MOVE", 1},   {"ASSAULT", 2}, {"PROBE", 1},  {"OVERRUN", 1},
                                      {"AMBUSH", 0}, {"RETREAT", 0}, {"DEFEND", 0}, {"LEVY", 3},
                                      {"RAID", 1},   {"INVADE", 0}};  // LEVY is per army
  std::string viking_nation = "Vikings";  // extra BPs equal to the turn number (§1.4)
  // The Gaelic kingdoms (DA13 5.15: Irish, Scots, Picts), by Player::nation, matched without
  // regard to case: only they may INVADE, and their population turns into armies when a retreat
  // triggers against a non-Gaelic attacker (§1.6).
  std::set<std::string> gaelic_nations = {"Irish", "Picts", "Scots"};
  // RAID (§1.8): the defender loses no army in these terrains ("mountains/wetlands/forest").
  std::set<std::string> raid_shelter_terrain = {"forest", "mountains", "wetlands"};
  // RAID pillage (§1.8, effect not in the rule text): population a pillaged area loses.
  int raid_pillage_population = 1;

  bool is_gaelic(const std::string& nation) const;
  bool operator==(const RulesConfig&) const = default;

  int cost(const std::string& verb) const {
    auto it = costs.find(verb);
    return it == costs.end() ? 0 : it->second;
  }
  int terrain_bonus_of(const std::string& terrain) const {
    auto it = terrain_bonus.find(terrain);
    return it == terrain_bonus.end() ? 0 : it->second;
  }
};

nlohmann::json to_json(const RulesConfig& r);
// Overlays the given keys on the defaults. Unknown keys are an error naming them.
Result<RulesConfig> rules_from_json(const nlohmann::json& j);

}  // namespace adj
