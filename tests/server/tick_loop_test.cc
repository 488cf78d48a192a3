// End to end: the scheduler of a running `adjutant serve` (server/daemon/tick_loop.h, run_tick in
// serve_jobs.h) with two turn threads (--turn-threads 2): games due in the same pass are shared
// out between the threads and every one of them runs once.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <ctime>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "tests/server/web_test_util.h"
#include "tests/support/cli_runner.h"
#include "tests/support/process.h"
#include "tests/support/serve_process.h"
#include "tests/support/temp_dir.h"

namespace adj {
namespace {

using ::adj::testing::free_port;
using ::adj::testing::read_file;
using ::adj::testing::shell_quote;
using Json = nlohmann::json;
using namespace std::chrono_literals;

constexpr const char* kTickGm = "tick-loop-gm-token";
constexpr int kGames = 5;

std::string game_id(int i) { return "britain-" + std::to_string(i); }

// Stops and reaps a spawned daemon when the test ends, however it ends.
struct Reap {
  pid_t pid;
  ~Reap() {
    ::kill(pid, SIGTERM);
    ::waitpid(pid, nullptr, 0);
  }
};

TEST(TickLoop, RunsEveryGameDueInOnePassOnceOverItsTurnThreads) {
  ::adj::testing::TempDir dir;
  const std::string db = dir.file("tick.db");
  for (int i = 1; i <= kGames; ++i)
    ASSERT_EQ(::adj::testing::run_cli({"--db", db, "game", "create", "bundled:dark-age-britain",
                                       "--seed", std::to_string(i), "--id", game_id(i)})
                  .exit_code,
              0);
  const int port = free_port();
  const std::string log = dir.file("serve.log");
  const pid_t pid = ::adj::testing::spawn_serve(db, port, log, kTickGm, 1, {"--turn-threads", "2"});
  ASSERT_GT(pid, 0);
  const Reap reap{pid};
  ASSERT_TRUE(::adj::testing::wait_healthy(port, 30s)) << read_file(log);
  const std::string base = "http://127.0.0.1:" + std::to_string(port);
  const auto gm = [&](const std::string& method, const std::string& path, const Json& body) {
    return ::adj::testing::curl("-X " + method + " -H " +
                                shell_quote(std::string("Authorization: Bearer ") + kTickGm) +
                                " -H 'Content-Type: application/json' --data " +
                                shell_quote(body.dump()) + " " + shell_quote(base + path));
  };
  // Every deadline in the same second, far enough ahead that setting them all takes less on a
  // loaded machine (3 s did not, once): one pass finds them all due (no orders were sent: the NMR
  // guard is off).
  const long long deadline = static_cast<long long>(std::time(nullptr)) + 10;
  for (int i = 1; i <= kGames; ++i) {
    const auto r = gm("PUT", "/api/games/" + game_id(i) + "/schedule",
                      Json{{"kind", "fixed"}, {"deadline", deadline}, {"nmr_guard_ratio", 1.0}});
    ASSERT_EQ(r.status, 200) << r.body;
  }
  const auto open_turn = [&](int i) {
    const Json g = Json::parse(
        ::adj::testing::curl(shell_quote(base + "/api/games/" + game_id(i))).body, nullptr, false);
    return g.is_object() ? g.value("turn", 0) : 0;
  };
  const auto all_ran = [&] {
    for (int i = 1; i <= kGames; ++i)
      if (open_turn(i) != 2) return false;
    return true;
  };
  const auto until = std::chrono::steady_clock::now() + 60s;
  while (!all_ran() && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(200ms);
  ASSERT_TRUE(all_ran()) << read_file(log);
  std::this_thread::sleep_for(2500ms);  // two more passes: nothing runs again
  const std::string text = read_file(log);
  EXPECT_EQ(::adj::testing::count(text, "event=scheduler tick_seconds=1 turn_threads=2"), 1)
      << text;
  for (int i = 1; i <= kGames; ++i) {
    EXPECT_EQ(open_turn(i), 2) << game_id(i);
    EXPECT_EQ(::adj::testing::count(text, "game=" + game_id(i) + " action=ran"), 1)
        << game_id(i) << "\n"
        << text;
  }
  EXPECT_EQ(::adj::testing::count(text, "event=tick_exception"), 0) << text;
}

// Without --turn-threads: one.
TEST(TickLoop, RunsTurnsOnOneThreadByDefault) {
  ::adj::testing::TempDir dir;
  const int port = free_port();
  const std::string log = dir.file("serve.log");
  const pid_t pid = ::adj::testing::spawn_serve(dir.file("one.db"), port, log, kTickGm, 30);
  ASSERT_GT(pid, 0);
  {
    const Reap reap{pid};
    ASSERT_TRUE(::adj::testing::wait_healthy(port, 30s)) << read_file(log);
  }
  EXPECT_EQ(::adj::testing::count(read_file(log), "event=scheduler tick_seconds=30 turn_threads=1"),
            1)
      << read_file(log);
}

}  // namespace
}  // namespace adj
