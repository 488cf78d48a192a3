// `adjutant serve` on PostgreSQL while the PostgreSQL server is stopped
// (SIGSTOP: it keeps its sockets open and answers nothing, the way a stalled
// server looks to a client). The daemon must not freeze: /healthz answers 503
// within a few seconds, kept pages and static files are still served, a page
// that needs the database gets 503 in bounded time, and after SIGCONT /healthz
// is 200 again (storage/wait_limit.h, server/daemon/revision_reader.h).
//
// The test starts a cluster of its own (scripts/pg-test-cluster.sh), so that
// stopping it never stalls other tests that share the run's cluster. Skipped,
// saying why, without PostgreSQL.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "storage/postgres/pg_database.h"
#include "tests/mail/mail_test_util.h"
#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

namespace adj {
namespace {

namespace fs = std::filesystem;
using ::adj::testing::run_shell;
using ::adj::testing::shell_quote;
using ::adj::testing::TempDir;
using mail_test::ServeProcess;

const std::string kStallClusterScript = std::string(ADJ_SOURCE_DIR) + "/scripts/pg-test-cluster.sh";

// A cluster of this test's own in a fresh directory, stopped and removed on
// destruction.
class StallCluster {
 public:
  StallCluster() : port_(31000 + static_cast<int>(::getpid() % 9000)) {
    char templ[] = "/tmp/adj-pgstall-XXXXXX";
    if (!::mkdtemp(templ)) return;
    dir_ = templ;
    conninfo_ = run_shell(shell_quote(kStallClusterScript) + " start " + shell_quote(dir_) + " " +
                          std::to_string(port_) + " 2>" + shell_quote(dir_ + ".err"));
    while (!conninfo_.empty() && (conninfo_.back() == '\n' || conninfo_.back() == ' '))
      conninfo_.pop_back();
    why_ = run_shell("cat " + shell_quote(dir_ + ".err"));
    std::remove((dir_ + ".err").c_str());
  }
  ~StallCluster() {
    if (!dir_.empty())
      run_shell(shell_quote(kStallClusterScript) + " stop " + shell_quote(dir_) + " " +
                std::to_string(port_) + " >/dev/null 2>&1");
  }
  const std::string& conninfo() const { return conninfo_; }  // "" when it did not start
  const std::string& why() const { return why_; }
  // The postmaster and every process it started (its backends and helpers).
  std::vector<pid_t> processes() const {
    std::vector<pid_t> out;
    std::ifstream pidfile(dir_ + "/data/postmaster.pid");
    pid_t postmaster = 0;
    if (!(pidfile >> postmaster) || postmaster <= 0) return out;
    out.push_back(postmaster);
    for (const auto& entry : fs::directory_iterator("/proc")) {
      std::ifstream stat(entry.path() / "stat");
      std::string line;
      if (!std::getline(stat, line)) continue;
      const auto close = line.rfind(')');  // "pid (comm) state ppid ..."
      if (close == std::string::npos) continue;
      std::istringstream rest(line.substr(close + 1));
      std::string state;
      pid_t ppid = 0;
      if (rest >> state >> ppid && ppid == postmaster)
        out.push_back(static_cast<pid_t>(std::stol(entry.path().filename().string())));
    }
    return out;
  }

 private:
  int port_;
  std::string dir_, conninfo_, why_;
};

// Stops the processes (SIGSTOP) while it lives; resumes them (SIGCONT) on every
// way out.
class StallStopped {
 public:
  explicit StallStopped(std::vector<pid_t> pids) : pids_(std::move(pids)) {
    for (pid_t p : pids_) ::kill(p, SIGSTOP);
  }
  ~StallStopped() { resume(); }
  StallStopped(const StallStopped&) = delete;
  StallStopped& operator=(const StallStopped&) = delete;
  void resume() {
    for (pid_t p : pids_) ::kill(p, SIGCONT);
    pids_.clear();
  }

 private:
  std::vector<pid_t> pids_;
};

// "host=DIR port=P user=U" and a database name -> serve's --db URL.
std::string stall_db_url(const std::string& conninfo, const std::string& db) {
  std::map<std::string, std::string> kv;
  std::istringstream in(conninfo);
  for (std::string word; in >> word;)
    if (auto eq = word.find('='); eq != std::string::npos)
      kv[word.substr(0, eq)] = word.substr(eq + 1);
  return "postgresql:///" + db + "?host=" + kv["host"] + "&port=" + kv["port"] +
         "&user=" + kv["user"];
}

struct StallTimed {
  int status = 0;  // 0: no answer within curl's 40 s
  double seconds = 0;
};

StallTimed stall_get(const std::string& url) {
  const std::string out =
      run_shell("curl -s -o /dev/null -m 40 -w '%{http_code} %{time_total}' " + shell_quote(url));
  StallTimed t;
  std::istringstream in(out);
  in >> t.status >> t.seconds;
  return t;
}

TEST(ServePgStall, AStoppedServerDoesNotFreezeTheDaemon) {
  StallCluster cluster;
  if (cluster.conninfo().empty()) GTEST_SKIP() << "no PostgreSQL cluster: " << cluster.why();
  {
    auto admin = pg::Connection::open(cluster.conninfo() + " dbname=postgres");
    ASSERT_TRUE(admin.ok()) << admin.status().to_string();
    ASSERT_TRUE(admin->exec("CREATE DATABASE stall").ok());
  }
  TempDir dir;
  const int http = ::adj::testing::free_port(), smtp = ::adj::testing::free_port();
  ServeProcess serve(
      stall_db_url(cluster.conninfo(), "stall"), http, smtp, dir.file("serve.log"),
      "stall-gm-token",
      {"--pg-connect-timeout", "5", "--pg-statement-timeout", "30", "--pg-idle-timeout", "60"});
  ASSERT_TRUE(serve.wait_ready()) << run_shell("cat " + shell_quote(dir.file("serve.log")));
  const std::string page = serve.url("/"), style = serve.url("/static/adjutant.css");
  for (int i = 0; i < 2; ++i) {  // made, then kept
    ASSERT_EQ(stall_get(page).status, 200);
    ASSERT_EQ(stall_get(style).status, 200);
  }

  StallStopped stopped(cluster.processes());
  const StallTimed health = stall_get(serve.url("/healthz"));
  const StallTimed kept = stall_get(page);
  const StallTimed file = stall_get(style);
  const StallTimed fresh = stall_get(serve.url("/api/games"));  // never kept: needs the database
  const StallTimed kept_again = stall_get(page);
  std::printf(
      "while stopped: /healthz %d in %.2f s; kept page %d in %.3f s, "
      "then %.3f s; static file %d "
      "in %.3f s; /api/games %d in %.2f s\n",
      health.status, health.seconds, kept.status, kept.seconds, kept_again.seconds, file.status,
      file.seconds, fresh.status, fresh.seconds);
  EXPECT_EQ(health.status, 503);
  EXPECT_LT(health.seconds, 5.0);
  EXPECT_EQ(kept.status, 200);
  EXPECT_LT(kept.seconds, 2.0);
  EXPECT_EQ(kept_again.status, 200);
  EXPECT_LT(kept_again.seconds, 0.5);
  EXPECT_EQ(file.status, 200);
  EXPECT_LT(file.seconds, 2.0);
  EXPECT_EQ(fresh.status, 503);
  EXPECT_LT(fresh.seconds, 10.0);

  stopped.resume();
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_TRUE(mail_test::eventually([&] { return stall_get(serve.url("/healthz")).status == 200; },
                                    std::chrono::seconds(20)));
  std::printf("after SIGCONT: /healthz 200 after %.2f s\n",
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  EXPECT_EQ(stall_get(serve.url("/api/games")).status, 200);
}

}  // namespace
}  // namespace adj
