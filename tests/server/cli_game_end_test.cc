// `adjutant game delete | archive | unarchive` through the real binary: without --yes a deletion
// is asked on a terminal (a pseudo-terminal here) and refused when stdin is not one; a started
// game is refused with the advice to archive it; everything is audited as "gm:cli".
#include <gtest/gtest.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "storage/sqlite/sqlite_store.h"
#include "tests/support/cli_runner.h"
#include "tests/support/temp_dir.h"

namespace adj {
namespace {

using ::adj::testing::run_cli;

// Runs the binary with `args` on a pseudo-terminal, typing `typed` once it asks; its exit code
// and everything it wrote (the terminal echoes what was typed).
std::pair<int, std::string> run_on_terminal(const std::vector<std::string>& args,
                                            const std::string& typed) {
  int master = -1;
  const pid_t pid = ::forkpty(&master, nullptr, nullptr, nullptr);
  if (pid < 0) return {-1, "forkpty failed"};
  if (pid == 0) {
    std::vector<char*> argv{const_cast<char*>(ADJ_BINARY)};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::unsetenv("ADJUTANT_DB");
    ::execv(ADJ_BINARY, argv.data());
    std::_Exit(127);
  }
  std::string out;
  char buf[512];
  bool sent = false;
  for (;;) {
    const ssize_t n = ::read(master, buf, sizeof buf);
    if (n <= 0) break;  // EIO once the child has exited
    out.append(buf, static_cast<std::size_t>(n));
    if (!sent && out.find("Type the game id") != std::string::npos) {
      const std::string line = typed + "\n";
      if (::write(master, line.data(), line.size()) < 0) break;
      sent = true;
    }
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  ::close(master);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

class CliGameEnd : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(cli({"game", "create", "bundled:dark-age-britain", "--demo-secrets"}).exit_code, 0);
  }
  ::adj::testing::CliResult cli(std::vector<std::string> args) {
    args.insert(args.begin(), {"--db", db_});
    return run_cli(args);
  }
  std::unique_ptr<SqliteStore> store() {
    auto s = SqliteStore::open(db_);
    EXPECT_TRUE(s.ok()) << s.status().to_string();
    return std::move(s).value();
  }
  bool exists() { return store()->game_summary("britain-1").ok(); }

  ::adj::testing::TempDir dir_;
  std::string db_ = dir_.file("test.db");
};

TEST_F(CliGameEnd, WithoutYesAndNoTerminalNothingIsDeleted) {
  auto r = cli({"game", "delete", "britain-1"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("pass --yes to delete britain-1"), std::string::npos) << r.err;
  EXPECT_TRUE(exists());
}

TEST_F(CliGameEnd, WithYesADraftIsDeletedAndAuditedOnTheHost) {
  auto r = cli({"game", "delete", "BRITAIN-1", "--yes", "--reason", "a test"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Deleted game britain-1 (Dark Age Britain)"), std::string::npos) << r.out;
  EXPECT_FALSE(exists());
  auto log = store()->host_audit_log(10);
  ASSERT_TRUE(log.ok());
  ASSERT_EQ(log->size(), 1u);
  EXPECT_EQ(log->front().actor, "gm:cli");
  EXPECT_EQ(log->front().detail["why"], "a test");
  EXPECT_EQ(cli({"game", "delete", "britain-1", "--yes"}).exit_code, 1);  // no such game now
}

TEST_F(CliGameEnd, OnATerminalTheGameIdMustBeTyped) {
  auto kept = run_on_terminal({"--db", db_, "game", "delete", "britain-1"}, "yes");
  EXPECT_EQ(kept.first, 2) << kept.second;
  EXPECT_NE(kept.second.find("5 positions"), std::string::npos) << kept.second;
  EXPECT_NE(kept.second.find("Nothing was deleted."), std::string::npos) << kept.second;
  EXPECT_TRUE(exists());
  auto gone = run_on_terminal({"--db", db_, "game", "delete", "britain-1"}, "britain-1");
  EXPECT_EQ(gone.first, 0) << gone.second;
  EXPECT_NE(gone.second.find("Deleted game britain-1"), std::string::npos) << gone.second;
  EXPECT_FALSE(exists());
}

TEST_F(CliGameEnd, AStartedGameIsRefusedAndArchivedInstead) {
  ASSERT_EQ(cli({"turn", "run", "britain-1"}).exit_code, 0);
  auto r = cli({"game", "delete", "britain-1", "--yes"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("has started (turn 1 ran); archive it instead"), std::string::npos) << r.err;
  EXPECT_TRUE(exists());
  // Not asked on a terminal either: the refusal comes at once.
  auto asked = run_on_terminal({"--db", db_, "game", "delete", "britain-1"}, "britain-1");
  EXPECT_EQ(asked.first, 2) << asked.second;
  EXPECT_EQ(asked.second.find("Type the game id"), std::string::npos) << asked.second;

  auto a = cli({"game", "archive", "britain-1", "--reason", "finished early"});
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_NE(a.out.find("is archived"), std::string::npos) << a.out;
  EXPECT_EQ(cli({"game", "archive", "britain-1"}).exit_code, 2);
  EXPECT_NE(cli({"game", "list"}).out.find("(archived)"), std::string::npos);
  auto run = cli({"turn", "run", "britain-1"});
  EXPECT_NE(run.exit_code, 0);
  EXPECT_NE(run.err.find("is archived"), std::string::npos) << run.err;
  auto log = store()->audit_log("britain-1");
  ASSERT_TRUE(log.ok());
  EXPECT_EQ(log->back().action, "archive");
  EXPECT_EQ(log->back().actor, "gm:cli");

  ASSERT_EQ(cli({"game", "unarchive", "britain-1"}).exit_code, 0);
  EXPECT_EQ(cli({"game", "unarchive", "britain-1"}).exit_code, 2);
  EXPECT_EQ(cli({"game", "list"}).out.find("(archived)"), std::string::npos);
}

}  // namespace
}  // namespace adj
