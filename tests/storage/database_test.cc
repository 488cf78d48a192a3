#include "storage/sqlite/database.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <chrono>
#include <cstdint>
#include <fstream>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/temp_dir.h"

namespace adj::sqlite {
namespace {

class DatabaseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = Database::open(dir_.file("t.db"));
    ASSERT_TRUE(opened.ok()) << opened.status().to_string();
    db_ = std::make_unique<Database>(std::move(opened).value());
  }

  std::string pragma_text(const std::string& name) {
    auto r = db_->query("PRAGMA " + name, {});
    EXPECT_TRUE(r.ok() && !r->empty()) << name;
    return r.ok() && !r->empty() ? r->text(0, 0) : "";
  }

  int count(const std::string& table) {
    auto r = db_->query("SELECT count(*) FROM " + table, {});
    EXPECT_TRUE(r.ok()) << r.status().to_string();
    return r.ok() ? r->int32(0, 0) : -1;
  }

  adj::testing::TempDir dir_;
  std::unique_ptr<Database> db_;
};

TEST_F(DatabaseTest, OpenSetsThePragmas) {
  EXPECT_EQ(pragma_text("journal_mode"), "wal");
  EXPECT_EQ(pragma_text("foreign_keys"), "1");
  EXPECT_EQ(pragma_text("busy_timeout"), "0");  // set_busy_wait's handler instead: below
  EXPECT_EQ(pragma_text("synchronous"), "1");   // NORMAL
}

TEST_F(DatabaseTest, FullSynchronousIsAppliedToConnectionsOpenedAfterwards) {
  set_default_synchronous(/*full=*/true);
  auto full = Database::open(dir_.file("full.db"));
  set_default_synchronous(/*full=*/false);
  ASSERT_TRUE(full.ok()) << full.status().to_string();
  EXPECT_EQ(full->query("PRAGMA synchronous", {})->int64(0, 0), 2);  // FULL
  EXPECT_EQ(pragma_text("synchronous"), "1");  // the earlier connection keeps NORMAL
}

// Compiled statements the connection holds (idle in the cache or in use).
int statements_on(const Database& db) {
  int n = 0;
  for (sqlite3_stmt* s = sqlite3_next_stmt(db.handle(), nullptr); s;
       s = sqlite3_next_stmt(db.handle(), s))
    ++n;
  return n;
}

TEST_F(DatabaseTest, StatementCacheReusesTheCompiledStatement) {
  const int before = statements_on(*db_);
  for (int i = 0; i < 5; ++i) {
    auto st = db_->prepare("SELECT 40 + 2");
    ASSERT_TRUE(st.ok());
    ASSERT_TRUE(*st->step());
    EXPECT_EQ(st->column(0).as_int(), 42);
  }
  EXPECT_EQ(statements_on(*db_), before + 1);
  {
    // Two in use at once are two statements; both come back to the cache.
    auto a = db_->prepare("SELECT 40 + 2");
    auto b = db_->prepare("SELECT 40 + 2");
    ASSERT_TRUE(a.ok() && b.ok());
    ASSERT_TRUE(*a->step());
    ASSERT_TRUE(*b->step());
    EXPECT_EQ(a->column(0).as_int() + b->column(0).as_int(), 84);
  }
  EXPECT_EQ(statements_on(*db_), before + 2);
}

TEST_F(DatabaseTest, CachedStatementComesBackResetWithNoBindings) {
  ASSERT_TRUE(db_->exec("CREATE TABLE t(x INTEGER); INSERT INTO t VALUES (1), (2), (3)").ok());
  const std::string sql = "SELECT x FROM t WHERE x >= ? ORDER BY x";
  {
    auto st = db_->prepare(sql);
    ASSERT_TRUE(st.ok());
    st->bind(1, 2);
    ASSERT_TRUE(*st->step());  // left in the middle of its rows
    EXPECT_EQ(st->column(0).as_int(), 2);
  }
  auto again = db_->prepare(sql);
  ASSERT_TRUE(again.ok());
  auto row = again->step();  // no binding: x >= NULL matches nothing
  ASSERT_TRUE(row.ok()) << row.status().to_string();
  EXPECT_FALSE(*row);
  again->reset();
  again->bind(1, 1);
  ASSERT_TRUE(*again->step());
  EXPECT_EQ(again->column(0).as_int(), 1);  // from the first row, not where the last use stopped
}

TEST_F(DatabaseTest, CachedStatementSeesSchemaChanges) {
  ASSERT_TRUE(db_->exec("CREATE TABLE t(x INTEGER)").ok());
  {
    auto st = db_->prepare("SELECT * FROM t");
    ASSERT_TRUE(st.ok());
    EXPECT_EQ(st->column_count(), 1);
  }
  ASSERT_TRUE(db_->exec("ALTER TABLE t ADD COLUMN y TEXT; INSERT INTO t VALUES (1, 'a')").ok());
  auto st = db_->prepare("SELECT * FROM t");
  ASSERT_TRUE(st.ok());
  ASSERT_TRUE(*st->step());
  EXPECT_EQ(st->column_count(), 2);
  EXPECT_EQ(st->column(1).as_text(), "a");
}

TEST_F(DatabaseTest, StatementCacheIsBounded) {
  for (std::size_t i = 0; i < Database::kMaxIdleStatements + 50; ++i) {
    auto st = db_->prepare("SELECT " + std::to_string(i));
    ASSERT_TRUE(st.ok());
  }
  // Nothing is in use: every statement left is an idle one, and the cache is full.
  EXPECT_EQ(statements_on(*db_), static_cast<int>(Database::kMaxIdleStatements));
}

TEST_F(DatabaseTest, BindAndReadEveryType) {
  ASSERT_TRUE(db_->exec("CREATE TABLE t(i INTEGER, d REAL, s TEXT, b BLOB, n TEXT)").ok());
  const std::string text("a\0b\r\nc\xC3\xA9", 8);  // embedded NUL, CRLF, UTF-8
  const std::vector<std::uint8_t> blob = {0, 1, 254, 255};
  {
    auto ins = db_->prepare("INSERT INTO t VALUES (?, ?, ?, ?, ?)");
    ASSERT_TRUE(ins.ok()) << ins.status().to_string();
    ins->bind(1, std::numeric_limits<std::int64_t>::min())
        .bind(2, -0.125)
        .bind(3, text)
        .bind(4, sql::Param::bytes(blob))
        .bind(5, sql::Param());
    ASSERT_TRUE(ins->run().ok());
    ins->reset();
    ins->bind(1, 7)
        .bind(2, 1e300)
        .bind(3, std::string_view())
        .bind(4, sql::Param::bytes(std::string_view()))
        .bind(5, "x");
    ASSERT_TRUE(ins->run().ok());
  }
  auto sel = db_->prepare("SELECT i, d, s, b, n FROM t ORDER BY rowid");
  ASSERT_TRUE(sel.ok());
  auto row = sel->step();
  ASSERT_TRUE(row.ok() && *row);
  EXPECT_EQ(sel->column_count(), 5);
  EXPECT_EQ(sel->column(0).as_int(), std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(sel->column(1).as_real(), -0.125);
  EXPECT_EQ(sel->column(2).as_text(), text);
  EXPECT_EQ(sel->column(3).kind(), sql::Param::Kind::kBytes);
  EXPECT_EQ(sel->column(3).as_text(), std::string(blob.begin(), blob.end()));
  EXPECT_EQ(sel->column(4).kind(), sql::Param::Kind::kNull);
  EXPECT_EQ(sel->column(4).as_text(), "");
  row = sel->step();
  ASSERT_TRUE(row.ok() && *row);
  EXPECT_EQ(sel->column(0).as_int(), 7);
  EXPECT_EQ(sel->column(1).as_real(), 1e300);
  EXPECT_EQ(sel->column(2).kind(), sql::Param::Kind::kText);
  EXPECT_EQ(sel->column(2).as_text(), "");
  EXPECT_EQ(sel->column(3).kind(), sql::Param::Kind::kBytes);  // an empty blob is not NULL
  EXPECT_TRUE(sel->column(3).as_text().empty());
  EXPECT_EQ(sel->column(4).as_text(), "x");
  row = sel->step();
  ASSERT_TRUE(row.ok());
  EXPECT_FALSE(*row);
}

TEST_F(DatabaseTest, BindErrorIsReportedByStep) {
  auto st = db_->prepare("SELECT ?");
  ASSERT_TRUE(st.ok());
  st->bind(5, 1);  // no such parameter
  auto row = st->step();
  ASSERT_FALSE(row.ok());
  EXPECT_EQ(row.status().code(), StatusCode::kInternal);
  EXPECT_NE(row.status().message().find("SELECT ?"), std::string::npos) << row.status().message();
  st->reset();  // clears the kept error
  st->bind(1, 9);
  row = st->step();
  ASSERT_TRUE(row.ok() && *row) << row.status().to_string();
  EXPECT_EQ(st->column(0).as_int(), 9);
}

TEST_F(DatabaseTest, ErrorsCarryTheMessageAndTheSql) {
  auto st = db_->prepare("SELECT * FROM no_such_table");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.status().code(), StatusCode::kInternal);
  EXPECT_NE(st.status().message().find("no such table: no_such_table"), std::string::npos)
      << st.status().message();
  EXPECT_NE(st.status().message().find("SELECT * FROM no_such_table"), std::string::npos);

  Status s = db_->exec(
      "CREATE TABLE t(x INTEGER PRIMARY KEY); INSERT INTO t VALUES (1);"
      "INSERT INTO t VALUES (1);");
  EXPECT_EQ(s.code(), StatusCode::kAlreadyExists) << s.to_string();
  EXPECT_NE(s.message().find("UNIQUE constraint failed: t.x"), std::string::npos) << s.message();
}

TEST_F(DatabaseTest, ConstraintKindsMapToCodes) {
  ASSERT_TRUE(db_->exec("CREATE TABLE p(id INTEGER PRIMARY KEY);"
                        "CREATE TABLE c(p INTEGER REFERENCES p(id), v INTEGER CHECK (v > 0));")
                  .ok());
  EXPECT_EQ(db_->exec("INSERT INTO c VALUES (99, 1)").code(), StatusCode::kFailedPrecondition);
  ASSERT_TRUE(db_->exec("INSERT INTO p VALUES (1)").ok());
  EXPECT_EQ(db_->exec("INSERT INTO c VALUES (1, 0)").code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(db_->exec("INSERT INTO c VALUES (1, 1)").ok());
}

TEST_F(DatabaseTest, PrepareRefusesTwoStatements) {
  auto st = db_->prepare("SELECT 1; SELECT 2");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.status().code(), StatusCode::kInternal);
  EXPECT_TRUE(db_->prepare("SELECT 1;  ").ok());
}

TEST_F(DatabaseTest, TransactionRollsBackUnlessCommitted) {
  ASSERT_TRUE(db_->exec("CREATE TABLE t(x INTEGER)").ok());
  sql::Session& session = *db_;
  {
    auto tx = sql::WriteTx::begin(session);
    ASSERT_TRUE(tx.ok()) << tx.status().to_string();
    EXPECT_TRUE(db_->in_transaction());
    ASSERT_TRUE(db_->exec("INSERT INTO t VALUES (1)").ok());
  }
  EXPECT_FALSE(db_->in_transaction());
  EXPECT_EQ(count("t"), 0);
  {
    auto tx = sql::WriteTx::begin(session);
    ASSERT_TRUE(tx.ok());
    ASSERT_TRUE(db_->exec("INSERT INTO t VALUES (2)").ok());
    ASSERT_TRUE(tx->commit().ok());
    EXPECT_EQ(tx->commit().code(), StatusCode::kInternal);  // already finished
  }
  EXPECT_EQ(count("t"), 1);
  {
    auto tx = sql::WriteTx::begin(session);
    ASSERT_TRUE(tx.ok());
    ASSERT_TRUE(db_->exec("INSERT INTO t VALUES (3)").ok());
    EXPECT_TRUE(tx->rollback().ok());
  }
  EXPECT_EQ(count("t"), 1);
}

TEST_F(DatabaseTest, SecondWriterWaitsThenGivesUp) {
  // busy_timeout bounds the wait; shorten it so the test stays fast.
  auto other = Database::open(dir_.file("t.db"));
  ASSERT_TRUE(other.ok());
  ASSERT_TRUE(other->exec("PRAGMA busy_timeout=50").ok());
  auto tx = sql::WriteTx::begin(*db_);
  ASSERT_TRUE(tx.ok());
  auto blocked = sql::WriteTx::begin(*other);
  ASSERT_FALSE(blocked.ok());
  EXPECT_EQ(blocked.status().code(), StatusCode::kIOError) << blocked.status().to_string();
  EXPECT_NE(blocked.status().message().find("locked"), std::string::npos)
      << blocked.status().message();
}

TEST(BusyWaitTest, SleepsGrowFrom50UsTo1MsAndSumToTheBudget) {
  EXPECT_EQ(busy_sleep_us(0), 50);
  EXPECT_EQ(busy_sleep_us(4), 800);
  std::int64_t slept = 0;
  int tries = 0;
  for (; slept < 5'000'000; ++tries) {
    EXPECT_LE(busy_sleep_us(tries), 1000) << tries;
    EXPECT_GE(busy_sleep_us(tries), busy_sleep_us(tries > 0 ? tries - 1 : 0)) << tries;
    slept += busy_sleep_us(tries);
  }
  EXPECT_EQ(tries, 5 + 4999);  // 1,550 us in the first five, then 1 ms each: 5 s in all
}

TEST_F(DatabaseTest, AWriterGivesUpAfterItsBusyWait) {
  auto other = Database::open(dir_.file("t.db"));
  ASSERT_TRUE(other.ok());
  set_busy_wait(other->handle(), 200);
  auto tx = sql::WriteTx::begin(*db_);
  ASSERT_TRUE(tx.ok());
  const auto start = std::chrono::steady_clock::now();
  auto blocked = sql::WriteTx::begin(*other);
  const auto waited = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(blocked.ok());
  EXPECT_NE(blocked.status().message().find("locked"), std::string::npos)
      << blocked.status().message();
  EXPECT_GE(waited, std::chrono::milliseconds(190));  // it waited its budget, not less
}

TEST_F(DatabaseTest, AWaitingWriterTakesTheLockOnceItIsReleased) {
  ASSERT_TRUE(db_->exec("CREATE TABLE t(x INTEGER)").ok());
  auto other = Database::open(dir_.file("t.db"));
  ASSERT_TRUE(other.ok());
  auto tx = sql::WriteTx::begin(*db_);
  ASSERT_TRUE(tx.ok());
  ASSERT_TRUE(db_->exec("INSERT INTO t VALUES (1)").ok());
  std::thread holder([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EXPECT_TRUE(tx->commit().ok());
  });
  Status wrote = other->exec("INSERT INTO t VALUES (2)");  // waits for the commit
  holder.join();
  EXPECT_TRUE(wrote.ok()) << wrote.to_string();
  EXPECT_EQ(count("t"), 2);
}

TEST(DatabaseOpenTest, NotADatabaseIsCorruption) {
  adj::testing::TempDir dir;
  const std::string path = dir.file("junk.db");
  std::ofstream(path) << std::string(4096, 'x');
  auto db = Database::open(path);
  ASSERT_FALSE(db.ok());
  EXPECT_EQ(db.status().code(), StatusCode::kCorruption) << db.status().to_string();
}

TEST(DatabaseOpenTest, MissingDirectoryIsIOError) {
  adj::testing::TempDir dir;
  auto db = Database::open(dir.file("no/such/dir/x.db"));
  ASSERT_FALSE(db.ok());
  EXPECT_EQ(db.status().code(), StatusCode::kIOError) << db.status().to_string();
  EXPECT_NE(db.status().message().find("x.db"), std::string::npos) << db.status().message();
}

TEST(DatabaseOpenTest, MovedFromDatabaseIsInert) {
  adj::testing::TempDir dir;
  auto db = Database::open(dir.file("m.db"));
  ASSERT_TRUE(db.ok());
  Database moved = std::move(db).value();
  EXPECT_NE(moved.handle(), nullptr);
  EXPECT_TRUE(moved.exec("CREATE TABLE t(x INTEGER)").ok());
}

}  // namespace
}  // namespace adj::sqlite
