// A fixture for storage tests that need several connections to one database at once (threads
// standing in for daemons in separate processes), on every backend: SQLite, a file in a
// temporary directory; PostgreSQL, a fresh database of the test run's cluster
// (tests/support/pg_test_db.h), skipped with the reason shown where no server can be started.
// Use with TEST_P and ADJ_ON_EVERY_BACKEND(Suite). Header-only (the test glob compiles
// *_test.cc only).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "storage/postgres/pg_store.h"
#include "storage/sqlite/sqlite_store.h"
#include "storage/store.h"
#include "tests/storage/store_test_util.h"
#include "tests/support/pg_test_db.h"
#include "tests/support/temp_dir.h"

namespace adj::storage_test {

class SharedDatabaseTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "sqlite") {
      where_ = dir_.file("shared.db");
    } else {
      auto db = adj::testing::fresh_pg_database();
      if (!db.ok() && db.status().code() == StatusCode::kUnavailable)
        GTEST_SKIP() << "PostgreSQL not available: " << db.status().message();
      ASSERT_TRUE(db.ok()) << db.status().to_string();
      where_ = *db;
    }
    // Migrated once here, before any threads race.
    auto first = open();
    ASSERT_TRUE(first) << "cannot open the " << GetParam() << " database";
  }

  // A new connection (a new Store) to the test's database; null (after a failed expectation)
  // when it cannot be opened. Callable from any thread.
  std::unique_ptr<Store> open() const {
    Result<std::unique_ptr<Store>> s = Status::Internal("unknown backend " + GetParam());
    if (GetParam() == "sqlite") {
      auto opened = SqliteStore::open(where_);
      if (opened.ok())
        s = std::unique_ptr<Store>(std::move(opened).value());
      else
        s = opened.status();
    } else if (GetParam() == "postgresql") {
      auto opened = PgStore::open(where_);
      if (opened.ok())
        s = std::unique_ptr<Store>(std::move(opened).value());
      else
        s = opened.status();
    }
    EXPECT_TRUE(s.ok()) << s.status().to_string();
    return s.ok() ? std::move(s).value() : nullptr;
  }

  // Creates game `id` (make_state) through a new connection.
  void create_game_or_fail(const std::string& id) {
    auto store = open();
    ASSERT_TRUE(store);
    Status s = store->create_game(make_state(id), make_scenario(id), 1'600'000'000);
    ASSERT_TRUE(s.ok()) << s.to_string();
  }

  adj::testing::TempDir dir_;
  std::string where_;  // the SQLite file or the PostgreSQL conninfo
};

}  // namespace adj::storage_test
