// GameAdmin::tick, the scheduler: due turns run, interval and fixed deadlines, early runs, pauses
// and holds, the NMR-spike and downtime guards, retries, and the bookkeeping a dead runner left. A
// real SQLite file in a temporary directory and a settable clock.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "server/app/admin.h"
#include "tests/server/admin_fixture.h"

namespace adj::testing {
namespace {

TEST_F(AdminTest, TickIgnoresGamesWithoutASchedule) {
  create();
  submit_all(1);
  now_ += 10 * kAdminDay;
  EXPECT_TRUE(admin_->tick().empty());
  EXPECT_EQ(open_turn(), 1);
  EXPECT_EQ(*store_->last_tick(), now_);
}

TEST_F(AdminTest, TickRunsADueTurnAndAdvancesTheIntervalDeadline) {
  create();
  Schedule s;
  s.kind = "interval";
  s.interval_seconds = kAdminDay;
  s.time_of_day = 18 * kAdminHour;
  s.deadline = kStartDay + kAdminDay + 18 * kAdminHour;  // 2023-11-15T18:00:00Z
  set_schedule_or_fail(s);
  submit_all(1);

  TickAction a = tick_one();
  EXPECT_EQ(a.action, "waiting");
  EXPECT_EQ(open_turn(), 1);

  now_ = *s.deadline + 30;
  a = tick_one();
  EXPECT_EQ(a.action, "ran") << a.detail;
  EXPECT_EQ(a.turn, 1);  // the turn resolved, whose reports the daemon queues
  EXPECT_EQ(open_turn(), 2);
  EXPECT_EQ(deadline(), kStartDay + 2 * kAdminDay + 18 * kAdminHour);  // a day later, at 18:00
  const auto l = log();
  ASSERT_FALSE(l.empty());
  EXPECT_EQ(l.back().action, "run");
  EXPECT_EQ(l.back().actor, "scheduler");
  EXPECT_EQ(l.back().detail["deadline"], kStartDay + 2 * kAdminDay + 18 * kAdminHour);
  EXPECT_EQ(*store_->last_tick(), now_);

  now_ += 60;
  EXPECT_EQ(tick_one().action, "waiting");
  EXPECT_EQ(open_turn(), 2);
}

TEST_F(AdminTest, IntervalDeadlineAfterALateRunIsInTheFutureAndAligned) {
  create();
  Schedule s;
  s.kind = "interval";
  s.interval_seconds = kAdminDay;
  s.time_of_day = 18 * kAdminHour;
  s.deadline = kStartDay + kAdminDay + 18 * kAdminHour;
  set_schedule_or_fail(s);
  submit_all(1);
  now_ =
      *s.deadline + 3 * kAdminDay + 12 * kAdminHour;  // long after: e.g. held, then run by the GM
  ASSERT_TRUE(admin_->run_turn(kAdminGame, false, "gm").ok());
  EXPECT_EQ(deadline(), *s.deadline + 4 * kAdminDay);
  EXPECT_GT(*deadline(), now_);
}

TEST_F(AdminTest, FixedDeadlineIsClearedAfterARun) {
  create();
  set_schedule_or_fail(fixed(kAdminStart + kAdminHour));
  submit_all(1);
  now_ += 2 * kAdminHour;
  EXPECT_EQ(tick_one().action, "ran");
  EXPECT_EQ(open_turn(), 2);
  EXPECT_FALSE(deadline());
  EXPECT_EQ(store_->schedule(kAdminGame)->kind, "fixed");
  now_ += 10 * kAdminDay;
  EXPECT_TRUE(admin_->tick().empty());  // nothing to do until the GM sets the next deadline
  EXPECT_EQ(open_turn(), 2);
}

TEST_F(AdminTest, EarlyWhenAllInRunsBeforeTheDeadline) {
  create();
  Schedule s = fixed(kAdminStart + 2 * kAdminDay);
  s.early_when_all_in = true;
  set_schedule_or_fail(s);
  for (const char* p : {"WSX", "MRC", "NUM", "EAN"}) submit(1, p);
  TickAction a = tick_one();
  EXPECT_EQ(a.action, "waiting");
  EXPECT_NE(a.detail.find("1 of 5"), std::string::npos) << a.detail;
  submit(1, "GWN");
  now_ += 60;
  a = tick_one();
  EXPECT_EQ(a.action, "ran") << a.detail;
  EXPECT_EQ(open_turn(), 2);
}

TEST_F(AdminTest, WithoutEarlyRunAllInWaitsForTheDeadline) {
  create();
  set_schedule_or_fail(fixed(kAdminStart + 2 * kAdminDay));
  submit_all(1);
  EXPECT_EQ(tick_one().action, "waiting");
  EXPECT_EQ(open_turn(), 1);
}

TEST_F(AdminTest, PausedGameIsNotRunAndGetsItsTimeBack) {
  create();
  set_schedule_or_fail(fixed(kAdminStart + kAdminHour));
  submit_all(1);
  now_ = kAdminStart + 20 * 60;  // 40 minutes left
  ASSERT_TRUE(admin_->pause(kAdminGame, "gm").ok());
  EXPECT_EQ(status(), "paused");
  now_ = kAdminStart + 5 * kAdminHour;
  EXPECT_TRUE(admin_->tick().empty());
  EXPECT_EQ(open_turn(), 1);
  ASSERT_TRUE(admin_->resume(kAdminGame, "gm").ok());
  EXPECT_EQ(status(), "open");
  EXPECT_EQ(deadline(), now_ + 40 * 60);
  EXPECT_EQ(tick_one().action, "waiting");
  now_ += 40 * 60;
  EXPECT_EQ(tick_one().action, "ran");
  EXPECT_EQ(open_turn(), 2);
}

TEST_F(AdminTest, ResumeKeepsADeadlineTheGmSetWhilePaused) {
  create();
  set_schedule_or_fail(fixed(kAdminStart + kAdminHour));
  ASSERT_TRUE(admin_->pause(kAdminGame, "gm").ok());
  ASSERT_TRUE(admin_->set_deadline(kAdminGame, kAdminStart + kAdminDay, "gm").ok());
  now_ += 2 * kAdminHour;
  ASSERT_TRUE(admin_->resume(kAdminGame, "gm").ok());
  EXPECT_EQ(deadline(), kAdminStart + kAdminDay);
}

TEST_F(AdminTest, NmrGuardHoldsWithoutHistoryAndResumeWaivesIt) {
  create();
  set_schedule_or_fail(fixed(kAdminStart + kAdminHour));
  submit(1, "WSX");  // 4 of 5 without orders: 0.8 > 0.5
  now_ += 2 * kAdminHour;
  TickAction a = tick_one();
  EXPECT_EQ(a.action, "held") << a.detail;
  EXPECT_NE(a.detail.find("4 of 5"), std::string::npos) << a.detail;
  EXPECT_EQ(status(), "held");
  EXPECT_EQ(open_turn(), 1);
  const auto l = log();
  ASSERT_FALSE(l.empty());
  EXPECT_EQ(l.back().action, "guard");
  EXPECT_EQ(l.back().actor, "scheduler");
  EXPECT_EQ(l.back().detail["guard"], "nmr");
  EXPECT_EQ(l.back().detail["players_without_orders"], Json({"EAN", "GWN", "MRC", "NUM"}));
  EXPECT_TRUE(l.back().detail["usual"].is_null());

  now_ += kAdminHour;
  EXPECT_TRUE(admin_->tick().empty());  // held games are left alone
  EXPECT_EQ(open_turn(), 1);

  // The GM has seen the hold and goes on: the turn runs with the orders it has.
  ASSERT_TRUE(admin_->resume(kAdminGame, "gm").ok());
  a = tick_one();
  EXPECT_EQ(a.action, "ran") << a.detail;
  EXPECT_EQ(open_turn(), 2);
}

TEST_F(AdminTest, NmrGuardAllowsTheUsualShareAndHoldsASpike) {
  create();
  // Turn 1 by hand with 3 of 5 missing: that is this game's usual.
  submit(1, "WSX");
  submit(1, "MRC");
  ASSERT_TRUE(admin_->run_turn(kAdminGame, false, "gm").ok());
  ASSERT_EQ(open_turn(), 2);

  // Turn 2: again 3 of 5 missing (0.6 > 0.5, but not more than usual): runs.
  set_schedule_or_fail(fixed(now_ + kAdminHour));
  submit(2, "WSX");
  submit(2, "MRC");
  now_ += 2 * kAdminHour;
  TickAction a = tick_one();
  EXPECT_EQ(a.action, "ran") << a.detail;
  ASSERT_EQ(open_turn(), 3);

  // Turn 3: nobody (1.0 >= 0.6 + 0.25): held.
  ASSERT_TRUE(admin_->set_deadline(kAdminGame, now_ + kAdminHour, "gm").ok());
  now_ += kAdminHour + 60;
  a = tick_one();
  EXPECT_EQ(a.action, "held") << a.detail;
  EXPECT_EQ(open_turn(), 3);
  EXPECT_DOUBLE_EQ(log().back().detail["usual"].get<double>(), 0.6);
}

TEST_F(AdminTest, NmrGuardRatioOneDisablesIt) {
  create();
  Schedule s = fixed(kAdminStart + kAdminHour);
  s.nmr_guard_ratio = 1.0;
  set_schedule_or_fail(s);
  now_ += 2 * kAdminHour;
  EXPECT_EQ(tick_one().action, "ran");  // nobody sent orders, and the GM accepts that
  EXPECT_EQ(open_turn(), 2);
}

TEST_F(AdminTest, DowntimeGuardExtendsAnOverdueDeadline) {
  create();
  set_schedule_or_fail(fixed(kAdminStart + kAdminHour));  // grace 3600 by default
  submit_all(1);
  EXPECT_EQ(tick_one().action, "waiting");  // the daemon is up at kAdminStart...
  now_ = kAdminStart + 4 * kAdminHour;      // ...then down for 4 hours; 3 hours overdue
  TickAction a = tick_one();
  EXPECT_EQ(a.action, "extended") << a.detail;
  EXPECT_EQ(open_turn(), 1);
  EXPECT_EQ(deadline(), now_ + kAdminHour);
  const auto l = log();
  ASSERT_FALSE(l.empty());
  EXPECT_EQ(l.back().action, "extend");
  EXPECT_EQ(l.back().actor, "scheduler");
  EXPECT_EQ(l.back().detail["reason"], "downtime");
  EXPECT_EQ(l.back().detail["from"], kAdminStart + kAdminHour);
  EXPECT_EQ(l.back().detail["down_since"], kAdminStart);

  now_ += 60;
  EXPECT_EQ(tick_one().action, "waiting");
  now_ += kAdminHour;
  EXPECT_EQ(tick_one().action, "ran");
  EXPECT_EQ(open_turn(), 2);
}

TEST_F(AdminTest, ShortDowntimeOrSlightlyOverdueRunsAtOnce) {
  create();
  set_schedule_or_fail(fixed(kAdminStart + kAdminHour));
  submit_all(1);
  EXPECT_EQ(tick_one().action, "waiting");
  now_ = kAdminStart + kAdminHour + 30 * 60;  // down 90 minutes, but only 30 minutes overdue
  EXPECT_EQ(tick_one().action, "ran");
  EXPECT_EQ(open_turn(), 2);
}

TEST_F(AdminTest, FailingRunIsRetriedThenHeldAndNeverSkipped) {
  create();
  Schedule s = fixed(kAdminStart + kAdminHour);
  s.max_attempts = 3;
  set_schedule_or_fail(s);
  submit_all(1);
  const std::string good = query("SELECT state_json FROM turn_states WHERE game_id = 'britain-1'");
  ASSERT_FALSE(good.empty());
  exec_sql("UPDATE turn_states SET state_json = '{\"broken\": true}' WHERE game_id = 'britain-1'");

  now_ += 2 * kAdminHour;
  for (int attempt = 1; attempt <= 2; ++attempt) {
    TickAction a = tick_one();
    EXPECT_EQ(a.action, "failed") << a.detail;
    EXPECT_NE(a.detail.find("attempt " + std::to_string(attempt) + " of 3"), std::string::npos)
        << a.detail;
    EXPECT_EQ(*store_->failed_attempts(kAdminGame), attempt);
    EXPECT_EQ(status(), "open");
    now_ += 60;
  }
  TickAction a = tick_one();
  EXPECT_EQ(a.action, "held") << a.detail;
  EXPECT_EQ(status(), "held");
  EXPECT_EQ(*store_->failed_attempts(kAdminGame), 3);
  const auto l = log();
  EXPECT_EQ(actions_of(l),
            (std::vector<std::string>{"create", "schedule", "failed", "failed", "failed", "hold"}));
  EXPECT_EQ(l.back().detail["reason"], "failed");
  EXPECT_EQ(l.back().detail["attempts"], 3);
  EXPECT_NE(l.back().detail["error"].get<std::string>().find("Corruption"), std::string::npos);

  now_ += kAdminHour;
  EXPECT_TRUE(admin_->tick().empty());  // held: not retried behind the GM's back
  EXPECT_EQ(open_turn(), 1);

  // The GM repairs the data and resumes: attempts start again and the turn runs.
  std::string quoted;
  for (char c : good) quoted += c == '\'' ? std::string("''") : std::string(1, c);
  exec_sql("UPDATE turn_states SET state_json = '" + quoted + "' WHERE game_id = 'britain-1'");
  ASSERT_TRUE(admin_->resume(kAdminGame, "gm").ok());
  EXPECT_EQ(*store_->failed_attempts(kAdminGame), 0);
  a = tick_one();
  EXPECT_EQ(a.action, "ran") << a.detail;
  EXPECT_EQ(open_turn(), 2);
}

TEST_F(AdminTest, GmRunOfAHeldGameReleasesTheHold) {
  create();
  set_schedule_or_fail(fixed(kAdminStart + kAdminHour));
  now_ += 2 * kAdminHour;
  ASSERT_EQ(tick_one().action, "held");  // nobody sent orders
  ASSERT_TRUE(admin_->run_turn(kAdminGame, false, "gm").ok());
  EXPECT_EQ(status(), "open");
  EXPECT_EQ(log().back().detail["released_hold"], true);
}

TEST_F(AdminTest, GmRunOfAPausedGameKeepsItPaused) {
  create();
  ASSERT_TRUE(admin_->pause(kAdminGame, "gm").ok());
  ASSERT_TRUE(admin_->run_turn(kAdminGame, false, "gm").ok());
  EXPECT_EQ(status(), "paused");
  EXPECT_EQ(open_turn(), 2);
}

TEST_F(AdminTest, TickConsidersEveryScheduledOpenGame) {
  create();
  auto scenario = bundled_scenario_published("dark-age-britain");
  ASSERT_TRUE(scenario.ok());
  (*scenario)["id"] = "britain-2";
  ASSERT_TRUE(admin_->create_game(*scenario, 7, "gm").ok());
  ASSERT_TRUE(admin_->set_schedule("britain-2", fixed(kAdminStart + kAdminDay), "gm").ok());
  set_schedule_or_fail(fixed(kAdminStart + kAdminDay));
  const std::vector<TickAction> acts = admin_->tick();
  ASSERT_EQ(acts.size(), 2u);
  EXPECT_EQ(acts[0].game, "britain-1");
  EXPECT_EQ(acts[1].game, "britain-2");
  for (const auto& a : acts) EXPECT_EQ(a.action, "waiting");
}

// The daemon's --turn-threads: each shard of a pass looks at its own games (every other one), and
// all of them judge downtime by the pass's previous tick, whenever the pass is recorded.
TEST_F(AdminTest, TickShardsShareOutTheGamesAndThePassesTime) {
  create();
  auto scenario = bundled_scenario_published("dark-age-britain");
  ASSERT_TRUE(scenario.ok());
  for (const char* id : {"britain-2", "britain-3"}) {
    (*scenario)["id"] = id;
    ASSERT_TRUE(admin_->create_game(*scenario, 7, "gm").ok());
    ASSERT_TRUE(admin_->set_schedule(id, fixed(kAdminStart + kAdminHour), "gm").ok());
  }
  set_schedule_or_fail(fixed(kAdminStart + kAdminHour));
  ASSERT_EQ(admin_->tick().size(), 3u);  // the daemon is up at kAdminStart...
  now_ = kAdminStart + 4 * kAdminHour;   // ...then down for 4 hours; 3 hours overdue
  GameAdmin::TickPass pass = admin_->begin_tick_pass();
  EXPECT_EQ(pass.now, now_);
  EXPECT_EQ(pass.last_tick, kAdminStart);
  pass.shards = 2;
  bool completed = false;
  const std::vector<TickAction> first = admin_->tick_shard(pass, false, {}, &completed);
  EXPECT_TRUE(completed);
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(first[0].game, "britain-1");
  EXPECT_EQ(first[1].game, "britain-3");
  admin_->end_tick_pass(pass);
  EXPECT_EQ(store_->last_tick().value(), now_);
  pass.shard = 1;
  const std::vector<TickAction> second = admin_->tick_shard(pass, false, {}, &completed);
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(second[0].game, "britain-2");
  for (const auto* acts : {&first, &second})
    for (const TickAction& a : *acts) EXPECT_EQ(a.action, "extended") << a.game << ": " << a.detail;
}

AuditEntry admin_audit_entry(const char* action, int turn, UnixTime at) {
  AuditEntry e;
  e.action = action;
  e.at = at;
  e.detail = Json{{"turn", turn}};
  return e;
}

// A daemon killed between a turn's commit and queueing its reports, while the next turn already
// ran elsewhere: the older turn is still found (not only the last one), once the grace is over.
TEST(TurnMissingReports, FindsAnyCommittedTurnWhoseReportsWereNeverQueued) {
  const UnixTime g = GameAdmin::kBookkeepingGraceSeconds;
  std::vector<AuditEntry> log = {
      admin_audit_entry("run", 1, 1000), admin_audit_entry("run", 2, 1004),
      admin_audit_entry("reports", 2, 1005), admin_audit_entry("run", 3, 1008),
      admin_audit_entry("reports", 3, 1009)};
  EXPECT_EQ(GameAdmin::turns_missing_reports(log, 4, 1000 + g + 10), std::vector<int>{1});
  EXPECT_EQ(GameAdmin::turns_missing_reports(log, 4, 1000 + g - 1), std::vector<int>{})
      << "in its grace";
  EXPECT_EQ(GameAdmin::turns_missing_reports(log, 1, 1000 + g + 10), std::vector<int>{})
      << "turn 1 is not committed (rolled back)";
  EXPECT_EQ(GameAdmin::turns_missing_reports(log, 4, 1000 + GameAdmin::kRecoverySeconds + 1),
            std::vector<int>{})
      << "too old to look at";
  log.push_back(admin_audit_entry("reports", 1, 1100));
  EXPECT_EQ(GameAdmin::turns_missing_reports(log, 4, 1000 + g + 200), std::vector<int>{});
  // A rerun of turn 3 after a rollback needs reports of its own.
  log.push_back(admin_audit_entry("run", 3, 2000));
  EXPECT_EQ(GameAdmin::turns_missing_reports(log, 4, 2000 + g), std::vector<int>{3});
  // Two turns missing theirs: both are found (one that keeps failing does not hide the other).
  log.push_back(admin_audit_entry("run", 2, 2001));
  EXPECT_EQ(GameAdmin::turns_missing_reports(log, 4, 2001 + g), (std::vector<int>{2, 3}));
}

// The process that committed a game's last turn (the game finished) died before its bookkeeping
// and its reports: another daemon's tick completes the bookkeeping after the grace (the game is
// never due again), then asks for the reports, then leaves the game alone.
TEST_F(AdminTest, AFinishedGameWhoseRunnerDiedGetsItsBookkeepingAndReports) {
  create();
  submit_all(1);
  ASSERT_TRUE(svc_->run_turn(kAdminGame, false).ok());  // the commit alone
  ASSERT_TRUE(store_->set_game_status(kAdminGame, "finished").ok());
  std::vector<TickAction> acts = admin_->tick(true);
  ASSERT_EQ(acts.size(), 1u);
  EXPECT_EQ(acts[0].action, "waiting");
  const auto before = actions_of(log());
  EXPECT_EQ(std::count(before.begin(), before.end(), "run"), 0);

  now_ += GameAdmin::kBookkeepingGraceSeconds + 1;
  acts = admin_->tick(true);
  ASSERT_EQ(acts.size(), 1u);
  EXPECT_EQ(acts[0].action, "ran") << acts[0].detail;
  const auto after = actions_of(log());
  EXPECT_EQ(std::count(after.begin(), after.end(), "run"), 1);

  // The daemon queues the reports on "ran"; had it died again, they are asked for after a grace.
  EXPECT_TRUE(admin_->tick(true).empty());
  now_ += GameAdmin::kBookkeepingGraceSeconds;
  acts = admin_->tick(true);
  ASSERT_EQ(acts.size(), 1u);
  EXPECT_EQ(acts[0].action, "reports");
  EXPECT_EQ(acts[0].turn, 1);
  AuditEntry queued;  // what MailIngest::record_reports_queued writes
  queued.game = kAdminGame;
  queued.at = now_;
  queued.actor = "mail";
  queued.action = "reports";
  queued.detail = Json{{"turn", 1}, {"queued", 5}};
  ASSERT_TRUE(store_->append_audit(queued).ok());
  EXPECT_TRUE(admin_->tick(true).empty());
  EXPECT_EQ(status(), "finished");
}

// A game run by hand (no schedule) whose runner died after the commit: its bookkeeping is
// completed after the grace and its reports asked for, as for a scheduled game.
TEST_F(AdminTest, AnUnscheduledGameWhoseRunnerDiedGetsItsBookkeepingAndReports) {
  create();
  submit_all(1);
  ASSERT_TRUE(svc_->run_turn(kAdminGame, false).ok());  // the commit alone
  std::vector<TickAction> acts = admin_->tick(true);
  ASSERT_EQ(acts.size(), 1u);
  EXPECT_EQ(acts[0].action, "waiting");
  now_ += GameAdmin::kBookkeepingGraceSeconds + 1;
  acts = admin_->tick(true);
  ASSERT_EQ(acts.size(), 1u);
  EXPECT_EQ(acts[0].action, "ran") << acts[0].detail;
  EXPECT_TRUE(admin_->tick(true).empty());
  now_ += GameAdmin::kBookkeepingGraceSeconds;
  acts = admin_->tick(true);
  ASSERT_EQ(acts.size(), 1u);
  EXPECT_EQ(acts[0].action, "reports");
  EXPECT_EQ(acts[0].turn, 1);
  EXPECT_EQ(status(), "open");
  EXPECT_EQ(open_turn(), 2);
}

// A held game found settled is looked at again when its last turn is run again at the same open
// turn (rollback and rerun), and not before it is settled: the run's reports are asked for.
TEST_F(AdminTest, AHeldGameIsLookedAtAgainAfterARerunAtTheSameTurn) {
  const auto append = [&](const char* action) {
    AuditEntry e;
    e.game = kAdminGame;
    e.at = now_;
    e.actor = "test";
    e.action = action;
    e.detail = Json{{"turn", 1}};
    ASSERT_TRUE(store_->append_audit(e).ok());
  };
  create();
  submit_all(1);
  ASSERT_TRUE(svc_->run_turn(kAdminGame, false).ok());
  append("run");
  ASSERT_TRUE(store_->set_game_status(kAdminGame, "held").ok());
  EXPECT_TRUE(admin_->tick(true).empty()) << "in the grace: not missing yet";
  append("reports");
  EXPECT_TRUE(admin_->tick(true).empty()) << "settled";

  now_ += 100;
  ASSERT_TRUE(store_->rollback(kAdminGame, 1).ok());
  ASSERT_TRUE(store_->set_game_status(kAdminGame, "open").ok());
  ASSERT_TRUE(svc_->run_turn(kAdminGame, false).ok());
  ASSERT_TRUE(store_->set_game_status(kAdminGame, "held").ok());
  append("run");  // the rerun's process then died before queueing its reports
  ASSERT_EQ(open_turn(), 2);
  now_ += GameAdmin::kBookkeepingGraceSeconds + 1;
  std::vector<TickAction> acts = admin_->tick(true);
  ASSERT_EQ(acts.size(), 1u);
  EXPECT_EQ(acts[0].action, "reports");
  EXPECT_EQ(acts[0].turn, 1);
  append("reports");
  EXPECT_TRUE(admin_->tick(true).empty());
}

}  // namespace
}  // namespace adj::testing
