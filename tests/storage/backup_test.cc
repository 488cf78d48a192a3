// storage/sqlite/backup: a consistent, checked copy of a live database that never overwrites.
#include "storage/sqlite/backup.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "storage/sqlite/database.h"
#include "tests/storage/store_test_util.h"
#include "tests/support/cli_runner.h"

namespace adj::sqlite {
namespace {

using storage_test::make_state;

TEST(Backup, CopiesCommittedDataOnlyAndNeverOverwrites) {
  adj::testing::TempDir dir;
  const std::string db = dir.file("live.db"), copy = dir.file("copy.db");
  auto store = SqliteStore::open(db);
  ASSERT_TRUE(store.ok());
  ASSERT_TRUE((*store)->create_game(make_state("britain"), Json::object(), 100).ok());

  // Another connection is in the middle of a write: the copy is the last committed state.
  auto writer = Database::open(db);
  ASSERT_TRUE(writer.ok());
  auto tx = sql::WriteTx::begin(*writer);
  ASSERT_TRUE(tx.ok());
  ASSERT_TRUE(writer->exec("UPDATE games SET name = 'uncommitted' WHERE id = 'britain'").ok());

  auto info = backup_database(db, copy);
  ASSERT_TRUE(info.ok()) << info.status().to_string();
  ASSERT_TRUE(tx->rollback().ok());
  EXPECT_GT(info->pages, 0);
  EXPECT_GT(info->bytes, 0);
  EXPECT_GE(info->schema_version, 4);
  EXPECT_FALSE(std::filesystem::exists(copy + ".partial"));
  EXPECT_FALSE(std::filesystem::exists(copy + "-wal") &&
               std::filesystem::file_size(copy + "-wal") > 0);

  auto back = SqliteStore::open(copy);
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  auto games = (*back)->list_games();
  ASSERT_TRUE(games.ok());
  ASSERT_EQ(games->size(), 1u);
  EXPECT_EQ(games->front().id, "britain");
  EXPECT_NE(games->front().name, "uncommitted");

  // Never overwrite; a missing source is NotFound; nothing is left behind either way.
  auto again = backup_database(db, copy);
  EXPECT_EQ(again.status().code(), StatusCode::kAlreadyExists) << again.status().to_string();
  auto missing = backup_database(dir.file("nope.db"), dir.file("x.db"));
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_FALSE(std::filesystem::exists(dir.file("x.db")));
}

TEST(Backup, ANonDatabaseIsRefused) {
  adj::testing::TempDir dir;
  adj::testing::write_file(dir.file("junk.db"), std::string(8192, 'x'));
  auto r = backup_database(dir.file("junk.db"), dir.file("copy.db"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kCorruption) << r.status().to_string();
  EXPECT_FALSE(std::filesystem::exists(dir.file("copy.db")));
  EXPECT_FALSE(std::filesystem::exists(dir.file("copy.db.partial")));
}

}  // namespace
}  // namespace adj::sqlite
