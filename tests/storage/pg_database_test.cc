// The libpq layer (storage/postgres/pg_database.h) and the PostgreSQL migrator against a real
// server (the test run's throw-away cluster; skipped, saying why, where PostgreSQL is missing).
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "storage/postgres/pg_database.h"
#include "storage/postgres/pg_migrator.h"
#include "storage/postgres/pg_session.h"
#include "storage/postgres/pg_store.h"
#include "storage/wait_limit.h"
#include "tests/support/pg_test_db.h"

namespace adj::pg {
namespace {

class PgDatabaseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = adj::testing::fresh_pg_database();
    if (!db.ok() && db.status().code() == StatusCode::kUnavailable)
      GTEST_SKIP() << "PostgreSQL not available: " << db.status().message();
    ASSERT_TRUE(db.ok()) << db.status().to_string();
    conninfo_ = *db;
  }

  Connection connect() {
    auto c = Connection::open(conninfo_);
    EXPECT_TRUE(c.ok()) << c.status().to_string();
    return std::move(c).value();
  }

  static int schema_version_of(Connection& c) {
    PgSession s(c);
    return *adj::schema_version(s);
  }

  std::string conninfo_;
};

// Text from outside as PostgreSQL TEXT can hold it (PgSession::outside_text): well-formed UTF-8
// kept, each NUL and each byte of a malformed sequence one U+FFFD.
TEST(PgStorableText, KeepsWellFormedUtf8AndReplacesEveryOtherByte) {
  const std::string r = "\xEF\xBF\xBD";
  EXPECT_EQ(storable_text("plain \xC3\xA9 \xE2\x82\xAC \xF0\x9D\x84\x9E"),
            "plain \xC3\xA9 \xE2\x82\xAC \xF0\x9D\x84\x9E");
  EXPECT_EQ(storable_text(std::string("a\0b", 3)), "a" + r + "b");
  EXPECT_EQ(storable_text("\xC0\xAF"), r + r);                  // overlong, two bytes
  EXPECT_EQ(storable_text("\xE0\x80\xAF"), r + r + r);          // overlong, three bytes
  EXPECT_EQ(storable_text("\xED\xA0\x80"), r + r + r);          // a surrogate
  EXPECT_EQ(storable_text("\xF4\x90\x80\x80"), r + r + r + r);  // past U+10FFFF
  EXPECT_EQ(storable_text("x\xE2\x82"), "x" + r + r);           // cut short
  EXPECT_EQ(storable_text("\xFF\xF0\x9F\x98\x80"), r + "\xF0\x9F\x98\x80");
}

TEST_F(PgDatabaseTest, ParamsRoundTripAndBytesAreExact) {
  Connection c = connect();
  std::vector<std::uint8_t> all(256);
  for (int i = 0; i < 256; ++i) all[i] = static_cast<std::uint8_t>(i);
  auto r = c.query("SELECT $1::bytea, $2::text, $3::bigint, $4::boolean, $5::float8, $6::text",
                   {Param::bytes(all), "it's \"quoted\" \\ ünïcode", std::int64_t{-9'000'000'000},
                    sql::flag(true), 2.5, Param()});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  ASSERT_EQ(r->size(), 1);
  EXPECT_EQ(r->bytes(0, 0), all);
  EXPECT_EQ(r->text(0, 1), "it's \"quoted\" \\ ünïcode");
  EXPECT_EQ(r->int64(0, 2), -9'000'000'000);
  EXPECT_EQ(r->int64(0, 3), 1);
  EXPECT_DOUBLE_EQ(r->float64(0, 4), 2.5);
  EXPECT_TRUE(r->is_null(0, 5));
  EXPECT_EQ(r->text(0, 5), "");
}

TEST_F(PgDatabaseTest, ErrorsCarryTheSqlstateAndMapToCodes) {
  Connection c = connect();
  ASSERT_TRUE(c.exec("CREATE TABLE t (k TEXT PRIMARY KEY, n BIGINT CHECK (n > 0))").ok());
  ASSERT_TRUE(c.query("INSERT INTO t VALUES ($1, $2)", {"a", 1}).ok());
  auto dup = c.query("INSERT INTO t VALUES ($1, $2)", {"a", 2});
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(dup.status().code(), StatusCode::kAlreadyExists);
  EXPECT_NE(dup.status().message().find("(SQLSTATE 23505)"), std::string::npos)
      << dup.status().message();
  EXPECT_EQ(c.query("INSERT INTO t VALUES ($1, $2)", {"b", -1}).status().code(),
            StatusCode::kInvalidArgument);
  auto syntax = c.query("SELEKT 1");
  EXPECT_EQ(syntax.status().code(), StatusCode::kInternal);
  EXPECT_NE(syntax.status().message().find("(SQLSTATE 42601)"), std::string::npos);
  EXPECT_NE(syntax.status().message().find("SELEKT"), std::string::npos);  // the SQL that failed
  EXPECT_EQ(c.query("UPDATE t SET n = n + 1")->affected(), 1);             // rows affected
}

// The server's DETAIL quotes the refused row and key ("Key (k)=(...) already exists", "Failing
// row contains (...)"); an error must not carry them, on a statement or a COPY.
TEST_F(PgDatabaseTest, AnErrorNeverQuotesTheValuesOfTheRowItRefused) {
  Connection c = connect();
  ASSERT_TRUE(c.exec("CREATE TABLE t (k TEXT PRIMARY KEY, n BIGINT CHECK (n > 0))").ok());
  ASSERT_TRUE(c.query("INSERT INTO t VALUES ($1, $2)", {"hunter2-secret", 1}).ok());
  auto dup = c.query("INSERT INTO t VALUES ($1, $2)", {"hunter2-secret", 2});
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(dup.status().code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(dup.status().message().find("hunter2"), std::string::npos) << dup.status().message();
  auto check = c.query("INSERT INTO t VALUES ($1, $2)", {"other-secret", -5});
  ASSERT_FALSE(check.ok());
  EXPECT_EQ(check.status().message().find("other-secret"), std::string::npos)
      << check.status().message();
}

TEST_F(PgDatabaseTest, ATextParameterWithANulByteIsRefusedNotCut) {
  Connection c = connect();
  ASSERT_TRUE(c.exec("CREATE TABLE t (k TEXT)").ok());
  const std::string with_nul("ab\0cd", 5);
  auto r = c.query("INSERT INTO t VALUES ($1)", {with_nul});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("$1"), std::string::npos) << r.status().message();
  EXPECT_EQ(c.query("SELECT count(*) FROM t")->int64(0, 0), 0);
}

TEST_F(PgDatabaseTest, StatementsArePreparedOncePerConnection) {
  Connection c = connect();
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(c.query("SELECT $1::int + 1", {i}).ok());
  ASSERT_TRUE(c.query("SELECT 2").ok());
  auto n = c.query("SELECT count(*) FROM pg_prepared_statements");
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(n->int64(0, 0), 3);  // the two above and this one
}

TEST_F(PgDatabaseTest, TransactionsRollBackUnlessCommitted) {
  Connection c = connect();
  PgSession session(c);
  ASSERT_TRUE(c.exec("CREATE TABLE t (n BIGINT)").ok());
  {
    auto tx = sql::WriteTx::begin(session);
    ASSERT_TRUE(tx.ok());
    EXPECT_TRUE(c.in_transaction());
    ASSERT_TRUE(c.query("INSERT INTO t VALUES (1)").ok());
  }
  EXPECT_FALSE(c.in_transaction());
  EXPECT_EQ(c.query("SELECT count(*) FROM t")->int64(0, 0), 0);
  {
    auto tx = sql::WriteTx::begin(session);
    ASSERT_TRUE(tx.ok());
    ASSERT_TRUE(c.query("INSERT INTO t VALUES (1)").ok());
    ASSERT_TRUE(tx->commit().ok());
  }
  EXPECT_EQ(c.query("SELECT count(*) FROM t")->int64(0, 0), 1);
  {
    // A failed statement fails the transaction: its commit reports it.
    auto tx = sql::WriteTx::begin(session);
    ASSERT_TRUE(tx.ok());
    ASSERT_TRUE(c.query("INSERT INTO t VALUES (2)").ok());
    EXPECT_FALSE(c.query("INSERT INTO t VALUES ('x')").ok());
    Status s = tx->commit();
    EXPECT_FALSE(s.ok());
    EXPECT_NE(s.message().find("SQLSTATE"), std::string::npos) << s.message();
  }
  EXPECT_FALSE(c.in_transaction());
  EXPECT_EQ(c.query("SELECT count(*) FROM t")->int64(0, 0), 1);
}

TEST_F(PgDatabaseTest, ALostSessionIsReplacedOutsideATransactionOnly) {
  Connection c = connect();
  PgSession session(c);
  Connection killer = connect();
  const std::int64_t pid = c.query("SELECT pg_backend_pid()")->int64(0, 0);
  ASSERT_TRUE(c.exec("CREATE TABLE t (n BIGINT)").ok());
  ASSERT_TRUE(killer.query("SELECT pg_terminate_backend($1)", {pid}).ok());
  // The first use finds the session gone (IOError) or already replaced; then it works again.
  auto first = c.query("SELECT 1");
  if (!first.ok()) {
    EXPECT_EQ(first.status().code(), StatusCode::kIOError);
  }
  auto again = c.query("SELECT count(*) FROM t");
  ASSERT_TRUE(again.ok()) << again.status().to_string();

  // Inside a transaction: the rest of it must not run on a new session, outside the transaction.
  {
    auto tx = sql::WriteTx::begin(session);
    ASSERT_TRUE(tx.ok());
    ASSERT_TRUE(c.query("INSERT INTO t VALUES (1)").ok());
    const std::int64_t pid2 = c.query("SELECT pg_backend_pid()")->int64(0, 0);
    ASSERT_TRUE(killer.query("SELECT pg_terminate_backend($1)", {pid2}).ok());
    for (int i = 0; i < 3; ++i)
      EXPECT_FALSE(c.query("INSERT INTO t VALUES (2)").ok()) << "statement " << i;
    EXPECT_FALSE(tx->commit().ok());
  }
  auto n = c.query("SELECT count(*) FROM t");
  ASSERT_TRUE(n.ok()) << n.status().to_string();
  EXPECT_EQ(n->int64(0, 0), 0);
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// A statement the server does not answer within the statement limit fails (57014) in about that
// time; the session is dropped and the next statement runs on a new one.
TEST_F(PgDatabaseTest, ARoundTripIsAbandonedAtTheStatementLimit) {
  Connection c = connect();
  PgSession session(c);
  const std::int64_t pid = c.query("SELECT pg_backend_pid()")->int64(0, 0);
  const auto t0 = std::chrono::steady_clock::now();
  {
    const ScopedWaitCap cap(std::chrono::milliseconds(300));
    auto slow = c.query("SELECT pg_sleep(5)");
    ASSERT_FALSE(slow.ok());
    EXPECT_EQ(slow.status().code(), StatusCode::kIOError);
    EXPECT_NE(slow.status().message().find("(SQLSTATE 57014)"), std::string::npos)
        << slow.status().message();
    EXPECT_FALSE(c.healthy());
    EXPECT_FALSE(database_stalled());  // a slow statement is not a stalled server
  }
  EXPECT_LT(seconds_since(t0), 3.0);
  auto again = c.query("SELECT pg_backend_pid()");
  ASSERT_TRUE(again.ok()) << again.status().to_string();
  EXPECT_NE(again->int64(0, 0), pid);
  // Inside a transaction, the statements after an abandoned one fail until it ends.
  ASSERT_TRUE(c.exec("CREATE TABLE t (n BIGINT)").ok());
  {
    auto tx = sql::WriteTx::begin(session);
    ASSERT_TRUE(tx.ok());
    ASSERT_TRUE(c.query("INSERT INTO t VALUES (1)").ok());
    {
      const ScopedWaitCap cap(std::chrono::milliseconds(200));
      EXPECT_FALSE(c.query("SELECT pg_sleep(5)").ok());
    }
    EXPECT_FALSE(c.query("INSERT INTO t VALUES (2)").ok());
    EXPECT_FALSE(tx->commit().ok());
  }
  auto n = c.query("SELECT count(*) FROM t");
  ASSERT_TRUE(n.ok()) << n.status().to_string();
  EXPECT_EQ(n->int64(0, 0), 0);
}

// A server that takes the connection but never answers (a listening socket nobody accepts on):
// connecting fails at the connect limit, naming the server.
TEST(PgConnectTest, ASilentServerFailsAtTheConnectLimit) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(fd, 16), 0);
  socklen_t len = sizeof addr;
  ASSERT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  const std::string conninfo =
      "host=127.0.0.1 port=" + std::to_string(ntohs(addr.sin_port)) + " user=adj dbname=games";
  const auto t0 = std::chrono::steady_clock::now();
  Result<Connection> c = Status::Unavailable("not tried");
  {
    const ScopedWaitCap cap(std::chrono::milliseconds(400));
    c = Connection::open(conninfo);
  }
  const double took = seconds_since(t0);
  EXPECT_FALSE(database_stalled());  // it waited less than the stalled limit
  // Allowed the stalled limit (2 s) and still no answer: the server is stalled, and every wait
  // is cut to that limit until one completes.
  {
    const ScopedWaitCap cap(database_wait_limits().stalled);
    EXPECT_FALSE(Connection::open(conninfo).ok());
  }
  EXPECT_TRUE(database_stalled());
  EXPECT_EQ(effective_wait_limits().statement, database_wait_limits().stalled);
  ::close(fd);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::kIOError);
  EXPECT_NE(c.status().message().find("no answer within 400 ms"), std::string::npos)
      << c.status().message();
  EXPECT_NE(c.status().message().find("127.0.0.1"), std::string::npos) << c.status().message();
  EXPECT_LT(took, 3.0);
  note_database_answered();  // else the stalled mode would shorten other tests' waits
  EXPECT_FALSE(database_stalled());
}

TEST(PgConnectTest, AFailedConnectionNamesTheServerButNeverThePassword) {
  for (const std::string& conninfo :
       {std::string("host=/nonexistent-adj-dir port=5999 user=adj password=hunter2secret "
                    "dbname=games"),
        std::string("postgresql://adj:hunter2secret@127.0.0.1:1/games?connect_timeout=2")}) {
    auto c = Connection::open(conninfo);
    ASSERT_FALSE(c.ok());
    EXPECT_EQ(c.status().code(), StatusCode::kIOError);
    EXPECT_EQ(c.status().message().find("hunter2secret"), std::string::npos)
        << c.status().message();
    EXPECT_NE(c.status().message().find("games"), std::string::npos) << c.status().message();
  }
}

TEST_F(PgDatabaseTest, MigrationsApplyOnceAndRefuseANewerDatabase) {
  auto migrations = adj::bundled_migrations(Dialect::kPostgres);
  ASSERT_TRUE(migrations.ok()) << migrations.status().to_string();
  ASSERT_GE(migrations->size(), 1u);
  EXPECT_EQ((*migrations)[0].name, "init");
  const int latest = static_cast<int>(migrations->size());
  Connection c = connect();
  EXPECT_EQ(schema_version_of(c), 0);
  EXPECT_EQ(*migrate(c, *migrations), latest);
  EXPECT_EQ(*migrate(c, *migrations), latest);  // idempotent
  EXPECT_EQ(c.query("SELECT count(*) FROM schema_migrations")->int64(0, 0), latest);

  ASSERT_TRUE(c.query("INSERT INTO schema_migrations VALUES ($1, 'future', 0)", {latest + 1}).ok());
  auto newer = migrate(c, *migrations);
  EXPECT_EQ(newer.status().code(), StatusCode::kFailedPrecondition) << newer.status().to_string();
  auto store = PgStore::open(conninfo_);
  EXPECT_EQ(store.status().code(), StatusCode::kFailedPrecondition);
  // The advisory lock was released: another session can take it at once.
  Connection other = connect();
  EXPECT_TRUE(other.query("SELECT pg_try_advisory_lock($1)", {kMigrationLockKey})->int64(0, 0) !=
              0);
}

// A database migrated before the one list recorded PostgreSQL's own files as versions 1..N (the
// first named "core"); the next open renumbers them by name and carries on from there.
TEST_F(PgDatabaseTest, ALegacyNumberedDatabaseIsRenumberedByNameAndMigratedOn) {
  auto migrations = adj::bundled_migrations(Dialect::kPostgres);
  ASSERT_TRUE(migrations.ok()) << migrations.status().to_string();
  Connection c = connect();
  ASSERT_TRUE(c.exec("CREATE TABLE schema_migrations (version BIGINT PRIMARY KEY, name TEXT NOT "
                     "NULL, applied_at BIGINT NOT NULL)")
                  .ok());
  // As PostgreSQL's files 1..8 were applied by an older binary: the non-empty fragments up to
  // turn_attendance (0018), numbered 1, 2, 3, ...
  int legacy = 0;
  for (const auto& m : *migrations) {
    if (m.sql.empty()) continue;
    ASSERT_TRUE(c.exec(m.sql).ok()) << m.name;
    ++legacy;
    const std::string name = legacy == 1 ? "core" : m.name;
    ASSERT_TRUE(c.query("INSERT INTO schema_migrations VALUES ($1, $2, 7)", {legacy, name}).ok());
    if (m.name == "turn_attendance") break;
  }
  ASSERT_EQ(legacy, 8);
  ASSERT_EQ(schema_version_of(c), 8);
  const int latest = static_cast<int>(migrations->size());
  auto v = migrate(c, *migrations);
  ASSERT_TRUE(v.ok()) << v.status().to_string();
  EXPECT_EQ(*v, latest);
  auto rows = c.query("SELECT version, name, applied_at FROM schema_migrations ORDER BY version");
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), latest);
  for (int i = 0; i < latest; ++i) {
    EXPECT_EQ(rows->int64(i, 0), i + 1);
    EXPECT_EQ(rows->text(i, 1), (*migrations)[i].name);
  }
  EXPECT_EQ(rows->int64(17, 2), 7);  // turn_attendance kept its row, renumbered 8 -> 18
  EXPECT_EQ(rows->int64(0, 2), 7);   // core -> 0001_init
  // The steps after it ran: 0022's table is there.
  EXPECT_TRUE(c.query("SELECT to_regclass('press_digests') IS NOT NULL")->int64(0, 0) != 0);
  EXPECT_EQ(*migrate(c, *migrations), latest);  // idempotent
}

TEST_F(PgDatabaseTest, AFailingMigrationIsRolledBackAlone) {
  std::vector<Migration> ms = {{1, "one", "CREATE TABLE one (n BIGINT)"},
                               {2, "two", "CREATE TABLE two (n BIGINT); SELECT 1/0"}};
  Connection c = connect();
  auto r = migrate(c, ms);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("migration 2_two"), std::string::npos)
      << r.status().message();
  EXPECT_EQ(schema_version_of(c), 1);
  EXPECT_TRUE(c.query("SELECT to_regclass('two') IS NULL")->int64(0, 0) != 0);
  EXPECT_EQ(migrate(c, {{1, "one", ""}, {3, "three", ""}}).status().code(),
            StatusCode::kInvalidArgument);  // not numbered 1, 2, 3, ...
}

// Several daemons starting at once on a new database: each migration is applied exactly once
// and every opener ends up with the whole schema.
TEST_F(PgDatabaseTest, ConcurrentOpenersMigrateOnce) {
  constexpr int kOpeners = 6;
  std::vector<std::thread> threads;
  std::atomic<int> ready{0}, ok{0};
  std::vector<std::string> errors(kOpeners);
  for (int i = 0; i < kOpeners; ++i)
    threads.emplace_back([&, i] {
      ++ready;
      while (ready.load() < kOpeners) std::this_thread::yield();
      auto s = PgStore::open(conninfo_);
      if (s.ok() && *(*s)->schema_version() >= 1) ++ok;
      if (!s.ok()) errors[i] = s.status().to_string();
    });
  for (auto& t : threads) t.join();
  for (const auto& e : errors) EXPECT_EQ(e, "");
  EXPECT_EQ(ok.load(), kOpeners);
  Connection c = connect();
  auto rows = c.query("SELECT count(*), count(DISTINCT version) FROM schema_migrations");
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(rows->int64(0, 0), rows->int64(0, 1));
  EXPECT_EQ(rows->int64(0, 0),
            static_cast<std::int64_t>(adj::bundled_migrations(Dialect::kPostgres)->size()));
}

// write_epoch(): a SELECT leaves it; a statement outside a transaction and a COMMIT move it;
// statements inside a transaction wait for its end.
TEST_F(PgDatabaseTest, WriteEpochGrowsAfterWritesNotReads) {
  Connection c = connect();
  ASSERT_TRUE(c.exec("CREATE TABLE epoch_t (x BIGINT)").ok());
  const std::uint64_t e0 = write_epoch();
  ASSERT_TRUE(c.query("SELECT count(*) FROM epoch_t").ok());
  ASSERT_TRUE(c.query("  select 1").ok());
  EXPECT_EQ(write_epoch(), e0);
  ASSERT_TRUE(c.query("INSERT INTO epoch_t VALUES ($1)", {Param(std::int64_t{1})}).ok());
  const std::uint64_t e1 = write_epoch();
  EXPECT_EQ(e1, e0 + 1) << "once for the write, not again for preparing it";
  ASSERT_TRUE(c.exec("BEGIN").ok());
  ASSERT_TRUE(c.query("INSERT INTO epoch_t VALUES ($1)", {Param(std::int64_t{2})}).ok());
  EXPECT_EQ(write_epoch(), e1) << "moved before the transaction ended";
  ASSERT_TRUE(c.exec("COMMIT").ok());
  EXPECT_GT(write_epoch(), e1);
}

// set_quiet_writes: a background thread's writes leave write_epoch() as another process's do;
// the flag is the calling thread's alone.
TEST_F(PgDatabaseTest, QuietWritesOfABackgroundThreadLeaveTheWriteEpoch) {
  Connection c = connect();
  ASSERT_TRUE(c.exec("CREATE TABLE quiet_t (x BIGINT)").ok());
  const std::uint64_t e0 = write_epoch();
  std::thread background([this] {
    set_quiet_writes(true);
    Connection b = connect();
    EXPECT_TRUE(b.query("INSERT INTO quiet_t VALUES ($1)", {Param(std::int64_t{1})}).ok());
    EXPECT_TRUE(b.exec("BEGIN").ok());
    EXPECT_TRUE(b.query("INSERT INTO quiet_t VALUES ($1)", {Param(std::int64_t{2})}).ok());
    EXPECT_TRUE(b.exec("COMMIT").ok());
  });
  background.join();
  EXPECT_EQ(write_epoch(), e0);
  ASSERT_TRUE(c.query("INSERT INTO quiet_t VALUES ($1)", {Param(std::int64_t{3})}).ok());
  EXPECT_EQ(write_epoch(), e0 + 1) << "this thread's writes still move it";
  auto rows = c.query("SELECT count(*) FROM quiet_t");
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(rows->int64(0, 0), 3);
}

// PgStore::revisions() answers from the map it kept until this process writes (at once) or
// PgStore::kRevisionsFresh has passed (another process's write: forked here).
TEST_F(PgDatabaseTest, StoreRevisionsSeeThisProcessAtOnceAndOthersOnceFreshHasPassed) {
  auto store = PgStore::open(conninfo_);
  ASSERT_TRUE(store.ok()) << store.status().to_string();
  Connection c = connect();
  ASSERT_TRUE(c.exec("INSERT INTO revisions (scope, rev) VALUES ('g', 1)").ok());
  auto first = (*store)->revisions();
  ASSERT_TRUE(first.ok()) << first.status().to_string();
  EXPECT_EQ((*first)->at("g"), 1);
  const auto read_at = std::chrono::steady_clock::now();

  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {  // another process: its writes do not move this one's epoch
    auto other = Connection::open(conninfo_);
    _exit(other.ok() && other->exec("UPDATE revisions SET rev = 2 WHERE scope = 'g'").ok() ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  auto kept = (*store)->revisions();
  ASSERT_TRUE(kept.ok());
  if (std::chrono::steady_clock::now() - read_at < PgStore::kRevisionsFresh) {
    EXPECT_EQ(kept->get(), first->get()) << "read again while fresh and unwritten here";
  }
  std::this_thread::sleep_for(PgStore::kRevisionsFresh);
  auto later = (*store)->revisions();
  ASSERT_TRUE(later.ok());
  EXPECT_EQ((*later)->at("g"), 2);

  ASSERT_TRUE(c.exec("UPDATE revisions SET rev = 3 WHERE scope = 'g'").ok());
  auto mine = (*store)->revisions();
  ASSERT_TRUE(mine.ok());
  EXPECT_EQ((*mine)->at("g"), 3) << "this process's write must show at once";
}

// Another process's write of revision `rev` to scope 'g' (forked: it leaves this process's write
// epoch as it is). Returns whether it succeeded.
bool other_process_sets(const std::string& conninfo, int rev) {
  const pid_t pid = fork();
  if (pid < 0) return false;
  if (pid == 0) {
    auto other = Connection::open(conninfo);
    _exit(other.ok() && other
                            ->exec("UPDATE revisions SET rev = " + std::to_string(rev) +
                                   " WHERE scope = 'g'")
                            .ok()
              ? 0
              : 1);
  }
  int status = 0;
  return waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// A store takes a fresh read of another store of the process (same conninfo) as its own, unless
// this process wrote since that read began; a refresher thread's store reads again at half the
// freshness.
TEST_F(PgDatabaseTest, StoreRevisionsTakeAFreshReadOfAnotherStoreUnlessThisProcessWroteSince) {
  auto a = PgStore::open(conninfo_);
  auto b = PgStore::open(conninfo_);
  ASSERT_TRUE(a.ok() && b.ok());
  Connection c = connect();
  ASSERT_TRUE(c.exec("INSERT INTO revisions (scope, rev) VALUES ('g', 1)").ok());
  auto first = (*a)->revisions();
  ASSERT_TRUE(first.ok()) << first.status().to_string();
  EXPECT_EQ((*first)->at("g"), 1);

  ASSERT_TRUE(other_process_sets(conninfo_, 2));
  std::this_thread::sleep_for(PgStore::kRevisionsFresh);  // a's own read is stale now
  auto by_b = (*b)->revisions();
  ASSERT_TRUE(by_b.ok());
  EXPECT_EQ((*by_b)->at("g"), 2);
  const auto b_read = std::chrono::steady_clock::now();
  ASSERT_TRUE(other_process_sets(conninfo_, 3));
  auto taken = (*a)->revisions();
  ASSERT_TRUE(taken.ok());
  if (std::chrono::steady_clock::now() - b_read < PgStore::kRevisionsFresh / 2) {
    EXPECT_EQ(taken->get(), by_b->get()) << "b's fresh read taken, without a round trip";
  }

  ASSERT_TRUE(c.exec("UPDATE revisions SET rev = 4 WHERE scope = 'g'").ok());
  auto mine = (*a)->revisions();
  ASSERT_TRUE(mine.ok());
  EXPECT_EQ((*mine)->at("g"), 4) << "this process wrote after b's read: read again at once";
  const auto mine_at = std::chrono::steady_clock::now();

  std::thread refresher([this] {
    PgStore::set_refresher_thread(true);
    auto r = PgStore::open(conninfo_);
    ASSERT_TRUE(r.ok());
    ASSERT_TRUE((*r)->revisions().ok());
    ASSERT_TRUE(other_process_sets(conninfo_, 5));
    std::this_thread::sleep_for(PgStore::kRevisionsFresh / 2);
    auto again = (*r)->revisions();
    ASSERT_TRUE(again.ok());
    EXPECT_EQ((*again)->at("g"), 5) << "a refresher reads again at half the freshness";
  });
  refresher.join();
  std::this_thread::sleep_until(mine_at + PgStore::kRevisionsFresh);  // a's own read is stale
  auto after = (*a)->revisions();
  ASSERT_TRUE(after.ok());
  EXPECT_EQ((*after)->at("g"), 5) << "the refresher's read, taken or read again";
}

}  // namespace
}  // namespace adj::pg
