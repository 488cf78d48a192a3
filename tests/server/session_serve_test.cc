// Sign-in sessions and the page cache against a real `adjutant serve --demo`, driven with curl on
// loopback: changing the secret, signing out and replacing the link end the player's other
// sessions; sessions expire on the server (idle and absolute limits, tiny flag values here); and
// made-up cookie values share the anonymous page instead of making pages of their own.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <random>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/support/cli_runner.h"
#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

namespace adj {
namespace {

using ::adj::testing::curl;
using ::adj::testing::free_port;
using ::adj::testing::run_shell;
using ::adj::testing::shell_quote;
using Json = nlohmann::json;
using namespace std::chrono_literals;

constexpr const char* kSessGm = "session-test-gm-token";
constexpr const char* kSessCsrf = "0123456789abcdef0123456789abcdef";

class SessionDaemon {
 public:
  SessionDaemon(const std::string& db, std::vector<std::string> extra) : port_(free_port()) {
    pid_ = ::fork();
    if (pid_ == 0) {
      std::freopen((db + ".log").c_str(), "a", stderr);
      std::freopen((db + ".out").c_str(), "a", stdout);
      ::setenv("ADJUTANT_GM_TOKEN", kSessGm, 1);
      const std::string http = "127.0.0.1:" + std::to_string(port_);
      std::vector<std::string> args = {ADJ_BINARY, "--db", db,       "serve", "--demo",
                                       "--http",   http,   "--smtp", "off",   "--http-stale-wait",
                                       "600000"};
      args.insert(args.end(), extra.begin(), extra.end());
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(ADJ_BINARY, argv.data());
      std::_Exit(127);
    }
  }
  ~SessionDaemon() {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  std::string url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }
  std::string origin() const { return "http://127.0.0.1:" + std::to_string(port_); }
  bool wait_healthy() {
    for (int i = 0; i < 200; ++i) {
      if (curl(shell_quote(url("/healthz"))).status == 200) return true;
      std::this_thread::sleep_for(100ms);
    }
    return false;
  }
  Json gm(const std::string& method, const std::string& path, const std::string& body = "") {
    auto a = curl(
        "-X " + method + " -H " + shell_quote(std::string("Authorization: Bearer ") + kSessGm) +
        (body.empty() ? "" : " -H 'Content-Type: application/json' -d " + shell_quote(body)) + " " +
        shell_quote(url(path)));
    return a.status == 200 ? Json::parse(a.body, nullptr, false) : Json();
  }
  // A new link token of the player (the GM's).
  std::string link(const std::string& player) {
    return gm("POST", "/api/games/britain-1/players/" + player + "/token").value("token", "");
  }
  // The adj_player cookie value an answer sets ("" when none).
  static std::string set_player_cookie(const std::string& head) {
    const std::string marker = "adj_player=";
    const std::size_t at = head.find(marker);
    if (at == std::string::npos) return "";
    const std::size_t end = head.find(';', at);
    return head.substr(at + marker.size(), end - at - marker.size());
  }
  // Signs in with the player's link: the session cookie the browser gets.
  std::string sign_in(const std::string& link_token) {
    return set_player_cookie(run_shell("curl -s -m 20 -o /dev/null -D - " +
                                       shell_quote(url("/games/britain-1/p/" + link_token))));
  }
  // The status of GET `path` with the cookie header `cookies`.
  int status(const std::string& path, const std::string& cookies) {
    return std::atoi(run_shell("curl -s -m 20 -o /dev/null -w '%{http_code}' -b " +
                               shell_quote(cookies) + " " + shell_quote(url(path)))
                         .c_str());
  }
  int me(const std::string& session) {
    return status("/games/britain-1/me", "adj_player=" + session);
  }
  // POSTs a form as a browser does (CSRF cookie and field, Origin); status and headers.
  std::string post(const std::string& path, const std::map<std::string, std::string>& form,
                   const std::string& session) {
    std::string cmd = "curl -s -m 20 -o /dev/null -D - -X POST -b " +
                      shell_quote("adj_player=" + session + "; adj_csrf=" + kSessCsrf) + " -H " +
                      shell_quote("Origin: " + origin()) + " --data-urlencode " +
                      shell_quote(std::string("csrf=") + kSessCsrf);
    for (const auto& [k, v] : form) cmd += " --data-urlencode " + shell_quote(k + "=" + v);
    return run_shell(cmd + " " + shell_quote(url(path)));
  }
  static int status_of(const std::string& head) {
    const std::size_t sp = head.find(' ');
    return sp == std::string::npos ? 0 : std::atoi(head.c_str() + sp + 1);
  }
  // The page cache's counters from /metrics (hits, misses, kept, evicted).
  std::map<std::string, long> cache_counters() {
    auto a = curl("-H " + shell_quote(std::string("Authorization: Bearer ") + kSessGm) + " " +
                  shell_quote(url("/metrics")));
    std::map<std::string, long> out;
    for (const char* what : {"hits", "misses", "kept", "evicted"}) {
      const std::string line = std::string("adjutant_http_cache{what=\"") + what + "\"} ";
      const std::size_t at = a.body.find(line);
      out[what] = at == std::string::npos ? -1 : std::atol(a.body.c_str() + at + line.size());
    }
    return out;
  }

 private:
  int port_;
  pid_t pid_ = -1;
};

class SessionServe : public ::testing::Test {
 protected:
  void start(std::vector<std::string> extra = {}) {
    d_ = std::make_unique<SessionDaemon>(dir_.file("adj.db"), std::move(extra));
    ASSERT_TRUE(d_->wait_healthy()) << ::adj::testing::read_file(dir_.file("adj.db") + ".log");
  }
  adj::testing::TempDir dir_;
  std::unique_ptr<SessionDaemon> d_;
};

TEST_F(SessionServe, ChangingTheSecretEndsEveryOtherSession) {
  start();
  const std::string secret =
      d_->gm("POST", "/api/games/britain-1/players/WSX/reset", R"({"what": "secret"})")
          .value("secret", "");
  ASSERT_FALSE(secret.empty());
  const std::string link = d_->link("WSX");
  const std::string mine = d_->sign_in(link), stolen = d_->sign_in(link);
  ASSERT_FALSE(mine.empty());
  ASSERT_NE(mine, stolen);
  ASSERT_EQ(d_->me(stolen), 200);
  const std::string changed =
      d_->post("/games/britain-1/me/secret",
               {{"current", secret}, {"secret", "Offa-dyke-77"}, {"repeat", "Offa-dyke-77"}}, mine);
  ASSERT_EQ(SessionDaemon::status_of(changed), 303) << changed;
  EXPECT_EQ(d_->me(mine), 200);    // the session that changed it stays
  EXPECT_EQ(d_->me(stolen), 303);  // the other one is back at the sign-in page
  // It can neither enter orders nor change the address any more.
  EXPECT_EQ(SessionDaemon::status_of(
                d_->post("/games/britain-1/me/orders", {{"orders", "1. HOLD"}}, stolen)),
            401);
  EXPECT_EQ(SessionDaemon::status_of(
                d_->post("/games/britain-1/me/address", {{"email", "thief@example.net"}}, stolen)),
            401);
}

TEST_F(SessionServe, SigningOutEndsEverySessionOfThePlayer) {
  start();
  const std::string link = d_->link("MRC");
  const std::string here = d_->sign_in(link), there = d_->sign_in(link);
  ASSERT_EQ(d_->me(there), 200);
  ASSERT_EQ(SessionDaemon::status_of(d_->post("/games/britain-1/logout", {}, here)), 303);
  EXPECT_EQ(d_->me(here), 303);
  EXPECT_EQ(d_->me(there), 303);
  // Another player's session is untouched.
  const std::string other = d_->sign_in(d_->link("EAN"));
  ASSERT_EQ(d_->me(other), 200);
  ASSERT_EQ(SessionDaemon::status_of(
                d_->post("/games/britain-1/logout", {}, d_->sign_in(d_->link("MRC")))),
            303);
  EXPECT_EQ(d_->me(other), 200);
}

TEST_F(SessionServe, ReplacingTheLinkEndsEveryOtherSessionAndTheOldLink) {
  start();
  const std::string link = d_->link("EAN");
  const std::string mine = d_->sign_in(link), stolen = d_->sign_in(link);
  ASSERT_EQ(d_->me(stolen), 200);
  const std::string answer = d_->post("/games/britain-1/me/link", {}, mine);
  ASSERT_EQ(SessionDaemon::status_of(answer), 200) << answer;
  const std::string fresh = SessionDaemon::set_player_cookie(answer);
  ASSERT_FALSE(fresh.empty());
  EXPECT_EQ(d_->me(fresh), 200);  // this browser got a new session
  EXPECT_EQ(d_->me(stolen), 303);
  EXPECT_EQ(d_->me(mine), 303);
  EXPECT_EQ(d_->status("/games/britain-1/p/" + link, ""), 404);
}

TEST_F(SessionServe, SessionsExpireOnTheServer) {
  // Idle 3 s, at most 8 s in all.
  start({"--session-idle-days", std::to_string(3.0 / 86400), "--session-max-days",
         std::to_string(8.0 / 86400)});
  const std::string link = d_->link("WSX");
  const std::string idle = d_->sign_in(link), busy = d_->sign_in(link);
  ASSERT_EQ(d_->me(idle), 200);
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::pair<double, int>> seen;  // seconds since t0, status of the busy session
  while (std::chrono::steady_clock::now() - t0 < 11s) {
    std::this_thread::sleep_for(700ms);
    seen.emplace_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(),
                      d_->me(busy));
  }
  for (const auto& [t, s] : seen)
    if (t < 6) {
      EXPECT_EQ(s, 200) << "at " << t << " s: used every 0.7 s, within both limits";
    }
  EXPECT_EQ(seen.back().second, 303) << "past the absolute limit";
  EXPECT_EQ(d_->me(idle), 303) << "unused past the idle limit";
  // The link itself still signs in afresh.
  EXPECT_EQ(d_->me(d_->sign_in(link)), 200);
}

std::string random_hex(std::mt19937_64& rng) {
  static const char* hex = "0123456789abcdef";
  std::string s(32, '0');
  for (char& c : s) c = hex[rng() & 15];
  return s;
}

TEST_F(SessionServe, MadeUpCookiesShareTheAnonymousPage) {
  start();
  const std::string game = "/games/britain-1";
  // A real reader (signed in first: a new session is a write to the game, which makes its pages
  // again) with a copy of the page of their own, and the anonymous copy.
  const std::string reader =
      "adj_player=" + d_->sign_in(d_->link("WSX")) + "; adj_csrf=" + kSessCsrf;
  ASSERT_EQ(d_->status(game, ""), 200);
  ASSERT_EQ(d_->status(game, ""), 200);
  ASSERT_EQ(d_->status(game, reader), 200);
  ASSERT_EQ(d_->status(game, reader), 200);
  const auto before = d_->cache_counters();
  ASSERT_GE(before.at("hits"), 2);

  std::mt19937_64 rng(2801);
  constexpr int kRandom = 60;
  for (int i = 0; i < kRandom; ++i) {
    const std::string cookie =
        i % 3 == 0   ? "adj_player=" + random_hex(rng)
        : i % 3 == 1 ? "adj_csrf=" + random_hex(rng)
                     : "adj_player=" + random_hex(rng) + "; adj_csrf=" + random_hex(rng);
    ASSERT_EQ(d_->status(game, cookie), 200);
  }
  const auto after = d_->cache_counters();
  // The one miss is the /metrics request itself (never kept).
  EXPECT_EQ(after.at("misses"), before.at("misses") + 1) << "every made-up cookie found the page";
  EXPECT_EQ(after.at("kept"), before.at("kept")) << "no copy of its own";
  EXPECT_EQ(after.at("hits"), before.at("hits") + kRandom);
  EXPECT_EQ(after.at("evicted"), before.at("evicted"));
  // The real reader's copy is still there.
  ASSERT_EQ(d_->status(game, reader), 200);
  const auto last = d_->cache_counters();
  EXPECT_EQ(last.at("hits"), after.at("hits") + 1);
  EXPECT_EQ(last.at("misses"), after.at("misses") + 1);
}

}  // namespace
}  // namespace adj
