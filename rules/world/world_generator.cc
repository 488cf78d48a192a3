#include "rules/world/world_generator.h"

#include <algorithm>
#include <cstdio>
#include <deque>
#include <nlohmann/json.hpp>

#include "rules/world/world_plan.h"

namespace adj::world {

using Json = nlohmann::json;

namespace {

std::string engine_title(const std::string& engine) {
  if (engine == "dark-age") return "Dark Age";
  if (engine == "path-of-war") return "Path of War";
  if (engine == "crt") return "CRT";
  if (engine == "virtuti-militari") return "Virtuti Militari";
  if (engine == "exalted-mass-combat") return "Exalted";
  return engine;
}

// Borders crossed from each capital to the nearest other capital (breadth-first, stopping at the
// first capital found, so the cost stays local however large the world).
std::vector<int> nearest_capital_hops(const WorldPlan& plan) {
  const std::size_t n = plan.areas.size();
  std::vector<std::vector<int>> next(n);
  for (const PlanBorder& b : plan.borders) {
    next[static_cast<std::size_t>(b.a)].push_back(b.b);
    next[static_cast<std::size_t>(b.b)].push_back(b.a);
  }
  std::vector<int> out;
  std::vector<int> dist(n, -1);
  std::vector<int> touched;
  for (const PlanPlayer& p : plan.players) {
    for (int t : touched) dist[static_cast<std::size_t>(t)] = -1;
    touched.clear();
    std::deque<int> q{p.capital};
    dist[static_cast<std::size_t>(p.capital)] = 0;
    touched.push_back(p.capital);
    int found = -1;
    while (!q.empty() && found < 0) {
      const int a = q.front();
      q.pop_front();
      for (int b : next[static_cast<std::size_t>(a)]) {
        if (dist[static_cast<std::size_t>(b)] >= 0) continue;
        dist[static_cast<std::size_t>(b)] = dist[static_cast<std::size_t>(a)] + 1;
        touched.push_back(b);
        if (plan.areas[static_cast<std::size_t>(b)].capital) {
          found = dist[static_cast<std::size_t>(b)];
          break;
        }
        q.push_back(b);
      }
    }
    out.push_back(found);
  }
  return out;
}

WorldFairness measure(const WorldPlan& plan) {
  WorldFairness f;
  f.players = static_cast<int>(plan.players.size());
  f.borders = static_cast<int>(plan.borders.size());
  for (const PlanArea& a : plan.areas) {
    if (a.kind == PlanArea::Kind::kSea) ++f.sea_areas;
    if (a.kind == PlanArea::Kind::kCity) ++f.city_areas;
    if (a.kind == PlanArea::Kind::kLand) ++f.land_areas;
    if (a.kind == PlanArea::Kind::kLand && a.owner < 0) ++f.neutral_areas;
    if (a.owner != 0) continue;  // every home is alike: player 0's stands for all
    if (a.kind == PlanArea::Kind::kLand) {
      ++f.home_areas;
      ++f.home_terrain[a.terrain];
    } else {
      ++f.home_cities;
    }
    f.home_armies += a.armies;
  }
  const std::vector<int> hops = nearest_capital_hops(plan);
  if (!hops.empty()) {
    f.capital_min_hops = *std::min_element(hops.begin(), hops.end());
    double sum = 0;
    for (int h : hops) sum += h;
    f.capital_mean_hops = sum / static_cast<double>(hops.size());
  }
  return f;
}

}  // namespace

Result<Json> generate_world(const WorldOptions& options, WorldFairness* fairness) {
  const EngineLook* look = engine_look(options.engine);
  if (!look) {
    std::string known;
    for (const auto& e : generator_engines()) known += (known.empty() ? "" : ", ") + e;
    return Status::InvalidArgument("--engine: the generator knows " + known + " (got \"" +
                                   options.engine + "\")");
  }
  if (options.players < kMinPlayers || options.players > kMaxPlayers)
    return Status::InvalidArgument("--players: must be from " + std::to_string(kMinPlayers) +
                                   " to " + std::to_string(kMaxPlayers) + " (got " +
                                   std::to_string(options.players) + ")");
  if (options.areas_per_player < kMinAreasPerPlayer ||
      options.areas_per_player > kMaxAreasPerPlayer)
    return Status::InvalidArgument("--areas-per-player: must be from " +
                                   std::to_string(kMinAreasPerPlayer) + " to " +
                                   std::to_string(kMaxAreasPerPlayer) + " (got " +
                                   std::to_string(options.areas_per_player) + ")");
  WorldOptions o = options;
  if (o.name.empty())
    o.name = engine_title(o.engine) + " world for " + std::to_string(o.players) + " players";
  if (o.id.empty())
    o.id = o.engine + "-" + std::to_string(o.players) + "p-" + std::to_string(o.seed % 1000000);
  o.seas = o.seas.value_or(look->seas);
  const WorldPlan plan = make_plan(o, *look, *o.seas);
  if (fairness) *fairness = measure(plan);
  return dress_world(o, plan);
}

bool generated_for_signups(const Json& scenario) {
  if (!scenario.is_object()) return false;
  const auto g = scenario.find("generated");
  if (g == scenario.end() || !g->is_object() || g->value("for_signups", false) != true)
    return false;
  const auto d = g->find("digest");
  // The stored scenario has no secrets; a generated world never had any.
  Json world = scenario;
  for (Json& p : world["players"])
    if (p.is_object()) p.erase("secret");
  return d != g->end() && d->is_string() && d->get<std::string>() == world_digest(world);
}

int generated_max_players(const Json& scenario) {
  int most = 0;
  if (scenario.is_object() && scenario.contains("players") && scenario["players"].is_array())
    most = static_cast<int>(scenario["players"].size());
  if (const auto g = scenario.is_object() ? scenario.find("generated") : scenario.end();
      g != scenario.end() && g->is_object()) {
    const auto m = g->find("max_players");
    if (m != g->end() && m->is_number_integer())
      most = std::clamp(m->get<int>(), kMinPlayers, kMaxPlayers);
  }
  return most;
}

Result<Json> regenerate_world(const Json& scenario, int players, WorldFairness* fairness) {
  const auto bad = [] {
    return Status::InvalidArgument("the scenario was not made by the world generator");
  };
  if (!scenario.is_object() || !scenario.contains("generated") ||
      !scenario["generated"].is_object())
    return bad();
  const Json& g = scenario["generated"];
  WorldOptions o;
  try {
    o.engine = scenario.at("engine").at("name").get<std::string>();
    o.seed = std::stoull(g.at("seed").get<std::string>());
    o.areas_per_player = g.value("areas_per_player", kDefaultAreasPerPlayer);
    o.seas = g.value("seas", false);
    o.for_signups = g.value("for_signups", false);
    o.max_players = generated_max_players(scenario);
    o.id = scenario.at("id").get<std::string>();
    o.name = scenario.at("name").get<std::string>();
  } catch (const std::exception&) {
    return bad();
  }
  o.players = players;
  return generate_world(o, fairness);
}

std::string fairness_text(const WorldFairness& f) {
  std::string mix;
  for (const auto& [terrain, n] : f.home_terrain)
    mix += (mix.empty() ? "" : ", ") + terrain + " " + std::to_string(n);
  char mean[32];
  std::snprintf(mean, sizeof mean, "%.1f", f.capital_mean_hops);
  std::string s = std::to_string(f.players) + " players, each with " +
                  std::to_string(f.home_areas) + " home areas (" + mix + ")";
  if (f.home_cities) s += ", " + std::to_string(f.home_cities) + " city";
  s += " and " + std::to_string(f.home_armies) + " armies.\n";
  s += "Capitals: the nearest two are " + std::to_string(f.capital_min_hops) +
       " borders apart; a capital's nearest neighbour is " + mean + " borders away on average.\n";
  s += "The world: " + std::to_string(f.land_areas) + " land areas (" +
       std::to_string(f.neutral_areas) + " neutral), " + std::to_string(f.city_areas) +
       " cities, " + std::to_string(f.sea_areas) + " seas, " + std::to_string(f.borders) +
       " borders.\n";
  return s;
}

Json fairness_json(const WorldFairness& f) {
  return {{"players", f.players},
          {"home_areas", f.home_areas},
          {"home_cities", f.home_cities},
          {"home_armies", f.home_armies},
          {"home_terrain", f.home_terrain},
          {"capital_min_hops", f.capital_min_hops},
          {"capital_mean_hops", f.capital_mean_hops},
          {"land_areas", f.land_areas},
          {"city_areas", f.city_areas},
          {"sea_areas", f.sea_areas},
          {"neutral_areas", f.neutral_areas},
          {"borders", f.borders}};
}

}  // namespace adj::world
