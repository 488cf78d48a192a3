// Scenario validation: the JSON Schema, then the semantic checks. Every error names its path.
#include <gtest/gtest.h>

#include <algorithm>

#include "rules/game/scenario.h"

namespace adj {
namespace {

Json scenario_base() {
  return Json::parse(R"({
    "id": "t-1", "name": "Test", "engine": {"name": "dark-age"},
    "players": [{"code": "WSX", "name": "Wessex", "secret": "s", "bp": 20},
                {"code": "MRC", "name": "Mercia", "secret": "t"}],
    "areas": [{"code": "HRS", "kind": "land", "terrain": "lowlands", "owner": "WSX", "armies": 5},
              {"code": "BDS", "kind": "land", "owner": "MRC", "armies": 2, "population": 1},
              {"code": "LON", "kind": "city", "hinterland": "BDS", "population": 3},
              {"code": "NTS", "kind": "sea"}],
    "adjacency": [["HRS", "BDS"], ["BDS", "LON"], ["BDS", "NTS"]]
  })");
}

// The first error for a scenario with `edit` applied, as "<path>: <message>".
std::string scenario_first_error(const std::function<void(Json&)>& edit) {
  Json j = scenario_base();
  edit(j);
  auto errors = validate_scenario(j);
  return errors.empty() ? std::string("(valid)") : errors[0].path + ": " + errors[0].message;
}

TEST(Scenario, BaseIsValidAndBuildsAState) {
  EXPECT_EQ(scenario_first_error([](Json&) {}), "(valid)");
  auto st = state_from_scenario(scenario_base(), 99);
  ASSERT_TRUE(st.ok()) << st.status().to_string();
  EXPECT_EQ(st->seed, 99u);
  EXPECT_EQ(st->turn, 1);
  EXPECT_TRUE(st->adjacent("HRS", "BDS"));
  EXPECT_EQ(st->find_area("LON")->terrain, "city");
  EXPECT_EQ(st->find_player("MRC")->nation, "MRC");
}

TEST(Scenario, CodesAreCaseInsensitive) {
  Json j = scenario_base();
  j["areas"][0]["code"] = "hrs";
  j["adjacency"][0][0] = "Hrs";
  auto st = state_from_scenario(j, 1);
  ASSERT_TRUE(st.ok()) << st.status().to_string();
  EXPECT_NE(st->find_area("HRS"), nullptr);
}

TEST(Scenario, SchemaErrorsNameThePath) {
  EXPECT_NE(scenario_first_error([](Json& j) { j.erase("players"); }).find("players"),
            std::string::npos);
  EXPECT_EQ(scenario_first_error([](Json& j) { j["areas"][1]["armies"] = -2; }).substr(0, 16),
            "/areas/1/armies:");
  EXPECT_EQ(scenario_first_error([](Json& j) { j["areas"][0]["kind"] = "swamp"; }).substr(0, 14),
            "/areas/0/kind:");
  EXPECT_EQ(scenario_first_error([](Json& j) { j["players"][0]["code"] = "W S"; }).substr(0, 16),
            "/players/0/code:");
  EXPECT_NE(scenario_first_error([](Json& j) { j["colour"] = "red"; }).find("colour"),
            std::string::npos);
  EXPECT_EQ(scenario_first_error([](Json& j) {
              j["rules"] = {{"ambush_multiplier", 0}};
            }).substr(0, 25),
            "/rules/ambush_multiplier:");
}

TEST(Scenario, SemanticErrorsNameThePath) {
  EXPECT_EQ(scenario_first_error([](Json& j) { j["areas"][1]["owner"] = "XXX"; }),
            "/areas/1/owner: unknown player XXX");
  EXPECT_EQ(scenario_first_error([](Json& j) { j["areas"][3]["code"] = "HRS"; }),
            "/areas/3/code: duplicate area code HRS");
  EXPECT_EQ(scenario_first_error([](Json& j) { j["players"][1]["code"] = "WSX"; }),
            "/players/1/code: duplicate player code WSX");
  EXPECT_EQ(scenario_first_error([](Json& j) { j["areas"][2].erase("hinterland"); }),
            "/areas/2: a city must name its hinterland");
  EXPECT_EQ(scenario_first_error([](Json& j) { j["areas"][2]["hinterland"] = "NTS"; }),
            "/areas/2/hinterland: the hinterland NTS must be a land area");
  EXPECT_EQ(scenario_first_error([](Json& j) {
              j["adjacency"][1] = {"HRS", "NTS"};
            }),
            "/areas/2/hinterland: the city must border its hinterland BDS");
  EXPECT_EQ(scenario_first_error([](Json& j) {
              j["adjacency"].push_back({"HRS", "XYZ"});
            }),
            "/adjacency/3/1: unknown area XYZ");
  EXPECT_EQ(scenario_first_error([](Json& j) {
              j["adjacency"].push_back({"BDS", "HRS"});
            }),
            "/adjacency/3: duplicate border BDS-HRS");
  EXPECT_EQ(scenario_first_error([](Json& j) { j["areas"][3]["armies"] = 2; }),
            "/areas/3/armies: a sea area cannot hold armies");
  EXPECT_EQ(scenario_first_error([](Json& j) { j["engine"]["name"] = "chess"; }).substr(0, 38),
            "/engine/name: unknown engine \"chess\" (");
  EXPECT_EQ(scenario_first_error([](Json& j) {
              j["engine"]["options"] = {{"x", 1}};
            }).substr(0, 16),
            "/engine/options:");
}

TEST(Scenario, EngineErrorsPointAtTheEntryInTheFilesOwnOrder) {
  // The engine checks the state, whose areas and players are sorted by code; the error must
  // still name the index in the file, which lists them in its own (here: reversed) order.
  auto vm = bundled_scenario_published("virtuti-militari-1939");
  ASSERT_TRUE(vm.ok());
  Json j = *vm;
  std::reverse(j["areas"].begin(), j["areas"].end());
  std::reverse(j["players"].begin(), j["players"].end());
  const auto index_of = [&](const char* list, const std::string& code) {
    for (std::size_t i = 0; i < j[list].size(); ++i)
      if (j[list][i]["code"] == code) return i;
    return j[list].size();
  };
  const std::size_t war = index_of("areas", "WAR");
  ASSERT_LT(war, j["areas"].size());
  j["areas"][war]["engine_state"] = {{"units", {{{"type", "zeppelin"}}}}};
  auto errors = validate_scenario(j);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].path, "/areas/" + std::to_string(war) + "/engine_state/units/0/type");
  EXPECT_NE(errors[0].message.find("zeppelin"), std::string::npos) << errors[0].message;

  j["areas"][war].erase("engine_state");
  const std::size_t sov = index_of("players", "SOV");
  ASSERT_LT(sov, j["players"].size());
  j["players"][sov]["engine_state"] = {{"air", -1}};
  errors = validate_scenario(j);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].path, "/players/" + std::to_string(sov) + "/engine_state/air");
}

TEST(Scenario, EveryBundledScenarioIsValid) {
  const auto names = bundled_scenarios();
  EXPECT_GE(names.size(), 5u);
  for (const auto& n : names) {
    auto doc = bundled_scenario_published(n);
    ASSERT_TRUE(doc.ok()) << n;
    EXPECT_EQ(format_errors(validate_scenario(*doc)), "") << n;
  }
}

TEST(Scenario, BritainIsARealPlayableMap) {
  auto st = state_from_scenario(*bundled_scenario_published("dark-age-britain"), 1);
  ASSERT_TRUE(st.ok());
  int land = 0, cities = 0;
  for (const auto& a : st->areas) {
    land += a.kind != AreaKind::kSea;
    cities += a.kind == AreaKind::kCity;
  }
  EXPECT_GE(st->areas.size(), 20u);
  EXPECT_LE(st->areas.size(), 30u);
  EXPECT_GE(cities, 3);
  EXPECT_GT(land, cities);  // plain land areas besides the cities
  EXPECT_GE(st->players.size(), 4u);
  EXPECT_LE(st->players.size(), 6u);
  for (const auto& a : st->areas) EXPECT_FALSE(st->neighbours(a.code).empty()) << a.code;
}

}  // namespace
}  // namespace adj
