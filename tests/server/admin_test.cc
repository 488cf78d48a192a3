// GameAdmin: GM actions and their audit log, schedules and deadlines, sign-in checks (the
// scheduler's tick: admin_tick_test.cc). A real SQLite file in a temporary directory and a settable
// clock.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "server/app/admin.h"
#include "tests/server/admin_fixture.h"

namespace adj::testing {
namespace {

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

}  // namespace
}  // namespace adj::testing
