// The command line's game commands: a duplicate game id says what to do; the
// demo game has the README's id; a rollback tells every player (a rollback notice queued) and
// its re-run keeps the deadline; CLI runs and rollbacks are audited like the web's.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "storage/sqlite/sqlite_store.h"
#include "tests/support/cli_runner.h"
#include "tests/support/temp_dir.h"

namespace adj {
namespace {

using ::adj::testing::run_cli;

class CliGameCommands : public ::testing::Test {
 protected:
  ::adj::testing::CliResult cli(std::vector<std::string> args, const std::string& input = "") {
    args.insert(args.begin(), {"--db", db_});
    return run_cli(args, input);
  }
  ::adj::testing::TempDir dir_;
  std::string db_ = dir_.file("test.db");
};

TEST_F(CliGameCommands, ADuplicateGameIdSaysItExistsAndToChooseAnother) {
  ASSERT_EQ(cli({"game", "create", "bundled:dark-age-britain", "--demo-secrets"}).exit_code, 0);
  auto again = cli({"game", "create", "bundled:dark-age-britain", "--demo-secrets"});
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_NE(again.err.find("A game with id britain-1 already exists; choose another id"),
            std::string::npos)
      << again.err;
}

TEST_F(CliGameCommands, TheDemoGameHasTheReadmesId) {
  auto r = cli({"demo", "--turns", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Created game britain-1 "), std::string::npos) << r.out.substr(0, 400);
  auto show = cli({"game", "show", "britain-1"});
  EXPECT_EQ(show.exit_code, 0) << show.err;
}

TEST_F(CliGameCommands, ARollbackQueuesANoticeForEveryPlayerAndIsAudited) {
  ASSERT_EQ(cli({"game", "create", "bundled:dark-age-britain", "--demo-secrets"}).exit_code, 0);
  ASSERT_EQ(cli({"turn", "run", "britain-1"}).exit_code, 0);
  auto rb = cli({"turn", "rollback", "britain-1", "1"});
  ASSERT_EQ(rb.exit_code, 0) << rb.err;
  EXPECT_NE(rb.out.find("Every player will be told by mail"), std::string::npos) << rb.out;
  auto store = SqliteStore::open(db_);
  ASSERT_TRUE(store.ok());
  auto notices = (*store)->notices("britain-1");
  ASSERT_TRUE(notices.ok());
  ASSERT_EQ(notices->size(), 1u);
  const Notice& n = notices->front();
  EXPECT_EQ(n.kind, "rollback");
  EXPECT_EQ(n.players.size(), 5u);
  EXPECT_NE(n.text.find("The orders on file for turn 1 are kept"), std::string::npos) << n.text;
  auto log = (*store)->audit_log("britain-1");
  ASSERT_TRUE(log.ok());
  int runs = 0, rollbacks = 0;
  for (const auto& e : *log) {
    runs += e.action == "run";
    rollbacks += e.action == "rollback";
  }
  EXPECT_EQ(runs, 1);
  EXPECT_EQ(rollbacks, 1);
}

}  // namespace
}  // namespace adj
