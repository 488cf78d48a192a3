// GameAdmin: GM actions and their audit log, schedules and deadlines, the scheduler's tick with its
// guards, sign-in checks. A real SQLite file in a temporary directory and a settable clock.
#include "server/app/admin.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "rules/game/scenario.h"
#include "storage/sqlite/database.h"
#include "storage/sqlite/sqlite_store.h"
#include "tests/support/cli_runner.h"
#include "tests/support/temp_dir.h"

namespace adj {
namespace {

constexpr const char* kAdminGame = "britain-1";
constexpr UnixTime kAdminHour = 3600;
constexpr UnixTime kAdminDay = 86400;
// 2023-11-14T22:13:20Z; that day starts at 1'699'920'000.
constexpr UnixTime kAdminStart = 1'700'000'000;
constexpr UnixTime kStartDay = 1'699'920'000;
const char* const kAdminPlayers[] = {"WSX", "MRC", "NUM", "EAN", "GWN"};

std::vector<std::string> actions_of(const std::vector<AuditEntry>& log) {
  std::vector<std::string> out;
  for (const auto& e : log) out.push_back(e.action);
  return out;
}

class AdminTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = SqliteStore::open(db_path());
    ASSERT_TRUE(opened.ok()) << opened.status().to_string();
    store_ = std::move(opened).value();
    stores_ =
        std::make_unique<Stores>(Stores{*store_, *store_, *store_, *store_, *store_, *store_});
    const Clock clock = [this] { return now_; };
    svc_ = std::make_unique<Services>(*stores_, clock);
    admin_ = std::make_unique<GameAdmin>(*svc_, *stores_, *store_, clock);
  }

  std::string db_path() const { return dir_.file("adjutant.db"); }

  void create() {
    auto scenario = bundled_scenario_published("dark-age-britain");
    ASSERT_TRUE(scenario.ok()) << scenario.status().to_string();
    auto g = admin_->create_game(*scenario, 42, "gm");
    ASSERT_TRUE(g.ok()) << g.status().to_string();
    ASSERT_EQ(g->id, kAdminGame);
  }

  // Submits the bundled order file of `player` for `turn` (1 or 2).
  void submit(int turn, const std::string& player) {
    const std::string text = ::adj::testing::read_file(
        std::string(ADJ_SOURCE_DIR) + "/schemas/scenarios/dark-age-britain/turn" +
        std::to_string(turn) + "-" + player + ".txt");
    ASSERT_FALSE(text.empty()) << player;
    auto out = svc_->submit_orders(kAdminGame, text, "web");
    ASSERT_TRUE(out.ok()) << out.status().to_string();
    ASSERT_FALSE(out->ack.refused) << player << ": " << out->ack.refusal;
  }
  void submit_all(int turn) {
    for (const char* p : kAdminPlayers) submit(turn, p);
  }

  int open_turn() { return store_->game_summary(kAdminGame)->turn; }
  std::string status() { return store_->game_summary(kAdminGame)->status; }
  std::optional<UnixTime> deadline() { return store_->schedule(kAdminGame)->deadline; }
  std::vector<AuditEntry> log() {
    auto l = admin_->audit_log(kAdminGame);
    EXPECT_TRUE(l.ok()) << l.status().to_string();
    return l.ok() ? *l : std::vector<AuditEntry>{};
  }

  // The one action of the tick (every test has one scheduled game), or "" when none.
  TickAction tick_one() {
    std::vector<TickAction> acts = admin_->tick();
    EXPECT_LE(acts.size(), 1u);
    if (acts.empty()) return {};
    EXPECT_EQ(acts[0].game, kAdminGame);
    return acts[0];
  }

  Schedule fixed(UnixTime deadline) {
    Schedule s;
    s.kind = "fixed";
    s.deadline = deadline;
    return s;
  }
  void set_schedule_or_fail(const Schedule& s) {
    Status st = admin_->set_schedule(kAdminGame, s, "gm");
    ASSERT_TRUE(st.ok()) << st.to_string();
  }

  void exec_sql(const std::string& sql) {
    auto db = sqlite::Database::open(db_path());
    ASSERT_TRUE(db.ok());
    Status s = db->exec(sql);
    ASSERT_TRUE(s.ok()) << s.to_string();
  }
  std::string query(const std::string& sql) {
    auto db = sqlite::Database::open(db_path());
    EXPECT_TRUE(db.ok());
    auto st = db->prepare(sql);
    EXPECT_TRUE(st.ok()) << st.status().to_string();
    if (!st.ok()) return "";
    auto row = st->step();
    return row.ok() && *row ? st->column_text(0) : "";
  }

  ::adj::testing::TempDir dir_;
  UnixTime now_ = kAdminStart;
  std::unique_ptr<SqliteStore> store_;
  std::unique_ptr<Stores> stores_;
  std::unique_ptr<Services> svc_;
  std::unique_ptr<GameAdmin> admin_;
};

// ---- GM actions and the audit log ----

TEST_F(AdminTest, CreateGameIsAuditedWithoutTheSeed) {
  create();
  const auto l = log();
  ASSERT_EQ(l.size(), 1u);
  EXPECT_EQ(l[0].action, "create");
  EXPECT_EQ(l[0].actor, "gm");
  EXPECT_EQ(l[0].at, kAdminStart);
  EXPECT_EQ(l[0].detail["turn"], 1);
  EXPECT_FALSE(l[0].detail.contains("seed"));
}

TEST_F(AdminTest, EveryGmActionIsAudited) {
  create();
  set_schedule_or_fail(fixed(kAdminStart + kAdminDay));
  ASSERT_TRUE(admin_->set_deadline(kAdminGame, kAdminStart + 2 * kAdminDay, "gm").ok());
  ASSERT_TRUE(admin_->extend_deadline(kAdminGame, kAdminHour, "gm").ok());
  ASSERT_TRUE(admin_->pause(kAdminGame, "gm").ok());
  ASSERT_TRUE(admin_->resume(kAdminGame, "gm").ok());
  submit_all(1);
  auto preview = admin_->run_turn(kAdminGame, true, "gm");
  ASSERT_TRUE(preview.ok()) << preview.status().to_string();
  EXPECT_EQ(open_turn(), 1);
  auto run = admin_->run_turn(kAdminGame, false, "gm");
  ASSERT_TRUE(run.ok()) << run.status().to_string();
  EXPECT_EQ(open_turn(), 2);
  ASSERT_TRUE(admin_->rollback(kAdminGame, 1, "gm").ok());
  EXPECT_EQ(open_turn(), 1);

  const auto l = log();
  EXPECT_EQ(actions_of(l),
            (std::vector<std::string>{"create", "schedule", "deadline", "extend", "pause", "resume",
                                      "preview", "run", "rollback"}));
  for (const auto& e : l) EXPECT_EQ(e.actor, "gm") << e.action;
  EXPECT_EQ(l[1].detail["schedule"]["kind"], "fixed");
  EXPECT_EQ(l[2].detail["from"], kAdminStart + kAdminDay);
  EXPECT_EQ(l[2].detail["to"], kAdminStart + 2 * kAdminDay);
  EXPECT_EQ(l[3].detail["to"], kAdminStart + 2 * kAdminDay + kAdminHour);
  EXPECT_EQ(l[6].detail["digest"], preview->digest);
  EXPECT_EQ(l[7].detail["turn"], 1);
  EXPECT_EQ(l[7].detail["digest"], run->digest);
  EXPECT_EQ(l[7].detail["players_without_orders"], Json::array());
  EXPECT_EQ(l[8].detail["turn"], 1);
  EXPECT_EQ(l[8].detail["from_turn"], 2);
}

TEST_F(AdminTest, FailedGmActionsWriteNothing) {
  create();
  EXPECT_EQ(admin_->rollback(kAdminGame, 5, "gm").code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(admin_->resume(kAdminGame, "gm").code(),
            StatusCode::kFailedPrecondition);  // not paused
  ASSERT_TRUE(admin_->pause(kAdminGame, "gm").ok());
  EXPECT_EQ(admin_->pause(kAdminGame, "gm").code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(actions_of(log()), (std::vector<std::string>{"create", "pause"}));
  EXPECT_EQ(admin_->pause("nope", "gm").code(), StatusCode::kNotFound);
  EXPECT_EQ(admin_->run_turn("nope", false, "gm").status().code(), StatusCode::kNotFound);
}

TEST_F(AdminTest, ScheduleValidation) {
  create();
  const auto invalid = [&](Schedule s, const char* what) {
    Status st = admin_->set_schedule(kAdminGame, s, "gm");
    EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << what << ": " << st.to_string();
  };
  Schedule interval;
  interval.kind = "interval";
  interval.interval_seconds = kAdminDay;

  invalid(fixed(kAdminStart - 1), "deadline in the past");
  invalid(fixed(kAdminStart), "deadline now");
  Schedule s = fixed(kAdminStart + kAdminDay);
  s.kind = "weekly";
  invalid(s, "unknown kind");
  s = interval;
  s.interval_seconds = 0;
  invalid(s, "interval 0");
  s.interval_seconds = -kAdminDay;
  invalid(s, "negative interval");
  s = interval;
  s.time_of_day = 86400;
  invalid(s, "time of day 86400");
  s.time_of_day = -1;
  invalid(s, "negative time of day");
  s = interval;
  s.interval_seconds = 36 * kAdminHour;
  s.time_of_day = 0;
  invalid(s, "time of day with a part-day interval");
  s = fixed(kAdminStart + kAdminDay);
  s.max_attempts = 0;
  invalid(s, "max_attempts 0");
  s = fixed(kAdminStart + kAdminDay);
  s.nmr_guard_ratio = 1.01;
  invalid(s, "ratio above 1");
  s = fixed(kAdminStart + kAdminDay);
  s.downtime_grace_seconds = -1;
  invalid(s, "negative grace");

  EXPECT_EQ(admin_->set_deadline(kAdminGame, kAdminStart, "gm").code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(admin_->extend_deadline(kAdminGame, kAdminHour, "gm").code(),
            StatusCode::kFailedPrecondition);  // no deadline yet
  EXPECT_EQ(admin_->set_schedule("nope", fixed(kAdminStart + kAdminDay), "gm").code(),
            StatusCode::kNotFound);
  EXPECT_EQ(store_->schedule(kAdminGame)->kind, "none");
  EXPECT_EQ(actions_of(log()), std::vector<std::string>{"create"});

  set_schedule_or_fail(fixed(kAdminStart + kAdminDay));
  EXPECT_EQ(admin_->extend_deadline(kAdminGame, 0, "gm").code(), StatusCode::kInvalidArgument);
  // Re-saving a schedule whose stored deadline has passed is allowed; a new past one is not.
  now_ = kAdminStart + 2 * kAdminDay;
  Schedule again = fixed(kAdminStart + kAdminDay);
  again.early_when_all_in = true;
  set_schedule_or_fail(again);
  invalid(fixed(kAdminStart + kAdminDay + 1), "another past deadline");
}

TEST_F(AdminTest, ScheduleFieldsTheKindDoesNotUseAreDropped) {
  create();
  Schedule s = fixed(kAdminStart + kAdminDay);
  s.time_of_day = 3600;
  set_schedule_or_fail(s);
  EXPECT_FALSE(store_->schedule(kAdminGame)->time_of_day);
  EXPECT_EQ(deadline(), kAdminStart + kAdminDay);
  s.kind = "none";  // e.g. a form that keeps the current deadline
  set_schedule_or_fail(s);
  EXPECT_EQ(store_->schedule(kAdminGame)->kind, "none");
  EXPECT_FALSE(deadline());
}

TEST_F(AdminTest, SetDeadlineTurnsANoneScheduleFixed) {
  create();
  ASSERT_TRUE(admin_->set_deadline(kAdminGame, kAdminStart + kAdminDay, "gm").ok());
  EXPECT_EQ(store_->schedule(kAdminGame)->kind, "fixed");
  EXPECT_EQ(deadline(), kAdminStart + kAdminDay);
}

TEST_F(AdminTest, ExtendingAnOverdueDeadlineCountsFromNow) {
  create();
  set_schedule_or_fail(fixed(kAdminStart + kAdminHour));
  now_ = kAdminStart + 3 * kAdminHour;
  ASSERT_TRUE(admin_->extend_deadline(kAdminGame, kAdminHour, "gm").ok());
  EXPECT_EQ(deadline(), kAdminStart + 4 * kAdminHour);
}

TEST_F(AdminTest, IntervalScheduleGetsAFirstDeadlineAtTheTimeOfDay) {
  create();
  Schedule s;
  s.kind = "interval";
  s.interval_seconds = 2 * kAdminDay;
  s.time_of_day = 18 * kAdminHour;
  set_schedule_or_fail(s);
  // Now + 2 days falls on 2023-11-16; at 18:00 UTC that day.
  EXPECT_EQ(deadline(), kStartDay + 2 * kAdminDay + 18 * kAdminHour);

  s.time_of_day.reset();
  s.deadline.reset();
  set_schedule_or_fail(s);
  EXPECT_EQ(deadline(), kAdminStart + 2 * kAdminDay);
}

// ---- Queries and sign-in ----

TEST_F(AdminTest, SubmissionStatusCountsLinesOfTheCurrentFile) {
  create();
  now_ = kAdminStart + 10;
  auto out = svc_->submit_orders(
      kAdminGame, "GAME britain-1\nPLAYER WSX cerdic\nDEFEND HAM\nMOVE HAM NOWHERE 3\n", "web");
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  ASSERT_FALSE(out->ack.refused) << out->ack.refusal;
  // A refused file (wrong secret) is not current.
  ASSERT_TRUE(
      svc_->submit_orders(kAdminGame, "GAME britain-1\nPLAYER MRC wrong\nDEFEND LON\n", "web")
          .ok());

  auto st = admin_->submission_status(kAdminGame);
  ASSERT_TRUE(st.ok()) << st.status().to_string();
  ASSERT_EQ(st->size(), 5u);
  const auto wsx = std::find_if(st->begin(), st->end(), [](auto& p) { return p.player == "WSX"; });
  ASSERT_NE(wsx, st->end());
  EXPECT_TRUE(wsx->has_orders);
  EXPECT_EQ(wsx->name, "Wessex");
  EXPECT_EQ(wsx->received_at, kAdminStart + 10);
  EXPECT_EQ(wsx->accepted, out->ack.accepted_count());
  EXPECT_EQ(wsx->rejected, out->ack.rejected_count());
  EXPECT_GE(wsx->accepted, 1);
  EXPECT_GE(wsx->rejected, 1);
  for (const auto& p : *st) {
    if (p.player == "WSX") continue;
    EXPECT_FALSE(p.has_orders) << p.player;
    EXPECT_FALSE(p.received_at) << p.player;
    EXPECT_EQ(p.accepted + p.rejected, 0) << p.player;
  }
  EXPECT_EQ(admin_->submission_status("nope").status().code(), StatusCode::kNotFound);
}

TEST_F(AdminTest, LinkTokensAreIssuedOnceAndOpenOnlyTheirPlayer) {
  create();
  auto wsx = admin_->issue_player_token(kAdminGame, "wsx", "gm");  // codes are case-insensitive
  ASSERT_TRUE(wsx.ok()) << wsx.status().to_string();
  EXPECT_EQ(wsx->size(), 32u);
  auto mrc = admin_->issue_player_token(kAdminGame, "MRC", "gm");
  ASSERT_TRUE(mrc.ok());
  EXPECT_NE(*mrc, *wsx);
  auto owner = admin_->token_owner(*wsx);
  ASSERT_TRUE(owner.ok());
  EXPECT_EQ(owner->first, kAdminGame);
  EXPECT_EQ(owner->second, "WSX");
  // A new one replaces the old; the database holds neither in clear.
  auto again = admin_->issue_player_token(kAdminGame, "WSX", "gm");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(admin_->token_owner(*wsx).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(admin_->token_owner(*again)->second, "WSX");
  const std::string raw =
      ::adj::testing::read_file(db_path()) + ::adj::testing::read_file(db_path() + "-wal");
  EXPECT_EQ(raw.find(*again), std::string::npos);
  EXPECT_EQ(admin_->token_owner("f00").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(admin_->issue_player_token(kAdminGame, "XXX", "gm").status().code(),
            StatusCode::kNotFound);
  EXPECT_EQ(admin_->issue_player_token("nope", "WSX", "gm").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(admin_->audit_log(kAdminGame)->back().action, "token");
}

TEST_F(AdminTest, CheckSecret) {
  create();
  EXPECT_TRUE(*admin_->check_secret(kAdminGame, "WSX", "cerdic"));
  EXPECT_TRUE(*admin_->check_secret(kAdminGame, "gwn", "cadwallon"));
  EXPECT_FALSE(*admin_->check_secret(kAdminGame, "WSX", "penda"));  // another player's secret
  EXPECT_FALSE(*admin_->check_secret(kAdminGame, "WSX", "cerdi"));
  EXPECT_FALSE(*admin_->check_secret(kAdminGame, "WSX", "cerdicc"));
  EXPECT_FALSE(*admin_->check_secret(kAdminGame, "WSX", "Cerdic"));
  EXPECT_FALSE(*admin_->check_secret(kAdminGame, "WSX", ""));
  EXPECT_FALSE(
      *admin_->check_secret(kAdminGame, "XXX", "cerdic"));  // same answer as a wrong secret
  EXPECT_EQ(admin_->check_secret("nope", "WSX", "cerdic").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(svc_->authenticate_player(kAdminGame, "WSX", "penda").code(),
            StatusCode::kPermissionDenied);
  EXPECT_TRUE(svc_->authenticate_player(kAdminGame, "wsx", "cerdic").ok());
}

TEST_F(AdminTest, SecretsAreStoredOnlyAsArgon2idHashes) {
  create();
  const std::string raw =
      ::adj::testing::read_file(db_path()) + ::adj::testing::read_file(db_path() + "-wal");
  for (const char* secret : {"cerdic", "penda", "oswald", "raedwald", "cadwallon"})
    EXPECT_EQ(raw.find(secret), std::string::npos) << secret;
  auto hash = store_->secret_hash(kAdminGame, "WSX");
  ASSERT_TRUE(hash.ok());
  EXPECT_EQ(hash->rfind("$argon2id$v=19$", 0), 0u) << *hash;
  EXPECT_EQ(store_->scenario(kAdminGame)->dump().find("\"secret\""), std::string::npos);
  EXPECT_EQ(to_json(*store_->load_state(kAdminGame, std::nullopt)).dump().find("\"secret\""),
            std::string::npos);
  // Stored order files keep the PLAYER line with the secret masked.
  submit(1, "WSX");
  auto subs = store_->all_submissions(kAdminGame);
  ASSERT_EQ(subs->size(), 1u);
  EXPECT_NE(subs->front().raw_text.find("PLAYER WSX ********"), std::string::npos);
  EXPECT_EQ(subs->front().raw_text.find("cerdic"), std::string::npos);
  // The turn still runs with the stored (masked) file: secrets are not checked again.
  auto run = admin_->run_turn(kAdminGame, false, "gm");
  ASSERT_TRUE(run.ok()) << run.status().to_string();
  EXPECT_EQ(
      std::count(run->players_without_orders.begin(), run->players_without_orders.end(), "WSX"), 0);
}

TEST_F(AdminTest, PlayersChangeAndTheGmResetsCredentials) {
  create();
  // The player changes their secret: the old one stops working.
  EXPECT_EQ(admin_->player_update(kAdminGame, "WSX", "secret", "short").status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(admin_->player_update(kAdminGame, "WSX", "secret", "two words!").status().code(),
            StatusCode::kInvalidArgument);
  ASSERT_TRUE(admin_->player_update(kAdminGame, "WSX", "secret", "new-Secret-9").ok());
  EXPECT_FALSE(*admin_->check_secret(kAdminGame, "WSX", "cerdic"));
  EXPECT_TRUE(*admin_->check_secret(kAdminGame, "WSX", "new-Secret-9"));
  // Rotating revokes every token and session.
  auto link = admin_->issue_player_token(kAdminGame, "WSX", "gm");
  auto session = svc_->new_session_token(kAdminGame, "WSX");
  auto rotated = admin_->player_update(kAdminGame, "WSX", "token", "");
  ASSERT_TRUE(rotated.ok());
  EXPECT_EQ(admin_->token_owner(*link).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(admin_->token_owner(*session).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(admin_->token_owner(*rotated)->second, "WSX");
  // The GM's reset: a new random secret and token, returned once, audited without them.
  auto both = admin_->reset_player(kAdminGame, "wsx", "both", "gm");
  ASSERT_TRUE(both.ok());
  const std::size_t space = both->find(' ');
  ASSERT_NE(space, std::string::npos);
  EXPECT_TRUE(*admin_->check_secret(kAdminGame, "WSX", both->substr(0, space)));
  EXPECT_FALSE(*admin_->check_secret(kAdminGame, "WSX", "new-Secret-9"));
  EXPECT_EQ(admin_->token_owner(both->substr(space + 1))->second, "WSX");
  EXPECT_EQ(admin_->token_owner(*rotated).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(admin_->reset_player(kAdminGame, "WSX", "everything", "gm").status().code(),
            StatusCode::kInvalidArgument);
  auto log = admin_->audit_log(kAdminGame);
  EXPECT_EQ(log->back().action, "reset");
  EXPECT_EQ(log->back().detail["what"], "both");
  const std::string dump = Json(log->back().detail).dump();
  EXPECT_EQ(dump.find(both->substr(0, space)), std::string::npos);
}

TEST_F(AdminTest, BundledGamesGetFreshSecrets) {
  auto scenario = bundled_scenario_published("dark-age-britain");
  std::map<std::string, std::string> issued;
  auto g = admin_->create_game(*scenario, 42, "gm", true, &issued);
  ASSERT_TRUE(g.ok()) << g.status().to_string();
  ASSERT_EQ(issued.size(), 5u);
  EXPECT_FALSE(*admin_->check_secret(kAdminGame, "WSX", "cerdic"));  // the README's
  for (const auto& [code, secret] : issued) {
    EXPECT_EQ(secret.size(), 14u) << secret;
    EXPECT_TRUE(*admin_->check_secret(kAdminGame, code, secret)) << code;
  }
  EXPECT_NE(issued["WSX"], issued["MRC"]);
}

// ---- The scheduler ----

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
}  // namespace adj
