// GameAdmin's end of a game (server/app/game_lifecycle.cc): a draft is deleted with a host audit
// entry that keeps its log; a started game is refused and can be archived, which refuses orders
// and turn runs and is passed by the scheduler until the game is unarchived. A real SQLite file.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "server/app/audit_text.h"
#include "tests/server/admin_fixture.h"

namespace adj {
namespace {

class GameLifecycle : public ::adj::testing::BritainAdmin {
 protected:
  static constexpr const char* kOrders = "GAME britain-1\nPLAYER WSX cerdic\nDEFEND HAM\n";
};

TEST_F(GameLifecycle, ADraftIsDeletedAndTheHostKeepsItsRecord) {
  EXPECT_FALSE(*admin_->has_started(kGame));
  ASSERT_TRUE(svc_->submit_orders(kGame, kOrders, "web").ok());
  auto out = admin_->delete_game(kGame, "gm:cli", "made by mistake");
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_EQ(out->game, kGame);
  EXPECT_EQ(out->rows.at("submissions"), 1);
  EXPECT_EQ(svc_->game_summary(kGame).status().code(), StatusCode::kNotFound);
  EXPECT_TRUE(svc_->list_games()->empty());

  auto log = admin_->host_audit_log(10);
  ASSERT_TRUE(log.ok());
  ASSERT_EQ(log->size(), 1u);
  const AuditEntry& e = log->front();
  EXPECT_EQ(e.action, "delete");
  EXPECT_EQ(e.actor, "gm:cli");
  EXPECT_EQ(e.at, kStart);
  EXPECT_EQ(e.detail["why"], "made by mistake");
  ASSERT_FALSE(e.detail["audit"].empty());
  EXPECT_EQ(e.detail["audit"][0]["action"], "create");  // the game's own log, kept
  const std::string text = audit_action_text(e);
  EXPECT_NE(text.find("deleted the game Dark Age Britain"), std::string::npos) << text;
  EXPECT_NE(text.find("reason: made by mistake"), std::string::npos) << text;
}

TEST_F(GameLifecycle, AStartedGameIsRefusedWithTheAdviceToArchiveIt) {
  run();
  EXPECT_TRUE(*admin_->has_started(kGame));
  auto out = admin_->delete_game(kGame, "gm");
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(out.status().message().find("has started (turn 1 ran); archive it instead"),
            std::string::npos)
      << out.status().message();
  EXPECT_TRUE(svc_->game_summary(kGame).ok());
  EXPECT_TRUE(admin_->host_audit_log(10)->empty());
  // Rolled back to turn 1, it has still started.
  ASSERT_TRUE(admin_->rollback(kGame, 1, "gm").ok());
  EXPECT_TRUE(*admin_->has_started(kGame));
  EXPECT_EQ(admin_->delete_game(kGame, "gm").status().code(), StatusCode::kFailedPrecondition);
}

TEST_F(GameLifecycle, ABadReasonOrAnUnknownGameChangesNothing) {
  EXPECT_EQ(admin_->delete_game(kGame, "gm", "two\nlines").status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(admin_->delete_game("nope", "gm").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(admin_->archive_game("nope", "gm").code(), StatusCode::kNotFound);
  EXPECT_EQ(admin_->has_started("nope").status().code(), StatusCode::kNotFound);
  EXPECT_TRUE(svc_->game_summary(kGame).ok());
}

TEST_F(GameLifecycle, AnArchivedGameTakesNoOrdersOrRunsUntilUnarchived) {
  run();
  now_ += kHour;
  ASSERT_TRUE(admin_->archive_game(kGame, "gm", "the players left").ok());
  EXPECT_EQ(svc_->game_summary(kGame)->archived_at, std::optional<UnixTime>(kStart + kHour));
  EXPECT_EQ(admin_->archive_game(kGame, "gm").code(), StatusCode::kFailedPrecondition);
  // Readable as before.
  auto shown = svc_->show_game(kGame);
  ASSERT_TRUE(shown.ok());
  EXPECT_EQ((*shown)["archived_at"], kStart + kHour);
  EXPECT_TRUE(svc_->report(kGame, "WSX", 1).ok());

  auto orders = svc_->submit_orders(kGame, kOrders, "web");
  ASSERT_TRUE(orders.ok()) << orders.status().to_string();
  EXPECT_TRUE(orders->ack.refused);
  EXPECT_EQ(orders->ack.refusal, archived_refusal(kGame, "orders"));
  EXPECT_FALSE(orders->submission_id.has_value());
  for (bool preview : {true, false}) {
    auto ran = admin_->run_turn(kGame, preview, "gm");
    ASSERT_FALSE(ran.ok());
    EXPECT_EQ(ran.status().message(), archived_refusal(kGame, "turn runs"));
  }
  // The scheduler passes it by, however overdue.
  Schedule s;
  s.kind = "fixed";
  s.deadline = now_ + kHour;
  ASSERT_TRUE(admin_->set_schedule(kGame, s, "gm").ok());
  now_ += kDay;
  for (const TickAction& a : admin_->tick()) EXPECT_NE(a.action, "ran") << a.detail;
  EXPECT_EQ(svc_->game_summary(kGame)->turn, 2);

  auto game_log = admin_->audit_log(kGame);
  ASSERT_TRUE(game_log.ok());
  const auto archived = std::find_if(game_log->begin(), game_log->end(),
                                     [](const AuditEntry& e) { return e.action == "archive"; });
  ASSERT_NE(archived, game_log->end());
  EXPECT_EQ(archived->detail["why"], "the players left");
  EXPECT_EQ(admin_->host_audit_log(1)->front().action, "archive");

  ASSERT_TRUE(admin_->unarchive_game(kGame, "gm").ok());
  EXPECT_EQ(admin_->unarchive_game(kGame, "gm").code(), StatusCode::kFailedPrecondition);
  EXPECT_FALSE(svc_->game_summary(kGame)->archived_at.has_value());
  EXPECT_EQ(admin_->audit_log(kGame)->back().action, "unarchive");
  EXPECT_FALSE(svc_->submit_orders(kGame, kOrders, "web")->ack.refused);
}

}  // namespace
}  // namespace adj
