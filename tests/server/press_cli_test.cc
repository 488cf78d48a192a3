// `adjutant press options` and `adjutant press list` (server/cli/press_commands.cc) as a real
// subprocess over a real database.
#include <gtest/gtest.h>

#include "tests/support/cli_runner.h"
#include "tests/support/temp_dir.h"

namespace adj {
namespace {

using ::adj::testing::run_cli;

TEST(PressCli, ShowsAndSetsOptionsAndListsPress) {
  ::adj::testing::TempDir dir;
  const std::string db = dir.file("cli.db");
  const std::string scenario =
      std::string(ADJ_SOURCE_DIR) + "/schemas/scenarios/dark-age-britain.json";
  ASSERT_EQ(run_cli({"--db", db, "game", "create", scenario, "--demo-secrets"}).exit_code, 0);

  auto r = run_cli({"--db", db, "press", "options", "BRITAIN-1"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("press: private"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("gm_reads_private: yes"), std::string::npos);

  r = run_cli({"--db", db, "press", "options", "britain-1", "--press", "public",
               "--gm-reads-private", "no"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("press: public"), std::string::npos);
  EXPECT_NE(r.out.find("gm_reads_private: no"), std::string::npos);
  EXPECT_NE(run_cli({"--db", db, "press", "options", "britain-1"}).out.find("press: public"),
            std::string::npos);

  r = run_cli({"--db", db, "press", "options", "britain-1", "--press", "loud"});
  EXPECT_NE(r.exit_code, 0);
  r = run_cli({"--db", db, "press", "options", "nope"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("there is no game nope"), std::string::npos) << r.err;

  r = run_cli({"--db", db, "press", "list", "britain-1"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("No press to show in britain-1."), std::string::npos);
}

}  // namespace
}  // namespace adj
