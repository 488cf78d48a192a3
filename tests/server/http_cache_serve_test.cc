// The page cache end to end: `adjutant serve --demo` as a real process, driven with curl. Kept
// pages come back with the same ETag and bytes, 304 for If-None-Match, gzip and brotli when asked;
// every write makes the affected pages again at once, whoever wrote (a GM through the API, the
// command line in another process, a token change); and one player's report is never served to
// another player's credentials, however the requests interleave.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <thread>

#include <nlohmann/json.hpp>

#include "server/http/compress.h"
#include "tests/support/cli_runner.h"
#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

namespace adj {
namespace {

using ::adj::testing::curl;
using ::adj::testing::free_port;
using ::adj::testing::run_cli;
using ::adj::testing::run_shell;
using Json = nlohmann::json;
using namespace std::chrono_literals;

using ::adj::testing::shell_quote;

constexpr const char* kCacheGm = "cache-test-gm-token";
constexpr const char* kCacheGame = "britain-1";

class DemoDaemon {
 public:
  DemoDaemon(const std::string& db, int port) : port_(port) {
    pid_ = ::fork();
    if (pid_ == 0) {
      std::freopen((db + ".log").c_str(), "a", stderr);
      std::freopen((db + ".out").c_str(), "a", stdout);
      ::setenv("ADJUTANT_GM_TOKEN", kCacheGm, 1);
      const std::string http = "127.0.0.1:" + std::to_string(port);
      ::execl(ADJ_BINARY, ADJ_BINARY, "--db", db.c_str(), "serve", "--demo", "--http", http.c_str(),
              "--smtp", "off", "--http-stale-wait", "600000", static_cast<char*>(nullptr));
      std::_Exit(127);
    }
  }
  ~DemoDaemon() {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  std::string url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }
  bool wait_healthy() {
    for (int i = 0; i < 200; ++i) {
      if (curl(shell_quote(url("/healthz"))).status == 200) return true;
      std::this_thread::sleep_for(100ms);
    }
    return false;
  }

 private:
  int port_;
  pid_t pid_ = -1;
};

// Status line, headers (lower-case names) and body of one answer.
struct CacheAnswer {
  int status = 0;
  std::map<std::string, std::string> headers;
  std::string body;
};

CacheAnswer fetch(const std::string& url, const std::vector<std::string>& headers = {}) {
  std::string cmd = "curl -s -m 20 -D - ";
  for (const auto& h : headers) cmd += "-H " + shell_quote(h) + " ";
  const std::string out = run_shell(cmd + shell_quote(url));
  CacheAnswer a;
  const std::size_t end = out.find("\r\n\r\n");
  if (end == std::string::npos) return a;
  a.body = out.substr(end + 4);
  std::size_t pos = 0;
  bool first = true;
  while (pos < end) {
    std::size_t nl = out.find("\r\n", pos);
    if (nl == std::string::npos || nl > end) nl = end;
    const std::string line = out.substr(pos, nl - pos);
    if (first) {
      a.status = std::atoi(line.substr(line.find(' ') + 1).c_str());
      first = false;
    } else if (auto colon = line.find(':'); colon != std::string::npos) {
      std::string name = line.substr(0, colon);
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      a.headers[name] = line.substr(line.find_first_not_of(' ', colon + 1));
    }
    pos = nl + 2;
  }
  return a;
}

std::string token_of(const DemoDaemon& d, const std::string& player) {
  auto a =
      curl("-X POST -H " + shell_quote(std::string("Authorization: Bearer ") + kCacheGm) + " " +
           shell_quote(
               d.url(std::string("/api/games/") + kCacheGame + "/players/" + player + "/token")));
  if (a.status != 200) return "";
  return Json::parse(a.body).value("token", "");
}

class HttpCacheServe : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = dir_.file("adj.db");
    daemon_ = std::make_unique<DemoDaemon>(db_, free_port());
    ASSERT_TRUE(daemon_->wait_healthy()) << ::adj::testing::read_file(db_ + ".log");
  }
  std::string url(const std::string& path) const { return daemon_->url(path); }
  adj::testing::TempDir dir_;
  std::string db_;
  std::unique_ptr<DemoDaemon> daemon_;
};

TEST_F(HttpCacheServe, KeptPagesComeBackWithTheirEtagAs304AndCompressed) {
  const std::string game = url(std::string("/games/") + kCacheGame);
  CacheAnswer first = fetch(game);
  ASSERT_EQ(first.status, 200);
  const std::string etag = first.headers["etag"];
  ASSERT_FALSE(etag.empty());
  EXPECT_EQ(first.headers["vary"], "Accept-Encoding");
  EXPECT_NE(first.headers["content-security-policy"], "");
  CacheAnswer second = fetch(game);
  EXPECT_EQ(second.headers["etag"], etag);
  EXPECT_EQ(second.body, first.body);

  CacheAnswer not_modified = fetch(game, {"If-None-Match: \"nope\", " + etag});
  EXPECT_EQ(not_modified.status, 304);
  EXPECT_TRUE(not_modified.body.empty());
  EXPECT_EQ(not_modified.headers["etag"], etag);

  CacheAnswer gz = fetch(game, {"Accept-Encoding: gzip"});
  EXPECT_EQ(gz.headers["content-encoding"], "gzip");
  EXPECT_LT(gz.body.size(), first.body.size() / 3);
  EXPECT_EQ(http::gzip_decompress(gz.body, 1 << 24), first.body);
  EXPECT_EQ(fetch(game, {"If-None-Match: " + gz.headers["etag"], "Accept-Encoding: gzip"}).status,
            304);
  CacheAnswer br = fetch(game, {"Accept-Encoding: gzip, br"});
  EXPECT_EQ(br.headers["content-encoding"], "br");
  EXPECT_LT(br.body.size(), gz.body.size());

  // HEAD from the kept answer: the length of the body, no body.
  const std::string head = run_shell("curl -s -m 20 -I " + shell_quote(game));
  EXPECT_NE(head.find("Content-Length: " + std::to_string(first.body.size())), std::string::npos)
      << head;

  const std::string metrics =
      curl("-H " + shell_quote(std::string("Authorization: Bearer ") + kCacheGm) + " " +
           shell_quote(url("/metrics")))
          .body;
  EXPECT_NE(metrics.find("adjutant_http_cache{what=\"hits\"}"), std::string::npos);
  EXPECT_EQ(metrics.find("adjutant_http_cache{what=\"hits\"} 0\n"), std::string::npos);
}

TEST_F(HttpCacheServe, EveryWriteMakesTheGamesPagesAgainWhoeverWrote) {
  const std::string api_game = url(std::string("/api/games/") + kCacheGame);
  const std::string page = url(std::string("/games/") + kCacheGame);
  CacheAnswer before = fetch(api_game);
  ASSERT_EQ(before.status, 200);
  const int turn = Json::parse(before.body).value("turn", 0);
  ASSERT_GT(turn, 1);
  fetch(page);  // kept

  // A GM moves the deadline through the API: the next page shows it.
  const long long deadline = 2'000'000'000;  // 2033-05-18 03:33 UTC
  auto moved = curl("-X POST -H " + shell_quote(std::string("Authorization: Bearer ") + kCacheGm) +
                    " -H 'Content-Type: application/json' -d " +
                    shell_quote("{\"deadline\": " + std::to_string(deadline) + "}") + " " +
                    shell_quote(api_game + "/deadline"));
  ASSERT_EQ(moved.status, 200) << moved.body;
  EXPECT_NE(fetch(page).body.find("2033-05-18"), std::string::npos);

  // The command line, in another process, runs the turn: the next answers show the new turn.
  auto ran = run_cli({"--db", db_, "turn", "run", kCacheGame});
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  EXPECT_EQ(Json::parse(fetch(api_game).body).value("turn", 0), turn + 1);
  // ... and rolls it back.
  auto back = run_cli({"--db", db_, "turn", "rollback", kCacheGame, std::to_string(turn)});
  ASSERT_EQ(back.exit_code, 0) << back.err;
  EXPECT_EQ(Json::parse(fetch(api_game).body).value("turn", 0), turn);
}

TEST_F(HttpCacheServe, APlayersReportIsNeverServedToAnotherPlayersCredentials) {
  const std::string ean = token_of(*daemon_, "EAN");
  const std::string wsx = token_of(*daemon_, "WSX");
  ASSERT_FALSE(ean.empty());
  ASSERT_FALSE(wsx.empty());
  const std::string report = url(std::string("/api/games/") + kCacheGame + "/reports/EAN");
  const std::string wsx_report = url(std::string("/api/games/") + kCacheGame + "/reports/WSX");
  for (int i = 0; i < 5; ++i) {
    CacheAnswer mine = fetch(report, {"Authorization: Bearer " + ean});
    ASSERT_EQ(mine.status, 200);
    EXPECT_EQ(Json::parse(mine.body).value("player", ""), "EAN");
    EXPECT_EQ(mine.headers["cache-control"].find("public"), std::string::npos);
    CacheAnswer theirs = fetch(report, {"Authorization: Bearer " + wsx});
    EXPECT_EQ(theirs.status, 403) << theirs.body;
    EXPECT_EQ(fetch(report).status, 401);
    CacheAnswer own = fetch(wsx_report, {"Authorization: Bearer " + wsx});
    ASSERT_EQ(own.status, 200);
    EXPECT_EQ(Json::parse(own.body).value("player", ""), "WSX");
  }
  // The HTML report page, with the cookies the sign-in links set.
  const std::string jar_e = dir_.file("ean.jar"), jar_w = dir_.file("wsx.jar");
  run_shell("curl -s -o /dev/null -c " + shell_quote(jar_e) + " " +
            shell_quote(url(std::string("/games/") + kCacheGame + "/p/" + ean)));
  run_shell("curl -s -o /dev/null -c " + shell_quote(jar_w) + " " +
            shell_quote(url(std::string("/games/") + kCacheGame + "/p/" + wsx)));
  const std::string page = url(std::string("/games/") + kCacheGame + "/me/reports/1");
  for (int i = 0; i < 3; ++i) {
    const std::string e = run_shell("curl -s -b " + shell_quote(jar_e) + " " + shell_quote(page));
    const std::string w = run_shell("curl -s -b " + shell_quote(jar_w) + " " + shell_quote(page));
    EXPECT_NE(e.find("EAN"), std::string::npos);
    EXPECT_NE(w.find("WSX"), std::string::npos);
    EXPECT_NE(e, w);
  }

  // A new token for EAN: the old one no longer reads the report that was kept for it.
  const std::string fresh = token_of(*daemon_, "EAN");
  ASSERT_FALSE(fresh.empty());
  ASSERT_NE(fresh, ean);
  EXPECT_EQ(fetch(report, {"Authorization: Bearer " + ean}).status, 401);
  EXPECT_EQ(fetch(report, {"Authorization: Bearer " + fresh}).status, 200);
}

}  // namespace
}  // namespace adj
