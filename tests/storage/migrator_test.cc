#include "storage/sqlite/migrator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "storage/sqlite/sqlite_store.h"
#include "tests/storage/store_test_util.h"
#include "tests/support/temp_dir.h"

namespace adj::sqlite {
namespace {

const std::vector<std::string> kInitTables = {"battles",     "games",       "reports",
                                              "submissions", "turn_states", "turns"};

class MigratorTest : public ::testing::Test {
 protected:
  std::string path() const { return dir_.file("adjutant.db"); }

  Database open_db() {
    auto db = Database::open(path());
    EXPECT_TRUE(db.ok()) << db.status().to_string();
    return std::move(db).value();
  }

  static std::vector<std::string> column(Database& db, const std::string& sql) {
    std::vector<std::string> out;
    auto r = db.query(sql, {});
    EXPECT_TRUE(r.ok()) << r.status().to_string();
    for (int i = 0; r.ok() && i < r->size(); ++i) out.push_back(r->text(i, 0));
    return out;
  }

  static int count_migrations(Database& db) {
    return std::stoi(column(db, "SELECT count(*) FROM schema_migrations").at(0));
  }

  adj::testing::TempDir dir_;
};

TEST(MigrationFileTest, ParsesNumberedNames) {
  auto m = migration_from_file("schemas/migrations/0012_mail_outbox.sql", "SELECT 1;");
  ASSERT_TRUE(m.ok()) << m.status().to_string();
  EXPECT_EQ(m->version, 12);
  EXPECT_EQ(m->name, "mail_outbox");
  EXPECT_EQ(m->sql, "SELECT 1;");
  EXPECT_TRUE(migration_from_file("0001_init.sql", "").ok());
  for (const char* bad : {"init.sql", "001_init.sql", "0001init.sql", "0001_.sql", "0001_init.txt",
                          "0000_zero.sql", "0001_Init.sql", "000a_x.sql", "schemas/sql/.sql"}) {
    auto r = migration_from_file(bad, "");
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << bad;
    }
  }
}

TEST(MigrationFileTest, DialectFragmentsKeepSharedTextAndTheirOwnSections) {
  const std::string file =
      "-- 0023_x: a comment\nCREATE TABLE a (n INTEGER);\n-- @sqlite\nCREATE TABLE s (n INTEGER) "
      "STRICT;\n-- @postgres\nCREATE TABLE p (n BIGINT);\n-- @both\nCREATE INDEX i ON a(n);\n";
  EXPECT_EQ(dialect_fragment(file, Dialect::kSqlite),
            "-- 0023_x: a comment\nCREATE TABLE a (n INTEGER);\nCREATE TABLE s (n INTEGER) "
            "STRICT;\nCREATE INDEX i ON a(n);\n");
  EXPECT_EQ(dialect_fragment(file, Dialect::kPostgres),
            "-- 0023_x: a comment\nCREATE TABLE a (n INTEGER);\nCREATE TABLE p (n "
            "BIGINT);\nCREATE INDEX i ON a(n);\n");
  EXPECT_EQ(dialect_fragment("-- @postgres\nSELECT 1;", Dialect::kSqlite), "");
  // Only a whole marker line switches: a marker word inside a comment does not.
  EXPECT_EQ(dialect_fragment("-- see -- @postgres below\nSELECT 1;", Dialect::kSqlite),
            "-- see -- @postgres below\nSELECT 1;");
}

TEST(MigrationFileTest, BothDialectsCountTheSameVersions) {
  auto lite = adj::bundled_migrations(Dialect::kSqlite);
  auto pg = adj::bundled_migrations(Dialect::kPostgres);
  ASSERT_TRUE(lite.ok() && pg.ok());
  ASSERT_EQ(lite->size(), pg->size());
  for (std::size_t i = 0; i < lite->size(); ++i) {
    EXPECT_EQ((*lite)[i].version, (*pg)[i].version);
    EXPECT_EQ((*lite)[i].name, (*pg)[i].name);
    EXPECT_EQ((*lite)[i].sql.find("BYTEA"), std::string::npos) << (*lite)[i].name;
    EXPECT_EQ((*pg)[i].sql.find("STRICT"), std::string::npos) << (*pg)[i].name;
  }
  EXPECT_NE(pg->front().sql.find("CREATE TABLE games"), std::string::npos);
  EXPECT_EQ((*pg)[3].sql, "");  // 0004_inbox_lease: in PostgreSQL's 0003_mail from the start
}

TEST(MigrationFileTest, BundledMigrationsStartWithInit) {
  auto all = bundled_migrations(Dialect::kSqlite);
  ASSERT_TRUE(all.ok()) << all.status().to_string();
  ASSERT_FALSE(all->empty());
  EXPECT_EQ(all->front().version, 1);
  EXPECT_EQ(all->front().name, "init");
  EXPECT_NE(all->front().sql.find("CREATE TABLE games"), std::string::npos);
  for (std::size_t i = 0; i < all->size(); ++i) EXPECT_EQ((*all)[i].version, int(i) + 1);
}

TEST_F(MigratorTest, MigratesAnEmptyFile) {
  auto store = SqliteStore::open(path());
  ASSERT_TRUE(store.ok()) << store.status().to_string();
  auto version = (*store)->schema_version();
  ASSERT_TRUE(version.ok());
  const int latest = static_cast<int>(bundled_migrations(Dialect::kSqlite)->size());
  EXPECT_EQ(*version, latest);

  Database db = open_db();
  const auto tables =
      column(db,
             "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE "
             "'sqlite_%' ORDER BY name");
  for (const auto& t : kInitTables)
    EXPECT_NE(std::find(tables.begin(), tables.end(), t), tables.end()) << t;
  EXPECT_NE(std::find(tables.begin(), tables.end(), "schema_migrations"), tables.end());
  // Every table of the schema is STRICT.
  for (const auto& t : kInitTables)
    EXPECT_EQ(column(db, "SELECT strict FROM pragma_table_list WHERE name = '" + t + "'"),
              std::vector<std::string>{"1"})
        << t;
  EXPECT_EQ(column(db, "PRAGMA user_version"), std::vector<std::string>{std::to_string(latest)});
}

TEST_F(MigratorTest, SchemaMigrationsRecordsEachVersion) {
  ASSERT_TRUE(SqliteStore::open(path()).ok());
  Database db = open_db();
  EXPECT_EQ(
      column(db, "SELECT version || ':' || name FROM schema_migrations ORDER BY version").at(0),
      "1:init");
  const auto applied = column(db, "SELECT applied_at FROM schema_migrations WHERE version = 1");
  ASSERT_EQ(applied.size(), 1u);
  EXPECT_GT(std::stoll(applied[0]), 1'600'000'000);  // a real Unix time, not 0
}

TEST_F(MigratorTest, ReopeningIsIdempotent) {
  {
    auto store = SqliteStore::open(path());
    ASSERT_TRUE(store.ok());
    ASSERT_TRUE((*store)->create_game(storage_test::make_state("g"), Json::object(), 1).ok());
  }
  Database db = open_db();
  const int rows = count_migrations(db);
  const auto applied = column(db, "SELECT applied_at FROM schema_migrations ORDER BY version");
  for (int i = 0; i < 2; ++i) {
    auto again = SqliteStore::open(path());
    ASSERT_TRUE(again.ok()) << again.status().to_string();
    auto games = (*again)->list_games();
    ASSERT_TRUE(games.ok());
    EXPECT_EQ(games->size(), 1u);  // data survives re-opening
  }
  EXPECT_EQ(count_migrations(db), rows);
  EXPECT_EQ(column(db, "SELECT applied_at FROM schema_migrations ORDER BY version"), applied);
}

TEST_F(MigratorTest, RefusesANewerUserVersion) {
  ASSERT_TRUE(SqliteStore::open(path()).ok());
  {
    Database db = open_db();
    ASSERT_TRUE(db.exec("PRAGMA user_version = 99").ok());
  }
  auto store = SqliteStore::open(path());
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(store.status().message().find("99"), std::string::npos) << store.status().message();
  EXPECT_NE(store.status().message().find("newer"), std::string::npos);
  Database db = open_db();
  EXPECT_EQ(column(db, "PRAGMA user_version"), std::vector<std::string>{"99"});  // untouched
}

TEST_F(MigratorTest, RefusesANewerRecordedMigration) {
  ASSERT_TRUE(SqliteStore::open(path()).ok());
  {
    Database db = open_db();
    ASSERT_TRUE(db.exec("INSERT INTO schema_migrations VALUES (50, 'future', 0);"
                        "PRAGMA user_version = 50;")
                    .ok());
  }
  auto store = SqliteStore::open(path());
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), StatusCode::kFailedPrecondition) << store.status().to_string();
}

TEST_F(MigratorTest, DisagreeingVersionsAreCorruption) {
  ASSERT_TRUE(SqliteStore::open(path()).ok());
  {
    Database db = open_db();
    ASSERT_TRUE(db.exec("PRAGMA user_version = 0").ok());
  }
  auto store = SqliteStore::open(path());
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), StatusCode::kCorruption) << store.status().to_string();
}

TEST_F(MigratorTest, AppliesOnlyMissingVersionsInOrder) {
  Database db = open_db();
  std::vector<Migration> list = {{1, "one", "CREATE TABLE a(x INTEGER) STRICT;"}};
  auto v = migrate(db, list);
  ASSERT_TRUE(v.ok()) << v.status().to_string();
  EXPECT_EQ(*v, 1);
  list.push_back({2, "two", "INSERT INTO a VALUES (2); CREATE TABLE b(y TEXT) STRICT;"});
  list.push_back({3, "three", "INSERT INTO a SELECT x + 1 FROM a;"});
  v = migrate(db, list);
  ASSERT_TRUE(v.ok()) << v.status().to_string();
  EXPECT_EQ(*v, 3);
  EXPECT_EQ(column(db, "SELECT x FROM a ORDER BY x"), (std::vector<std::string>{"2", "3"}));
  EXPECT_EQ(column(db, "SELECT name FROM schema_migrations ORDER BY version"),
            (std::vector<std::string>{"one", "two", "three"}));
  v = migrate(db, list);  // nothing left to do: migration 3 must not run twice
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(column(db, "SELECT count(*) FROM a"), std::vector<std::string>{"2"});
}

TEST_F(MigratorTest, FailingMigrationIsRolledBackAlone) {
  Database db = open_db();
  std::vector<Migration> list = {
      {1, "good", "CREATE TABLE a(x INTEGER) STRICT;"},
      {2, "bad", "CREATE TABLE b(y INTEGER) STRICT; INSERT INTO nowhere VALUES (1);"},
  };
  auto v = migrate(db, list);
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.status().message().find("2_bad"), std::string::npos) << v.status().message();
  EXPECT_NE(v.status().message().find("nowhere"), std::string::npos);
  EXPECT_FALSE(db.in_transaction());
  EXPECT_EQ(column(db, "PRAGMA user_version"), std::vector<std::string>{"1"});
  EXPECT_EQ(column(db, "SELECT name FROM sqlite_schema WHERE name IN ('a', 'b')"),
            std::vector<std::string>{"a"});
  list[1].sql = "CREATE TABLE b(y INTEGER) STRICT;";  // fixed: applies on the next run
  v = migrate(db, list);
  ASSERT_TRUE(v.ok()) << v.status().to_string();
  EXPECT_EQ(*v, 2);
}

TEST_F(MigratorTest, RefusesAGappedList) {
  Database db = open_db();
  auto v = migrate(db, {{1, "one", "SELECT 1;"}, {3, "three", "SELECT 1;"}});
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(column(db, "PRAGMA user_version"), std::vector<std::string>{"0"});
}

}  // namespace
}  // namespace adj::sqlite
