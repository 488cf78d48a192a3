// SqliteStore as AdminStore (migration 0002): schedules, the audit log, player tokens, run
// attempts and the daemon's last tick.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "storage/sqlite/database.h"
#include "storage/sqlite/sqlite_store.h"
#include "tests/storage/store_test_util.h"

namespace adj::storage_test {
namespace {

class AdminStoreTest : public StoreTest {
 protected:
  sqlite::Database raw() {
    auto db = sqlite::Database::open(db_path());
    EXPECT_TRUE(db.ok()) << db.status().to_string();
    return std::move(db).value();
  }

  std::vector<std::string> column(const std::string& sql) {
    std::vector<std::string> out;
    auto db = raw();
    auto st = db.prepare(sql);
    EXPECT_TRUE(st.ok()) << st.status().to_string();
    if (!st.ok()) return out;
    for (;;) {
      auto row = st->step();
      EXPECT_TRUE(row.ok()) << row.status().to_string();
      if (!row.ok() || !*row) return out;
      out.push_back(st->column_text(0));
    }
  }

  AdminStore& admin() { return *store_; }
};

Schedule full_schedule() {
  Schedule s;
  s.kind = "interval";
  s.deadline = 1'700'000'000;
  s.interval_seconds = 172800;
  s.time_of_day = 64800;
  s.early_when_all_in = true;
  s.max_attempts = 5;
  s.nmr_guard_ratio = 0.75;
  s.downtime_grace_seconds = 7200;
  return s;
}

void expect_same(const Schedule& a, const Schedule& b) {
  EXPECT_EQ(a.kind, b.kind);
  EXPECT_EQ(a.deadline, b.deadline);
  EXPECT_EQ(a.interval_seconds, b.interval_seconds);
  EXPECT_EQ(a.time_of_day, b.time_of_day);
  EXPECT_EQ(a.early_when_all_in, b.early_when_all_in);
  EXPECT_EQ(a.max_attempts, b.max_attempts);
  EXPECT_DOUBLE_EQ(a.nmr_guard_ratio, b.nmr_guard_ratio);
  EXPECT_EQ(a.downtime_grace_seconds, b.downtime_grace_seconds);
}

TEST_F(AdminStoreTest, Migration0002AddsStrictAdminTables) {
  auto version = store_->schema_version();
  ASSERT_TRUE(version.ok());
  EXPECT_GE(*version, 2);
  EXPECT_EQ(column("SELECT name FROM schema_migrations WHERE version = 2"),
            std::vector<std::string>{"admin"});
  for (const char* t :
       {"schedules", "audit_log", "player_tokens", "run_attempts", "daemon_state"}) {
    EXPECT_EQ(column(std::string("SELECT strict FROM pragma_table_list WHERE name = '") + t + "'"),
              std::vector<std::string>{"1"})
        << t;
  }
}

TEST_F(AdminStoreTest, DefaultScheduleWhenUnset) {
  create_game_or_fail();
  auto s = admin().schedule("britain");
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  expect_same(*s, Schedule{});
  EXPECT_EQ(s->kind, "none");
}

TEST_F(AdminStoreTest, ScheduleRoundTripAndReplace) {
  create_game_or_fail();
  ASSERT_TRUE(admin().set_schedule("britain", full_schedule()).ok());
  auto s = admin().schedule("britain");
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  expect_same(*s, full_schedule());

  Schedule fixed;
  fixed.kind = "fixed";  // optional fields back to unset
  ASSERT_TRUE(admin().set_schedule("britain", fixed).ok());
  s = admin().schedule("britain");
  ASSERT_TRUE(s.ok());
  expect_same(*s, fixed);
  EXPECT_FALSE(s->deadline);
  EXPECT_FALSE(s->time_of_day);

  // Survives reopening the file.
  store_.reset();
  auto again = SqliteStore::open(db_path());
  ASSERT_TRUE(again.ok());
  s = (*again)->schedule("britain");
  ASSERT_TRUE(s.ok());
  expect_same(*s, fixed);
}

TEST_F(AdminStoreTest, ScheduleOutOfRangeIsRefusedAndNothingWritten) {
  create_game_or_fail();
  ASSERT_TRUE(admin().set_schedule("britain", full_schedule()).ok());
  std::vector<Schedule> bad(8, full_schedule());
  bad[0].kind = "weekly";
  bad[1].interval_seconds = -1;
  bad[2].time_of_day = 86400;
  bad[3].time_of_day = -1;
  bad[4].max_attempts = 0;
  bad[5].nmr_guard_ratio = 1.5;
  bad[6].nmr_guard_ratio = std::nan("");
  bad[7].downtime_grace_seconds = -5;
  for (std::size_t i = 0; i < bad.size(); ++i) {
    Status st = admin().set_schedule("britain", bad[i]);
    EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << i << " " << st.to_string();
  }
  expect_same(*admin().schedule("britain"), full_schedule());
}

TEST_F(AdminStoreTest, UnknownGameIsNotFound) {
  const std::string g = "nope";
  const auto expect_not_found = [](const Status& s, const char* what) {
    EXPECT_EQ(s.code(), StatusCode::kNotFound) << what << ": " << s.to_string();
  };
  expect_not_found(admin().schedule(g).status(), "schedule");
  expect_not_found(admin().set_schedule(g, Schedule{}), "set_schedule");
  expect_not_found(admin().append_audit(AuditEntry{0, g, 1, "gm", "run", Json::object()}),
                   "append_audit");
  expect_not_found(admin().audit_log(g).status(), "audit_log");
  expect_not_found(admin().failed_attempts(g).status(), "failed_attempts");
  expect_not_found(admin().record_failed_attempt(g, "x"), "record_failed_attempt");
  expect_not_found(admin().reset_attempts(g), "reset_attempts");
  expect_not_found(admin().set_game_status(g, "held"), "set_game_status");
}

TEST_F(AdminStoreTest, AuditLogIsOldestFirstPerGame) {
  create_game_or_fail("britain");
  create_game_or_fail("albion");
  ASSERT_TRUE(
      admin().append_audit({0, "britain", 100, "gm", "create", {{"name", "Britain"}}}).ok());
  ASSERT_TRUE(admin().append_audit({0, "albion", 150, "gm", "create", Json::object()}).ok());
  ASSERT_TRUE(admin()
                  .append_audit({0,
                                 "britain",
                                 200,
                                 "scheduler",
                                 "run",
                                 {{"turn", 1}, {"players_without_orders", {"MRC"}}}})
                  .ok());
  ASSERT_TRUE(admin().append_audit({0, "britain", 50, "player:WSX", "note", Json::object()}).ok());

  auto log = admin().audit_log("britain");
  ASSERT_TRUE(log.ok()) << log.status().to_string();
  ASSERT_EQ(log->size(), 3u);
  EXPECT_EQ((*log)[0].action, "create");
  EXPECT_EQ((*log)[0].actor, "gm");
  EXPECT_EQ((*log)[0].at, 100);
  EXPECT_EQ((*log)[0].game, "britain");
  EXPECT_EQ((*log)[0].detail, (Json{{"name", "Britain"}}));
  EXPECT_EQ((*log)[1].actor, "scheduler");
  EXPECT_EQ((*log)[1].detail["players_without_orders"], Json({"MRC"}));
  EXPECT_EQ((*log)[2].at, 50);  // in order of writing, not of the time given
  EXPECT_LT((*log)[0].id, (*log)[1].id);
  EXPECT_LT((*log)[1].id, (*log)[2].id);
  EXPECT_EQ(admin().audit_log("albion")->size(), 1u);
}

TEST_F(AdminStoreTest, AuditEntryNeedsActorAndAction) {
  create_game_or_fail();
  EXPECT_EQ(admin().append_audit({0, "britain", 1, "", "run", Json::object()}).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(admin().append_audit({0, "britain", 1, "gm", "", Json::object()}).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(admin()
                .append_audit({0, "britain", 1, "gm", "run", {{"bad", std::string("\xff\xfe")}}})
                .code(),
            StatusCode::kInvalidArgument);
  EXPECT_TRUE(admin().audit_log("britain")->empty());
}

TEST_F(AdminStoreTest, AuditLogIsAppendOnly) {
  create_game_or_fail();
  ASSERT_TRUE(admin().append_audit({0, "britain", 1, "gm", "create", Json::object()}).ok());
  auto db = raw();
  EXPECT_FALSE(db.exec("UPDATE audit_log SET actor = 'someone else'").ok());
  EXPECT_FALSE(db.exec("DELETE FROM audit_log").ok());
  EXPECT_EQ(admin().audit_log("britain")->size(), 1u);
  EXPECT_EQ(admin().audit_log("britain")->front().actor, "gm");
}

TEST_F(AdminStoreTest, AdminRowsGoAwayWithTheirGame) {
  create_game_or_fail();
  ASSERT_TRUE(admin().set_schedule("britain", full_schedule()).ok());
  ASSERT_TRUE(admin().append_audit({0, "britain", 1, "gm", "create", Json::object()}).ok());
  ASSERT_TRUE(store_->set_link_token("britain", "WSX", std::string(64, 'a'), 1).ok());
  ASSERT_TRUE(store_->set_secret_hash("britain", "WSX", "$argon2id$v=19$x", 1).ok());
  ASSERT_TRUE(admin().record_failed_attempt("britain", "boom").ok());
  {
    auto db = raw();
    Status s = db.exec("DELETE FROM games WHERE id = 'britain'");
    ASSERT_TRUE(s.ok()) << s.to_string();
  }
  for (const char* t :
       {"schedules", "audit_log", "player_token_hashes", "player_secrets", "run_attempts"})
    EXPECT_EQ(column(std::string("SELECT count(*) FROM ") + t), std::vector<std::string>{"0"}) << t;
}

TEST_F(AdminStoreTest, TokenHashesOpenOnlyTheirPlayer) {
  create_game_or_fail("britain");
  create_game_or_fail("albion");
  CredentialStore& creds = *store_;
  const std::string h1(64, 'a'), h2(64, 'b'), h3(64, 'c');
  ASSERT_TRUE(creds.set_link_token("britain", "WSX", h1, 1).ok());
  EXPECT_EQ(*creds.token_owner(h1), std::make_pair(std::string("britain"), std::string("WSX")));
  // A new link replaces the old one; sessions are kept until revoked.
  ASSERT_TRUE(creds.add_session_token("britain", "WSX", h3, 2).ok());
  ASSERT_TRUE(creds.set_link_token("britain", "WSX", h2, 3).ok());
  EXPECT_EQ(creds.token_owner(h1).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(creds.token_owner(h2)->second, "WSX");
  EXPECT_EQ(creds.token_owner(h3)->second, "WSX");
  ASSERT_TRUE(creds.revoke_tokens("britain", "WSX").ok());
  EXPECT_EQ(creds.token_owner(h2).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(creds.token_owner(h3).status().code(), StatusCode::kNotFound);
  // Only hash-shaped values are stored.
  EXPECT_FALSE(creds.set_link_token("britain", "WSX", "0123456789abcdef0123456789abcdef", 4).ok());
  EXPECT_EQ(creds.set_link_token("nope", "WSX", h1, 4).code(), StatusCode::kNotFound);
  EXPECT_EQ(creds.set_link_token("britain", "", h1, 4).code(), StatusCode::kInvalidArgument);
  // Sessions are bounded per player.
  for (int i = 0; i < CredentialStore::kMaxSessions + 5; ++i) {
    std::string h = std::to_string(1000 + i);
    h += std::string(64 - h.size(), 'd');
    ASSERT_TRUE(creds.add_session_token("albion", "MRC", h, 10 + i).ok());
  }
  EXPECT_EQ(column("SELECT count(*) FROM player_token_hashes WHERE game_id = 'albion'"),
            std::vector<std::string>{std::to_string(CredentialStore::kMaxSessions)});
  EXPECT_EQ(creds.token_owner("1000" + std::string(60, 'd')).status().code(),
            StatusCode::kNotFound);  // the oldest went
}

TEST_F(AdminStoreTest, SecretHashesArePerPlayer) {
  create_game_or_fail("britain");
  CredentialStore& creds = *store_;
  EXPECT_EQ(creds.secret_hash("britain", "WSX").status().code(), StatusCode::kNotFound);
  ASSERT_TRUE(creds.set_secret_hash("britain", "WSX", "$argon2id$v=19$x", 1).ok());
  ASSERT_TRUE(creds.set_secret_hash("britain", "WSX", "$argon2id$v=19$y", 2).ok());
  EXPECT_EQ(*creds.secret_hash("britain", "WSX"), "$argon2id$v=19$y");
  EXPECT_FALSE(creds.set_secret_hash("britain", "MRC", "penda", 3).ok());  // never in clear
  EXPECT_EQ(creds.set_secret_hash("nope", "WSX", "$argon2id$v=19$x", 1).code(),
            StatusCode::kNotFound);
}

TEST_F(AdminStoreTest, FailedAttemptsCountAndReset) {
  create_game_or_fail("britain");
  create_game_or_fail("albion");
  EXPECT_EQ(*admin().failed_attempts("britain"), 0);
  ASSERT_TRUE(admin().record_failed_attempt("britain", "first").ok());
  ASSERT_TRUE(admin().record_failed_attempt("britain", "second").ok());
  EXPECT_EQ(*admin().failed_attempts("britain"), 2);
  EXPECT_EQ(*admin().failed_attempts("albion"), 0);
  EXPECT_EQ(column("SELECT last_error FROM run_attempts WHERE game_id = 'britain'"),
            std::vector<std::string>{"second"});
  ASSERT_TRUE(admin().reset_attempts("britain").ok());
  EXPECT_EQ(*admin().failed_attempts("britain"), 0);
  ASSERT_TRUE(admin().reset_attempts("britain").ok());  // idempotent
}

TEST_F(AdminStoreTest, LastTickRoundTrip) {
  EXPECT_EQ(*admin().last_tick(), 0);
  ASSERT_TRUE(admin().set_last_tick(1'700'000'000).ok());
  EXPECT_EQ(*admin().last_tick(), 1'700'000'000);
  ASSERT_TRUE(admin().set_last_tick(1'700'000'060).ok());
  EXPECT_EQ(*admin().last_tick(), 1'700'000'060);
  EXPECT_EQ(column("SELECT count(*) FROM daemon_state"), std::vector<std::string>{"1"});
}

TEST_F(AdminStoreTest, SetGameStatusThroughTheInterface) {
  create_game_or_fail();
  ASSERT_TRUE(admin().set_game_status("britain", "held").ok());
  EXPECT_EQ(store_->game_summary("britain")->status, "held");
}

}  // namespace
}  // namespace adj::storage_test
