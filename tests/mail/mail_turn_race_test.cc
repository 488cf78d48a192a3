// Mail that arrives while the game's turn is being resolved (by the daemon's scheduler or by
// `adjutant turn run` in another process) is not acknowledged for a turn the run will not read:
// the message stays in the inbox, and the next pass answers it against the new open turn, saying
// so. A real SQLite file; the run is marked as another process would mark it.
#include <gtest/gtest.h>

#include "tests/mail/mail_test_util.h"

namespace adj {
namespace {

using mail_test::MailFixture;

class MailTurnRace : public MailFixture {};

TEST_F(MailTurnRace, OrdersArrivingDuringARunAreAnsweredAfterItForTheNewTurn) {
  // Another process has started resolving turn 1.
  ASSERT_TRUE(store_->begin_resolving("britain-1", 1, now_).ok());
  bool dup = false;
  auto id = ingest_->accept(
      "From: wessex@example.org\nSubject: orders\nMessage-ID: <race-1@x>\n\n"
      "GAME britain-1\nPLAYER WSX cerdic\nDEFEND WIN\n",
      "pipe", {}, &dup);
  ASSERT_TRUE(id.ok()) << id.status().to_string();
  auto during = ingest_->process(*id);
  ASSERT_FALSE(during.ok());  // not answered yet: nothing acknowledged, nothing stored
  EXPECT_NE(during.status().message().find("being resolved"), std::string::npos)
      << during.status().to_string();
  EXPECT_TRUE(submissions().empty());
  EXPECT_TRUE(outbox().empty());
  // A long run sees many mail passes: none of them uses up the message's tries (a message
  // marked failed here would be an acknowledged order lost).
  for (int pass = 0; pass < 2 * mail::MailConfig{}.max_process_attempts; ++pass) {
    auto again = ingest_->process(*id);
    ASSERT_FALSE(again.ok());
    EXPECT_EQ(again.status().code(), StatusCode::kUnavailable) << again.status().to_string();
  }
  auto still = store_->inbox_message(*id);
  ASSERT_TRUE(still.ok());
  EXPECT_EQ(still->state, "new");
  EXPECT_EQ(still->attempts, 0);

  // While the other run's mark holds, this process cannot run the turn too.
  EXPECT_EQ(services_->run_turn("britain-1", false).status().code(), StatusCode::kUnavailable);
  // The other run died: once its lease has run out this process takes the turn over and commits.
  now_ += resolving_lease_seconds();
  auto run = services_->run_turn("britain-1", false);
  ASSERT_TRUE(run.ok()) << run.status().to_string();
  auto after = ingest_->process(*id);
  ASSERT_TRUE(after.ok()) << after.status().to_string();
  const auto subs = submissions();
  ASSERT_EQ(subs.size(), 1u);
  EXPECT_EQ(subs[0].turn, 2);
  EXPECT_TRUE(subs[0].current);
  bool acked = false;
  for (const auto& m : outbox())
    if (m.kind == "ack") {
      acked = true;
      EXPECT_NE(parse(m).text.find("turn 2"), std::string::npos) << parse(m).text;
    }
  EXPECT_TRUE(acked);
}

}  // namespace
}  // namespace adj
