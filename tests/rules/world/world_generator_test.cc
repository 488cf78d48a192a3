// rules/world/world_generator.h: every engine's worlds for 2, 7, 50 and 500 players are valid
// scenarios with fair starts, the same for the same seed, and play two turns (500 not under the
// sanitizers).
#include "rules/world/world_generator.h"

#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "rules/combat/engine_registry.h"
#include "rules/game/scenario.h"
#include "rules/game/scenario_lint.h"
#include "rules/orders/validator.h"
#include "rules/turn/turn_resolver.h"
#include "tests/support/sanitized.h"
#include "tests/support/world_orders.h"

namespace adj::world {
namespace {

using Json = nlohmann::json;

Json make(const std::string& engine, int players, std::uint64_t seed = 11,
          WorldFairness* f = nullptr) {
  WorldOptions o;
  o.engine = engine;
  o.players = players;
  o.seed = seed;
  auto doc = generate_world(o, f);
  EXPECT_TRUE(doc.ok()) << doc.status().message();
  return doc.ok() ? *doc : Json();
}

// Per player, counted from the document itself: land areas, cities, armies, terrain mix.
struct Home {
  int land = 0, cities = 0, armies = 0;
  std::map<std::string, int> terrain;
  bool operator==(const Home& o) const {
    return land == o.land && cities == o.cities && armies == o.armies && terrain == o.terrain;
  }
};
std::map<std::string, Home> homes(const Json& doc) {
  std::map<std::string, Home> out;
  for (const Json& p : doc["players"]) out[p["code"]];
  for (const Json& a : doc["areas"]) {
    if (a["owner"].is_null()) continue;
    Home& h = out[a["owner"].get<std::string>()];
    h.armies += a["armies"].get<int>();
    if (a["kind"] == "city") {
      ++h.cities;
    } else {
      ++h.land;
      ++h.terrain[a["terrain"].get<std::string>()];
    }
  }
  return out;
}

// Plays `turns` turns with every player attacking; returns the battles fought.
std::size_t play(const Json& doc, int turns) {
  auto state = state_from_scenario(doc, 5);
  EXPECT_TRUE(state.ok()) << state.status().message();
  if (!state.ok()) return 0;
  const CombatEngine* engine = find_engine(doc["engine"]["name"].get<std::string>());
  EXPECT_NE(engine, nullptr);
  if (!engine) return 0;
  GameState s = std::move(*state);
  std::size_t battles = 0;
  for (int t = 0; t < turns; ++t) {
    OrderBook book;
    for (const Player& p : s.players) {
      const OrderAck ack =
          check_order_file(adj::testing::attack_orders(s, p), s, engine,
                           [](const std::string&, std::string_view) { return true; });
      EXPECT_FALSE(ack.refused) << p.code << ": " << ack.refusal;
      EXPECT_EQ(ack.rejected_count(), 0) << p.code << " turn " << s.turn << ":\n"
                                         << render_ack_text(ack);
      book[p.code] = ack.orders;
    }
    auto r = resolve_turn(s, std::move(book), *engine);
    EXPECT_TRUE(r.ok()) << r.status().message();
    if (!r.ok()) return battles;
    battles += r->battles.size();
    s = std::move(r->next_state);
  }
  return battles;
}

class WorldGenerator : public ::testing::TestWithParam<std::tuple<std::string, int>> {};

TEST_P(WorldGenerator, IsAValidScenarioWithFairStarts) {
  const auto& [engine, players] = GetParam();
  WorldFairness f;
  const Json doc = make(engine, players, 11, &f);
  ASSERT_TRUE(doc.is_object());
  const auto errors = validate_scenario(doc);
  EXPECT_TRUE(errors.empty()) << format_errors(errors);
  // `adjutant scenario check` finds nothing: no error, no warning.
  for (const ScenarioFinding& f : lint_scenario(doc))
    ADD_FAILURE() << to_string(f.severity) << " " << f.path << ": " << f.message;
  ASSERT_EQ(doc["players"].size(), static_cast<std::size_t>(players));

  // Every player has the same home, and the figures printed are those of the document.
  const auto h = homes(doc);
  ASSERT_EQ(h.size(), static_cast<std::size_t>(players));
  const Home& first = h.begin()->second;
  for (const auto& [code, home] : h) EXPECT_TRUE(home == first) << code;
  EXPECT_EQ(first.land, kDefaultAreasPerPlayer);
  EXPECT_EQ(f.home_areas, first.land);
  EXPECT_EQ(f.home_cities, first.cities);
  EXPECT_EQ(f.home_armies, first.armies);
  EXPECT_EQ(f.home_terrain, first.terrain);
  EXPECT_EQ(f.players, players);
  // Capitals are spread: no two share a border or a neighbour.
  EXPECT_GE(f.capital_min_hops, 3);
  EXPECT_GE(f.capital_mean_hops, f.capital_min_hops);

  // Codes and names are unique; every area has coordinates, no two the same.
  std::set<std::string> codes, names;
  std::set<std::pair<int, int>> at;
  for (const Json& p : doc["players"]) EXPECT_TRUE(codes.insert(p["code"]).second) << p["code"];
  for (const Json& a : doc["areas"]) {
    EXPECT_TRUE(codes.insert(a["code"]).second) << a["code"];
    EXPECT_TRUE(names.insert(a["name"]).second) << a["name"];
    EXPECT_TRUE(at.insert({a["x"].get<int>(), a["y"].get<int>()}).second) << a["code"];
  }
  // Engines with seas have them; every area borders another.
  std::map<std::string, int> degree;
  for (const Json& e : doc["adjacency"]) ++degree[e[0]], ++degree[e[1]];
  for (const Json& a : doc["areas"]) EXPECT_GT(degree[a["code"]], 0) << a["code"];
  EXPECT_EQ(f.sea_areas > 0, seas_by_default(engine));
}

TEST_P(WorldGenerator, SameSeedSameWorld) {
  const auto& [engine, players] = GetParam();
  const Json a = make(engine, players, 42), b = make(engine, players, 42),
             c = make(engine, players, 43);
  EXPECT_EQ(a.dump(), b.dump());
  EXPECT_NE(a["areas"].dump(), c["areas"].dump());
}

TEST_P(WorldGenerator, PlaysTwoTurns) {
  const auto& [engine, players] = GetParam();
  // Every player attacks: at least one battle per player over the two turns.
  EXPECT_GE(play(make(engine, players), 2), static_cast<std::size_t>(players));
}

// Players per world. 500 is a size for the optimised build: unoptimised under the sanitizers its
// cases took 43% of that stage's test time (2026-12-01), and 50 players reach the same code.
std::vector<int> world_sizes() {
  if (adj::testing::kSanitized) return {2, 7, 50};
  return {2, 7, 50, 500};
}

INSTANTIATE_TEST_SUITE_P(EveryEngine, WorldGenerator,
                         ::testing::Combine(::testing::Values("dark-age", "path-of-war", "crt",
                                                              "virtuti-militari",
                                                              "exalted-mass-combat"),
                                            ::testing::ValuesIn(world_sizes())),
                         [](const auto& info) {
                           std::string name = std::get<0>(info.param) + "_" +
                                              std::to_string(std::get<1>(info.param));
                           for (char& c : name)
                             if (c == '-') c = '_';
                           return name;
                         });

TEST(WorldGeneratorOptions, OutOfRangeIsRefusedNamingTheOption) {
  WorldOptions o;
  o.players = 501;
  auto r = generate_world(o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("--players: must be from 2 to 500 (got 501)"),
            std::string::npos);
  o.players = 4;
  o.areas_per_player = 1;
  r = generate_world(o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("--areas-per-player"), std::string::npos);
  o.areas_per_player = 5;
  o.engine = "lua";
  r = generate_world(o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("the generator knows crt, dark-age"), std::string::npos)
      << r.status().message();
}

TEST(WorldGeneratorOptions, AreasPerPlayerAndSeasAreHonoured) {
  for (int k : {2, 3, 8, 12}) {
    WorldOptions o;
    o.players = 4;
    o.areas_per_player = k;
    o.seas = false;
    WorldFairness f;
    auto doc = generate_world(o, &f);
    ASSERT_TRUE(doc.ok());
    EXPECT_EQ(f.home_areas, k);
    EXPECT_EQ(f.sea_areas, 0);
    EXPECT_TRUE(validate_scenario(*doc).empty()) << format_errors(validate_scenario(*doc));
  }
}

}  // namespace
}  // namespace adj::world
