// EngineScriptStore (migration 0015) on
// every backend: versions numbered per game, the text kept byte for byte, bad rows refused with
// nothing written, and distinct versions when several connections upload at once.
#include <gtest/gtest.h>

#include <set>
#include <thread>
#include <vector>

#include "storage/engine_script_limits.h"
#include "storage/sqlite/database.h"
#include "storage/sqlite/migrator.h"
#include "storage/sqlite/sqlite_store.h"
#include "tests/storage/shared_db.h"
#include "tests/storage/store_test_util.h"
#include "tests/support/temp_dir.h"

namespace adj::storage_test {
namespace {

const std::string kShaA(64, 'a');
const std::string kShaB(64, 'b');

EngineScript script(const std::string& game, const std::string& source, const std::string& sha,
                    const std::string& who = "scenario", int from_turn = 1) {
  EngineScript s;
  s.game = game;
  s.version = 99;  // ignored: the store numbers versions
  s.source = source;
  s.sha256 = sha;
  s.created_at = 1'700'000'123;
  s.created_by = who;
  s.conformance = R"({"passed":true})";
  s.from_turn = from_turn;
  return s;
}

class EngineScriptStoreTest : public BackendTest {
 protected:
  void SetUp() override {
    BackendTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    create_game_or_fail();
    create_game_or_fail("other");
  }
};
ADJ_ON_EVERY_BACKEND(EngineScriptStoreTest);

TEST_P(EngineScriptStoreTest, VersionsArePerGameAndKeepTheTextExactly) {
  auto none = store_->engine_script_for_turn("britain", 1);
  ASSERT_TRUE(none.ok()) << none.status().to_string();
  EXPECT_FALSE(none->has_value());
  // Bytes a text column could lose: a NUL-free but non-ASCII, CRLF and trailing-space text.
  const std::string text = "-- d\xc3\xa9j\xc3\xa0 vu\r\nfunction resolve(b, rng) return {} end  \n";
  auto v1 = store_->add_engine_script(script("britain", text, kShaA));
  ASSERT_TRUE(v1.ok()) << v1.status().to_string();
  EXPECT_EQ(*v1, 1);
  auto v2 = store_->add_engine_script(script("britain", "return 2", kShaB, "gm:api"));
  ASSERT_TRUE(v2.ok());
  EXPECT_EQ(*v2, 2);
  auto o1 = store_->add_engine_script(script("other", "return 3", kShaB));
  ASSERT_TRUE(o1.ok());
  EXPECT_EQ(*o1, 1);

  auto got = store_->engine_script("britain", 1);
  ASSERT_TRUE(got.ok()) << got.status().to_string();
  EXPECT_EQ(got->game, "britain");
  EXPECT_EQ(got->version, 1);
  EXPECT_EQ(got->source, text);
  EXPECT_EQ(got->sha256, kShaA);
  EXPECT_EQ(got->created_at, 1'700'000'123);
  EXPECT_EQ(got->created_by, "scenario");
  EXPECT_EQ(got->conformance, R"({"passed":true})");

  auto newest = store_->engine_script_for_turn("britain", 1);
  ASSERT_TRUE(newest.ok());
  ASSERT_TRUE(newest->has_value());
  EXPECT_EQ((*newest)->version, 2);
  EXPECT_EQ((*newest)->created_by, "gm:api");
  EXPECT_TRUE((*newest)->source.empty());  // metadata only

  auto all = store_->engine_script_versions("britain");
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].version, 1);
  EXPECT_EQ((*all)[1].sha256, kShaB);
  EXPECT_TRUE((*all)[0].source.empty());
}

TEST_P(EngineScriptStoreTest, BadRowsAndUnknownNamesAreRefused) {
  EXPECT_EQ(store_->add_engine_script(script("britain", "", kShaA)).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->add_engine_script(script("britain", "x", "abc")).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->add_engine_script(script("britain", "x", std::string(64, 'A'))).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->add_engine_script(script("nope", "x", kShaA)).status().code(),
            StatusCode::kNotFound);
  auto all = store_->engine_script_versions("britain");
  ASSERT_TRUE(all.ok());
  EXPECT_TRUE(all->empty());  // nothing was written
  EXPECT_EQ(store_->engine_script("britain", 1).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(store_->engine_script("nope", 1).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(store_->engine_script_versions("nope").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(store_->engine_script_for_turn("nope", 1).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(store_->add_engine_script(script("britain", "x", kShaA, "gm", 0)).status().code(),
            StatusCode::kInvalidArgument);
}

// A version is used from the turn that was open when it was stored: a run (or a rerun after a
// rollback) of an earlier turn keeps the version that turn had.
TEST_P(EngineScriptStoreTest, AVersionIsUsedFromItsFirstTurnOn) {
  ASSERT_TRUE(store_->add_engine_script(script("britain", "return 1", kShaA, "scenario", 1)).ok());
  ASSERT_TRUE(store_->add_engine_script(script("britain", "return 2", kShaB, "gm:web", 4)).ok());
  ASSERT_TRUE(store_->add_engine_script(script("britain", "return 3", kShaA, "gm:web", 2)).ok());
  const auto version_for = [&](int turn) {
    auto v = store_->engine_script_for_turn("britain", turn);
    EXPECT_TRUE(v.ok()) << v.status().to_string();
    return v.ok() && v->has_value() ? (*v)->version : 0;
  };
  EXPECT_EQ(version_for(1), 1);
  EXPECT_EQ(version_for(2), 3) << "version 3 was stored while turn 2 was open again";
  EXPECT_EQ(version_for(3), 3);
  EXPECT_EQ(version_for(4), 3) << "the newest of those that apply";
  auto all = store_->engine_script_versions("britain");
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 3u);
  EXPECT_EQ((*all)[1].from_turn, 4);
  auto got = store_->engine_script("britain", 2);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->from_turn, 4);
  EXPECT_EQ(got->source, "return 2");
  auto none = store_->engine_script_for_turn("other", 5);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
}

// A database at the schema before 0017 with a stored script is upgraded in place: the version is
// kept and used from turn 1 on, as it was.
TEST(EngineScriptUpgrade, VersionsStoredBefore0017AreUsedFromTurnOne) {
  ::adj::testing::TempDir dir;
  const std::string path = dir.file("v16.db");
  {
    auto db = sqlite::Database::open(path);
    ASSERT_TRUE(db.ok());
    auto all = adj::bundled_migrations(sql::Dialect::kSqlite);
    ASSERT_TRUE(all.ok());
    ASSERT_GE(all->size(), 17u);
    ASSERT_EQ((*all)[16].version, 17);
    std::vector<Migration> first16(all->begin(), all->begin() + 16);
    auto v = adj::migrate(*db, first16);
    ASSERT_TRUE(v.ok()) << v.status().to_string();
    ASSERT_TRUE(db->exec("INSERT INTO games(id, name, engine, scenario_json, open_turn, status, "
                         "created_at) VALUES ('britain', 'Britain', 'lua', '{}', 3, 'open', "
                         "1600000000);"
                         "INSERT INTO engine_scripts(game_id, version, source, sha256, created_at) "
                         "VALUES ('britain', 1, 'return 1', '" +
                         kShaA + "', 1600000001);")
                    .ok());
  }
  auto store = SqliteStore::open(path);
  ASSERT_TRUE(store.ok()) << store.status().to_string();
  auto v = (*store)->engine_script_for_turn("britain", 1);
  ASSERT_TRUE(v.ok()) << v.status().to_string();
  ASSERT_TRUE(v->has_value());
  EXPECT_EQ((*v)->version, 1);
  EXPECT_EQ((*v)->from_turn, 1);
  auto got = (*store)->engine_script("britain", 1);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->source, "return 1");
}

TEST_P(EngineScriptStoreTest, AGameKeepsAtMostTwoHundredVersions) {
  for (int v = 1; v <= kMaxEngineScriptVersions; ++v) {
    auto added = store_->add_engine_script(
        script("britain", "return " + std::to_string(v), v % 2 ? kShaA : kShaB));
    ASSERT_TRUE(added.ok()) << v << ": " << added.status().to_string();
    ASSERT_EQ(*added, v);
  }
  auto over = store_->add_engine_script(script("britain", "return 0", kShaA));
  ASSERT_EQ(over.status().code(), StatusCode::kFailedPrecondition) << over.status().to_string();
  EXPECT_EQ(over.status().message(), too_many_script_versions("britain"));
  auto newest = store_->engine_script_for_turn("britain", 1);
  ASSERT_TRUE(newest.ok() && newest->has_value());
  EXPECT_EQ((*newest)->version, kMaxEngineScriptVersions);  // the refused one left nothing
  EXPECT_EQ((*newest)->sha256, kShaB);
  EXPECT_EQ((*newest)->created_by, "scenario");
  EXPECT_EQ((*newest)->conformance, R"({"passed":true})");
  EXPECT_TRUE((*newest)->source.empty());
  // Other games are not affected.
  EXPECT_TRUE(store_->add_engine_script(script("other", "return 1", kShaA)).ok());
}

class EngineScriptConcurrencyTest : public SharedDatabaseTest {};
ADJ_ON_EVERY_BACKEND(EngineScriptConcurrencyTest);

TEST_P(EngineScriptConcurrencyTest, ConcurrentUploadsGetDistinctVersions) {
  create_game_or_fail("britain");
  constexpr int kThreads = 3, kEach = 8;
  std::vector<std::vector<int>> got(kThreads);
  std::vector<std::thread> threads;
  for (int k = 0; k < kThreads; ++k)
    threads.emplace_back([&, k] {
      auto store = open();
      ASSERT_TRUE(store);
      for (int i = 0; i < kEach; ++i) {
        auto v = store->add_engine_script(script("britain", "return " + std::to_string(i), kShaA));
        ASSERT_TRUE(v.ok()) << v.status().to_string();
        got[k].push_back(*v);
      }
    });
  for (auto& t : threads) t.join();
  std::set<int> all;
  for (const auto& g : got) all.insert(g.begin(), g.end());
  EXPECT_EQ(all.size(), static_cast<std::size_t>(kThreads * kEach));
  EXPECT_EQ(*all.begin(), 1);
  EXPECT_EQ(*all.rbegin(), kThreads * kEach);
}

}  // namespace
}  // namespace adj::storage_test
