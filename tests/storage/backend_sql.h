// Raw SQL under a Store of either backend (BackendTest), for tests that look under the store or
// damage its rows on purpose. SQLite: a second connection to the store's file (open_test_store
// puts it at dir/adjutant.db); PostgreSQL: the store's own connection. Header-only.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "storage/postgres/pg_store.h"
#include "storage/sqlite/database.h"
#include "storage/store.h"
#include "tests/support/temp_dir.h"

namespace adj::storage_test {

inline Status exec_sql(Store& store, const adj::testing::TempDir& dir, const std::string& sql) {
  if (auto* pg = dynamic_cast<PgStore*>(&store)) return pg->connection().exec(sql);
  auto db = sqlite::Database::open(dir.file("adjutant.db"));
  if (!db.ok()) return db.status();
  return db->exec(sql);
}

// The first column of the first row, as text ("" and a test failure when there is none).
inline std::string query_text(Store& store, const adj::testing::TempDir& dir,
                              const std::string& sql) {
  if (auto* pg = dynamic_cast<PgStore*>(&store)) {
    auto r = pg->connection().query(sql);
    EXPECT_TRUE(r.ok() && !r->empty())
        << sql << ": " << (r.ok() ? "no row" : r.status().to_string());
    return r.ok() && !r->empty() ? r->text(0, 0) : "";
  }
  auto db = sqlite::Database::open(dir.file("adjutant.db"));
  EXPECT_TRUE(db.ok()) << db.status().to_string();
  if (!db.ok()) return "";
  auto r = db->query(sql, {});
  EXPECT_TRUE(r.ok() && !r->empty()) << sql << ": " << (r.ok() ? "no row" : r.status().to_string());
  return r.ok() && !r->empty() ? r->text(0, 0) : "";
}

}  // namespace adj::storage_test
