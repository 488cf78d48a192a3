// `adjutant serve` as a subprocess: the soft file limit raised to the hard one at start, the
// connection-cap flags and /metrics, and log lines that outside data cannot forge.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tests/support/process.h"
#include "tests/support/raw_socket.h"
#include "tests/support/temp_dir.h"

namespace adj {
namespace {

using namespace std::chrono_literals;
using testing::http_get;
using testing::RawConn;

class Serve {
 public:
  Serve(const std::string& dir, std::vector<std::string> extra, long soft_nofile = 0,
        std::vector<std::pair<std::string, std::string>> env = {})
      : http_(testing::free_port()), smtp_(testing::free_port()), log_(dir + "/serve.log") {
    std::vector<std::string> args = {ADJ_BINARY,
                                     "--db",
                                     dir + "/a.db",
                                     "serve",
                                     "--http",
                                     "127.0.0.1:" + std::to_string(http_),
                                     "--smtp",
                                     "127.0.0.1:" + std::to_string(smtp_),
                                     "--tick",
                                     "0",
                                     "--http-stale-wait",
                                     "600000"};
    args.insert(args.end(), extra.begin(), extra.end());
    pid_ = ::fork();
    if (pid_ == 0) {
      std::freopen(log_.c_str(), "w", stderr);
      std::freopen((log_ + ".out").c_str(), "w", stdout);
      ::setenv("SPDLOG_LEVEL", "debug", 1);
      ::setenv("ADJUTANT_GM_TOKEN", "gm-token-for-tests", 1);
      for (const auto& [name, value] : env) ::setenv(name.c_str(), value.c_str(), 1);
      if (soft_nofile > 0) {
        rlimit rl{};
        ::getrlimit(RLIMIT_NOFILE, &rl);
        rl.rlim_cur = static_cast<rlim_t>(soft_nofile);
        ::setrlimit(RLIMIT_NOFILE, &rl);
      }
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(ADJ_BINARY, argv.data());
      std::_Exit(127);
    }
  }
  ~Serve() { stop(); }
  bool wait_ready() {
    const auto deadline = std::chrono::steady_clock::now() + 30s;
    while (std::chrono::steady_clock::now() < deadline) {
      if (http_get(http_, "/healthz", nullptr, "127.0.0.1", 2s) == 200) return true;
      std::this_thread::sleep_for(100ms);
    }
    return false;
  }
  // SIGTERM and wait; the exit code (-1: killed by a signal).
  int stop() {
    if (pid_ <= 0) return -1;
    ::kill(pid_, SIGTERM);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  std::string log() const {
    std::ifstream in(log_);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  std::string limits() const {
    std::ifstream in("/proc/" + std::to_string(pid_) + "/limits");
    std::string line;
    while (std::getline(in, line))
      if (line.rfind("Max open files", 0) == 0) return line;
    return "";
  }
  int http() const { return http_; }
  int smtp() const { return smtp_; }

 private:
  int http_, smtp_;
  std::string log_;
  pid_t pid_ = -1;
};

TEST(ServeLimits, ANewlineInTheUrlCannotForgeALogLine) {
  testing::TempDir dir;
  Serve s(dir.path().string(), {});
  ASSERT_TRUE(s.wait_ready());
  EXPECT_EQ(http_get(s.http(), "/x%0Aevent=forged%0D%0Alevel=error"), 404);
  EXPECT_EQ(http_get(s.http(), "/x%22%20status=200"), 404);
  EXPECT_EQ(s.stop(), 0);
  const std::string log = s.log();
  std::istringstream lines(log);
  std::string line;
  int request_lines = 0;
  while (std::getline(lines, line)) {
    EXPECT_EQ(line.rfind("ts=", 0), 0u) << "a line not written by the logger: " << line;
    if (line.find("path=\"/x\\nevent=forged\\r\\nlevel=error\"") != std::string::npos)
      ++request_lines;
    if (line.find("path=\"/x\\\" status=200\"") != std::string::npos) ++request_lines;
  }
  EXPECT_EQ(request_lines, 2) << log;
}

TEST(ServeLimits, GivesFreedMemoryBackAfterASecondUnlessTheEnvironmentSetsTheDelay) {
  testing::TempDir dir;
  std::string log;
  {
    Serve s(dir.path().string(), {});
    ASSERT_TRUE(s.wait_ready());
    log = s.log();
  }
  ASSERT_NE(log.find("event=allocator "), std::string::npos) << log;
  if (log.find("allocator=system") != std::string::npos)
    GTEST_SKIP() << "this build is not linked with mimalloc";
  EXPECT_NE(log.find("allocator=mimalloc decommit_delay_ms=1000\n"), std::string::npos) << log;
  Serve s(dir.path().string(), {}, 0, {{"MIMALLOC_DECOMMIT_DELAY", "40"}});
  ASSERT_TRUE(s.wait_ready());
  log = s.log();
  EXPECT_NE(log.find("allocator=mimalloc decommit_delay_ms=40\n"), std::string::npos) << log;
}

TEST(ServeLimits, RaisesTheFileLimitAndCapsConnectionsByFlag) {
  rlimit rl{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &rl), 0);
  if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max <= 512) GTEST_SKIP() << "hard limit too low";
  testing::TempDir dir;
  Serve s(dir.path().string(),
          {"--http-max-conns-per-addr", "3", "--smtp-max-conns-per-addr", "2",
           "--smtp-idle-timeout", "30"},
          256);
  ASSERT_TRUE(s.wait_ready());
  // The soft limit started at 256 and was raised to the hard one.
  const std::string lim = s.limits();
  std::istringstream f(lim.substr(std::string("Max open files").size()));
  std::string soft, hard;
  f >> soft >> hard;
  EXPECT_EQ(soft, hard) << lim;
  EXPECT_NE(soft, "256") << lim;

  std::vector<RawConn> held;
  for (int i = 0; i < 3; ++i) held.emplace_back(s.http(), "127.0.0.2");
  std::string resp;
  EXPECT_EQ(http_get(s.http(), "/healthz", &resp, "127.0.0.2"), 503);
  EXPECT_NE(resp.find("Retry-After:"), std::string::npos) << resp;
  EXPECT_EQ(http_get(s.http(), "/healthz"), 200);
  for (int i = 0; i < 2; ++i) {
    held.emplace_back(s.smtp(), "127.0.0.3");
    EXPECT_EQ(held.back().read_until("\r\n", 20s).substr(0, 4), "220 ");
  }
  RawConn third(s.smtp(), "127.0.0.3");
  EXPECT_EQ(third.read_until("\r\n", 20s).substr(0, 8), "421 4.3.");
  const auto got = ::adj::testing::curl(
      "-H 'Authorization: Bearer gm-token-for-tests' http://127.0.0.1:" + std::to_string(s.http()) +
      "/metrics");
  EXPECT_EQ(got.status, 200);
  const std::string& metrics = got.body;
  EXPECT_NE(metrics.find("adjutant_connections_refused_total{listener=\"http\",reason=\"per_"
                         "address_cap\"} 1"),
            std::string::npos)
      << metrics;
  EXPECT_NE(metrics.find("adjutant_connections_refused_total{listener=\"smtp\",reason=\"per_"
                         "address_cap\"} 1"),
            std::string::npos)
      << metrics;
  EXPECT_EQ(s.stop(), 0);
}

}  // namespace
}  // namespace adj
