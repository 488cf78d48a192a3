// End to end: `adjutant serve` as a real process on a free loopback port, driven with curl; then
// SIGTERM, a clean exit, and a restart that finds everything where it was.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <thread>

#include <nlohmann/json.hpp>

#include "tests/support/cli_runner.h"
#include "tests/support/process.h"
#include "tests/support/serve_process.h"
#include "tests/support/temp_dir.h"

namespace adj {
namespace {

using ::adj::testing::free_port;
using ::adj::testing::shell_quote;

using Json = nlohmann::json;
using namespace std::chrono_literals;
using ::adj::testing::read_file;
using ::adj::testing::write_file;

constexpr const char* kServeGm = "e2e-gm-token";
const std::string kServeOrders =
    std::string(ADJ_SOURCE_DIR) + "/schemas/scenarios/dark-age-britain/";

using CurlResult = ::adj::testing::CurlAnswer;
using ::adj::testing::curl;

class ServeDaemon {
 public:
  ServeDaemon(const std::string& db, int port, const std::string& log)
      : port_(port), pid_(::adj::testing::spawn_serve(db, port, log, kServeGm, 1)) {}
  ~ServeDaemon() {
    if (pid_ > 0 && !reaped_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  std::string url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }
  // Polls /healthz until it answers 200.
  bool wait_healthy(std::chrono::seconds timeout = 20s) {
    return ::adj::testing::wait_healthy(port_, timeout);
  }
  // Sends `sig` and waits for the exit; the exit code, or -1 on a crash or timeout.
  int stop(int sig, std::chrono::seconds timeout = 30s) {
    ::kill(pid_, sig);
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    int status = 0;
    while (std::chrono::steady_clock::now() < deadline) {
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        reaped_ = true;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      }
      std::this_thread::sleep_for(50ms);
    }
    return -1;
  }

 private:
  int port_;
  pid_t pid_ = -1;
  bool reaped_ = false;
};

TEST(ServeTest, EndToEndWithCurlThenSigtermAndRestart) {
  ::adj::testing::TempDir dir;
  const std::string db = dir.file("e2e.db"), log = dir.file("serve.log");
  const std::string gm = shell_quote(std::string("Authorization: Bearer ") + kServeGm);
  std::string token;
  {
    ServeDaemon d(db, free_port(), log);
    ASSERT_TRUE(d.wait_healthy()) << read_file(log);

    CurlResult r =
        curl("-X POST -H " + gm + " -H 'Content-Type: application/json' --data " +
             shell_quote(R"({"bundled": "dark-age-britain", "seed": 11, "demo_secrets": true})") +
             " " + shell_quote(d.url("/api/games")));
    ASSERT_EQ(r.status, 201) << r.body;

    // Orders: one player with their link token and no header lines, the others as by mail.
    r = curl("-X POST -H " + gm + " " +
             shell_quote(d.url("/api/games/britain-1/players/WSX/token")));
    ASSERT_EQ(r.status, 200) << r.body;
    token = Json::parse(r.body)["token"];
    const std::string wsx = dir.file("wsx.txt");
    write_file(wsx, "1. LEVY HAM 3\n2. MOVE HAM OXF 4\n3. DEFEND WIN\n");
    r = curl("-H " + shell_quote("Authorization: Bearer " + token) +
             " -H 'Content-Type: text/plain' --data-binary @" + shell_quote(wsx) + " " +
             shell_quote(d.url("/api/games/britain-1/orders")));
    EXPECT_EQ(r.status, 200) << r.body;
    for (const char* p : {"MRC", "NUM", "EAN", "GWN"}) {
      r = curl("-H 'Content-Type: text/plain' --data-binary @" +
               shell_quote(kServeOrders + "turn1-" + p + ".txt") + " " +
               shell_quote(d.url("/api/games/britain-1/orders")));
      EXPECT_EQ(r.status, 200) << p << ": " << r.body;
    }

    r = curl("-X POST -H " + gm + " " + shell_quote(d.url("/api/games/britain-1/turns/run")));
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(Json::parse(r.body)["turn"], 1);

    r = curl(shell_quote(d.url("/api/games/britain-1/reports/WSX")));
    EXPECT_EQ(r.status, 401);
    r = curl("-H " + shell_quote("Authorization: Bearer " + token) + " " +
             shell_quote(d.url("/api/games/britain-1/reports/WSX")));
    EXPECT_EQ(r.status, 200) << r.body;

    r = curl(shell_quote(d.url("/metrics")));
    EXPECT_EQ(r.status, 401);  // the GM's figures
    EXPECT_EQ(r.body.find("adjutant_"), std::string::npos);
    const std::string gm_auth =
        "-H " + shell_quote(std::string("Authorization: Bearer ") + kServeGm);
    r = curl(gm_auth + " " + shell_quote(d.url("/metrics")));
    EXPECT_EQ(r.status, 200);
    EXPECT_NE(r.body.find("adjutant_http_requests_total{route=\"api_orders\",status=\"200\"} 5"),
              std::string::npos)
        << r.body;
    EXPECT_NE(r.body.find("adjutant_turn_run_seconds_count 1"), std::string::npos);
    EXPECT_NE(r.body.find("adjutant_submissions_total{channel=\"web\",result=\"accepted\"} 5"),
              std::string::npos);
    const std::string again = curl(gm_auth + " " + shell_quote(d.url("/metrics"))).body;
    EXPECT_NE(again.find("adjutant_http_requests_total{route=\"metrics\",status=\"200\"} 1"),
              std::string::npos);

    EXPECT_EQ(d.stop(SIGTERM), 0) << read_file(log);
  }
  const std::string text = read_file(log);
  EXPECT_NE(text.find("event=listening"), std::string::npos) << text;
  EXPECT_NE(text.find("event=stopping signal=SIGTERM"), std::string::npos) << text;
  EXPECT_NE(text.find("event=stopped"), std::string::npos) << text;
  EXPECT_EQ(text.find(token), std::string::npos);  // link tokens never reach the log

  // Nothing lost: the command line and a restarted daemon both see turn 1 resolved.
  auto shown = ::adj::testing::run_cli({"--db", db, "game", "show", "britain-1", "--json"});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_EQ(Json::parse(shown.out)["turn"], 2);
  {
    ServeDaemon d(db, free_port(), log);
    ASSERT_TRUE(d.wait_healthy()) << read_file(log);
    CurlResult r = curl(shell_quote(d.url("/api/games/britain-1")));
    ASSERT_EQ(r.status, 200);
    EXPECT_EQ(Json::parse(r.body)["turn"], 2);
    r = curl("-H " + gm + " " + shell_quote(d.url("/api/games/britain-1/reports/EAN?turn=1")));
    EXPECT_EQ(r.status, 200);
    r = curl(shell_quote(d.url("/api/games/britain-1/audit")));
    EXPECT_NE(r.body.find("\"run\""), std::string::npos);
    EXPECT_EQ(d.stop(SIGINT), 0) << read_file(log);
  }
}

TEST(ServeTest, BadListenAddressFails) {
  ::adj::testing::TempDir dir;
  auto r = ::adj::testing::run_cli({"--db", dir.file("x.db"), "serve", "--http", "127.0.0.1"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("HOST:PORT"), std::string::npos) << r.err;
  r = ::adj::testing::run_cli({"--db", dir.file("x.db"), "serve", "--http", "127.0.0.1:99999"});
  EXPECT_EQ(r.exit_code, 1);
}

}  // namespace
}  // namespace adj
