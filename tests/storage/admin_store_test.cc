// AdminStore (migration 0002) on every backend:
// schedules, the audit log, run attempts, the daemon's last tick and the game's status; and what
// only the SQLite file has (STRICT tables, reopening the file).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "storage/core/messages.h"
#include "storage/sqlite/database.h"
#include "storage/sqlite/sqlite_store.h"
#include "tests/storage/backend_sql.h"
#include "tests/storage/shared_db.h"
#include "tests/storage/store_test_util.h"

namespace adj::storage_test {
namespace {

class AdminStoreTest : public BackendTest {
 protected:
  std::string sql_text(const std::string& sql) { return query_text(*store_, dir_, sql); }
  Status exec(const std::string& sql) { return exec_sql(*store_, dir_, sql); }
  AdminStore& admin() { return *store_; }
};
ADJ_ON_EVERY_BACKEND(AdminStoreTest);

// What only the SQLite backend has.
class AdminStoreSqliteTest : public StoreTest {
 protected:
  std::vector<std::string> column(const std::string& sql) {
    std::vector<std::string> out;
    auto db = sqlite::Database::open(db_path());
    EXPECT_TRUE(db.ok()) << db.status().to_string();
    if (!db.ok()) return out;
    auto r = db->query(sql, {});
    EXPECT_TRUE(r.ok()) << r.status().to_string();
    for (int i = 0; r.ok() && i < r->size(); ++i) out.push_back(r->text(i, 0));
    return out;
  }
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

TEST_F(AdminStoreSqliteTest, Migration0002AddsStrictAdminTables) {
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

TEST_P(AdminStoreTest, DefaultScheduleWhenUnset) {
  create_game_or_fail();
  auto s = admin().schedule("britain");
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  expect_same(*s, Schedule{});
  EXPECT_EQ(s->kind, "none");
}

TEST_P(AdminStoreTest, ScheduleRoundTripAndReplace) {
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
}

TEST_F(AdminStoreSqliteTest, ScheduleSurvivesReopeningTheFile) {
  create_game_or_fail();
  ASSERT_TRUE(store_->set_schedule("britain", full_schedule()).ok());
  store_.reset();
  auto again = SqliteStore::open(db_path());
  ASSERT_TRUE(again.ok());
  auto s = (*again)->schedule("britain");
  ASSERT_TRUE(s.ok());
  expect_same(*s, full_schedule());
}

TEST_P(AdminStoreTest, ScheduleOutOfRangeIsRefusedAndNothingWritten) {
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

TEST_P(AdminStoreTest, UnknownGameIsNotFound) {
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
  // The same text on every backend: users see it as it is.
  EXPECT_EQ(admin().schedule(g).status().message(), no_such_game(g));
  EXPECT_EQ(admin().append_audit(AuditEntry{0, g, 1, "gm", "run", Json::object()}).message(),
            no_such_game(g));
  EXPECT_EQ(admin().record_failed_attempt(g, "x").message(), no_such_game(g));
  EXPECT_EQ(admin().set_game_status(g, "held").message(), no_such_game(g));
  // Nothing was written for the unknown game.
  EXPECT_EQ(sql_text("SELECT count(*) FROM run_attempts"), "0");
  EXPECT_EQ(sql_text("SELECT count(*) FROM schedules"), "0");
}

TEST_P(AdminStoreTest, AuditLogIsOldestFirstPerGame) {
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
  EXPECT_TRUE(admin().audit_log("britain")->at(0).detail.is_object());
}

TEST_P(AdminStoreTest, AuditEntryNeedsActorAndAction) {
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

TEST_P(AdminStoreTest, AuditLogIsAppendOnly) {
  create_game_or_fail();
  ASSERT_TRUE(admin().append_audit({0, "britain", 1, "gm", "create", Json::object()}).ok());
  const Status update = exec("UPDATE audit_log SET actor = 'someone else'");
  EXPECT_FALSE(update.ok());
  EXPECT_NE(update.message().find("audit_log is append-only"), std::string::npos)
      << update.to_string();
  EXPECT_FALSE(exec("DELETE FROM audit_log").ok());
  if (!is_sqlite()) {
    EXPECT_FALSE(exec("TRUNCATE audit_log").ok());
  }
  EXPECT_EQ(admin().audit_log("britain")->size(), 1u);
  EXPECT_EQ(admin().audit_log("britain")->front().actor, "gm");
}

TEST_P(AdminStoreTest, AdminRowsGoAwayWithTheirGame) {
  create_game_or_fail();
  ASSERT_TRUE(admin().set_schedule("britain", full_schedule()).ok());
  ASSERT_TRUE(admin().append_audit({0, "britain", 1, "gm", "create", Json::object()}).ok());
  ASSERT_TRUE(store_->set_link_token("britain", "WSX", std::string(64, 'a'), 1).ok());
  ASSERT_TRUE(store_->set_secret_hash("britain", "WSX", "$argon2id$v=19$x", 1).ok());
  ASSERT_TRUE(admin().record_failed_attempt("britain", "boom").ok());
  ASSERT_TRUE(store_->set_press_options("britain", {"public", false, false, ""}).ok());
  PressMessage m;
  m.game = "britain";
  m.turn = 1;
  m.sender = "WSX";
  m.to_all = true;
  m.body = "hello";
  ASSERT_TRUE(store_->append_press(m, {}).ok());
  Status s = exec("DELETE FROM games WHERE id = 'britain'");
  ASSERT_TRUE(s.ok()) << s.to_string();
  for (const char* t : {"schedules", "audit_log", "player_token_hashes", "player_secrets",
                        "run_attempts", "press_options", "press"})
    EXPECT_EQ(sql_text(std::string("SELECT count(*) FROM ") + t), "0") << t;
}

TEST_P(AdminStoreTest, FailedAttemptsCountAndReset) {
  create_game_or_fail("britain");
  create_game_or_fail("albion");
  EXPECT_EQ(*admin().failed_attempts("britain"), 0);
  ASSERT_TRUE(admin().record_failed_attempt("britain", "first").ok());
  ASSERT_TRUE(admin().record_failed_attempt("britain", "second").ok());
  EXPECT_EQ(*admin().failed_attempts("britain"), 2);
  EXPECT_EQ(*admin().failed_attempts("albion"), 0);
  EXPECT_EQ(sql_text("SELECT last_error FROM run_attempts WHERE game_id = 'britain'"), "second");
  ASSERT_TRUE(admin().reset_attempts("britain").ok());
  EXPECT_EQ(*admin().failed_attempts("britain"), 0);
  ASSERT_TRUE(admin().reset_attempts("britain").ok());  // idempotent
}

TEST_P(AdminStoreTest, LastTickRoundTrip) {
  EXPECT_EQ(*admin().last_tick(), 0);
  ASSERT_TRUE(admin().set_last_tick(1'700'000'000).ok());
  EXPECT_EQ(*admin().last_tick(), 1'700'000'000);
  ASSERT_TRUE(admin().set_last_tick(1'700'000'060).ok());
  EXPECT_EQ(*admin().last_tick(), 1'700'000'060);
  EXPECT_EQ(sql_text("SELECT count(*) FROM daemon_state"), "1");
}

TEST_P(AdminStoreTest, SetGameStatusThroughTheInterface) {
  create_game_or_fail();
  ASSERT_TRUE(admin().set_game_status("britain", "held").ok());
  EXPECT_EQ(store_->game_summary("britain")->status, "held");
}

TEST_P(AdminStoreTest, EveryWriteBumpsItsGameRevision) {
  // The web cache's revisions (SQLite 0013, PostgreSQL's revision triggers) see every write to
  // the admin, credential and press tables, and only the written game's revision moves.
  create_game_or_fail("britain");
  create_game_or_fail("albion");
  const auto rev = [&](const std::string& game) -> std::int64_t {
    auto r = store_->revisions();
    EXPECT_TRUE(r.ok()) << r.status().to_string();
    if (!r.ok()) return -1;
    auto it = (*r)->find(game);
    return it == (*r)->end() ? 0 : it->second;
  };
  PressMessage m;
  m.game = "britain";
  m.turn = 1;
  m.sender = "WSX";
  m.to_all = true;
  m.body = "hello";
  const std::vector<std::pair<std::string, std::function<Status()>>> writes = {
      {"set_schedule", [&] { return admin().set_schedule("britain", full_schedule()); }},
      {"append_audit",
       [&] {
         return admin().append_audit({0, "britain", 1, "gm", "run", Json::object()});
       }},
      {"record_failed_attempt", [&] { return admin().record_failed_attempt("britain", "x"); }},
      {"reset_attempts", [&] { return admin().reset_attempts("britain"); }},
      {"set_game_status", [&] { return admin().set_game_status("britain", "held"); }},
      {"set_secret_hash",
       [&] { return store_->set_secret_hash("britain", "WSX", "$argon2id$v=19$x", 1); }},
      {"set_link_token",
       [&] { return store_->set_link_token("britain", "WSX", std::string(64, 'a'), 1); }},
      {"add_session_token",
       [&] { return store_->add_session_token("britain", "WSX", std::string(64, 'b'), 1); }},
      {"revoke_tokens", [&] { return store_->revoke_tokens("britain", "WSX"); }},
      {"set_press_options",
       [&] {
         return store_->set_press_options("britain", {"public", false, false, ""});
       }},
      {"append_press", [&] { return store_->append_press(m, {}).status(); }},
  };
  for (const auto& [name, write] : writes) {
    const std::int64_t before = rev("britain"), other = rev("albion");
    const Status s = write();
    ASSERT_TRUE(s.ok()) << name << ": " << s.to_string();
    EXPECT_GT(rev("britain"), before) << name;
    EXPECT_EQ(rev("albion"), other) << name;
  }
}

// Several connections (two daemons, say) failing one game's turn at once: every failure counts.
class AdminConcurrencyTest : public SharedDatabaseTest {};
ADJ_ON_EVERY_BACKEND(AdminConcurrencyTest);

TEST_P(AdminConcurrencyTest, FailedAttemptsFromTwoConnectionsAllCount) {
  create_game_or_fail("britain");
  std::vector<std::thread> threads;
  for (int k = 0; k < 2; ++k)
    threads.emplace_back([this] {
      auto store = open();
      ASSERT_TRUE(store);
      for (int i = 0; i < 40; ++i) {
        const Status s = store->record_failed_attempt("britain", "boom");
        ASSERT_TRUE(s.ok()) << s.to_string();
        ASSERT_TRUE(store->set_last_tick(1'700'000'000 + i).ok());
      }
    });
  for (auto& t : threads) t.join();
  auto store = open();
  ASSERT_TRUE(store);
  EXPECT_EQ(*store->failed_attempts("britain"), 80);
  EXPECT_EQ(*store->last_tick(), 1'700'000'039);
}

}  // namespace
}  // namespace adj::storage_test
