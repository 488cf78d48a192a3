// server/cli/world_commands.cc: `adjutant world generate` prints a scenario that `game create`
// takes, the same for the same seed, its fairness figures on standard error; bad options are
// refused naming the option.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/support/cli_runner.h"
#include "tests/support/temp_dir.h"

namespace adj {
namespace {

using ::adj::testing::run_cli;

TEST(WorldCommands, GenerateThenCreateASixPlayerGame) {
  ::adj::testing::TempDir dir;
  const std::string file = dir.file("world.json");
  auto gen = run_cli({"world", "generate", "--engine", "crt", "--players", "6", "--seed", "9",
                      "--id", "six-1", "-o", file});
  ASSERT_EQ(gen.exit_code, 0) << gen.err;
  EXPECT_NE(gen.err.find("Seed 9 (--seed 9 makes this world again)"), std::string::npos);
  EXPECT_NE(gen.err.find("6 players, each with 5 home areas ("), std::string::npos) << gen.err;
  EXPECT_NE(gen.err.find("Capitals: the nearest two are"), std::string::npos) << gen.err;
  const auto doc = nlohmann::json::parse(::adj::testing::read_file(file), nullptr, false);
  ASSERT_TRUE(doc.is_object());
  EXPECT_EQ(doc["id"], "six-1");
  EXPECT_EQ(doc["players"].size(), 6u);

  auto created = run_cli({"--db", dir.file("g.db"), "game", "create", file});
  ASSERT_EQ(created.exit_code, 0) << created.err;
  EXPECT_NE(created.out.find("Created game six-1 "), std::string::npos) << created.out;
}

TEST(WorldCommands, TheSameSeedPrintsTheSameWorld) {
  const std::vector<std::string> args = {"world", "generate", "--players", "7", "--seed", "31"};
  const auto a = run_cli(args), b = run_cli(args);
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_EQ(a.out, b.out);
  EXPECT_TRUE(nlohmann::json::parse(a.out, nullptr, false).is_object());
  const auto fair = nlohmann::json::parse(
      run_cli({"world", "generate", "--players", "7", "--seed", "31", "--fairness-json"}).out,
      nullptr, false);
  ASSERT_TRUE(fair.is_object());
  EXPECT_EQ(fair["players"], 7);
  EXPECT_EQ(fair["home_areas"], 5);
}

TEST(WorldCommands, BadOptionsAreRefusedNamingTheOption) {
  auto r = run_cli({"world", "generate", "--players", "1"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("--players: must be from 2 to 500 (got 1)"), std::string::npos) << r.err;
  r = run_cli({"world", "generate", "--engine", "chess"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("--engine: the generator knows"), std::string::npos) << r.err;
  r = run_cli({"world", "generate", "--seas", "--no-seas"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("pick one"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace adj
