// GameAdmin's deadline notices: setting, moving, extending or removing the open turn's deadline
// tells every player once; an unchanged deadline tells nobody. deadline_after_report: what the
// latest report states, nothing for older ones. A real SQLite file and a settable clock.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "server/app/time_text.h"
#include "tests/server/admin_fixture.h"

namespace adj {
namespace {

class AdminDeadline : public ::adj::testing::BritainAdmin {
 protected:
  static bool has(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
  }
};

TEST_F(AdminDeadline, SettingADeadlineTellsEveryPlayerOnce) {
  const UnixTime at = kStart + 24 * kHour;
  ASSERT_TRUE(admin_->set_deadline(kGame, at, "gm").ok());
  auto notices = notices_of("deadline");
  ASSERT_EQ(notices.size(), 1u);
  const Notice& n = notices[0];
  EXPECT_EQ(n.players, (std::vector<std::string>{"EAN", "GWN", "MRC", "NUM", "WSX"}));
  EXPECT_EQ(n.subject, "turn 1 is due by " + utc_minutes(at));
  EXPECT_TRUE(has(n.text, "The game master set the deadline for turn 1 of Dark Age Britain"))
      << n.text;
  EXPECT_TRUE(has(n.text, "Orders for turn 1 are due by " + utc_minutes(at) + ".")) << n.text;
  EXPECT_FALSE(has(n.text, "it was")) << n.text;
  EXPECT_EQ(n.thread, "turns:britain-1");

  // The same deadline again through the schedule: nothing changed, nobody is told.
  Schedule s = *admin_->schedule(kGame);
  ASSERT_TRUE(admin_->set_schedule(kGame, s, "gm").ok());
  EXPECT_EQ(notices_of("deadline").size(), 1u);
}

TEST_F(AdminDeadline, MovingExtendingAndRemovingEachTellTheOldAndTheNew) {
  const UnixTime first = kStart + 24 * kHour;
  const UnixTime moved = first + 6 * kHour;
  ASSERT_TRUE(admin_->set_deadline(kGame, first, "gm").ok());
  ASSERT_TRUE(admin_->set_deadline(kGame, moved, "gm").ok());
  ASSERT_TRUE(admin_->extend_deadline(kGame, 2 * kHour, "gm").ok());
  Schedule none;
  none.kind = "none";
  ASSERT_TRUE(admin_->set_schedule(kGame, none, "gm").ok());

  auto notices = notices_of("deadline");
  ASSERT_EQ(notices.size(), 4u);
  EXPECT_TRUE(has(notices[1].text, "(it was " + utc_minutes(first) + ")")) << notices[1].text;
  EXPECT_TRUE(has(notices[1].text, "due by " + utc_minutes(moved))) << notices[1].text;
  EXPECT_TRUE(has(notices[2].text, "extended the deadline for turn 1")) << notices[2].text;
  EXPECT_TRUE(has(notices[2].text, "due by " + utc_minutes(moved + 2 * kHour))) << notices[2].text;
  EXPECT_EQ(notices[3].subject, "turn 1 has no deadline");
  EXPECT_TRUE(has(notices[3].text, "removed the deadline")) << notices[3].text;
  EXPECT_TRUE(has(notices[3].text, "the game master runs it by hand")) << notices[3].text;
}

TEST_F(AdminDeadline, TheLatestReportStatesTheOpenTurnsDeadlineAndOlderOnesNothing) {
  ASSERT_TRUE(admin_->set_deadline(kGame, kStart + kHour, "gm").ok());
  EXPECT_FALSE(admin_->deadline_after_report(kGame, 1)) << "turn 1 has not run";
  auto zero = admin_->deadline_after_report(kGame, 0);
  ASSERT_TRUE(zero);
  EXPECT_EQ(zero->turn, 1);
  EXPECT_EQ(zero->at, kStart + kHour);

  // A fixed deadline is used up by the run: the report of turn 1 says none is set for turn 2.
  run();
  auto after = admin_->deadline_after_report(kGame, 1);
  ASSERT_TRUE(after);
  EXPECT_EQ(after->turn, 2);
  EXPECT_FALSE(after->at);
  EXPECT_EQ(deadline_sentence(after->turn, after->at),
            "No deadline is set for turn 2: the game master runs it by hand.");

  const UnixTime next = kStart + 48 * kHour;
  ASSERT_TRUE(admin_->set_deadline(kGame, next, "gm").ok());
  EXPECT_EQ(admin_->deadline_after_report(kGame, 1)->at, next);
  run();
  EXPECT_FALSE(admin_->deadline_after_report(kGame, 1)) << "an older report";
  EXPECT_EQ(notices_of("deadline").size(), 2u) << "runs tell nothing of their own";
}

}  // namespace
}  // namespace adj
