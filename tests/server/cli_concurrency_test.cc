// Several `adjutant` processes on one database at once, as cron jobs, an MTA's `adjutant ingest`
// and the daemon do: opening (and creating, and migrating) a database never fails with
// "database is locked", because the busy timeout is set before the first statement.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/cli_runner.h"
#include "tests/support/temp_dir.h"

namespace adj {
namespace {

using ::adj::testing::CliResult;
using ::adj::testing::run_cli;

constexpr int kProcesses = 12;

// Runs every command at once, one thread (and process) each; their results in order.
std::vector<CliResult> all_at_once(const std::vector<std::vector<std::string>>& commands) {
  std::vector<CliResult> out(commands.size());
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < commands.size(); ++i)
    threads.emplace_back([&, i] { out[i] = run_cli(commands[i]); });
  for (auto& t : threads) t.join();
  return out;
}

int locked(const std::vector<CliResult>& results) {
  int n = 0;
  for (const auto& r : results)
    if (r.err.find("locked") != std::string::npos || r.err.find("busy") != std::string::npos) ++n;
  return n;
}

TEST(CliConcurrency, ManyProcessesCreateAndOpenAFreshDatabaseAtOnce) {
  ::adj::testing::TempDir dir;
  const std::string db = dir.file("fresh.db");
  std::vector<std::vector<std::string>> cmds;
  for (int i = 0; i < kProcesses; ++i) cmds.push_back({"--db", db, "game", "list"});
  const auto results = all_at_once(cmds);
  const int failed_locked = locked(results);
  std::printf("cli-concurrency: fresh database, %d processes, %d failed with a locked database\n",
              kProcesses, failed_locked);
  EXPECT_EQ(failed_locked, 0);
  for (const auto& r : results) EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST(CliConcurrency, ManyProcessesWriteToAnExistingDatabaseAtOnce) {
  ::adj::testing::TempDir dir;
  const std::string db = dir.file("existing.db");
  ASSERT_EQ(
      run_cli({"--db", db, "game", "create", "bundled:dark-age-britain", "--seed", "7"}).exit_code,
      0);
  const std::string orders =
      std::string(ADJ_SOURCE_DIR) + "/schemas/scenarios/dark-age-britain/turn1-";
  std::vector<std::vector<std::string>> cmds;
  const char* players[] = {"WSX", "MRC", "NUM", "EAN", "GWN"};
  for (int i = 0; i < kProcesses; ++i) {
    if (i % 3 == 0)
      cmds.push_back({"--db", db, "game", "show", "britain-1"});
    else
      cmds.push_back(
          {"--db", db, "orders", "submit", "britain-1", orders + players[i % 5] + ".txt"});
  }
  const auto results = all_at_once(cmds);
  const int failed_locked = locked(results);
  std::printf(
      "cli-concurrency: existing database, %d processes, %d failed with a locked database\n",
      kProcesses, failed_locked);
  EXPECT_EQ(failed_locked, 0);
  // Stored (0), or refused as orders (2: e.g. secrets that are not the README's); never an error.
  for (const auto& r : results) EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 2) << r.err;
}

}  // namespace
}  // namespace adj
