// End to end: the end of a game on a running `adjutant serve` (real process, real HTTP with curl):
// a victory by points through the JSON API, the finished state (no more turns or orders), the
// standings, archive, finished-games and own-files pages and API routes, a GM rollback that
// reopens the game, and a game that ends at its last turn.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "rules/game/json_schema.h"
#include "rules/game/scenario.h"
#include "tests/server/web_test_util.h"
#include "tests/support/cli_runner.h"
#include "tests/support/process.h"
#include "tests/support/serve_process.h"
#include "tests/support/temp_dir.h"

namespace adj {
namespace {

using ::adj::testing::count;
using ::adj::testing::free_port;
using ::adj::testing::read_file;
using Json = nlohmann::json;
using namespace std::chrono_literals;

using ::adj::testing::shell_quote;

constexpr const char* kEndingGm = "ending-gm-token";

struct EndingCurlResult : ::adj::testing::CurlAnswer {
  Json json() const { return Json::parse(body, nullptr, false); }
};

EndingCurlResult ending_curl(const std::string& args) { return {::adj::testing::curl(args)}; }

// `adjutant serve` on a free port, no scheduler, no SMTP listener.
class EndingDaemon {
 public:
  EndingDaemon(const std::string& db, const std::string& log)
      : port_(free_port()),
        log_(log),
        pid_(::adj::testing::spawn_serve(db, port_, log, kEndingGm, 0)) {}
  ~EndingDaemon() {
    ::kill(pid_, SIGTERM);
    ::waitpid(pid_, nullptr, 0);
  }
  std::string url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }
  bool wait_healthy() const { return ::adj::testing::wait_healthy(port_, 30s); }
  std::string log() const { return read_file(log_); }

  EndingCurlResult get(const std::string& path, const std::string& extra = "") const {
    return ending_curl(extra + " " + shell_quote(url(path)));
  }
  EndingCurlResult gm(const std::string& method, const std::string& path,
                      const std::string& body = "") const {
    std::string args =
        "-X " + method + " -H " + shell_quote(std::string("Authorization: Bearer ") + kEndingGm);
    if (!body.empty()) args += " -H 'Content-Type: application/json' --data " + shell_quote(body);
    return ending_curl(args + " " + shell_quote(url(path)));
  }
  EndingCurlResult orders(const std::string& text) const {
    return ending_curl("-X POST -H 'Content-Type: application/json' --data " +
                       shell_quote(Json{{"text", text}}.dump()) + " " +
                       shell_quote(url("/api/games/end-1/orders")));
  }

 private:
  int port_;
  std::string log_;
  pid_t pid_ = -1;
};

// Three kingdoms; GLD, empty and neutral, is worth 5 victory points and borders Alba's AHM.
Json ending_serve_scenario(const Json& victory) {
  Json j = Json::parse(R"({
    "id": "end-1", "name": "Ending", "engine": {"name": "dark-age"},
    "players": [{"code": "AAA", "name": "Alba", "secret": "alpha-secret", "bp": 10},
                {"code": "BBB", "name": "Bernicia", "secret": "bravo-secret", "bp": 10},
                {"code": "CCC", "name": "Cornwall", "secret": "charlie-secret", "bp": 10}],
    "areas": [{"code": "AHM", "kind": "land", "owner": "AAA", "armies": 5, "population": 2},
              {"code": "BHM", "kind": "land", "owner": "BBB", "armies": 5, "population": 2},
              {"code": "CHM", "kind": "land", "owner": "CCC", "armies": 4, "population": 2},
              {"code": "GLD", "kind": "land", "population": 0, "features": {"vp": 5}}],
    "adjacency": [["AHM", "GLD"], ["BHM", "GLD"], ["CHM", "GLD"]]
  })");
  j["victory"] = victory;
  return j;
}

// The answer validates against schemas/api/<schema>.
void expect_schema(const EndingCurlResult& r, const std::string& schema) {
  const auto errors = validate_against_schema(r.json(), "schemas/api/" + schema);
  EXPECT_TRUE(errors.empty()) << schema << ": " << format_errors(errors) << "\n" << r.body;
}

bool has_action(const EndingDaemon& d, const std::string& action) {
  const Json log = d.gm("GET", "/api/games/end-1/audit").json();
  if (!log.is_object()) return false;
  for (const auto& e : log["entries"])
    if (e.value("action", "") == action) return true;
  return false;
}

TEST(EndingServe, VictoryPointsEndTheGameThroughTheApiAndARollbackReopensIt) {
  ::adj::testing::TempDir dir;
  EndingDaemon d(dir.file("end.db"), dir.file("serve.log"));
  ASSERT_TRUE(d.wait_healthy()) << d.log();
  EndingCurlResult r =
      d.gm("POST", "/api/games",
           Json{{"scenario", ending_serve_scenario({{"vp", 5}, {"last_turn", 9}, {"draw", true}})},
                {"seed", 5}}
               .dump());
  ASSERT_EQ(r.status, 201) << r.body;

  // Before the end: standings so far, nothing finished.
  r = d.get("/api/games/end-1/standings");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_FALSE(r.json()["over"].get<bool>());
  EXPECT_EQ(r.json()["victory"]["vp"], 5);
  EXPECT_EQ(d.get("/api/finished").json()["games"].size(), 0u);

  r = d.orders("GAME end-1\nPLAYER AAA alpha-secret\nMOVE AHM GLD 3\n");
  ASSERT_EQ(r.status, 200) << r.body;
  r = d.gm("POST", "/api/games/end-1/turns/run");
  ASSERT_EQ(r.status, 200) << r.body;

  // Finished, with Alba the winner.
  EXPECT_EQ(d.get("/api/games/end-1").json()["status"], "finished");
  r = d.get("/api/games/end-1/standings");
  ASSERT_EQ(r.status, 200) << r.body;
  Json j = r.json();
  EXPECT_TRUE(j["over"].get<bool>());
  EXPECT_EQ(j["ending"]["kind"], "vp");
  EXPECT_EQ(j["ending"]["winners"][0]["code"], "AAA");
  EXPECT_EQ(j["standings"][0]["code"], "AAA");
  EXPECT_EQ(j["standings"][0]["vp"], 5);
  EXPECT_EQ(j["standings"][0]["result"], "won");
  EXPECT_EQ(j["standings"][1]["result"], "lost");
  expect_schema(r, "standings.schema.json");
  EXPECT_TRUE(has_action(d, "finish"));

  // No more turns, no more orders.
  r = d.gm("POST", "/api/games/end-1/turns/run");
  EXPECT_EQ(r.status, 409) << r.body;
  EXPECT_NE(r.body.find("the game is over"), std::string::npos) << r.body;
  r = d.gm("POST", "/api/games/end-1/turns/preview");
  EXPECT_EQ(r.status, 409) << r.body;
  r = d.orders("GAME end-1\nPLAYER BBB bravo-secret\nMOVE BHM GLD 3\n");
  EXPECT_EQ(r.status, 422) << r.body;
  EXPECT_NE(r.json().value("refusal", "").find("the game is over"), std::string::npos) << r.body;

  // The archive: after the end, reports and order files too (secrets masked).
  r = d.get("/api/games/end-1/archive");
  ASSERT_EQ(r.status, 200) << r.body;
  ASSERT_EQ(r.json()["turns"].size(), 1u);
  EXPECT_EQ(r.json()["turns"][0]["ending"]["kind"], "vp");
  expect_schema(r, "archive.schema.json");
  r = d.get("/api/games/end-1/archive/1");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json()["reports"].size(), 3u);
  ASSERT_EQ(r.json()["files"].size(), 1u);
  EXPECT_EQ(r.body.find("alpha-secret"), std::string::npos);
  EXPECT_NE(r.json()["files"][0]["text"].get<std::string>().find("PLAYER AAA ********"),
            std::string::npos);
  EXPECT_EQ(d.get("/api/games/end-1/archive/2").status, 404);

  // Finished games.
  r = d.get("/api/finished");
  ASSERT_EQ(r.status, 200) << r.body;
  ASSERT_EQ(r.json()["games"].size(), 1u);
  EXPECT_EQ(r.json()["games"][0]["id"], "end-1");
  EXPECT_EQ(r.json()["games"][0]["winners"][0]["code"], "AAA");
  expect_schema(r, "finished.schema.json");

  // A player's own files: the player (link token) or the GM, nobody else.
  const std::string alba = d.gm("POST", "/api/games/end-1/players/AAA/token").json()["token"];
  const std::string bern = d.gm("POST", "/api/games/end-1/players/BBB/token").json()["token"];
  r = d.get("/api/games/end-1/players/AAA/files",
            "-H " + shell_quote("Authorization: Bearer " + alba));
  ASSERT_EQ(r.status, 200) << r.body;
  ASSERT_EQ(r.json()["files"].size(), 1u);
  EXPECT_EQ(r.json()["files"][0]["turn"], 1);
  EXPECT_EQ(r.json()["files"][0]["channel"], "web");
  expect_schema(r, "order_files.schema.json");
  EXPECT_NE(r.json()["files"][0]["answer"].get<std::string>().find("1 accepted"),
            std::string::npos);
  EXPECT_EQ(d.gm("GET", "/api/games/end-1/players/AAA/files").status, 200);
  EXPECT_EQ(d.get("/api/games/end-1/players/AAA/files").status, 401);
  EXPECT_EQ(d.get("/api/games/end-1/players/AAA/files",
                  "-H " + shell_quote("Authorization: Bearer " + bern))
                .status,
            403);

  // The GM rolls the last turn back: the game is open again, and can end again.
  r = d.gm("POST", "/api/games/end-1/rollback", R"({"turn": 1})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json()["status"], "open");
  EXPECT_TRUE(has_action(d, "reopen"));
  EXPECT_FALSE(d.get("/api/games/end-1/standings").json()["over"].get<bool>());
  EXPECT_EQ(d.get("/api/finished").json()["games"].size(), 0u);
  r = d.gm("POST", "/api/games/end-1/turns/run");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(d.get("/api/games/end-1").json()["status"], "finished");
}

TEST(EndingServe, PagesShowStandingsArchiveFinishedGamesAndOwnFiles) {
  ::adj::testing::TempDir dir;
  EndingDaemon d(dir.file("end.db"), dir.file("serve.log"));
  ASSERT_TRUE(d.wait_healthy()) << d.log();
  // The last turn is turn 2: the leader then wins.
  EndingCurlResult r = d.gm(
      "POST", "/api/games",
      Json{{"scenario", ending_serve_scenario({{"last_turn", 2}, {"draw", true}})}, {"seed", 5}}
          .dump());
  ASSERT_EQ(r.status, 201) << r.body;
  ASSERT_EQ(d.orders("GAME end-1\nPLAYER AAA alpha-secret\nMOVE AHM GLD 2\n").status, 200);
  ASSERT_EQ(d.orders("GAME end-1\nPLAYER BBB bravo-secret\nDRAW\n").status, 200);
  ASSERT_EQ(d.gm("POST", "/api/games/end-1/turns/run").status, 200);

  // While it goes on: the archive shows maps and roundups only.
  r = d.get("/games/end-1/archive/1");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_NE(r.body.find("<svg"), std::string::npos);
  EXPECT_EQ(r.body.find("archive-files"), std::string::npos) << "order files only after the end";
  EXPECT_EQ(r.body.find("Proposed a draw"), std::string::npos) << "draw proposals after the end";
  EXPECT_EQ(d.get("/api/games/end-1/archive").json()["turns"][0]["draw"].size(), 0u);
  r = d.get("/games/end-1/standings");
  ASSERT_EQ(r.status, 200);
  EXPECT_NE(r.body.find("id=\"standings\""), std::string::npos);
  EXPECT_EQ(r.body.find("id=\"winner\""), std::string::npos);

  ASSERT_EQ(d.orders("GAME end-1\nPLAYER CCC charlie-secret\nDRAW\n").status, 200);
  r = d.gm("POST", "/api/games/end-1/turns/run");
  ASSERT_EQ(r.status, 200) << r.body;
  const Json st = d.get("/api/games/end-1/standings").json();
  EXPECT_EQ(st["ending"]["kind"], "last_turn");
  EXPECT_EQ(st["ending"]["winners"][0]["code"], "AAA");

  r = d.get("/games/end-1/standings");
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(::adj::testing::check_balanced(r.body, true), "");
  EXPECT_NE(r.body.find("id=\"standings\""), std::string::npos);
  const std::size_t winner = r.body.find("id=\"winner\"");
  ASSERT_NE(winner, std::string::npos) << r.body;
  EXPECT_NE(r.body.find("Alba (AAA)", winner), std::string::npos);
  EXPECT_NE(r.body.find("Turn 2 was the last turn"), std::string::npos);

  r = d.get("/games/end-1/archive");
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(count(r.body, "href=\"/games/end-1/archive/"), 2);
  EXPECT_NE(r.body.find("href=\"/games/end-1/press\""), std::string::npos);
  r = d.get("/games/end-1/archive/2");
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(::adj::testing::check_balanced(r.body, true), "");
  EXPECT_NE(r.body.find("id=\"archive-files\""), std::string::npos);
  EXPECT_NE(r.body.find("PLAYER CCC ********"), std::string::npos);
  EXPECT_EQ(r.body.find("charlie-secret"), std::string::npos);
  EXPECT_NE(r.body.find("Proposed a draw: CCC"), std::string::npos);
  EXPECT_NE(d.get("/games/end-1/archive/1").body.find("Proposed a draw: BBB"), std::string::npos);
  EXPECT_EQ(d.get("/games/end-1/archive/0").status, 400);
  EXPECT_EQ(d.get("/games/end-1/archive/9").status, 404);

  r = d.get("/finished");
  ASSERT_EQ(r.status, 200);
  EXPECT_NE(r.body.find("id=\"finished-games\""), std::string::npos);
  EXPECT_NE(r.body.find("href=\"/games/end-1/standings\""), std::string::npos);
  EXPECT_NE(r.body.find("Alba (AAA, won)"), std::string::npos);
  EXPECT_NE(d.get("/").body.find("href=\"/finished\""), std::string::npos);
  r = d.get("/games/end-1");
  EXPECT_NE(r.body.find("the game is over"), std::string::npos);
  EXPECT_EQ(r.body.find("(open for orders)"), std::string::npos);

  // Own files: signed in (the link token as the sign-in cookie), else to the sign-in page.
  const std::string alba = d.gm("POST", "/api/games/end-1/players/AAA/token").json()["token"];
  r = d.get("/games/end-1/me/files", "-b " + shell_quote("adj_player=" + alba));
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(::adj::testing::check_balanced(r.body, true), "");
  EXPECT_EQ(count(r.body, "class=\"order-file\""), 1);
  EXPECT_NE(r.body.find("MOVE AHM GLD 2"), std::string::npos);
  EXPECT_EQ(r.body.find("alpha-secret"), std::string::npos);
  EXPECT_EQ(d.get("/games/end-1/me/files").status, 303);
  r = d.get("/games/end-1/me", "-b " + shell_quote("adj_player=" + alba));
  EXPECT_NE(r.body.find("href=\"/games/end-1/me/files\""), std::string::npos);
}

}  // namespace
}  // namespace adj
