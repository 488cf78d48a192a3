// The database argument end to end: `adjutant serve` and the command line take it from --db or
// ADJUTANT_DB (a SQLite path, sqlite:PATH or a postgresql:// URL); a database that cannot be
// opened costs a request a 503, never the process, and no password from the URL reaches an
// error, a log line or the terminal.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <thread>

#include "server/web/web_context.h"
#include "tests/support/cli_runner.h"
#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

namespace adj {
namespace {

using namespace std::chrono_literals;
using ::adj::testing::curl;
using ::adj::testing::free_port;
using ::adj::testing::read_file;
using ::adj::testing::run_cli;

constexpr const char* kDbChoiceGm = "db-choice-gm-token";
constexpr const char* kPassword = "Zq9SecretPw";
// Nothing listens on port 1: opening fails (connection refused) wherever the test runs.
const std::string kUnreachable =
    std::string("postgresql://alice:") + kPassword + "@127.0.0.1:1/adj?connect_timeout=2";

using ::adj::testing::shell_quote;

// `adjutant serve` with ADJUTANT_DB = `db` and no --db; stdout and stderr into `log`.
class EnvDaemon {
 public:
  EnvDaemon(const std::string& db, int port, const std::string& log) : port_(port) {
    pid_ = ::fork();
    if (pid_ == 0) {
      std::freopen(log.c_str(), "a", stderr);
      std::freopen(log.c_str(), "a", stdout);
      ::setenv("ADJUTANT_GM_TOKEN", kDbChoiceGm, 1);
      ::setenv("ADJUTANT_DB", db.c_str(), 1);
      const std::string http = "127.0.0.1:" + std::to_string(port);
      ::execl(ADJ_BINARY, ADJ_BINARY, "serve", "--http", http.c_str(), "--tick", "0", "--smtp",
              "off", "--http-stale-wait", "600000", static_cast<char*>(nullptr));
      std::_Exit(127);
    }
  }
  ~EnvDaemon() {
    if (pid_ > 0 && !reaped_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  std::string url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }
  bool wait_healthy() {
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    while (std::chrono::steady_clock::now() < deadline) {
      if (curl(shell_quote(url("/healthz"))).status == 200) return true;
      if (exited()) return false;
      std::this_thread::sleep_for(100ms);
    }
    return false;
  }
  // The exit code once the process ends within `timeout` (after `sig` when not 0); -1 otherwise.
  int wait_exit(int sig, std::chrono::seconds timeout = 30s) {
    if (sig) ::kill(pid_, sig);
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      if (exited()) return WIFEXITED(status_) ? WEXITSTATUS(status_) : -1;
      std::this_thread::sleep_for(50ms);
    }
    return -1;
  }

 private:
  bool exited() {
    if (reaped_) return true;
    if (::waitpid(pid_, &status_, WNOHANG) == pid_) reaped_ = true;
    return reaped_;
  }
  int port_;
  pid_t pid_ = -1;
  bool reaped_ = false;
  int status_ = 0;
};

TEST(DbChoice, TheDaemonTakesTheDatabaseFromAdjutantDb) {
  ::adj::testing::TempDir dir;
  const std::string path = dir.file("from-env.db"), log = dir.file("serve.log");
  {
    EnvDaemon d("sqlite:" + path, free_port(), log);
    ASSERT_TRUE(d.wait_healthy()) << read_file(log);
    auto r =
        curl("-X POST -H " + shell_quote(std::string("Authorization: Bearer ") + kDbChoiceGm) +
             " -H 'Content-Type: application/json' --data " +
             shell_quote(R"({"bundled": "dark-age-britain", "seed": 5, "demo_secrets": true})") +
             " " + shell_quote(d.url("/api/games")));
    ASSERT_EQ(r.status, 201) << r.body;
    EXPECT_EQ(d.wait_exit(SIGTERM), 0) << read_file(log);
  }
  // The game is in the file ADJUTANT_DB named (through its sqlite: prefix).
  ASSERT_TRUE(std::filesystem::exists(path));
  auto list = run_cli({"--db", path, "game", "list"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_NE(list.out.find("britain-1"), std::string::npos) << list.out;
}

TEST(DbChoice, TheDaemonRefusesToStartOnAnUnreachableDatabaseWithoutShowingThePassword) {
  ::adj::testing::TempDir dir;
  const std::string log = dir.file("serve.log");
  EnvDaemon d(kUnreachable, free_port(), log);
  EXPECT_EQ(d.wait_exit(0), 1) << read_file(log);
  const std::string text = read_file(log);
  EXPECT_NE(text.find("db_open_failed"), std::string::npos) << text;
  EXPECT_NE(text.find("127.0.0.1:1"), std::string::npos) << "names the database: " << text;
  EXPECT_EQ(text.find(kPassword), std::string::npos) << text;
}

TEST(DbChoice, TheCommandLineNeverPrintsThePassword) {
  for (const auto& [flag, env] : {std::pair<std::string, std::string>{kUnreachable, ""},
                                  std::pair<std::string, std::string>{"", kUnreachable}}) {
    std::vector<std::string> args = {"game", "list"};
    if (!flag.empty()) args = {"--db", flag, "game", "list"};
    auto r = run_cli(args, "", env);
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_NE(r.err.find("postgresql://alice:***@127.0.0.1:1/adj"), std::string::npos) << r.err;
    EXPECT_EQ(r.out.find(kPassword), std::string::npos) << r.out;
    EXPECT_EQ(r.err.find(kPassword), std::string::npos) << r.err;
  }
}

TEST(DbChoice, HelpNamesBothFormsAndTheEnvironment) {
  auto r = run_cli({"--help"});
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("--db"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("postgresql://"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ADJUTANT_DB"), std::string::npos) << r.out;
}

// The web context over a database it cannot open: each request gets ServiceUnavailable (the HTTP
// server's 503, tests/server/http_conn_limits_test.cc) naming the database without its password,
// and the process goes on; the next request tries again.
TEST(DbChoice, AnUnopenableDatabaseIsA503NotACrash) {
  ::adj::testing::TempDir dir;
  for (const std::string& db : {kUnreachable, dir.file("no/such/dir/x.db")}) {
    web::WebConfig config;
    config.db_path = db;
    config.gm_token = kDbChoiceGm;
    web::WebContext ctx(config, [] { return UnixTime{1000}; });
    http::Router router;
    web::register_routes(router, ctx);
    http::Request req;
    req.method = "GET";
    req.path = req.target = "/api/games";
    for (int attempt = 0; attempt < 2; ++attempt) {
      try {
        http::Response r = router.route(req);
        // A route may answer the failure itself; then it must be a 503 without the password.
        EXPECT_EQ(r.status, 503) << db;
        EXPECT_EQ(r.body.find(kPassword), std::string::npos) << r.body;
      } catch (const http::ServiceUnavailable& e) {
        const std::string what = e.what();
        EXPECT_EQ(what.find(kPassword), std::string::npos) << what;
        EXPECT_NE(what.find("cannot open the database"), std::string::npos) << what;
      }
    }
    EXPECT_FALSE(ctx.open_check().ok()) << db;
    EXPECT_EQ(ctx.open_check().message().find(kPassword), std::string::npos);
  }
}

}  // namespace
}  // namespace adj
