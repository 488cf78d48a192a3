// open_database (storage/open_database.h): the backend is chosen by the database argument alone,
// and a password in a URL never shows in an error or a description.
#include "storage/open_database.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>

#include "storage/core/record_checks.h"
#include "tests/storage/store_test_util.h"
#include "tests/support/pg_test_db.h"
#include "tests/support/temp_dir.h"

namespace adj {
namespace {

using storage_test::make_state;

// A libpq key=value conninfo without quoting ("host=/dir port=5 user=adj dbname=x") as a
// postgresql:// URL: every key as a query parameter.
std::string conninfo_to_url(const std::string& conninfo) {
  std::string url = "postgresql:///?";
  std::size_t p = 0;
  bool first = true;
  while (p < conninfo.size()) {
    std::size_t end = conninfo.find(' ', p);
    if (end == std::string::npos) end = conninfo.size();
    const std::string kv = conninfo.substr(p, end - p);
    if (!kv.empty()) {
      if (!first) url += '&';
      first = false;
      for (char ch : kv) {
        if (ch == '/')
          url += "%2F";
        else
          url += ch;
      }
    }
    p = end + 1;
  }
  return url;
}

TEST(OpenDatabase, APlainPathIsASqliteFile) {
  testing::TempDir dir;
  const std::string path = dir.file("plain.db");
  auto store = open_database(path);
  ASSERT_TRUE(store.ok()) << store.status().to_string();
  EXPECT_EQ((*store)->backend(), "sqlite");
  EXPECT_TRUE(std::filesystem::exists(path));
  EXPECT_EQ(database_file(path), path);
}

TEST(OpenDatabase, TheSqlitePrefixNamesTheSameFile) {
  testing::TempDir dir;
  const std::string path = dir.file("prefixed.db");
  {
    auto store = open_database("sqlite:" + path);
    ASSERT_TRUE(store.ok()) << store.status().to_string();
    EXPECT_EQ((*store)->backend(), "sqlite");
    ASSERT_TRUE(
        (*store)->create_game(make_state("g1"), storage_test::make_scenario("g1"), 100).ok());
  }
  EXPECT_TRUE(std::filesystem::exists(path));
  // No file named after the prefix, and the plain path sees the game.
  for (const auto& e : std::filesystem::directory_iterator(dir.path()))
    EXPECT_EQ(e.path().filename().string().find("sqlite:"), std::string::npos) << e.path();
  auto again = open_database(path);
  ASSERT_TRUE(again.ok());
  auto games = (*again)->list_games();
  ASSERT_TRUE(games.ok());
  ASSERT_EQ(games->size(), 1u);
  EXPECT_EQ(games->front().id, "g1");
  EXPECT_EQ(database_file("sqlite:" + path), path);
}

TEST(OpenDatabase, ParsesEveryForm) {
  auto pg = parse_database("postgresql://adj@db.example:5432/adjutant");
  ASSERT_TRUE(pg.ok());
  EXPECT_EQ(pg->backend, DatabaseBackend::kPostgres);
  EXPECT_EQ(pg->location, "postgresql://adj@db.example:5432/adjutant");
  auto short_scheme = parse_database("postgres:///adjutant?host=/run/postgresql");
  ASSERT_TRUE(short_scheme.ok());
  EXPECT_EQ(short_scheme->backend, DatabaseBackend::kPostgres);
  auto prefixed = parse_database("sqlite:/var/lib/adjutant/a.db");
  ASSERT_TRUE(prefixed.ok());
  EXPECT_EQ(prefixed->backend, DatabaseBackend::kSqlite);
  EXPECT_EQ(prefixed->location, "/var/lib/adjutant/a.db");
  auto plain = parse_database("adjutant.db");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->backend, DatabaseBackend::kSqlite);
  EXPECT_EQ(plain->location, "adjutant.db");
  EXPECT_EQ(database_file("postgresql://adj@db.example/adjutant"), "");

  EXPECT_EQ(parse_database("").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(parse_database("sqlite:").status().code(), StatusCode::kInvalidArgument);
  auto unknown = parse_database("mysql://root:pw@localhost/x");
  EXPECT_EQ(unknown.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(unknown.status().message().find("mysql"), std::string::npos);
  EXPECT_EQ(unknown.status().message().find("pw"), std::string::npos);
}

TEST(OpenDatabase, DescriptionsHidePasswords) {
  const std::string url =
      "postgresql://alice:hunter2@db.example:5432/adj?sslmode=require&password=hunter3&x=1";
  const std::string shown = describe_database(url);
  EXPECT_EQ(shown.find("hunter2"), std::string::npos) << shown;
  EXPECT_EQ(shown.find("hunter3"), std::string::npos) << shown;
  EXPECT_EQ(shown, "postgresql://alice:***@db.example:5432/adj?sslmode=require&password=***&x=1");
  // No password: shown as given; a port after the host is not a password.
  EXPECT_EQ(describe_database("postgresql://alice@db.example:5432/adj"),
            "postgresql://alice@db.example:5432/adj");
  EXPECT_EQ(describe_database("adjutant.db"), "adjutant.db");
  // A password holding '@' or '/' unencoded is still covered.
  EXPECT_EQ(describe_database("postgres://bob:a@b/c@host/db").find("a@b/c"), std::string::npos);
}

// store_checks::redacted, behind both the URL scrub and the PostgreSQL driver's connect errors:
// every occurrence goes, also of a secret the mask itself holds (one that once looped for ever).
TEST(OpenDatabase, RedactedMasksEveryOccurrenceOnce) {
  EXPECT_EQ(store_checks::redacted("pw=ab; again ab", "ab"), "pw=***; again ***");
  EXPECT_EQ(store_checks::redacted("a*b**", "*"), "a***b******");
  EXPECT_EQ(store_checks::redacted("same", ""), "same");
}

TEST(OpenDatabase, APasswordInTheUrlNeverAppearsInAnError) {
  // Nothing listens on port 1: the connection fails (or the backend is not built in); either
  // way the error must not carry the password, as written or percent-decoded.
  for (const std::string& url :
       {std::string("postgresql://alice:Zq9SecretPw@127.0.0.1:1/adj?connect_timeout=2"),
        std::string("postgres://alice:Zq9%53ecretPw@127.0.0.1:1/adj?connect_timeout=2"),
        std::string("postgresql://alice@127.0.0.1:1/adj?password=Zq9SecretPw&connect_timeout=2")}) {
    auto store = open_database(url);
    ASSERT_FALSE(store.ok()) << url;
    const std::string message = store.status().message();
    EXPECT_EQ(message.find("Zq9SecretPw"), std::string::npos) << message;
    EXPECT_EQ(message.find("Zq9%53ecretPw"), std::string::npos) << message;
    EXPECT_NE(message.find("127.0.0.1"), std::string::npos) << "names the database: " << message;
  }
}

TEST(OpenDatabase, APostgresqlUrlOpensThePostgresqlStore) {
  auto conninfo = testing::fresh_pg_database();
  if (!conninfo.ok()) GTEST_SKIP() << "PostgreSQL not available: " << conninfo.status().message();
  const std::string url = conninfo_to_url(*conninfo);
  auto store = open_database(url);
  ASSERT_TRUE(store.ok()) << store.status().to_string();
  EXPECT_EQ((*store)->backend(), "postgresql");
  ASSERT_TRUE(
      (*store)->create_game(make_state("pg1"), storage_test::make_scenario("pg1"), 100).ok());
  auto again = open_database(url);  // a second connection sees the same database
  ASSERT_TRUE(again.ok());
  auto summary = (*again)->game_summary("pg1");
  ASSERT_TRUE(summary.ok()) << summary.status().to_string();
  EXPECT_EQ(summary->id, "pg1");
}

}  // namespace
}  // namespace adj
