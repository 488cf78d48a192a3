// `adjutant scenario list | check | preview` (server/cli/scenario_commands.cc), run as the real
// binary: the bundled list, the check's lines and exit codes (text and --json, a file, stdin and
// bundled:NAME), the map written as SVG and PNG without a database, and `game create` refusing
// the check's errors with the same messages.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "tests/support/cli_runner.h"
#include "tests/support/temp_dir.h"

namespace adj {
namespace {

using ::adj::testing::read_file;
using ::adj::testing::run_cli;
using ::adj::testing::write_file;
using Json = nlohmann::json;

// One error (an unknown terrain) and one warning (an area without borders).
const char* kFlawed = R"({
  "id": "flawed-1", "name": "Flawed", "engine": {"name": "dark-age"},
  "players": [{"code": "AAA", "name": "Alba"}, {"code": "BBB", "name": "Bern"}],
  "areas": [
    {"code": "A1", "kind": "land", "owner": "AAA", "armies": 2, "x": 0, "y": 0},
    {"code": "A2", "kind": "land", "terrain": "forrest", "x": 100, "y": 0},
    {"code": "A3", "kind": "land", "owner": "BBB", "armies": 2, "x": 200, "y": 0},
    {"code": "A4", "kind": "land", "x": 200, "y": 100}],
  "adjacency": [["A1", "A2"], ["A2", "A3"]]
})";

class ScenarioCli : public ::testing::Test {
 protected:
  std::string example() const {
    return std::string(ADJ_SOURCE_DIR) + "/tests/data/scenarios/two-marches.json";
  }
  ::adj::testing::TempDir dir_;
};

TEST_F(ScenarioCli, ListNamesEveryBundledScenarioWithItsEngine) {
  auto r = run_cli({"scenario", "list"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* s :
       {"dark-age-britain", "path-of-war-ardennes", "crt-river-crossing", "virtuti-militari-1939",
        "exalted-scavenger-lands", "britain-1", "WSX MRC NUM EAN GWN", "virtuti-militari "})
    EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
  auto j = run_cli({"scenario", "list", "--json"});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  const Json list = Json::parse(j.out);
  ASSERT_GE(list.size(), 5u);
  EXPECT_EQ(list[0].value("engine", "").empty(), false);
  // `game create --help` points at it.
  auto help = run_cli({"game", "create", "--help"});
  EXPECT_NE(help.out.find("adjutant scenario list"), std::string::npos) << help.out;
  EXPECT_EQ(help.out.find("adjutant scenarios`"), std::string::npos) << help.out;
}

TEST_F(ScenarioCli, EveryScenarioCommandHasHelp) {
  for (const char* sub : {"list", "check", "preview", "words"}) {
    auto r = run_cli({"scenario", sub, "--help"});
    EXPECT_EQ(r.exit_code, 0) << sub;
    EXPECT_NE(r.out.find("Usage"), std::string::npos) << sub << r.out;
  }
  EXPECT_EQ(run_cli({"scenario"}).exit_code, 1);  // a subcommand is required
}

TEST_F(ScenarioCli, WordsPrintsTheTablesOfTheGuide) {
  auto all = run_cli({"scenario", "words"});
  ASSERT_EQ(all.exit_code, 0) << all.err;
  EXPECT_NE(all.out.find("### `path-of-war`\n\n| kind | word | what it does |"), std::string::npos);
  EXPECT_NE(all.out.find("| border | `sidemountain` |"), std::string::npos);
  auto one = run_cli({"scenario", "words", "crt"});
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_EQ(one.out.find("sidemountain"), std::string::npos);
  EXPECT_NE(one.out.find("| terrain | `fortified` |"), std::string::npos);
  // A scenario's game: its engine's words with what every game reads.
  auto game = run_cli({"scenario", "words", "bundled:dark-age-britain"});
  ASSERT_EQ(game.exit_code, 0) << game.err;
  EXPECT_NE(game.out.find("| terrain | `forest` | defence level +1"), std::string::npos)
      << game.out;
  EXPECT_NE(game.out.find("| feature | `vp` |"), std::string::npos);
  EXPECT_EQ(run_cli({"scenario", "words", "no-such-thing"}).exit_code, 1);
}

TEST_F(ScenarioCli, CheckPrintsEachFindingWithItsPathAndExitsOneOnErrors) {
  const std::string file = dir_.file("flawed.json");
  write_file(file, kFlawed);
  auto r = run_cli({"scenario", "check", file});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("error /areas/1/terrain: unknown terrain \"forrest\" (did you mean "
                       "\"forest\"?)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("warning /areas/3: A4 has no borders"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(file + ": 1 error, 1 warning (a game is not created with errors)\n"),
            std::string::npos)
      << r.out;
  EXPECT_LT(r.out.find("error /areas/1"), r.out.find("warning /areas/3"));  // errors first

  auto j = run_cli({"scenario", "check", file, "--json"});
  EXPECT_EQ(j.exit_code, 1);
  const Json found = Json::parse(j.out);
  ASSERT_EQ(found["errors"].size(), 1u) << j.out;
  ASSERT_EQ(found["warnings"].size(), 1u) << j.out;
  EXPECT_EQ(found["errors"][0]["path"], "/areas/1/terrain");
  EXPECT_EQ(found["warnings"][0]["path"], "/areas/3");

  // Warnings alone: exit 0, and the count is said.
  Json fixed = Json::parse(kFlawed);
  fixed["areas"][1]["terrain"] = "forest";
  write_file(file, fixed.dump());
  auto w = run_cli({"scenario", "check", file});
  EXPECT_EQ(w.exit_code, 0) << w.out << w.err;
  EXPECT_NE(w.out.find(file + ": no errors, 1 warning\n"), std::string::npos) << w.out;
}

TEST_F(ScenarioCli, CheckReadsStdinAndBundledScenarios) {
  auto in = run_cli({"scenario", "check", "-"}, read_file(example()));
  EXPECT_EQ(in.exit_code, 0) << in.out << in.err;
  EXPECT_EQ(in.out, "stdin: no errors, no warnings\n");
  auto b = run_cli({"scenario", "check", "bundled:path-of-war-ardennes"});
  EXPECT_EQ(b.exit_code, 0) << b.out;
  EXPECT_EQ(b.out, "bundled:path-of-war-ardennes: no errors, no warnings\n");
  auto missing = run_cli({"scenario", "check", "bundled:atlantis"});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("no bundled scenario named atlantis"), std::string::npos);
  auto garbage = run_cli({"scenario", "check", "-"}, "{not json");
  EXPECT_EQ(garbage.exit_code, 1);
  EXPECT_NE(garbage.err.find("stdin is not valid JSON"), std::string::npos) << garbage.err;
}

TEST_F(ScenarioCli, PreviewWritesTheMapAsSvgOrPngWithoutADatabase) {
  const std::string db = dir_.file("never.db");
  const std::string svg = dir_.file("map.svg");
  auto s = run_cli({"--db", db, "scenario", "preview", example(), "--svg", svg});
  ASSERT_EQ(s.exit_code, 0) << s.out << s.err;
  EXPECT_NE(s.out.find("Wrote " + svg + " (SVG, "), std::string::npos) << s.out;
  const std::string drawn = read_file(svg);
  EXPECT_EQ(drawn.rfind("<svg", 0), 0u) << drawn.substr(0, 80);
  EXPECT_NE(drawn.find("area-NFD"), std::string::npos);
  EXPECT_NE(drawn.find("Middle Wood"), std::string::npos);
  EXPECT_EQ(s.err, "");  // the example has nothing to report
  const std::string png = dir_.file("map.png");
  auto p = run_cli({"--db", db, "scenario", "preview", "bundled:crt-river-crossing", "--png", png});
  ASSERT_EQ(p.exit_code, 0) << p.out << p.err;
  EXPECT_EQ(read_file(png).substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_FALSE(std::filesystem::exists(db));

  // The findings go to stderr; a scenario that builds is drawn even with an unknown word.
  const std::string flawed = dir_.file("flawed.json");
  write_file(flawed, kFlawed);
  auto f = run_cli({"scenario", "preview", flawed, "--svg", svg});
  EXPECT_EQ(f.exit_code, 0) << f.err;
  EXPECT_NE(f.err.find("error /areas/1/terrain: unknown terrain"), std::string::npos) << f.err;
  // A scenario that does not build draws nothing.
  std::filesystem::remove(svg);
  write_file(flawed, R"({"id": "x"})");
  auto bad = run_cli({"scenario", "preview", flawed, "--svg", svg});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("the map cannot be drawn"), std::string::npos) << bad.err;
  EXPECT_FALSE(std::filesystem::exists(svg));
  auto none = run_cli({"scenario", "preview", example()});
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.err.find("give --svg FILE or --png FILE"), std::string::npos) << none.err;
}

TEST_F(ScenarioCli, GameCreateRefusesTheChecksErrorsWithTheSameMessage) {
  const std::string file = dir_.file("flawed.json");
  write_file(file, kFlawed);
  const std::string db = dir_.file("games.db");
  auto r = run_cli({"--db", db, "game", "create", file});
  EXPECT_EQ(r.exit_code, 1) << r.out;
  auto check = run_cli({"scenario", "check", file, "--json"});
  const std::string message = Json::parse(check.out)["errors"][0]["message"];
  EXPECT_NE(r.err.find("the scenario is not valid:\n/areas/1/terrain: " + message),
            std::string::npos)
      << r.err;
  // Without the error it is created; the players without a secret get fresh ones.
  auto ok = run_cli({"--db", db, "game", "create", example()});
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_NE(ok.out.find("Created game marches-1"), std::string::npos) << ok.out;
  EXPECT_NE(ok.out.find("New player secrets"), std::string::npos) << ok.out;
  EXPECT_NE(ok.out.find("  NOR "), std::string::npos) << ok.out;
}

}  // namespace
}  // namespace adj
