// The end of a game in the services: a committed run that meets a victory condition finishes the
// game (status, standings in the turn record, audit "finish", the standings notice, no next
// deadline); a finished game takes no orders and runs no turns, also not by the scheduler; a GM
// rollback reopens it. A real SQLite file and a settable clock.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "rules/game/scenario.h"
#include "server/app/admin.h"
#include "server/app/ending.h"
#include "storage/sqlite/sqlite_store.h"
#include "tests/support/cli_runner.h"
#include "tests/support/temp_dir.h"

namespace adj {
namespace {

constexpr UnixTime kEndingStart = 1'700'000'000;

Json ending_admin_scenario() {
  return Json::parse(R"({
    "id": "end-1", "name": "Ending", "engine": {"name": "dark-age"},
    "victory": {"vp": 5, "draw": true},
    "players": [{"code": "AAA", "name": "Alba", "secret": "alpha-secret", "bp": 10},
                {"code": "BBB", "name": "Bernicia", "secret": "bravo-secret", "bp": 10}],
    "areas": [{"code": "AHM", "kind": "land", "owner": "AAA", "armies": 5, "population": 2},
              {"code": "BHM", "kind": "land", "owner": "BBB", "armies": 5, "population": 2},
              {"code": "GLD", "kind": "land", "population": 0, "features": {"vp": 5}}],
    "adjacency": [["AHM", "GLD"], ["BHM", "GLD"]]
  })");
}

class EndingAdmin : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = SqliteStore::open(dir_.file("adjutant.db"));
    ASSERT_TRUE(opened.ok()) << opened.status().to_string();
    store_ = std::move(opened).value();
    stores_ =
        std::make_unique<Stores>(Stores{*store_, *store_, *store_, *store_, *store_, *store_});
    const Clock clock = [this] { return now_; };
    svc_ = std::make_unique<Services>(*stores_, clock);
    admin_ = std::make_unique<GameAdmin>(*svc_, *stores_, *store_, clock);
    auto g = admin_->create_game(ending_admin_scenario(), 3, "gm");
    ASSERT_TRUE(g.ok()) << g.status().to_string();
  }
  SubmitOutcome submit(const std::string& text) {
    auto out = svc_->submit_orders("end-1", text, "web");
    EXPECT_TRUE(out.ok()) << out.status().to_string();
    return out.ok() ? *out : SubmitOutcome{};
  }
  std::string status() { return store_->game_summary("end-1")->status; }
  std::vector<std::string> actions() {
    std::vector<std::string> out;
    auto log = admin_->audit_log("end-1");
    EXPECT_TRUE(log.ok()) << log.status().to_string();
    if (log.ok())
      for (const auto& e : *log) out.push_back(e.action);
    return out;
  }

  ::adj::testing::TempDir dir_;
  UnixTime now_ = kEndingStart;
  std::unique_ptr<SqliteStore> store_;
  std::unique_ptr<Stores> stores_;
  std::unique_ptr<Services> svc_;
  std::unique_ptr<GameAdmin> admin_;
};

TEST_F(EndingAdmin, AVictoryFinishesTheGameAndARollbackReopensIt) {
  Schedule s;
  s.kind = "interval";
  s.interval_seconds = 86400;
  ASSERT_TRUE(admin_->set_schedule("end-1", s, "gm").ok());
  submit("GAME end-1\nPLAYER AAA alpha-secret\nMOVE AHM GLD 3\n");
  auto run = admin_->run_turn("end-1", false, "gm");
  ASSERT_TRUE(run.ok()) << run.status().to_string();
  ASSERT_TRUE(run->ending);
  EXPECT_EQ(run->ending->kind, "vp");

  EXPECT_EQ(status(), "finished");
  EXPECT_FALSE(admin_->schedule("end-1")->deadline) << "no deadline after the end";
  const auto acts = actions();
  EXPECT_NE(std::find(acts.begin(), acts.end(), "finish"), acts.end());
  auto ending = final_standings(*stores_, "end-1");
  ASSERT_TRUE(ending.ok()) << ending.status().to_string();
  EXPECT_EQ(ending->winners, std::vector<std::string>{"AAA"});
  EXPECT_EQ(ending->standings[0].vp, 5);

  // The standings notice, to both players.
  // (The deadline set before the last turn was told the players too: kind "deadline".)
  auto notices = store_->notices("end-1");
  ASSERT_TRUE(notices.ok());
  std::erase_if(*notices, [](const Notice& n) { return n.kind == "deadline"; });
  ASSERT_EQ(notices->size(), 1u);
  EXPECT_EQ((*notices)[0].kind, "standings");
  EXPECT_EQ((*notices)[0].players, (std::vector<std::string>{"AAA", "BBB"}));
  EXPECT_NE((*notices)[0].text.find("Final standings"), std::string::npos);
  EXPECT_NE((*notices)[0].text.find("AAA Alba"), std::string::npos);

  // No orders, no turns, not even by the scheduler.
  SubmitOutcome late = submit("GAME end-1\nPLAYER BBB bravo-secret\nMOVE BHM GLD 3\n");
  EXPECT_TRUE(late.ack.refused);
  EXPECT_EQ(late.ack.refusal.rfind("the game is over", 0), 0u) << late.ack.refusal;
  EXPECT_FALSE(late.submission_id);
  auto again = admin_->run_turn("end-1", false, "gm");
  EXPECT_EQ(again.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(admin_->run_turn("end-1", true, "gm").status().code(), StatusCode::kFailedPrecondition);
  now_ += 10 * 86400;
  EXPECT_TRUE(admin_->tick().empty());
  EXPECT_EQ(store_->game_summary("end-1")->turn, 2);
  auto finished = finished_games(*stores_);
  ASSERT_TRUE(finished.ok());
  EXPECT_EQ(finished->size(), 1u);

  // The GM rolls the last turn back: open again, audited; the file on record is kept.
  ASSERT_TRUE(admin_->rollback("end-1", 1, "gm").ok());
  EXPECT_EQ(status(), "open");
  const auto after = actions();
  EXPECT_EQ(after.back(), "reopen");
  EXPECT_EQ(final_standings(*stores_, "end-1").status().code(), StatusCode::kFailedPrecondition);
  EXPECT_TRUE(finished_games(*stores_)->empty());
  // Rolling back to the open turn of a finished game changes nothing.
  now_ += 60;
  ASSERT_TRUE(admin_->run_turn("end-1", false, "gm").ok());
  EXPECT_EQ(status(), "finished");
  int standings = 0;
  const auto all = store_->notices("end-1");
  ASSERT_TRUE(all.ok());
  for (const Notice& n : *all) standings += n.kind == "standings" ? 1 : 0;
  EXPECT_EQ(standings, 2) << "the standings are mailed again";
  ASSERT_TRUE(admin_->rollback("end-1", 2, "gm").ok());
  EXPECT_EQ(status(), "finished");
}

TEST_F(EndingAdmin, EverySurvivorsDrawEndsTheGameAndOneMissingDrawDoesNot) {
  submit("GAME end-1\nPLAYER AAA alpha-secret\nDRAW\n");
  auto run = admin_->run_turn("end-1", false, "gm");
  ASSERT_TRUE(run.ok()) << run.status().to_string();
  EXPECT_FALSE(run->ending);
  EXPECT_EQ(status(), "open");
  // The draws of turn 1 do not carry over: turn 2 needs both again.
  submit("GAME end-1\nPLAYER AAA alpha-secret\nDRAW\n");
  submit("GAME end-1\nPLAYER BBB bravo-secret\nDRAW\n");
  run = admin_->run_turn("end-1", false, "gm");
  ASSERT_TRUE(run.ok()) << run.status().to_string();
  ASSERT_TRUE(run->ending);
  EXPECT_EQ(run->ending->kind, "draw");
  EXPECT_EQ(status(), "finished");
  auto turns = archive_turns(*stores_, "end-1");
  ASSERT_TRUE(turns.ok());
  ASSERT_EQ(turns->size(), 2u);
  EXPECT_EQ((*turns)[0].draw, std::vector<std::string>{"AAA"});
  EXPECT_EQ((*turns)[1].draw, (std::vector<std::string>{"AAA", "BBB"}));
  auto files = player_files(*stores_, "end-1", "AAA");
  ASSERT_TRUE(files.ok());
  ASSERT_EQ(files->size(), 2u);
  EXPECT_EQ((*files)[0].turn, 1);
  EXPECT_EQ((*files)[0].text.find("alpha-secret"), std::string::npos);
  EXPECT_NE((*files)[0].answer.find("DRAW: you propose a draw"), std::string::npos);
}

// The command line: `standings`, and the refusals once the game is over.
TEST(EndingCli, StandingsCommandAndNoTurnsOrOrdersAfterTheEnd) {
  using ::adj::testing::run_cli;
  ::adj::testing::TempDir dir;
  const std::string db = dir.file("cli.db"), sc = dir.file("end.json"), orders = dir.file("o.txt");
  ::adj::testing::write_file(sc, ending_admin_scenario().dump());
  ::adj::testing::write_file(orders, "GAME end-1\nPLAYER AAA alpha-secret\nMOVE AHM GLD 3\n");
  ASSERT_EQ(run_cli({"--db", db, "game", "create", sc}).exit_code, 0);
  auto r = run_cli({"--db", db, "standings", "end-1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("goes on: turn 1 is open"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("5 victory points win"), std::string::npos) << r.out;
  ASSERT_EQ(run_cli({"--db", db, "orders", "submit", "end-1", orders}).exit_code, 0);
  ASSERT_EQ(run_cli({"--db", db, "turn", "run", "end-1"}).exit_code, 0);

  r = run_cli({"--db", db, "standings", "end-1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Final standings"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Alba (AAA) reached 5 victory points"), std::string::npos) << r.out;
  r = run_cli({"--db", db, "standings", "end-1", "--json"});
  const Json j = Json::parse(r.out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << r.out;
  EXPECT_TRUE(j["over"].get<bool>());
  EXPECT_EQ(j["ending"]["winners"][0], "AAA");

  r = run_cli({"--db", db, "turn", "run", "end-1"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("the game is over"), std::string::npos) << r.err;
  r = run_cli({"--db", db, "orders", "submit", "end-1", orders});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("the game is over"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace adj
