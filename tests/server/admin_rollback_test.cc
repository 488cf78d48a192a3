// GameAdmin's rollback and re-run: a rollback tells every player (a notice with the turn, the
// orders kept and the deadline) and neither it nor the re-run of the reopened turn moves an
// interval deadline; a fixed deadline is used up by the re-run as by the first run. A real
// SQLite file and a settable clock.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "server/app/time_text.h"
#include "tests/server/admin_fixture.h"

namespace adj {
namespace {

class AdminRollback : public ::adj::testing::BritainAdmin {
 protected:
  void schedule(const std::string& kind, UnixTime at) {
    Schedule s;
    s.kind = kind;
    s.deadline = at;
    if (kind == "interval") s.interval_seconds = kDay;
    ASSERT_TRUE(admin_->set_schedule(kGame, s, "gm").ok());
  }
};

TEST_F(AdminRollback, NeitherTheRollbackNorTheRerunMovesAnIntervalDeadline) {
  schedule("interval", kStart + kHour);
  run();
  const UnixTime next = kStart + kHour + kDay;
  ASSERT_EQ(deadline(), next);

  now_ += 10 * 60;
  ASSERT_TRUE(admin_->rollback(kGame, 1, "gm").ok());
  EXPECT_EQ(deadline(), next);
  auto notices = notices_of("rollback");
  ASSERT_EQ(notices.size(), 1u);
  const Notice& n = notices.front();
  EXPECT_EQ(n.kind, "rollback");
  EXPECT_EQ(n.players, (std::vector<std::string>{"EAN", "GWN", "MRC", "NUM", "WSX"}));
  EXPECT_EQ(n.subject, "turn 1 reopened by the game master");
  EXPECT_NE(n.text.find("The orders on file for turn 1 are kept"), std::string::npos) << n.text;
  EXPECT_NE(n.text.find("Orders for turn 1 are due by " + utc_minutes(next)), std::string::npos)
      << n.text;

  now_ += 10 * 60;
  run();  // the re-run
  EXPECT_EQ(deadline(), next);
  // The next turn's run moves it on as usual.
  now_ = next;
  run();
  EXPECT_EQ(deadline(), next + kDay);
}

TEST_F(AdminRollback, TwoRollbacksAreTwoNotices) {
  schedule("none", 0);
  run();
  ASSERT_TRUE(admin_->rollback(kGame, 1, "gm").ok());
  run();
  ASSERT_TRUE(admin_->rollback(kGame, 1, "gm").ok());
  EXPECT_EQ(notices_of("rollback").size(), 2u);
}

TEST_F(AdminRollback, AFixedDeadlineIsUsedUpByTheRerunAsByTheFirstRun) {
  schedule("fixed", kStart + kHour);
  now_ = kStart + kHour;
  run();
  EXPECT_FALSE(deadline());
  ASSERT_TRUE(admin_->rollback(kGame, 1, "gm").ok());
  schedule("fixed",
           kStart + 2 * kHour);  // the GM's new deadline for the reopened turn
  now_ = kStart + 2 * kHour;
  run();
  EXPECT_FALSE(deadline());
}

}  // namespace
}  // namespace adj
