// The GM desk end to end on `adjutant serve` as a real process: the JSON API's stale-turn
// answers (turns/run, turns/preview and rollback with the turn they were made for), the GM's
// orders desk by the API with the player told by mail (the notice mailed to the outbox
// Maildir), the readable audit log, a second copy of a bundled scenario by the API and the
// command line, and the web run form sent twice through real HTTP (curl, as a reloading
// browser): redirected once, then "Turn 1 already ran; nothing was changed".
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/mail/mail_test_util.h"
#include "tests/support/cli_runner.h"
#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

namespace adj {
namespace {

using mail_test::eventually;
using mail_test::free_port;
using mail_test::send_file;
using Json = nlohmann::json;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

using ::adj::testing::shell_quote;

constexpr const char* kGmDeskToken = "flows-serve-gm-token";
constexpr const char* kFlowsCsrf = "0123456789abcdef0123456789abcdef";
const std::string kFlowsSrc = ADJ_SOURCE_DIR;

using DeskAnswer = ::adj::testing::CurlAnswer;

class FlowsDaemon : public mail_test::ServeProcess {
 public:
  FlowsDaemon(const std::string& db, const std::string& log, std::vector<std::string> extra)
      : ServeProcess(db, free_port(), free_port(), log, kGmDeskToken, std::move(extra)),
        log_(log) {}
  std::string log() const { return ::adj::testing::read_file(log_); }
  // curl ARGS against `path`; the status from -w.
  DeskAnswer curl(const std::string& args, const std::string& path) const {
    return ::adj::testing::curl(args + " " + shell_quote(url(path)));
  }
  DeskAnswer api(const std::string& method, const std::string& path, const std::string& body = "") {
    std::string args =
        "-X " + method + " -H " + shell_quote(std::string("Authorization: Bearer ") + kGmDeskToken);
    if (!body.empty()) args += " -H 'Content-Type: application/json' --data " + shell_quote(body);
    return curl(args, path);
  }
  // A GM form POST as the browser sends it (GM cookie, CSRF cookie and field).
  DeskAnswer form(const std::string& path, const std::string& fields) {
    return curl("-X POST -H " +
                    shell_quote(std::string("Cookie: adj_gm=") + kGmDeskToken +
                                "; adj_csrf=" + kFlowsCsrf) +
                    " --data " + shell_quote(std::string("csrf=") + kFlowsCsrf + "&" + fields),
                path);
  }

 private:
  std::string log_;
};

int open_turn(FlowsDaemon& d) {
  const Json g = Json::parse(d.api("GET", "/api/games/britain-1").body, nullptr, false);
  return g.is_object() ? g.value("turn", 0) : 0;
}

TEST(GmDeskServe, ApiRefusesStaleTurnsAndTheGmEntersOrdersThePlayerIsMailed) {
  ::adj::testing::TempDir dir;
  const fs::path outbox = dir.file("out");
  FlowsDaemon d(dir.file("flows.db"), dir.file("serve.log"),
                {"--tick", "0", "--outbox", outbox.string()});
  ASSERT_TRUE(d.wait_ready()) << d.log();
  ASSERT_EQ(d.api("POST", "/api/games", R"({"bundled": "dark-age-britain", "demo_secrets": true})")
                .status,
            201);
  // Wessex's orders by mail through the SMTP listener.
  EXPECT_EQ(send_file(d.smtp(), kFlowsSrc + "/tests/data/mail/plain.eml", "wessex@example.org"),
            "250")
      << d.log();
  ASSERT_TRUE(eventually([&] {
    const Json s =
        Json::parse(d.api("GET", "/api/games/britain-1/submissions").body, nullptr, false);
    if (!s.is_object()) return false;
    for (const auto& p : s["players"])
      if (p.value("player", "") == "WSX") return p.value("has_orders", false);
    return false;
  })) << d.log()
      << d.api("GET", "/api/games/britain-1/submissions").body;

  // The GM reads Wessex's file on record (secret masked) and enters Mercia's.
  DeskAnswer wsx = d.api("GET", "/api/games/britain-1/players/wsx/orders");
  ASSERT_EQ(wsx.status, 200) << wsx.body;
  const Json w = Json::parse(wsx.body);
  EXPECT_EQ(w["player"], "WSX");
  EXPECT_EQ(w["orders"]["source"], "email");
  EXPECT_NE(w["orders"]["text"].get<std::string>().find("2. MOVE HAM OXF 4"), std::string::npos);
  EXPECT_EQ(wsx.body.find("cerdic"), std::string::npos);
  EXPECT_EQ(Json::parse(d.api("GET", "/api/games/britain-1/players/MRC/orders").body)["orders"],
            nullptr);
  DeskAnswer bad = d.api("PUT", "/api/games/britain-1/players/MRC/orders", R"({"text": "x"})");
  EXPECT_EQ(bad.status, 400);
  DeskAnswer entered = d.api("PUT", "/api/games/britain-1/players/MRC/orders",
                             R"({"orders": "1. ORDER 2\n", "turn": 1})");
  ASSERT_EQ(entered.status, 200) << entered.body;
  EXPECT_EQ(Json::parse(entered.body)["stored"], true);
  EXPECT_EQ(d.api("PUT", "/api/games/britain-1/players/MRC/orders",
                  R"({"orders": "1. ORDER 2\n", "turn": 2})")
                .status,
            409);
  // Mercia is told by mail, with the orders and their answer.
  ASSERT_TRUE(eventually(
      [&] {
        std::error_code ec;
        for (const auto& e : fs::directory_iterator(outbox / "new", ec)) {
          const std::string m = ::adj::testing::read_file(e.path().string());
          if (m.find("mercia@example.org") != std::string::npos &&
              m.find("The GM entered orders for you (MRC) for turn 1") != std::string::npos)
            return m.find("ORDER 2") != std::string::npos;
        }
        return false;
      },
      20s))
      << d.log();

  // A run for turn 1, then the same request again: 409, nothing runs.
  DeskAnswer run = d.api("POST", "/api/games/britain-1/turns/run", R"({"turn": 1})");
  ASSERT_EQ(run.status, 200) << run.body;
  DeskAnswer again = d.api("POST", "/api/games/britain-1/turns/run", R"({"turn": 1})");
  EXPECT_EQ(again.status, 409);
  EXPECT_NE(again.body.find("Turn 1 already ran; nothing was changed."), std::string::npos)
      << again.body;
  EXPECT_EQ(d.api("POST", "/api/games/britain-1/turns/preview", R"({"turn": 1})").status, 409);
  EXPECT_EQ(d.api("POST", "/api/games/britain-1/turns/run", R"({"turn": "one"})").status, 400);
  EXPECT_EQ(open_turn(d), 2);
  // A rollback made for turn 1 is stale; one made for turn 2 reopens turn 1.
  EXPECT_EQ(d.api("POST", "/api/games/britain-1/rollback", R"({"turn": 1, "from_turn": 1})").status,
            409);
  EXPECT_EQ(open_turn(d), 2);
  EXPECT_EQ(d.api("POST", "/api/games/britain-1/rollback", R"({"turn": 1, "from_turn": 2})").status,
            200);
  EXPECT_EQ(open_turn(d), 1);

  // The audit log in words.
  const Json audit = Json::parse(d.api("GET", "/api/games/britain-1/audit").body);
  std::string texts;
  for (const auto& e : audit["entries"]) texts += e.value("text", "") + "\n";
  EXPECT_NE(texts.find("entered orders for MRC for turn 1 (1 line accepted, 0 rejected)"),
            std::string::npos)
      << texts;
  EXPECT_NE(texts.find("ran turn 1; no orders from EAN, GWN, NUM"), std::string::npos) << texts;
  EXPECT_NE(texts.find("rolled back from turn 2 to turn 1"), std::string::npos) << texts;
  EXPECT_EQ(audit["entries"][0].value("who", ""), "the GM");
}

TEST(GmDeskServe, SecondCopyOfABundledScenarioByApiAndCommandLine) {
  ::adj::testing::TempDir dir;
  const std::string db = dir.file("copy.db");
  FlowsDaemon d(db, dir.file("serve.log"), {"--tick", "0"});
  ASSERT_TRUE(d.wait_ready()) << d.log();
  ASSERT_EQ(d.api("POST", "/api/games", R"({"bundled": "dark-age-britain"})").status, 201);
  DeskAnswer copy =
      d.api("POST", "/api/games",
            R"({"bundled": "dark-age-britain", "id": "britain-2", "name": "Second"})");
  ASSERT_EQ(copy.status, 201) << copy.body;
  EXPECT_EQ(Json::parse(copy.body)["name"], "Second");
  DeskAnswer dup =
      d.api("POST", "/api/games", R"({"bundled": "dark-age-britain", "id": "britain-2"})");
  EXPECT_EQ(dup.status, 409);
  EXPECT_EQ(Json::parse(dup.body)["error"],
            "A game with id britain-2 already exists; choose another id.");
  auto cli = ::adj::testing::run_cli(
      {"--db", db, "game", "create", "bundled:dark-age-britain", "--id", "britain-2"});
  EXPECT_EQ(cli.exit_code, 1);
  EXPECT_NE(cli.err.find("A game with id britain-2 already exists; choose another id."),
            std::string::npos)
      << cli.err;
  cli = ::adj::testing::run_cli({"--db", db, "game", "create", "bundled:dark-age-britain", "--id",
                                 "britain-3", "--name", "Third table"});
  EXPECT_EQ(cli.exit_code, 0) << cli.err;
  const Json list = Json::parse(d.api("GET", "/api/games").body);
  const Json& games = list.is_object() ? list["games"] : list;
  ASSERT_EQ(games.size(), 3u) << list.dump();
  EXPECT_EQ(games[2]["name"], "Third table");
}

TEST(GmDeskServe, GmEntersOrdersFromTheCommandLine) {
  ::adj::testing::TempDir dir;
  const std::string db = dir.file("cli.db");
  ASSERT_EQ(::adj::testing::run_cli(
                {"--db", db, "game", "create", "bundled:dark-age-britain", "--demo-secrets"})
                .exit_code,
            0);
  ::adj::testing::write_file(dir.file("mrc.txt"), "1. ORDER 2\n");
  auto r = ::adj::testing::run_cli(
      {"--db", db, "orders", "enter", "britain-1", "mrc", dir.file("mrc.txt"), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Json::parse(r.out)["player"], "MRC");
  ::adj::testing::write_file(dir.file("signed.txt"), "PLAYER MRC x\n1. ORDER 2\n");
  r = ::adj::testing::run_cli(
      {"--db", db, "orders", "enter", "britain-1", "MRC", dir.file("signed.txt")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("Leave out the PLAYER line"), std::string::npos) << r.err;
  // Audited in words, and MRC is told (a pending notice, mailed by the daemon or `outbox send`).
  FlowsDaemon d(db, dir.file("serve.log"), {"--tick", "0"});
  ASSERT_TRUE(d.wait_ready()) << d.log();
  const std::string audit = d.api("GET", "/api/games/britain-1/audit").body;
  EXPECT_NE(audit.find("\"who\":\"the GM (command line)\""), std::string::npos) << audit;
  EXPECT_NE(audit.find("entered orders for MRC for turn 1"), std::string::npos) << audit;
  EXPECT_TRUE(eventually([&] {
    const Json out = Json::parse(d.api("GET", "/api/games/britain-1/outbox").body, nullptr, false);
    if (!out.is_object()) return false;
    for (const auto& m : out["outbox"])
      if (m.value("kind", "") == "orders-entered" && m.value("to", "") == "mercia@example.org")
        return true;
    return false;
  })) << d.log();
}

TEST(GmDeskServe, RunFormSentTwiceOverHttpRunsOneTurn) {
  ::adj::testing::TempDir dir;
  FlowsDaemon d(dir.file("web.db"), dir.file("serve.log"), {"--tick", "0"});
  ASSERT_TRUE(d.wait_ready()) << d.log();
  ASSERT_EQ(d.api("POST", "/api/games", R"({"bundled": "dark-age-britain", "demo_secrets": true})")
                .status,
            201);
  // Orders missing: a confirmation page first, nothing run.
  DeskAnswer ask = d.form("/gm/games/britain-1/run", "turn=1");
  EXPECT_EQ(ask.status, 200);
  EXPECT_NE(ask.body.find("id=\"confirm-run-form\""), std::string::npos) << ask.body;
  EXPECT_EQ(open_turn(d), 1);
  DeskAnswer run = d.form("/gm/games/britain-1/run", "turn=1&confirm=1");
  EXPECT_EQ(run.status, 303) << run.body;
  EXPECT_EQ(open_turn(d), 2);
  DeskAnswer reload = d.form("/gm/games/britain-1/run", "turn=1&confirm=1");
  EXPECT_EQ(reload.status, 409);
  EXPECT_NE(reload.body.find("Turn 1 already ran; nothing was changed."), std::string::npos);
  EXPECT_EQ(open_turn(d), 2);
  DeskAnswer landed = d.curl("-H " + shell_quote(std::string("Cookie: adj_gm=") + kGmDeskToken),
                             "/gm/games/britain-1?done=ran&turn=1");
  EXPECT_NE(landed.body.find("Resolved turn 1"), std::string::npos);
}

}  // namespace
}  // namespace adj
