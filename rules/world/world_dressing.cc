// The engines' looks and dress_world: each engine's words and data on a plan.
#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "rules/world/world_plan.h"

namespace adj::world {

using Json = nlohmann::json;

namespace {

// Terrain words as each engine reads them (docs/scenarios.md): Dark Age's defence bonus and
// sticky terrain (rules_config.h), Path of War's from/against dice (path_of_war_data.cc), the
// CRT's left shifts (schemas/tables/crt-terrain.json), Virtuti Militari's and Exalted's terrain.
const std::map<std::string, EngineLook>& looks() {
  static const auto* m = new std::map<std::string, EngineLook>{
      {"dark-age",
       {"lowlands",
        {"uplands", "forest", "lowlands", "wetlands", "mountains"},
        {"lowlands", "lowlands", "uplands", "uplands", "forest", "wetlands", "mountains"},
        true,
        true,
        nullptr,
        0}},
      {"path-of-war",
       {"castle",
        {"hills", "forest", "village", "clear", "hills"},
        {"clear", "clear", "clear", "hills", "hills", "forest", "village", "plateau"},
        false,
        false,
        "sidemountain",
        6}},
      {"crt",
       {"town",
        {"forest", "rough", "clear", "clear", "town"},
        {"clear", "clear", "clear", "forest", "forest", "rough", "town"},
        false,
        false,
        "river",
        12}},
      {"virtuti-militari",
       {"lowlands",
        {"uplands", "forest", "lowlands", "wetlands", "mountains"},
        {"lowlands", "lowlands", "uplands", "forest", "wetlands", "mountains"},
        true,
        true,
        "river",
        10}},
      {"exalted-mass-combat",
       {"lowlands",
        {"hills", "forest", "lowlands", "uplands", "wetlands"},
        {"lowlands", "lowlands", "hills", "forest", "uplands", "wetlands", "mountains"},
        true,
        false,
        "river",
        8}},
  };
  return *m;
}

Json engine_options(const std::string& engine, const WorldPlan& plan) {
  if (engine == "path-of-war") return {{"variant", "boardgame"}, {"hit_points", 10}};
  if (engine == "crt")
    return {{"method", "differential"},
            {"table", "crt-differential"},
            {"shifts", "crt-terrain"},
            {"strength_per_army", 1},
            {"zoc", true}};
  if (engine == "virtuti-militari") {
    Json order = Json::array();
    for (const PlanPlayer& p : plan.players) order.push_back(p.code);
    return {{"initiative", order}, {"weather", "clear"}, {"air_tokens_per_turn", 0}};
  }
  if (engine == "exalted-mass-combat")
    return {{"soldiers_per_army", 100},
            {"default_profile",
             {{"name", "Militia"},
              {"commander", {{"wits", 2}, {"war", 1}, {"charisma", 2}, {"intelligence", 2}}},
              {"unit",
               {{"accuracy", 1},
                {"damage", 1},
                {"defense", 1},
                {"might", 0},
                {"hardness", 0},
                {"soak", {{"bashing", 2}, {"lethal", 1}, {"aggravated", 0}}},
                {"health_track", 3}}}}}};
  return Json::object();
}

Json engine_rules(const std::string& engine) {
  if (engine == "path-of-war")
    return {{"actions_per_turn", 8}, {"sticky_terrain", {"forest", "village"}}};
  if (engine == "crt") return {{"actions_per_turn", 8}, {"sticky_terrain", {"forest", "rough"}}};
  return Json::object();
}

// Every player's engine_state: the same cards and air (Virtuti Militari), the same troops under
// their own name (Exalted).
Json player_state(const std::string& engine, const PlanPlayer& p) {
  if (engine == "virtuti-militari")
    return {{"air", 2},
            {"hand",
             {{{"id", "reserves"},
               {"name", "Reserves"},
               {"strength", 2},
               {"dice", {"yellow"}},
               {"hp", 1}},
              {{"id", "barrage"},
               {"name", "Artillery Barrage"},
               {"strength", 2},
               {"dice", {"white", "yellow"}},
               {"hp", 0}}}}};
  if (engine == "exalted-mass-combat")
    return {{"profile",
             {{"name", p.name + " host"},
              {"commander", {{"wits", 3}, {"war", 3}, {"charisma", 3}, {"intelligence", 3}}},
              {"unit",
               {{"accuracy", 2},
                {"damage", 2},
                {"defense", 2},
                {"might", 1},
                {"drill", 3},
                {"hardness", 1},
                {"soak", {{"bashing", 3}, {"lethal", 2}, {"aggravated", 0}}},
                {"health_track", 5}}},
              {"damage_type", "lethal"}}}};
  return nullptr;
}

// What the digest covers: the world itself, not the id, name, description or seed a GM may set
// on creation.
constexpr const char* kDigestParts[] = {"players", "areas", "adjacency",
                                        "engine",  "rules", "victory"};

const char* kind_word(PlanArea::Kind k) {
  return k == PlanArea::Kind::kSea ? "sea" : k == PlanArea::Kind::kCity ? "city" : "land";
}

}  // namespace

std::string world_digest(const Json& doc) {
  std::string text;
  for (const char* part : kDigestParts)
    if (doc.is_object() && doc.contains(part)) text += doc[part].dump() + "\n";
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx",
                static_cast<unsigned long long>(siphash24(0x61646a77, 0x6f726c64, text)));
  return hex;
}

const EngineLook* engine_look(const std::string& engine) {
  const auto it = looks().find(engine);
  return it == looks().end() ? nullptr : &it->second;
}

const std::vector<std::string>& generator_engines() {
  static const auto* v = [] {
    auto* out = new std::vector<std::string>;
    for (const auto& [name, look] : looks()) out->push_back(name);
    return out;
  }();
  return *v;
}

bool seas_by_default(const std::string& engine) {
  const EngineLook* l = engine_look(engine);
  return l && l->seas;
}

Json dress_world(const WorldOptions& o, const WorldPlan& plan) {
  const std::string& engine = o.engine;
  Json players = Json::array();
  for (const PlanPlayer& p : plan.players) {
    Json j = {{"code", p.code}, {"name", p.name}, {"nation", p.name}, {"bp", 20}};
    if (Json st = player_state(engine, p); !st.is_null()) j["engine_state"] = std::move(st);
    players.push_back(std::move(j));
  }
  Json areas = Json::array();
  for (const PlanArea& a : plan.areas) {
    Json j = {{"code", a.code}, {"name", a.name}, {"kind", kind_word(a.kind)}};
    if (a.kind == PlanArea::Kind::kSea) j["terrain"] = "sea";
    if (a.kind == PlanArea::Kind::kLand) j["terrain"] = a.terrain;
    if (a.kind == PlanArea::Kind::kCity)
      j["hinterland"] = plan.areas[static_cast<std::size_t>(a.hinterland)].code;
    j["population"] = a.population;
    j["fort"] = a.fort;
    if (a.trade) j["trade"] = a.trade;
    j["owner"] =
        a.owner >= 0 ? Json(plan.players[static_cast<std::size_t>(a.owner)].code) : Json(nullptr);
    j["armies"] = a.armies;
    j["x"] = static_cast<int>(a.x);
    j["y"] = static_cast<int>(a.y);
    Json features = Json::object();
    // Roads run through every capital (Path of War moves and the CRT read them).
    if ((engine == "path-of-war" || engine == "crt") && a.capital) features["road"] = true;
    if (engine == "virtuti-militari" && a.coastal && a.owner < 0) features["port"] = true;
    if (!features.empty()) j["features"] = std::move(features);
    if (engine == "virtuti-militari" && a.armies > 0) {
      Json units = Json::array();
      for (int i = 0; i < a.armies; ++i)
        units.push_back({{"type", a.capital && i == 0 ? "armored_corps" : "army"}, {"level", 1}});
      j["engine_state"] = {{"units", units}};
    }
    areas.push_back(std::move(j));
  }
  const EngineLook* look = engine_look(engine);
  Json adjacency = Json::array();
  for (const PlanBorder& b : plan.borders) {
    Json e = {plan.areas[static_cast<std::size_t>(b.a)].code,
              plan.areas[static_cast<std::size_t>(b.b)].code};
    if (b.flagged && look && look->border_flag) e.push_back({{look->border_flag, true}});
    adjacency.push_back(std::move(e));
  }
  const int n = static_cast<int>(plan.players.size());
  Json doc = {{"id", o.id},
              {"name", o.name},
              {"description", "A generated world for " + std::to_string(n) + " players, " +
                                  std::to_string(plan.home_areas) +
                                  " home areas each (adjutant world generate, seed " +
                                  std::to_string(o.seed) + ")."},
              {"engine", {{"name", engine}, {"options", engine_options(engine, plan)}}},
              {"rules", engine_rules(engine)},
              {"victory", {{"last_turn", 12}, {"last_standing", true}, {"draw", true}}},
              {"players", std::move(players)},
              {"areas", std::move(areas)},
              {"adjacency", std::move(adjacency)}};
  // generate_world has settled `seas` (the engine's default when the options gave none).
  doc["generated"] = {{"seed", std::to_string(o.seed)},
                      {"areas_per_player", o.areas_per_player},
                      {"seas", o.seas.value_or(false)}};
  if (o.for_signups) doc["generated"]["for_signups"] = true;
  doc["generated"]["max_players"] = std::max(o.max_players, n);
  doc["generated"]["digest"] = world_digest(doc);
  return doc;
}

}  // namespace adj::world
