// lint_scenario and scenario_errors: validation errors alone, words no part of the game reads
// (errors naming the word and the known ones), and each warning; every bundled scenario is clean.
#include "rules/game/scenario_lint.h"

#include <gtest/gtest.h>

namespace adj {
namespace {

// Two kingdoms on a line of four land areas, every area placed: lints clean.
Json lint_base() {
  return Json::parse(R"({
    "id": "lint-1", "name": "Lint", "engine": {"name": "dark-age"},
    "players": [{"code": "AAA", "name": "Alba"}, {"code": "BBB", "name": "Bern"}],
    "areas": [
      {"code": "A1", "kind": "land", "terrain": "forest", "owner": "AAA", "armies": 2, "x": 0, "y": 0},
      {"code": "A2", "kind": "land", "terrain": "lowlands", "x": 100, "y": 0},
      {"code": "A3", "kind": "land", "terrain": "uplands", "x": 200, "y": 0},
      {"code": "A4", "kind": "land", "owner": "BBB", "armies": 2, "x": 300, "y": 0},
      {"code": "C4", "kind": "city", "hinterland": "A4", "owner": "BBB", "x": 300, "y": 0}],
    "adjacency": [["A1", "A2"], ["A2", "A3"], ["A3", "A4"], ["A4", "C4"]]
  })");
}

// The findings as "<severity> <path>: <message>" lines.
std::vector<std::string> lint_lines(const Json& scenario) {
  std::vector<std::string> out;
  for (const ScenarioFinding& f : lint_scenario(scenario))
    out.push_back(std::string(to_string(f.severity)) + " " + f.path + ": " + f.message);
  return out;
}

std::string joined_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

TEST(ScenarioLint, TheBaseIsClean) { EXPECT_EQ(joined_lines(lint_lines(lint_base())), ""); }

TEST(ScenarioLint, EveryBundledScenarioIsClean) {
  ASSERT_GE(bundled_scenarios().size(), 5u);
  for (const std::string& name : bundled_scenarios()) {
    Result<Json> doc = bundled_scenario_published(name);
    ASSERT_TRUE(doc.ok()) << name;
    EXPECT_EQ(joined_lines(lint_lines(*doc)), "") << name;
    EXPECT_TRUE(scenario_errors(*doc).empty()) << name;
  }
}

TEST(ScenarioLint, ValidationErrorsComeAloneAndFirst) {
  Json j = lint_base();
  j["areas"][4].erase("hinterland");     // a city without a hinterland: validate's error
  j["areas"][1]["terrain"] = "forrest";  // not reported: validation failed
  j["areas"][2].erase("x");              // not reported either
  const auto lines = lint_lines(j);
  ASSERT_EQ(lines.size(), 1u) << joined_lines(lines);
  EXPECT_EQ(lines[0], "error /areas/4: a city must name its hinterland");
  const auto errors = scenario_errors(j);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].message, "a city must name its hinterland");
}

TEST(ScenarioLint, AnUnknownTerrainIsAnErrorNamingTheKnownWords) {
  Json j = lint_base();
  j["areas"][1]["terrain"] = "forrest";
  const auto findings = lint_scenario(j);
  ASSERT_EQ(findings.size(), 1u) << joined_lines(lint_lines(j));
  EXPECT_EQ(findings[0].severity, ScenarioFinding::Severity::kError);
  EXPECT_EQ(findings[0].path, "/areas/1/terrain");
  const std::string& m = findings[0].message;
  EXPECT_NE(m.find("unknown terrain \"forrest\" (did you mean \"forest\"?)"), std::string::npos)
      << m;
  EXPECT_NE(m.find("under dark-age the terrain words are: city, forest, lowlands, mountains, sea, "
                   "uplands, wetlands"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("the map also draws"), std::string::npos) << m;
  // The words are matched exactly: a capital letter is another word.
  j["areas"][1]["terrain"] = "Forest";
  EXPECT_NE(lint_scenario(j)[0].message.find("did you mean \"forest\"?"), std::string::npos);
  // Creating a game refuses it with the same message.
  const auto errors = scenario_errors(j);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].path, "/areas/1/terrain");
  EXPECT_EQ(errors[0].message, lint_scenario(j)[0].message);
}

TEST(ScenarioLint, UnknownFeatureKeysAndBorderFlagsAreErrors) {
  Json j = lint_base();
  j["areas"][0]["features"] = {{"vp", 2}, {"port", true}, {"a/b", 1}};
  j["adjacency"][0].push_back({{"river", true}, {"rivr", true}});
  const auto lines = lint_lines(j);
  ASSERT_EQ(lines.size(), 3u) << joined_lines(lines);
  EXPECT_EQ(lines[0].rfind("error /areas/0/features/a~1b: unknown feature \"a/b\"", 0), 0u)
      << lines[0];
  EXPECT_EQ(lines[1].rfind("error /areas/0/features/port: unknown feature \"port\"", 0), 0u)
      << lines[1];
  EXPECT_NE(lines[1].find("under dark-age the feature words are: vp"), std::string::npos)
      << lines[1];
  EXPECT_EQ(lines[2].rfind("error /adjacency/0/2/rivr: unknown border \"rivr\" (did you mean "
                           "\"river\"?)",
                           0),
            0u)
      << lines[2];
  EXPECT_EQ(scenario_errors(j).size(), 3u);
  // Under Virtuti Militari a port is a word of the engine.
  j["engine"] = {{"name", "virtuti-militari"}};
  j["areas"][0]["features"].erase("a/b");
  j["adjacency"][0][2].erase("rivr");
  EXPECT_EQ(joined_lines(lint_lines(j)), "");
}

TEST(ScenarioLint, TheGameCanAddWordsThroughItsRulesAndOptions) {
  Json j = lint_base();
  j["areas"][1]["terrain"] = "moor";
  EXPECT_EQ(scenario_errors(j).size(), 1u);
  j["rules"] = {{"terrain_bonus", {{"moor", 1}}}};  // Dark Age reads its terrain bonus
  EXPECT_TRUE(scenario_errors(j).empty());
  j["rules"] = {{"sticky_terrain", {"moor"}}};  // the turn loop reads difficult terrain
  EXPECT_TRUE(scenario_errors(j).empty());
  j.erase("rules");
  j["engine"] = {{"name", "path-of-war"},
                 {"options", {{"terrain", {{"moor", {{"from", 0}, {"against", -1}}}}}}}};
  EXPECT_TRUE(scenario_errors(j).empty());
  j["areas"][0]["features"] = {{"moor", true}, {"road", true}};  // table entries are features
  EXPECT_TRUE(scenario_errors(j).empty());
  j["engine"] = {
      {"name", "crt"},
      {"options",
       {{"shifts",
         {{"kind", "shifts"}, {"name", "mine"}, {"terrain", {{"moor", 1}}}, {"river", 2}}}}}};
  j["areas"][0]["features"] = {{"moor", true}};
  EXPECT_TRUE(scenario_errors(j).empty()) << format_errors(scenario_errors(j));
  j["engine"] = {{"name", "exalted-mass-combat"}, {"options", {{"terrain_dv", {{"moor", 2}}}}}};
  j["areas"][0].erase("features");
  EXPECT_TRUE(scenario_errors(j).empty()) << format_errors(scenario_errors(j));
}

TEST(ScenarioLint, ALuaEngineReadsAnyWordUnlessItDeclaresItsOwn) {
  Json j = lint_base();
  j["engine"] = {{"name", "lua"},
                 {"script",
                  "function resolve(battle, rng) return {attacker_losses = 0, "
                  "defender_losses = 0} end"}};
  j["areas"][1]["terrain"] = "moor";
  j["areas"][1]["features"] = {{"shrine", true}};
  j["adjacency"][0].push_back({{"ford", true}});
  EXPECT_EQ(joined_lines(lint_lines(j)), "");
  j["engine"]["script"] = "engine = {terrain = {moor = \"defence +1\"}, features = {\"altar\"}}\n" +
                          j["engine"]["script"].get<std::string>();
  const auto lines = lint_lines(j);
  ASSERT_EQ(lines.size(), 1u) << joined_lines(lines);
  EXPECT_EQ(lines[0].rfind("error /areas/1/features/shrine: unknown feature \"shrine\"", 0), 0u)
      << lines[0];
  EXPECT_NE(lines[0].find("under lua the feature words are: altar, vp"), std::string::npos)
      << lines[0];
}

TEST(ScenarioLint, AnAreaWithoutBordersIsAWarning) {
  Json j = lint_base();
  j["areas"].push_back({{"code", "LONE"}, {"kind", "land"}, {"x", 0}, {"y", 300}});
  const auto lines = lint_lines(j);
  ASSERT_EQ(lines.size(), 1u) << joined_lines(lines);
  EXPECT_EQ(lines[0],
            "warning /areas/5: LONE has no borders: no army can enter or leave it (list its "
            "neighbours in adjacency)");
  EXPECT_TRUE(scenario_errors(j).empty());  // a warning does not refuse a game
}

TEST(ScenarioLint, APlayerWithoutAreasIsAWarning) {
  Json j = lint_base();
  j["players"].push_back({{"code", "CCC"}, {"name", "Cymru"}});
  const auto lines = lint_lines(j);
  ASSERT_EQ(lines.size(), 1u) << joined_lines(lines);
  EXPECT_EQ(lines[0].rfind("warning /players/2: CCC holds no area", 0), 0u) << lines[0];
}

TEST(ScenarioLint, APlayerThatCannotReachAnotherIsAWarning) {
  Json j = lint_base();
  j["adjacency"].erase(j["adjacency"].begin() + 1);  // A1-A2 | A3-A4-C4
  auto lines = lint_lines(j);
  ASSERT_EQ(lines.size(), 2u) << joined_lines(lines);
  EXPECT_EQ(lines[0].rfind("warning /players/0: AAA cannot reach another player", 0), 0u)
      << lines[0];
  EXPECT_EQ(lines[1].rfind("warning /players/1: BBB cannot reach another player", 0), 0u)
      << lines[1];
  // A sea links them again.
  j["areas"].push_back({{"code", "SEA"}, {"kind", "sea"}, {"x", 150}, {"y", 100}});
  j["adjacency"].push_back({"A2", "SEA"});
  j["adjacency"].push_back({"SEA", "A3"});
  EXPECT_EQ(joined_lines(lint_lines(j)), "");
}

TEST(ScenarioLint, ACityBorderingMoreThanItsHinterlandIsAWarning) {
  Json j = lint_base();
  j["adjacency"].push_back({"C4", "A3"});
  auto lines = lint_lines(j);
  ASSERT_EQ(lines.size(), 1u) << joined_lines(lines);
  EXPECT_EQ(lines[0],
            "warning /adjacency/4: the city C4 borders A3 besides its hinterland A4: a city is "
            "reached only through its hinterland (Dark Age rule 2.3; a sea may border it too)");
  // A sea may.
  j["adjacency"][4] = {"C4", "SEA"};
  j["areas"].push_back({{"code", "SEA"}, {"kind", "sea"}, {"x", 300}, {"y", 100}});
  j["adjacency"].push_back({"SEA", "A4"});
  EXPECT_EQ(joined_lines(lint_lines(j)), "");
}

TEST(ScenarioLint, MissingCoordinatesMeanAnAutomaticLayout) {
  Json j = lint_base();
  j["areas"][1].erase("x");
  j["areas"][3].erase("y");
  auto lines = lint_lines(j);
  ASSERT_EQ(lines.size(), 1u) << joined_lines(lines);
  EXPECT_EQ(lines[0].rfind("warning /areas/1: 2 of 5 areas have no x and y (A2, A4): the layout "
                           "is automatic",
                           0),
            0u)
      << lines[0];
  for (auto& a : j["areas"]) {
    a.erase("x");
    a.erase("y");
  }
  lines = lint_lines(j);
  ASSERT_EQ(lines.size(), 1u) << joined_lines(lines);
  EXPECT_EQ(lines[0].rfind("warning /areas: no area has x and y: the layout is automatic", 0), 0u)
      << lines[0];
  // An outline places an area (the map puts it at its centroid).
  j = lint_base();
  j["areas"][1].erase("x");
  j["areas"][1].erase("y");
  j["areas"][1]["outline"] = {{50, -50}, {150, -50}, {150, 50}, {50, 50}};
  EXPECT_EQ(joined_lines(lint_lines(j)), "");
}

TEST(ScenarioLint, AreasAtTheSamePlaceAreAWarning) {
  Json j = lint_base();
  j["areas"][2]["x"] = 100;  // A3 onto A2
  auto lines = lint_lines(j);
  ASSERT_EQ(lines.size(), 1u) << joined_lines(lines);
  EXPECT_EQ(lines[0],
            "warning /areas/2: A3 is at the same place as A2 (100, 0): the map draws them on top "
            "of each other; move one of them");
  j["areas"][2]["x"] = 101;  // 1 apart, where 5 areas along 300 are about 60 apart
  lines = lint_lines(j);
  ASSERT_EQ(lines.size(), 1u) << joined_lines(lines);
  EXPECT_EQ(lines[0].rfind("warning /areas/2: A3 is almost at the place of A2 (100, 0; 1 apart, "
                           "where neighbours are about 60 apart)",
                           0),
            0u)
      << lines[0];
  j["areas"][2]["x"] = 110;  // far enough
  EXPECT_EQ(joined_lines(lint_lines(j)), "");
  // On a plane the share of each area counts: 100 areas 100 apart on a 10 x 10 grid.
  Json grid = lint_base();
  grid["areas"] = Json::array();
  grid["adjacency"] = Json::array();
  for (int k = 0; k < 100; ++k) {
    grid["areas"].push_back({{"code", "G" + std::to_string(k)},
                             {"kind", "land"},
                             {"owner", k == 0    ? "AAA"
                                       : k == 99 ? "BBB"
                                                 : Json()},
                             {"x", 100 * (k % 10)},
                             {"y", 100 * (k / 10)}});
    if (k > 0) grid["adjacency"].push_back({"G" + std::to_string(k - 1), "G" + std::to_string(k)});
  }
  EXPECT_EQ(joined_lines(lint_lines(grid)), "");
  grid["areas"][55]["x"] = 408;  // 8 from G54 (400, 500): about 90 apart here, 9 is near
  lines = lint_lines(grid);
  ASSERT_EQ(lines.size(), 1u) << joined_lines(lines);
  EXPECT_EQ(lines[0].rfind("warning /areas/55: G55 is almost at the place of G54", 0), 0u)
      << lines[0];
  // A city may share its own hinterland's place (the base's C4 does), not another area's.
  j["areas"][4]["hinterland"] = "A3";
  j["adjacency"][3] = {"A3", "C4"};
  lines = lint_lines(j);
  ASSERT_EQ(lines.size(), 1u) << joined_lines(lines);
  EXPECT_EQ(lines[0].rfind("warning /areas/4: C4 is at the same place as A4", 0), 0u) << lines[0];
}

TEST(ScenarioLint, NeverThrowsOnWhatIsNotAScenario) {
  for (const char* text : {"null", "[]", "\"x\"", "{}", R"({"areas": 3})"}) {
    const auto findings = lint_scenario(Json::parse(text));
    ASSERT_FALSE(findings.empty()) << text;
    EXPECT_EQ(findings[0].severity, ScenarioFinding::Severity::kError) << text;
  }
}

}  // namespace
}  // namespace adj
