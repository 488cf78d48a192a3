// GameAdmin's rollback and re-run: a rollback tells every player (a notice with the turn, the
// orders kept and the deadline) and neither it nor the re-run of the reopened turn moves an
// interval deadline; a fixed deadline is used up by the re-run as by the first run. A real
// SQLite file and a settable clock.
#include <gtest/gtest.h>

#include <memory>

#include "rules/game/scenario.h"
#include "server/app/admin.h"
#include "server/app/time_text.h"
#include "storage/sqlite/sqlite_store.h"
#include "tests/support/temp_dir.h"

namespace adj {
namespace {

constexpr const char* kRollbackGame = "britain-1";
constexpr UnixTime kRollbackHour = 3600;
constexpr UnixTime kRollbackDay = 86400;
constexpr UnixTime kRollbackStart = 1'700'000'000;

class AdminRollback : public ::testing::Test {
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
    auto scenario = bundled_scenario_published("dark-age-britain");
    ASSERT_TRUE(scenario.ok());
    ASSERT_TRUE(admin_->create_game(*scenario, 42, "gm").ok());
  }
  void schedule(const std::string& kind, UnixTime deadline) {
    Schedule s;
    s.kind = kind;
    s.deadline = deadline;
    if (kind == "interval") s.interval_seconds = kRollbackDay;
    ASSERT_TRUE(admin_->set_schedule(kRollbackGame, s, "gm").ok());
  }
  std::optional<UnixTime> deadline() { return store_->schedule(kRollbackGame)->deadline; }
  void run() {
    auto out = admin_->run_turn(kRollbackGame, false, "gm");
    ASSERT_TRUE(out.ok()) << out.status().to_string();
  }

  ::adj::testing::TempDir dir_;
  UnixTime now_ = kRollbackStart;
  std::unique_ptr<SqliteStore> store_;
  std::unique_ptr<Stores> stores_;
  std::unique_ptr<Services> svc_;
  std::unique_ptr<GameAdmin> admin_;
};

TEST_F(AdminRollback, NeitherTheRollbackNorTheRerunMovesAnIntervalDeadline) {
  schedule("interval", kRollbackStart + kRollbackHour);
  run();
  const UnixTime next = kRollbackStart + kRollbackHour + kRollbackDay;
  ASSERT_EQ(deadline(), next);

  now_ += 10 * 60;
  ASSERT_TRUE(admin_->rollback(kRollbackGame, 1, "gm").ok());
  EXPECT_EQ(deadline(), next);
  auto notices = store_->notices(kRollbackGame);
  ASSERT_TRUE(notices.ok());
  ASSERT_EQ(notices->size(), 1u);
  const Notice& n = notices->front();
  EXPECT_EQ(n.kind, "rollback");
  EXPECT_EQ(n.players, (std::vector<std::string>{"EAN", "GWN", "MRC", "NUM", "WSX"}));
  EXPECT_EQ(n.subject, "turn 1 reopened by the game master");
  EXPECT_NE(n.text.find("The orders on file for turn 1 are kept"), std::string::npos) << n.text;
  EXPECT_NE(n.text.find("The deadline is " + utc_minutes(next)), std::string::npos) << n.text;

  now_ += 10 * 60;
  run();  // the re-run
  EXPECT_EQ(deadline(), next);
  // The next turn's run moves it on as usual.
  now_ = next;
  run();
  EXPECT_EQ(deadline(), next + kRollbackDay);
}

TEST_F(AdminRollback, TwoRollbacksAreTwoNotices) {
  schedule("none", 0);
  run();
  ASSERT_TRUE(admin_->rollback(kRollbackGame, 1, "gm").ok());
  run();
  ASSERT_TRUE(admin_->rollback(kRollbackGame, 1, "gm").ok());
  auto notices = store_->notices(kRollbackGame);
  ASSERT_TRUE(notices.ok());
  EXPECT_EQ(notices->size(), 2u);
}

TEST_F(AdminRollback, AFixedDeadlineIsUsedUpByTheRerunAsByTheFirstRun) {
  schedule("fixed", kRollbackStart + kRollbackHour);
  now_ = kRollbackStart + kRollbackHour;
  run();
  EXPECT_FALSE(deadline());
  ASSERT_TRUE(admin_->rollback(kRollbackGame, 1, "gm").ok());
  schedule("fixed",
           kRollbackStart + 2 * kRollbackHour);  // the GM's new deadline for the reopened turn
  now_ = kRollbackStart + 2 * kRollbackHour;
  run();
  EXPECT_FALSE(deadline());
}

}  // namespace
}  // namespace adj
