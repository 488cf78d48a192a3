// What a game keeps from the public, end to end. Seeds (docs/architecture.md): every
// game gets a fresh random seed unless its GM sets one, and the API, the web form and the command
// line all honour the GM's; a bundled scenario's published seed is never used, and the seed is
// shown to nobody but the GM. Standing defences (ambushes, retreat destinations) are in no public
// view while the game runs. A real `adjutant serve` on loopback, driven
// with curl, and the command line on the same database (whose stored states show the seeds).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <string>

#include "rules/game/state.h"  // Json
#include "schemas/embedded.h"
#include "tests/support/cli_runner.h"
#include "tests/support/process.h"
#include "tests/support/serve_process.h"
#include "tests/support/temp_dir.h"

namespace adj {
namespace {

using ::adj::testing::curl;
using ::adj::testing::shell_quote;

constexpr const char* kSeedGm = "game-seed-gm-token";
constexpr const char* kSeedCsrf = "seedcsrfseedcsrfseedcsrfseedcsrf";

class GameSecretsServe : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = dir_.file("seed.db");
    port_ = ::adj::testing::free_port();
    pid_ = ::adj::testing::spawn_serve(db_, port_, dir_.file("serve.log"), kSeedGm, 3600);
    ASSERT_GT(pid_, 0);
    ASSERT_TRUE(::adj::testing::wait_healthy(port_, std::chrono::seconds(30)))
        << ::adj::testing::read_file(dir_.file("serve.log"));
  }
  void TearDown() override {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      ::waitpid(pid_, nullptr, 0);
    }
  }

  std::string url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }
  ::adj::testing::CurlAnswer api(const std::string& method, const std::string& path,
                                 const std::string& body) const {
    return curl("-X " + method + " -H " +
                shell_quote(std::string("Authorization: Bearer ") + kSeedGm) +
                " -H 'Content-Type: application/json' --data " + shell_quote(body) + " " +
                shell_quote(url(path)));
  }

  // Every player of the bundled Britain game sends the published turn-1 orders.
  void send_orders(const std::string& game) const {
    for (const char* who : {"EAN", "GWN", "MRC", "NUM", "WSX"}) {
      std::string text(
          *embedded_file(std::string("schemas/scenarios/dark-age-britain/turn1-") + who + ".txt"));
      text.replace(0, text.find('\n'), "GAME " + game);
      const auto sent =
          curl("-X POST -H 'Content-Type: text/plain' --data-binary " + shell_quote(text) + " " +
               shell_quote(url("/api/games/" + game + "/orders")));
      EXPECT_EQ(sent.status, 200) << game << " " << who << ": " << sent.body;
    }
  }

  // The seed the game was stored with (its turn-1 state), read from the daemon's database.
  std::string seed_of(const std::string& game) const {
    const std::string json = ::adj::testing::run_shell(
        "sqlite3 " + shell_quote(db_) + " " +
        shell_quote("SELECT state_json FROM turn_states WHERE game_id = '" + game +
                    "' AND turn = 1"));
    const Json j = Json::parse(json, nullptr, false);
    return j.is_object() ? j.value("seed", "") : "";
  }

  ::adj::testing::TempDir dir_;
  std::string db_;
  int port_ = 0;
  pid_t pid_ = -1;
};

TEST_F(GameSecretsServe, GamesFromTheSameBundledScenarioRollDifferentlyUnlessTheGmSetsTheSeed) {
  for (const char* id : {"fresh-1", "fresh-2"})
    ASSERT_EQ(api("POST", "/api/games",
                  std::string(R"({"bundled": "dark-age-britain", "demo_secrets": true, "id": ")") +
                      id + "\"}")
                  .status,
              201);
  // The GM's seed, by the API (also over a document's own seed) ...
  ASSERT_EQ(
      api("POST", "/api/games",
          R"({"bundled": "dark-age-britain", "demo_secrets": true, "id": "api-77", "seed": 77})")
          .status,
      201);
  Json doc = Json::parse(*embedded_file("schemas/scenarios/dark-age-britain.json"));
  doc["id"] = "doc-77";
  ASSERT_EQ(api("POST", "/api/games", Json{{"scenario", doc}, {"seed", "77"}}.dump()).status, 201);
  // ... by the web form ...
  const auto form =
      curl("-X POST -H " + shell_quote("Origin: " + url("")) + " -H " +
           shell_quote(std::string("Cookie: adj_gm=") + kSeedGm + "; adj_csrf=" + kSeedCsrf) +
           " --data " +
           shell_quote(std::string("csrf=") + kSeedCsrf +
                       "&bundled=dark-age-britain&demo_secrets=1&id=web-77&seed=77") +
           " " + shell_quote(url("/gm/games")));
  ASSERT_EQ(form.status, 303) << form.body;
  // ... and by the command line, on the daemon's database.
  const auto cli =
      ::adj::testing::run_cli({"--db", db_, "game", "create", "bundled:dark-age-britain", "--seed",
                               "77", "--demo-secrets", "--id", "cli-77"});
  ASSERT_EQ(cli.exit_code, 0) << cli.out << cli.err;

  const std::string fresh1 = seed_of("fresh-1"), fresh2 = seed_of("fresh-2");
  ASSERT_FALSE(fresh1.empty());
  EXPECT_NE(fresh1, fresh2);
  EXPECT_NE(fresh1, "1066");  // the published seed
  EXPECT_NE(fresh2, "1066");
  for (const char* game : {"api-77", "doc-77", "web-77", "cli-77"})
    EXPECT_EQ(seed_of(game), "77") << game;
}

TEST_F(GameSecretsServe, TheSeedIsShownToNobodyButTheGm) {
  ASSERT_EQ(api("POST", "/api/games",
                R"({"bundled": "dark-age-britain", "demo_secrets": true, "seed": 424242})")
                .status,
            201);
  for (const char* path :
       {"/api/games/britain-1", "/api/games/britain-1/audit", "/games/britain-1"}) {
    const auto a = curl(shell_quote(url(path)));
    EXPECT_EQ(a.body.find("424242"), std::string::npos) << path;
  }
}

// RETREAT and AMBUSH orders leave standing defences in the state: after turn 1 of Britain, Wessex
// ambushes at HAM against SUS and retreats from NFK to SFK (East Anglia). Neither is in the public
// state (API, archive) nor on the public pages while the game runs.
TEST_F(GameSecretsServe, StandingDefencesAreInNoPublicViewWhileTheGameRuns) {
  ASSERT_EQ(api("POST", "/api/games",
                R"({"bundled": "dark-age-britain", "demo_secrets": true, "seed": 5})")
                .status,
            201);
  send_orders("britain-1");
  const auto ran = api("POST", "/api/games/britain-1/turns/run", "{}");
  ASSERT_EQ(ran.status, 200) << ran.body;
  for (const char* path : {"/api/games/britain-1", "/api/games/britain-1/archive/1"}) {
    const auto a = curl(shell_quote(url(path)));
    ASSERT_EQ(a.status, 200) << path << ": " << a.body;
    EXPECT_EQ(a.body.find("ambush_against"), std::string::npos) << path;
    EXPECT_EQ(a.body.find("retreat_to"), std::string::npos) << path;
    EXPECT_EQ(a.body.find("\"mode\""), std::string::npos) << path;
    EXPECT_NE(a.body.find("\"armies\""), std::string::npos) << path;  // the rest is there
  }
  for (const char* path : {"/games/britain-1", "/games/britain-1/archive/1"}) {
    const auto a = curl(shell_quote(url(path)));
    ASSERT_EQ(a.status, 200) << path;
    EXPECT_EQ(a.body.find("ambush against"), std::string::npos) << path;
    EXPECT_EQ(a.body.find("retreat to"), std::string::npos) << path;
  }
}

}  // namespace
}  // namespace adj
