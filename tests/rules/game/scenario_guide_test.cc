// docs/scenarios.md, the authoring guide, against the code: its complete example is the fixture
// tests/data/scenarios/two-marches.json and checks clean; its tables of words are what the
// engines, the turn loop, victory and the map read (`adjutant scenario words` prints them).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "rules/combat/engine_registry.h"
#include "rules/game/scenario_lint.h"
#include "rules/game/vocabulary.h"

namespace adj {
namespace {

std::string guide_text(const std::string& path) {
  std::ifstream in(std::string(ADJ_SOURCE_DIR) + "/" + path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> finding_lines(const Json& scenario) {
  std::vector<std::string> out;
  for (const ScenarioFinding& f : lint_scenario(scenario))
    out.push_back(std::string(to_string(f.severity)) + " " + f.path + ": " + f.message);
  return out;
}

TEST(ScenarioGuide, TheExampleIsCleanAndIsTheFixture) {
  const std::string fixture = guide_text("tests/data/scenarios/two-marches.json");
  ASSERT_FALSE(fixture.empty());
  const Json example = Json::parse(fixture);
  EXPECT_EQ(finding_lines(example), std::vector<std::string>{});
  // docs/scenarios.md shows the same document (its first ```json block after the heading).
  const std::string doc = guide_text("docs/scenarios.md");
  const std::size_t heading = doc.find("## A complete example");
  ASSERT_NE(heading, std::string::npos);
  const std::size_t start = doc.find("```json\n", heading);
  ASSERT_NE(start, std::string::npos);
  const std::size_t end = doc.find("\n```", start + 8);
  ASSERT_NE(end, std::string::npos);
  EXPECT_EQ(Json::parse(doc.substr(start + 8, end - start - 8)), example);
  // It builds a game: the players without a secret get one when the game is created.
  EXPECT_TRUE(state_from_scenario(example, 1).ok());
}

TEST(ScenarioGuide, ShowsTheWordsTheProgramReads) {
  const std::string doc = guide_text("docs/scenarios.md");
  ASSERT_FALSE(doc.empty());
  // `adjutant scenario words` prints these tables; paste its output when this fails.
  EXPECT_NE(doc.find(vocabulary_markdown(common_vocabulary(RulesConfig{}, true))),
            std::string::npos)
      << "every game's words:\n"
      << vocabulary_markdown(common_vocabulary(RulesConfig{}, true));
  for (const CombatEngine* e : all_engines()) {
    const std::string table = vocabulary_markdown(e->vocabulary(Json::object(), RulesConfig{}));
    const std::string heading = "### `" + std::string(e->name()) + "`\n\n";
    EXPECT_NE(doc.find(heading + table), std::string::npos) << e->name() << ":\n" << table;
  }
}

}  // namespace
}  // namespace adj
