// Engine-independent conformance (rules/combat/conformance.h): every registered engine on the
// suite's generated battles and its sample battles in tests/data/battles/<engine-name>/*.json
// (battle-calculator JSON, rules/combat/local_world.h), and the example scripts shipped in
// rules/combat/scripts/.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "rules/combat/conformance.h"
#include "rules/combat/engine_registry.h"
#include "rules/combat/script_engine.h"
#include "schemas/embedded.h"

namespace adj {
namespace {

namespace fs = std::filesystem;

std::vector<Json> samples_of(std::string_view engine) {
  std::vector<std::pair<std::string, Json>> found;
  const fs::path dir = fs::path(ADJ_SOURCE_DIR) / "tests/data/battles" / std::string(engine);
  if (!fs::is_directory(dir)) return {};
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().extension() == ".json") {
      std::ifstream in(entry.path());
      Json doc = Json::parse(in);
      if (!doc.contains("id")) doc["id"] = entry.path().filename().string();
      found.emplace_back(entry.path().filename().string(), std::move(doc));
    }
  std::sort(found.begin(), found.end(), [](auto& a, auto& b) { return a.first < b.first; });
  std::vector<Json> out;
  for (auto& f : found) out.push_back(std::move(f.second));
  return out;
}

class ConformanceTest : public ::testing::TestWithParam<const CombatEngine*> {};

TEST_P(ConformanceTest, HasSampleBattles) {
  const CombatEngine& e = *GetParam();
  EXPECT_FALSE(samples_of(e.name()).empty())
      << "engine \"" << e.name() << "\" has no sample battles: add calculator JSON files to "
      << "tests/data/battles/" << e.name() << "/";
}

TEST_P(ConformanceTest, SampleBattles) {
  const CombatEngine& e = *GetParam();
  const ConformanceReport r = run_conformance(e, samples_of(e.name()), true);
  EXPECT_TRUE(r.ok()) << r.to_text();
  EXPECT_GT(r.checks.at(2).runs, 0);
}

TEST_P(ConformanceTest, DescribesItself) {
  const CombatEngine& e = *GetParam();
  EXPECT_FALSE(e.summary().empty());
  EXPECT_EQ(find_engine(e.name()), &e);
}

std::string engine_test_name(const ::testing::TestParamInfo<const CombatEngine*>& info) {
  std::string n(info.param->name());
  for (char& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(AllEngines, ConformanceTest, ::testing::ValuesIn(all_engines()),
                         engine_test_name);

TEST(Conformance, GeneratedBattlesCoverEveryKind) {
  const std::vector<Json> g = conformance_battles();
  for (const char* kind : {"move", "assault", "probe", "overrun"})
    EXPECT_TRUE(std::any_of(g.begin(), g.end(), [&](const Json& d) { return d["kind"] == kind; }))
        << kind;
  EXPECT_TRUE(
      std::any_of(g.begin(), g.end(), [](const Json& d) { return d["groups"].size() > 1; }));
  EXPECT_TRUE(std::any_of(g.begin(), g.end(), [](const Json& d) { return d["ambush"] == true; }));
  EXPECT_EQ(g, conformance_battles());  // deterministic
}

TEST(Conformance, BuiltInDarkAgeOnGeneratedBattles) {
  const ConformanceReport r = run_conformance(*find_engine("dark-age"));
  EXPECT_TRUE(r.ok()) << r.to_text();
  EXPECT_GE(r.battles, 48);
}

std::shared_ptr<const CombatEngine> example(const char* file) {
  auto src = embedded_file(std::string("rules/combat/scripts/") + file);
  EXPECT_TRUE(src.has_value()) << file << " is not embedded";
  if (!src) return nullptr;
  auto e = load_script_engine(*src, {1, ""});
  EXPECT_TRUE(e.ok()) << e.status().to_string();
  return e.ok() ? e.value() : nullptr;
}

TEST(Conformance, ExampleScriptsPass) {
  for (const char* file : {"dark_age.lua", "dice.lua"}) {
    auto e = example(file);
    ASSERT_TRUE(e);
    const ConformanceReport r = run_conformance(*e, samples_of("dark-age"));
    EXPECT_TRUE(r.ok()) << file << "\n" << r.to_text();
    // With room to spare: the whole check within a tenth of the upload check's budget.
    EXPECT_LT(script_instructions(*e), ScriptLimits{}.check_instructions / 10) << file;
  }
}

TEST(Conformance, ReportsAScriptThatBreaksTheRules) {
  // Errors on some battles, draws though deterministic, and gives inconsistent losses on the
  // rest: each is a failed check with a message, no crash.
  auto e = load_script_engine(R"lua(
engine = { deterministic = true }
function resolve(battle, rng)
  local a = battle.attacker_armies
  if a % 4 == 0 then error("four") end
  rng:die(6)
  if a % 4 == 2 then return { attacker_losses = 0, defender_losses = 0 } end
  return { attacker_losses = a + 1, defender_losses = 0 }
end)lua",
                              {1, ""}, {.instructions = 100'000});
  ASSERT_TRUE(e.ok()) << e.status().to_string();
  const ConformanceReport r = run_conformance(*e.value());
  EXPECT_FALSE(r.ok());
  const std::string text = r.to_text();
  EXPECT_NE(text.find("FAIL resolve succeeds"), std::string::npos) << text;
  EXPECT_NE(text.find("script:5: four"), std::string::npos) << text;
  EXPECT_NE(text.find("FAIL a deterministic engine never draws"), std::string::npos) << text;
  EXPECT_NE(text.find("inconsistent outcome"), std::string::npos) << text;
}

// A check's cost is bounded: a script that loops is stopped at its first broken limit (not run
// to the limit on every battle), and a slow one when the suite's instruction budget runs out.
TEST(Conformance, AScriptThatLoopsOrCrawlsIsStoppedEarly) {
  auto loops = load_script_engine("function resolve(battle, rng) while true do end end", {1, ""});
  ASSERT_TRUE(loops.ok()) << loops.status().to_string();
  ConformanceReport r = run_conformance(*loops.value());
  EXPECT_FALSE(r.ok());
  std::string text = r.to_text();
  EXPECT_NE(text.find("instruction limit"), std::string::npos) << text;
  EXPECT_NE(text.find("stopped at the first battle that broke a limit"), std::string::npos) << text;
  EXPECT_LE(script_instructions(*loops.value()), 2 * ScriptLimits{}.instructions) << text;

  // About 4 million instructions a battle: within the per-call limit, over the suite's budget.
  auto crawls = load_script_engine(R"lua(
function resolve(battle, rng)
  local n = 0
  for i = 1, 1000000 do n = n + i end
  return { attacker_losses = 0, defender_losses = 0 }
end)lua",
                                   {1, ""});
  ASSERT_TRUE(crawls.ok()) << crawls.status().to_string();
  r = run_conformance(*crawls.value());
  EXPECT_FALSE(r.ok());
  text = r.to_text();
  EXPECT_NE(text.find("the upload check's budget of 200000000 script instructions is used up"),
            std::string::npos)
      << text;
  // The budget caps the last call: never past it.
  EXPECT_LE(script_instructions(*crawls.value()), ScriptLimits{}.check_instructions) << text;
}

}  // namespace
}  // namespace adj
