// End to end against `adjutant serve` on loopback with curl: the JSON API changes state only with
// a bearer token or from the site's own pages (cookie + same Origin + X-CSRF-Token), never with
// the GM cookie from a page on another port of the same host; game ids are one game regardless
// of case (a token for britain-1 cannot open a "Britain-1"); and the daemon's files are private.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "tests/mail/mail_test_util.h"

namespace adj {
namespace {

using ::adj::mail_test::ServeProcess;
using ::adj::testing::free_port;
using ::adj::testing::read_file;
using ::adj::testing::run_shell;
using Json = nlohmann::json;

constexpr const char* kIntegrityGm = "integrity-gm-token";

using ::adj::testing::shell_quote;

using Answer = ::adj::testing::CurlAnswer;
using ::adj::testing::curl;

int mode_of(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return -1;
  return static_cast<int>(st.st_mode & 0777);
}

class IntegrityServe : public ::testing::Test {
 protected:
  void SetUp() override {
    serve_ = std::make_unique<ServeProcess>(dir_.file("serve.db"), free_port(), free_port(),
                                            dir_.file("serve.log"), kIntegrityGm);
    ASSERT_TRUE(serve_->wait_ready()) << read_file(dir_.file("serve.log"));
    const Answer a =
        curl("-X POST -H " + shell_quote(std::string("Authorization: Bearer ") + kIntegrityGm) +
             " -H 'Content-Type: application/json' --data " +
             shell_quote(R"({"bundled": "dark-age-britain", "seed": 7})") + " " +
             shell_quote(serve_->url("/api/games")));
    ASSERT_EQ(a.status, 201) << a.body;
  }
  std::string origin() const { return "http://127.0.0.1:" + std::to_string(serve_->http()); }

  ::adj::testing::TempDir dir_;
  std::unique_ptr<ServeProcess> serve_;
};

TEST_F(IntegrityServe, TheGmCookieAloneCannotChangeStateFromAnotherOrigin) {
  const std::string cookie = shell_quote(std::string("Cookie: adj_gm=") + kIntegrityGm +
                                         "; adj_csrf=" + std::string(32, 'a'));
  const std::string pause = shell_quote(serve_->url("/api/games/britain-1/pause"));
  const std::string foreign =
      shell_quote("Origin: http://127.0.0.1:" + std::to_string(free_port()));
  for (const char* path : {"/api/games/britain-1/pause", "/api/games/britain-1/turns/run",
                           "/api/games/britain-1/rollback"}) {
    const Answer a = curl("-X POST -H " + cookie + " -H " + foreign +
                          " -H 'Content-Type: application/json' --data '{\"turn\": 1}' " +
                          shell_quote(serve_->url(path)));
    EXPECT_EQ(a.status, 403) << path << ": " << a.body;
  }
  // Same origin, but without the form token: still refused.
  Answer a =
      curl("-X POST -H " + cookie + " -H " + shell_quote("Origin: " + origin()) + " " + pause);
  EXPECT_EQ(a.status, 403) << a.body;
  // A page of this site: same origin and the adj_csrf cookie repeated in the header.
  a = curl("-X POST -H " + cookie + " -H " + shell_quote("Origin: " + origin()) + " -H " +
           shell_quote("X-CSRF-Token: " + std::string(32, 'a')) + " " + pause);
  EXPECT_EQ(a.status, 200) << a.body;
  // A script with the bearer token needs neither.
  a = curl("-X POST -H " + shell_quote(std::string("Authorization: Bearer ") + kIntegrityGm) +
           " -H " + foreign + " " + shell_quote(serve_->url("/api/games/britain-1/resume")));
  EXPECT_EQ(a.status, 200) << a.body;
  // Reading with the cookie is not a change of state.
  a = curl("-H " + cookie + " -H " + foreign + " " +
           shell_quote(serve_->url("/api/games/britain-1/submissions")));
  EXPECT_EQ(a.status, 200) << a.body;
  // Nothing was paused by the refused requests: the audit log has one pause and one resume.
  a = curl(shell_quote(serve_->url("/api/games/britain-1/audit")));
  const Json log = Json::parse(a.body, nullptr, false);
  ASSERT_FALSE(log.is_discarded()) << a.body;
  int pauses = 0, runs = 0;
  for (const auto& e : log["entries"]) {
    pauses += e["action"] == "pause";
    runs += e["action"] == "run";
  }
  EXPECT_EQ(pauses, 1);
  EXPECT_EQ(runs, 0);
}

TEST_F(IntegrityServe, AGameIdIsOneGameRegardlessOfCase) {
  const std::string gm = shell_quote(std::string("Authorization: Bearer ") + kIntegrityGm);
  Answer a = curl("-X POST -H " + gm + " -H 'Content-Type: application/json' --data " +
                  shell_quote(R"({"bundled": "dark-age-britain", "id": "Britain-1", "seed": 8})") +
                  " " + shell_quote(serve_->url("/api/games")));
  EXPECT_EQ(a.status, 409) << a.body;
  a = curl(shell_quote(serve_->url("/api/games")));
  const Json games = Json::parse(a.body, nullptr, false);
  ASSERT_FALSE(games.is_discarded()) << a.body;
  ASSERT_EQ(games["games"].size(), 1u) << a.body;
  EXPECT_EQ(games["games"][0]["id"], "britain-1");

  a = curl("-X POST -H " + gm + " " +
           shell_quote(serve_->url("/api/games/britain-1/players/wsx/token")));
  ASSERT_EQ(a.status, 200) << a.body;
  const std::string token = Json::parse(a.body)["token"];
  // Any spelling of the id names the one game: the token opens it, and only it.
  const std::string bearer = shell_quote("Authorization: Bearer " + token);
  const Answer lower =
      curl("-H " + bearer + " " + shell_quote(serve_->url("/api/games/britain-1")));
  const Answer upper =
      curl("-H " + bearer + " " + shell_quote(serve_->url("/api/games/BRITAIN-1")));
  EXPECT_EQ(lower.status, 200);
  EXPECT_EQ(upper.status, 200);
  EXPECT_EQ(lower.body, upper.body);
  a = curl("-X POST -H " + bearer + " -H 'Content-Type: text/plain' --data-binary 'LEVY X 1' " +
           shell_quote(serve_->url("/api/games/Britain-1/orders?check=1")));
  EXPECT_NE(a.status, 403) << a.body;  // the token's game, in another spelling
  EXPECT_NE(a.status, 404) << a.body;
}

// Making the files private must not disturb the daemon's open connections (closing a descriptor
// of the database file would drop this process's SQLite locks): a turn run by the command line
// while the daemon's threads have the database open is seen by them.
TEST_F(IntegrityServe, ATurnRunByTheCommandLineIsSeenByTheDaemon) {
  for (int i = 0; i < 8; ++i) ASSERT_EQ(curl(shell_quote(serve_->url("/healthz"))).status, 200);
  auto ran = ::adj::testing::run_cli({"--db", dir_.file("serve.db"), "turn", "run", "britain-1"});
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  for (int i = 0; i < 8; ++i) {
    const Answer a = curl(shell_quote(serve_->url("/api/games/britain-1")));
    ASSERT_EQ(a.status, 200);
    EXPECT_EQ(Json::parse(a.body)["turn"], 2) << a.body;
  }
}

TEST_F(IntegrityServe, TheDatabaseFilesAreTheOwnersOnly) {
  const std::string db = dir_.file("serve.db");
  EXPECT_EQ(mode_of(db), 0600);
  EXPECT_EQ(mode_of(db + "-wal"), 0600);
  EXPECT_EQ(mode_of(db + "-shm"), 0600);
}

}  // namespace
}  // namespace adj
