// AdminStore's end of a game on both backends (migration 0024_archive): deleting a game that has
// not started removes every row of it in one transaction and leaves a host audit entry; a started
// game is refused; archiving keeps everything and refuses orders, sign-ups and turn runs.
#include <gtest/gtest.h>

#include <sstream>

#include "tests/storage/backend_sql.h"
#include "tests/storage/store_test_util.h"

namespace adj::storage_test {
namespace {

constexpr UnixTime kLifecycleNow = 1'700'000'000;

class LifecycleTest : public BackendTest {
 protected:
  std::string sql_text(const std::string& sql) { return query_text(*store_, dir_, sql); }
  Status exec(const std::string& sql) { return exec_sql(*store_, dir_, sql); }

  // Every table with a game_id column, from the catalog.
  std::vector<std::string> game_tables() {
    const std::string list =
        is_sqlite()
            ? sql_text(
                  "SELECT group_concat(m.name, ',') FROM sqlite_master m "
                  "JOIN pragma_table_info(m.name) p WHERE m.type = 'table' AND "
                  "p.name = 'game_id'")
            : sql_text(
                  "SELECT string_agg(table_name::text, ',') FROM information_schema.columns "
                  "WHERE table_schema = current_schema() AND column_name = 'game_id'");
    std::vector<std::string> out;
    std::stringstream in(list);
    for (std::string t; std::getline(in, t, ',');) out.push_back(t);
    return out;
  }
  std::string rows_of(const std::string& table, const std::string& game) {
    return sql_text("SELECT count(*) FROM " + table + " WHERE game_id = '" + game + "'");
  }

  AuditEntry record(const std::string& why = "a draft") {
    return {0, "", kLifecycleNow, "gm", "delete", {{"why", why}}};
  }

  // Rows of `game` in most of its tables: what a draft open for sign-ups collects.
  void fill(const std::string& game) {
    Schedule sch;
    sch.kind = "fixed";
    sch.deadline = kLifecycleNow + 3600;
    ASSERT_TRUE(store_->set_schedule(game, sch).ok());
    ASSERT_TRUE(
        store_->append_audit({0, game, kLifecycleNow, "gm", "create", Json::object()}).ok());
    ASSERT_TRUE(store_->set_press_options(game, {"public", false, false, ""}).ok());
    PressMessage m;
    m.game = game;
    m.turn = 1;
    m.sender = "WSX";
    m.to_all = true;
    m.body = "hello";
    ASSERT_TRUE(store_->append_press(m, {}).ok());
    Signup s;
    s.game = game;
    s.email = "a@example.org";
    s.channel = "web";
    s.created_at = kLifecycleNow;
    ASSERT_TRUE(store_->add_signup(s, 10).ok());
    ASSERT_TRUE(store_->set_contact(game, {"WSX", "w@example.org", "Wen", kLifecycleNow}).ok());
    ASSERT_TRUE(store_->set_secret_hash(game, "WSX", "$argon2id$v=19$x", kLifecycleNow).ok());
    ASSERT_TRUE(store_->set_link_token(game, "WSX", std::string(64, game[0]), kLifecycleNow).ok());
    Notice n;
    n.game = game;
    n.kind = "join";
    n.addresses = {"a@example.org"};
    n.subject = "Welcome";
    n.text = "Hello";
    n.dedupe_key = "join:" + game;
    n.created_at = kLifecycleNow;
    ASSERT_TRUE(store_->append_notice(n).ok());
    SubmissionRecord r;
    r.game = game;
    r.player = "WSX";
    r.turn = 1;
    r.source = "web";
    r.received_at = kLifecycleNow;
    r.raw_text = "hold";
    r.accepted = true;
    ASSERT_TRUE(store_->put_submission(r).ok());
  }
  // One outbox message for `game` in each state that matters: pending and sent.
  void queue_mail(const std::string& game) {
    for (const char* key : {"pending", "sent"}) {
      OutboxMessage o;
      o.kind = "notice";
      o.game = game;
      o.to = "a@example.org";
      o.raw = "Subject: x\r\n\r\nx\r\n";
      o.dedupe_key = game + ":" + key;
      o.created_at = kLifecycleNow;
      o.next_attempt_at = kLifecycleNow;
      auto id = store_->enqueue(o);
      ASSERT_TRUE(id.ok()) << id.status().to_string();
      if (std::string(key) == "sent") {
        ASSERT_TRUE(store_->mark_sent(*id, kLifecycleNow).ok());
      }
    }
  }
};
ADJ_ON_EVERY_BACKEND(LifecycleTest);

TEST_P(LifecycleTest, DeletingADraftRemovesEveryRowOfItAndRecordsItOnTheHost) {
  create_game_or_fail("britain");
  create_game_or_fail("albion");
  fill("britain");
  fill("albion");
  queue_mail("britain");

  auto out = store_->delete_game("britain", record());
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_EQ(out->game, "britain");
  EXPECT_EQ(out->name, "Britain britain");
  EXPECT_EQ(out->rows.at("games"), 1);
  EXPECT_EQ(out->rows.at("signups"), 1);
  EXPECT_EQ(out->rows.at("submissions"), 1);
  EXPECT_EQ(out->rows.at("press"), 1);
  EXPECT_EQ(out->rows.at("audit_log"), 1);
  EXPECT_EQ(out->rows.at("turn_states"), 1);
  EXPECT_EQ(out->rows.count("outbox"), 0u);
  EXPECT_EQ(out->mail_dropped, 1);
  EXPECT_EQ(out->mail_kept, 1);

  const auto tables = game_tables();
  ASSERT_GT(tables.size(), 20u);
  for (const std::string& t : tables) {
    if (t == "outbox") continue;
    EXPECT_EQ(rows_of(t, "britain"), "0") << t;
  }
  // Mail that left stays as the host's record; what was not sent yet goes.
  EXPECT_EQ(sql_text("SELECT count(*) FROM outbox WHERE game_id = 'britain'"), "1");
  EXPECT_EQ(sql_text("SELECT state FROM outbox WHERE game_id = 'britain'"), "sent");
  // The other game is untouched.
  EXPECT_EQ(store_->game_summary("britain").status().code(), StatusCode::kNotFound);
  ASSERT_TRUE(store_->game_summary("albion").ok());
  EXPECT_EQ(rows_of("signups", "albion"), "1");
  EXPECT_EQ(rows_of("audit_log", "albion"), "1");

  auto host = store_->host_audit_log(10);
  ASSERT_TRUE(host.ok()) << host.status().to_string();
  ASSERT_EQ(host->size(), 1u);
  const AuditEntry& e = host->front();
  EXPECT_EQ(e.id, out->host_audit_id);
  EXPECT_EQ(e.game, "britain");
  EXPECT_EQ(e.actor, "gm");
  EXPECT_EQ(e.action, "delete");
  EXPECT_EQ(e.at, kLifecycleNow);
  EXPECT_EQ(e.detail["why"], "a draft");
  EXPECT_EQ(e.detail["name"], "Britain britain");
  EXPECT_EQ(e.detail["removed"]["signups"], 1);
  EXPECT_EQ(e.detail["mail_dropped"], 1);
  ASSERT_EQ(e.detail["audit"].size(), 1u);  // the game's own log, kept on the host
  EXPECT_EQ(e.detail["audit"][0]["action"], "create");

  // The id is free again.
  create_game_or_fail("britain");
  EXPECT_EQ(store_->audit_log("britain")->size(), 0u);
}

TEST_P(LifecycleTest, AStartedGameIsRefusedAndKeptWhole) {
  create_game_or_fail();
  commit_open_turn_or_fail();
  auto out = store_->delete_game("britain", record());
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(out.status().message().find("has started (turn 1 ran); archive it instead"),
            std::string::npos)
      << out.status().message();
  EXPECT_TRUE(store_->game_summary("britain").ok());
  EXPECT_EQ(rows_of("turns", "britain"), "1");
  EXPECT_TRUE(store_->host_audit_log(10)->empty());
}

TEST_P(LifecycleTest, ARunRolledBackStillCountsAsStarted) {
  create_game_or_fail();
  commit_open_turn_or_fail();
  commit_open_turn_or_fail();
  ASSERT_TRUE(store_->append_audit({0, "britain", kLifecycleNow, "gm", "run", {{"turn", 1}}}).ok());
  ASSERT_TRUE(store_->append_audit({0, "britain", kLifecycleNow, "gm", "run", {{"turn", 2}}}).ok());
  ASSERT_TRUE(store_->rollback("britain", 1).ok());
  EXPECT_EQ(rows_of("turns", "britain"), "0");
  auto out = store_->delete_game("britain", record());
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(out.status().message().find("turn 2 ran"), std::string::npos) << out.status().message();
  EXPECT_TRUE(store_->game_summary("britain").ok());
}

TEST_P(LifecycleTest, AGameBeingResolvedIsNotDeleted) {
  create_game_or_fail();
  ASSERT_TRUE(store_->begin_resolving("britain", 1, kLifecycleNow).ok());
  auto out = store_->delete_game("britain", record());
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), StatusCode::kUnavailable);
  EXPECT_TRUE(store_->game_summary("britain").ok());
}

TEST_P(LifecycleTest, UnknownGamesAndBadRecordsChangeNothing) {
  create_game_or_fail();
  auto none = store_->delete_game("nope", record());
  EXPECT_EQ(none.status().code(), StatusCode::kNotFound);
  AuditEntry bad = record();
  bad.actor = "";
  EXPECT_EQ(store_->delete_game("britain", bad).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->set_archived("nope", kLifecycleNow).code(), StatusCode::kNotFound);
  EXPECT_TRUE(store_->game_summary("britain").ok());
  EXPECT_TRUE(store_->host_audit_log(10)->empty());
}

TEST_P(LifecycleTest, TheHostAuditLogIsAppendOnlyAndNewestFirst) {
  ASSERT_TRUE(store_->append_host_audit({0, "", kLifecycleNow, "gm", "note", {{"n", 1}}}).ok());
  ASSERT_TRUE(
      store_->append_host_audit({0, "gone", kLifecycleNow + 1, "gm", "note", {{"n", 2}}}).ok());
  EXPECT_EQ(store_->append_host_audit({0, "", kLifecycleNow, "", "note", Json::object()}).code(),
            StatusCode::kInvalidArgument);
  auto log = store_->host_audit_log(1);
  ASSERT_TRUE(log.ok()) << log.status().to_string();
  ASSERT_EQ(log->size(), 1u);
  EXPECT_EQ(log->front().game, "gone");
  EXPECT_EQ(log->front().detail["n"], 2);
  EXPECT_EQ(store_->host_audit_log(-1)->size(), 2u);
  const Status update = exec("UPDATE host_audit SET actor = 'someone else'");
  EXPECT_FALSE(update.ok());
  EXPECT_NE(update.message().find("host_audit is append-only"), std::string::npos)
      << update.to_string();
  EXPECT_FALSE(exec("DELETE FROM host_audit").ok());
  if (!is_sqlite()) {
    EXPECT_FALSE(exec("TRUNCATE host_audit").ok());
  }
  EXPECT_EQ(store_->host_audit_log(-1)->size(), 2u);
}

TEST_P(LifecycleTest, AnArchivedGameKeepsEverythingAndTakesNothingNew) {
  create_game_or_fail();
  fill("britain");
  ASSERT_TRUE(store_->set_archived("britain", kLifecycleNow).ok());
  auto sum = store_->game_summary("britain");
  ASSERT_TRUE(sum.ok());
  EXPECT_EQ(sum->archived_at, std::optional<UnixTime>(kLifecycleNow));
  EXPECT_EQ(store_->list_games()->front().archived_at, std::optional<UnixTime>(kLifecycleNow));
  EXPECT_TRUE(store_->load_state("britain", std::nullopt).ok());
  EXPECT_EQ(store_->signups("britain")->size(), 1u);

  SubmissionRecord r;
  r.game = "britain";
  r.player = "MRC";
  r.turn = 1;
  r.received_at = kLifecycleNow;
  r.accepted = true;
  auto put = store_->put_submission(r);
  ASSERT_FALSE(put.ok());
  EXPECT_EQ(put.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(put.status().message(), archived_refusal("britain", "orders"));
  Signup s;
  s.game = "britain";
  s.email = "b@example.org";
  EXPECT_EQ(store_->add_signup(s, 10).status().message(), archived_refusal("britain", "sign-ups"));
  PendingConfirmation c;
  c.game = "britain";
  c.kind = "signup";
  c.address = "c@example.org";
  c.client = "1.2.3.4";
  c.code_hash = std::string(64, 'c');
  c.created_at = kLifecycleNow;
  c.expires_at = kLifecycleNow + 600;
  EXPECT_EQ(store_->add_confirmation(c, {}).status().code(), StatusCode::kFailedPrecondition);
  const Status run = store_->begin_resolving("britain", 1, kLifecycleNow);
  EXPECT_EQ(run.code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(run.message(), archived_refusal("britain", "turn runs"));

  ASSERT_TRUE(store_->set_archived("britain", std::nullopt).ok());
  EXPECT_FALSE(store_->game_summary("britain")->archived_at.has_value());
  EXPECT_TRUE(store_->put_submission(r).ok());
  EXPECT_TRUE(store_->begin_resolving("britain", 1, kLifecycleNow).ok());
}

}  // namespace
}  // namespace adj::storage_test
