// Who had no orders in each resolved turn, kept beside the turn record
// (storage/core/codec.h, migration 0018): what commit_turn keeps,
// that turns_without_orders reads it instead of the summary, the summary as the fallback for a turn
// without a row, rollback, and the upgrade of a database whose turns predate the table, on both
// backends.
#include <gtest/gtest.h>

#include "storage/core/codec.h"
#include "storage/postgres/pg_database.h"
#include "storage/postgres/pg_migrator.h"
#include "storage/postgres/pg_store.h"
#include "storage/sqlite/database.h"
#include "storage/sqlite/migrator.h"
#include "storage/sqlite/sqlite_store.h"
#include "tests/storage/backend_sql.h"
#include "tests/storage/store_test_util.h"
#include "tests/support/pg_test_db.h"

namespace adj::storage_test {
namespace {

TEST(WithoutOrdersTextTest, SaysWhatTheCommitSaysAndNothingItDoesNot) {
  TurnCommit c;
  c.summary = {{"players_without_orders", {"MRC", "WSX"}}};
  EXPECT_EQ(without_orders_text(c), std::optional<std::string>("[\"MRC\",\"WSX\"]"));
  c.without_orders = std::vector<std::string>{"NOR"};  // given: it wins
  EXPECT_EQ(without_orders_text(c), std::optional<std::string>("[\"NOR\"]"));
  c.without_orders.reset();
  c.summary = Json::object();  // the whole summary, without a list: nobody listed
  EXPECT_EQ(without_orders_text(c), std::optional<std::string>("[]"));
  c.summary_text = "{\"players_without_orders\":[\"MRC\"]}";  // only the text knows
  EXPECT_EQ(without_orders_text(c), std::nullopt);
  c.summary_text.clear();
  c.summary = {{"players_without_orders", "MRC"}};  // not a list: left to the summary's reader
  EXPECT_EQ(without_orders_text(c), std::nullopt);
  c.summary = {{"players_without_orders", {"MRC", 7}}};
  EXPECT_EQ(without_orders_text(c), std::nullopt);
}

class TurnAttendanceTest : public BackendTest {
 protected:
  void SetUp() override {
    BackendTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    create_game_or_fail();
  }
  // Commits the open turn with `edit` applied to make_commit's.
  void commit(const std::function<void(TurnCommit&)>& edit) {
    auto state = store_->load_state("britain", std::nullopt);
    ASSERT_TRUE(state.ok()) << state.status().to_string();
    TurnCommit c = make_commit(*state);
    edit(c);
    Status s = commit_turn(*store_, "britain", c);
    ASSERT_TRUE(s.ok()) << s.to_string();
  }
  std::vector<TurnAttendance> read(int from = 1) {
    auto got = store_->turns_without_orders("britain", from);
    EXPECT_TRUE(got.ok()) << got.status().to_string();
    return got.ok() ? *got : std::vector<TurnAttendance>{};
  }
  std::string rows() {
    return query_text(*store_, dir_,
                      "SELECT count(*) FROM turn_attendance WHERE game_id = 'britain'");
  }
};

TEST_P(TurnAttendanceTest, ACommitKeepsItsListAndTheReaderUsesItNotTheSummary) {
  // As a turn run commits: the summary only as text, the list given beside it.
  commit([](TurnCommit& c) {
    c.summary_text = "{\"digest\":\"abc\",\"players_without_orders\":[\"MRC\"]}";
    c.summary = Json::object();
    c.without_orders = std::vector<std::string>{"MRC"};
  });
  EXPECT_EQ(rows(), "1");
  auto got = read();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].without_orders, (std::vector<std::string>{"MRC"}));
  EXPECT_EQ(got[0].ran_at, 1'700'000'001);
  // The row is what is read: changed by hand, the reader follows it, not the summary.
  ASSERT_TRUE(exec_sql(*store_, dir_,
                       "UPDATE turn_attendance SET without_orders = '[\"WSX\"]' "
                       "WHERE game_id = 'britain' AND turn = 1")
                  .ok());
  got = read();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].without_orders, (std::vector<std::string>{"WSX"}));
  // A row that is not a list is refused.
  EXPECT_FALSE(exec_sql(*store_, dir_,
                        "UPDATE turn_attendance SET without_orders = '\"MRC\"' "
                        "WHERE game_id = 'britain' AND turn = 1")
                   .ok());
}

TEST_P(TurnAttendanceTest, ATurnWithoutARowIsReadFromItsSummary) {
  commit([](TurnCommit& c) {  // only the summary text knows the list: no row
    c.summary_text = "{\"digest\":\"abc\",\"players_without_orders\":[\"WSX\",\"MRC\"]}";
    c.summary = Json::object();
  });
  commit([](TurnCommit& c) { c.summary["players_without_orders"] = {"MRC"}; });
  EXPECT_EQ(rows(), "1");
  auto got = read();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].turn, 2);
  EXPECT_EQ(got[0].without_orders, (std::vector<std::string>{"MRC"}));
  EXPECT_EQ(got[1].turn, 1);
  EXPECT_EQ(got[1].without_orders, (std::vector<std::string>{"WSX", "MRC"}));
  EXPECT_EQ(got[1].ran_at, 1'700'000'001);
}

TEST_P(TurnAttendanceTest, RollbackTakesTheRowsOfTheTurnsItUndoes) {
  for (int i = 0; i < 3; ++i)
    commit([](TurnCommit& c) { c.without_orders = std::vector<std::string>{"WSX"}; });
  EXPECT_EQ(rows(), "3");
  ASSERT_TRUE(store_->rollback("britain", 2).ok());
  EXPECT_EQ(rows(), "1");
  commit([](TurnCommit& c) { c.without_orders = std::vector<std::string>{"MRC"}; });
  auto got = read();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].without_orders, (std::vector<std::string>{"MRC"}));
  EXPECT_EQ(got[1].without_orders, (std::vector<std::string>{"WSX"}));
}

ADJ_ON_EVERY_BACKEND(TurnAttendanceTest);

// The turns of a database from before the table, as the previous schema stores them: one game
// whose summaries list players or say nothing, one whose summary holds something else there.
constexpr const char* kTurnsBefore =
    "INSERT INTO games(id, name, engine, scenario_json, open_turn, status, created_at) VALUES "
    "('britain', 'Britain', 'dark-age', '{}', 3, 'open', 1600000000),"
    "('gaul', 'Gaul', 'dark-age', '{}', 2, 'open', 1600000000);"
    "INSERT INTO turns(game_id, turn, seed, summary_json, ran_at) VALUES "
    "('britain', 1, '5', '{\"players_without_orders\":[\"MRC\",\"WSX\"]}', 1600000001),"
    "('britain', 2, '6', '{\"digest\":\"x\"}', 1600000002),"
    "('gaul', 1, '7', '{\"players_without_orders\":\"MRC\"}', 1600000003);";

// What the upgraded store reads: britain's lists from the new rows, gaul's corruption as before.
void expect_upgraded(Store& store) {
  auto& att = dynamic_cast<AttendanceStore&>(store);
  auto got = att.turns_without_orders("britain", 1);
  ASSERT_TRUE(got.ok()) << got.status().to_string();
  ASSERT_EQ(got->size(), 2u);
  EXPECT_TRUE(got->at(0).without_orders.empty());
  EXPECT_EQ(got->at(0).ran_at, 1'600'000'002);
  EXPECT_EQ(got->at(1).without_orders, (std::vector<std::string>{"MRC", "WSX"}));
  auto gaul = att.turns_without_orders("gaul", 1);
  EXPECT_EQ(gaul.status().code(), StatusCode::kCorruption);
}

TEST(TurnAttendanceUpgradeTest, SqliteFillsTheTableFromTheSummaries) {
  adj::testing::TempDir dir;
  const std::string path = dir.file("adjutant.db");
  {
    auto db = sqlite::Database::open(path);
    ASSERT_TRUE(db.ok());
    auto all = adj::bundled_migrations(sql::Dialect::kSqlite);
    ASSERT_TRUE(all.ok());
    ASSERT_GE(all->size(), 18u);
    ASSERT_EQ((*all)[17].version, 18);
    std::vector<Migration> before(all->begin(), all->begin() + 17);
    ASSERT_TRUE(adj::migrate(*db, before).ok());
    ASSERT_TRUE(db->exec(kTurnsBefore).ok());
  }
  auto store = SqliteStore::open(path);
  ASSERT_TRUE(store.ok()) << store.status().to_string();
  expect_upgraded(**store);
  auto db = sqlite::Database::open(path);
  ASSERT_TRUE(db.ok());
  auto rows = db->query(
      "SELECT group_concat(game_id || turn || without_orders, ' ') FROM "
      "(SELECT * FROM turn_attendance ORDER BY game_id, turn)",
      {});
  ASSERT_TRUE(rows.ok()) << rows.status().to_string();
  EXPECT_EQ(rows->text(0, 0), "britain1[\"MRC\",\"WSX\"] britain2[]");
}

TEST(TurnAttendanceUpgradeTest, PostgresqlFillsTheTableFromTheSummaries) {
  auto conninfo = adj::testing::fresh_pg_database();
  if (!conninfo.ok() && conninfo.status().code() == StatusCode::kUnavailable)
    GTEST_SKIP() << "PostgreSQL not available: " << conninfo.status().message();
  ASSERT_TRUE(conninfo.ok()) << conninfo.status().to_string();
  {
    auto c = pg::Connection::open(*conninfo);
    ASSERT_TRUE(c.ok()) << c.status().to_string();
    auto all = adj::bundled_migrations(sql::Dialect::kPostgres);
    ASSERT_TRUE(all.ok());
    ASSERT_GE(all->size(), 18u);
    ASSERT_EQ((*all)[17].name, "turn_attendance");
    std::vector<pg::Migration> before(all->begin(), all->begin() + 17);
    auto v = pg::migrate(*c, before);
    ASSERT_TRUE(v.ok()) << v.status().to_string();
    ASSERT_TRUE(c->exec(kTurnsBefore).ok());
  }
  auto store = PgStore::open(*conninfo);
  ASSERT_TRUE(store.ok()) << store.status().to_string();
  expect_upgraded(**store);
  auto rows = (*store)->connection().query(
      "SELECT string_agg(game_id || turn || without_orders, ' ' ORDER BY game_id, turn) "
      "FROM turn_attendance");
  ASSERT_TRUE(rows.ok()) << rows.status().to_string();
  EXPECT_EQ(rows->text(0, 0), "britain1[\"MRC\", \"WSX\"] britain2[]");
}

}  // namespace
}  // namespace adj::storage_test
