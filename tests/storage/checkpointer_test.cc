#include "storage/sqlite/checkpointer.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include "storage/sqlite/database.h"
#include "tests/support/temp_dir.h"

namespace adj::sqlite {
namespace {

// Connections opened while background checkpoints are on; off again when it ends.
class CheckpointerTest : public ::testing::Test {
 protected:
  void SetUp() override { set_background_checkpoints(true); }
  void TearDown() override { set_background_checkpoints(false); }

  Database open(const std::string& name) {
    auto db = Database::open(dir_.file(name));
    EXPECT_TRUE(db.ok()) << db.status().to_string();
    return std::move(db).value();
  }

  adj::testing::TempDir dir_;
};

TEST_F(CheckpointerTest, AFileOpenedTwiceHasOneAndAnotherFileItsOwn) {
  Database a = open("a.db");
  Database b = open("a.db");
  Database c = open("c.db");
  const auto of_a = Checkpointer::for_file(dir_.file("a.db"));
  EXPECT_EQ(of_a.use_count(), 3);  // a's, b's and this one: the connections hold it
  EXPECT_EQ(of_a.get(), Checkpointer::for_file(dir_.file("a.db")).get());
  EXPECT_NE(of_a.get(), Checkpointer::for_file(dir_.file("c.db")).get());
}

TEST_F(CheckpointerTest, ACommitThatFillsTheLogIsCheckpointedOnItsThread) {
  Database db = open("big.db");
  const auto checkpointer = Checkpointer::for_file(dir_.file("big.db"));
  ASSERT_TRUE(db.exec("CREATE TABLE t(x BLOB)").ok());
  EXPECT_EQ(checkpointer->checkpoints(), 0);  // a few pages: no checkpoint asked for
  // About 1,300 pages of 16 KB in one commit: over Checkpointer::kPages.
  ASSERT_TRUE(db.exec("BEGIN").ok());
  for (int i = 0; i < 1300; ++i)
    ASSERT_TRUE(db.run("INSERT INTO t VALUES (randomblob(16000))", {}).ok());
  ASSERT_TRUE(db.exec("COMMIT").ok());
  for (int waited_ms = 0; checkpointer->checkpoints() == 0 && waited_ms < 10'000; waited_ms += 10)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(checkpointer->checkpoints(), 1);
  EXPECT_EQ(checkpointer->truncations(), 0);  // 1,300 pages: the log stays
}

TEST_F(CheckpointerTest, ALogOfKRestartPagesIsEmptied) {
  Database db = open("long.db");
  const auto checkpointer = Checkpointer::for_file(dir_.file("long.db"));
  ASSERT_TRUE(db.exec("CREATE TABLE t(x BLOB)").ok());
  ASSERT_TRUE(db.exec("BEGIN").ok());
  for (int i = 0; i < Checkpointer::kRestartPages + 100; ++i)
    ASSERT_TRUE(db.run("INSERT INTO t VALUES (randomblob(16000))", {}).ok());
  ASSERT_TRUE(db.exec("COMMIT").ok());
  for (int waited_ms = 0; checkpointer->truncations() == 0 && waited_ms < 10'000; waited_ms += 10)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(checkpointer->truncations(), 1);
  EXPECT_EQ(std::filesystem::file_size(dir_.file("long.db") + "-wal"), 0u);
}

TEST(CheckpointerOffTest, TheCommitThatFillsTheLogCopiesItBeforeItReturns) {
  adj::testing::TempDir dir;
  auto db = Database::open(dir.file("off.db"));
  ASSERT_TRUE(db.ok());
  ASSERT_TRUE(db->exec("CREATE TABLE t(x BLOB)").ok());
  const auto before = std::filesystem::file_size(dir.file("off.db"));
  ASSERT_TRUE(db->exec("BEGIN").ok());
  for (int i = 0; i < 1300; ++i)
    ASSERT_TRUE(db->run("INSERT INTO t VALUES (randomblob(16000))", {}).ok());
  ASSERT_TRUE(db->exec("COMMIT").ok());
  // SQLite's own checkpoint, on the committing connection: the rows are in the file already.
  EXPECT_GT(std::filesystem::file_size(dir.file("off.db")), before + 1300 * 16000);
}

}  // namespace
}  // namespace adj::sqlite
