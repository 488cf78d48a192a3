#include "rules/game/rules_config.h"

namespace adj {

nlohmann::json to_json(const RulesConfig& r) {
  return {{"actions_per_turn", r.actions_per_turn},
          {"terrain_bonus", r.terrain_bonus},
          {"city_bonus", r.city_bonus},
          {"fort_weight", r.fort_weight},
          {"sticky_terrain", r.sticky_terrain},
          {"ambush_multiplier", r.ambush_multiplier},
          {"max_assault_rounds", r.max_assault_rounds},
          {"dispersal_fraction", r.dispersal_fraction},
          {"leftover_bp_to_treasury", r.leftover_bp_to_treasury},
          {"leftover_bp_bids", r.leftover_bp_bids},
          {"army_upkeep", r.army_upkeep},
          {"costs", r.costs},
          {"viking_nation", r.viking_nation},
          {"gaelic_nations", r.gaelic_nations},
          {"raid_shelter_terrain", r.raid_shelter_terrain},
          {"raid_pillage_population", r.raid_pillage_population}};
}

bool RulesConfig::is_gaelic(const std::string& nation) const {
  const auto lower = [](std::string s) {
    for (char& c : s) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    return s;
  };
  const std::string n = lower(nation);
  for (const std::string& g : gaelic_nations)
    if (lower(g) == n) return true;
  return false;
}

Result<RulesConfig> rules_from_json(const nlohmann::json& j) {
  RulesConfig r;
  if (j.is_null()) return r;
  if (!j.is_object()) return Status::InvalidArgument("/rules: must be an object");
  try {
    for (const auto& [key, v] : j.items()) {
      if (key == "actions_per_turn")
        r.actions_per_turn = v.get<int>();
      else if (key == "terrain_bonus") {
        for (const auto& [t, b] : v.items()) r.terrain_bonus[t] = b.get<int>();
      } else if (key == "city_bonus")
        r.city_bonus = v.get<int>();
      else if (key == "fort_weight")
        r.fort_weight = v.get<int>();
      else if (key == "sticky_terrain")
        r.sticky_terrain = v.get<std::set<std::string>>();
      else if (key == "ambush_multiplier")
        r.ambush_multiplier = v.get<int>();
      else if (key == "max_assault_rounds")
        r.max_assault_rounds = v.get<int>();
      else if (key == "dispersal_fraction")
        r.dispersal_fraction = v.get<double>();
      else if (key == "leftover_bp_to_treasury")
        r.leftover_bp_to_treasury = v.get<bool>();
      else if (key == "leftover_bp_bids")
        r.leftover_bp_bids = v.get<bool>();
      else if (key == "army_upkeep")
        r.army_upkeep = v.get<int>();
      else if (key == "costs") {
        for (const auto& [verb, c] : v.items()) r.costs[verb] = c.get<int>();
      } else if (key == "viking_nation")
        r.viking_nation = v.get<std::string>();
      else if (key == "gaelic_nations")
        r.gaelic_nations = v.get<std::set<std::string>>();
      else if (key == "raid_shelter_terrain")
        r.raid_shelter_terrain = v.get<std::set<std::string>>();
      else if (key == "raid_pillage_population")
        r.raid_pillage_population = v.get<int>();
      else
        return Status::InvalidArgument("/rules/" + key + ": unknown rule parameter");
    }
  } catch (const std::exception& e) {
    return Status::InvalidArgument(std::string("/rules: ") + e.what());
  }
  if (r.actions_per_turn < 1 || r.actions_per_turn > 99)
    return Status::InvalidArgument("/rules/actions_per_turn: must be between 1 and 99");
  if (r.dispersal_fraction < 0 || r.dispersal_fraction > 1)
    return Status::InvalidArgument("/rules/dispersal_fraction: must be between 0 and 1");
  if (r.raid_pillage_population < 0)
    return Status::InvalidArgument("/rules/raid_pillage_population: must be at least 0");
  if (r.max_assault_rounds < 1)
    return Status::InvalidArgument("/rules/max_assault_rounds: must be at least 1");
  return r;
}

}  // namespace adj
