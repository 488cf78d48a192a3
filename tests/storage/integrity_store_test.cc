// Integrity of the store under concurrent use (migration 0007): files are stored only for the
// open turn that is not being resolved, a commit refuses when the turn's files changed under it,
// rollback retires the files of the turns it removes, game ids are unique regardless of case,
// and the database files are private to their owner. On both backends (BackendTest), except what
// only SQLite has: its files and its migration 0007.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "storage/sqlite/backup.h"
#include "storage/sqlite/migrator.h"
#include "tests/storage/store_test_util.h"

namespace adj {
namespace {

using storage_test::make_state;

constexpr UnixTime kIntegrityNow = 1'700'000'000;

SubmissionRecord file_for(const std::string& game, int turn, const std::string& player,
                          UnixTime at = kIntegrityNow) {
  SubmissionRecord r;
  r.game = game;
  r.player = player;
  r.turn = turn;
  r.source = "test";
  r.received_at = at;
  r.raw_text = "GAME " + game + "\nPLAYER " + player + " s\n";
  r.accepted = true;
  return r;
}

TurnCommit commit_for(const GameState& state, std::vector<std::int64_t> files) {
  TurnCommit c;
  c.turn = state.turn;
  c.seed = 1;
  c.next_state = state;
  c.next_state.turn = state.turn + 1;
  c.ran_at = kIntegrityNow;
  c.submissions = std::move(files);
  return c;
}

int mode_of(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return -1;
  return static_cast<int>(st.st_mode & 0777);
}

// On both backends.
class IntegrityTest : public storage_test::BackendTest {
 protected:
  void SetUp() override {
    BackendTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    state_ = make_state("britain-1");
    ASSERT_TRUE(store_->create_game(state_, Json::object(), kIntegrityNow).ok());
  }
  std::string path() const { return dir_.file("adjutant.db"); }

  GameState state_;
};

// The SQLite file itself.
class IntegrityFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = SqliteStore::open(path());
    ASSERT_TRUE(s.ok()) << s.status().to_string();
    store_ = std::move(s).value();
  }
  std::string path() const { return dir_.file("adjutant.db"); }

  ::adj::testing::TempDir dir_;
  std::unique_ptr<SqliteStore> store_;
};

TEST_P(IntegrityTest, AFileForATurnThatIsNoLongerOpenIsNotStored) {
  auto first = store_->put_submission(file_for("britain-1", 1, "WSX"));
  ASSERT_TRUE(first.ok());
  ASSERT_TRUE(storage_test::commit_turn(*store_, "britain-1", commit_for(state_, {*first})).ok());
  auto late = store_->put_submission(file_for("britain-1", 1, "MRC"));
  ASSERT_FALSE(late.ok());
  EXPECT_EQ(late.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(late.status().message().find("not open any more"), std::string::npos);
  auto all = store_->all_submissions("britain-1");
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), 1u);  // nothing stored
  EXPECT_TRUE(store_->put_submission(file_for("britain-1", 2, "MRC")).ok());
}

TEST_P(IntegrityTest, WhileATurnIsBeingResolvedItsFilesAreRefused) {
  ASSERT_TRUE(store_->begin_resolving("britain-1", 1, kIntegrityNow).ok());
  auto during = store_->put_submission(file_for("britain-1", 1, "WSX", kIntegrityNow + 1));
  ASSERT_FALSE(during.ok());
  EXPECT_EQ(during.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(during.status().message().find("being resolved"), std::string::npos);
  // A run that failed reopens the turn.
  ASSERT_TRUE(store_->end_resolving("britain-1", 1).ok());
  EXPECT_TRUE(store_->put_submission(file_for("britain-1", 1, "WSX", kIntegrityNow + 2)).ok());
}

TEST_P(IntegrityTest, AResolvingMarkOfARunThatDiedRunsOut) {
  ASSERT_TRUE(store_->begin_resolving("britain-1", 1, kIntegrityNow).ok());
  const UnixTime later = kIntegrityNow + kResolvingLeaseSeconds + 1;
  EXPECT_TRUE(store_->put_submission(file_for("britain-1", 1, "WSX", later)).ok());
}

TEST_P(IntegrityTest, BeginResolvingOnlyForTheOpenTurn) {
  auto s = store_->begin_resolving("britain-1", 2, kIntegrityNow);
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(store_->begin_resolving("nope", 1, kIntegrityNow).code(), StatusCode::kNotFound);
}

TEST_P(IntegrityTest, ACommitIsRefusedWhenTheTurnsFilesChangedUnderIt) {
  auto a = store_->put_submission(file_for("britain-1", 1, "WSX"));
  ASSERT_TRUE(a.ok());
  auto b = store_->put_submission(file_for("britain-1", 1, "MRC"));  // arrived after the read
  ASSERT_TRUE(b.ok());
  Status s = storage_test::commit_turn(*store_, "britain-1", commit_for(state_, {*a}));
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("changed while it was being resolved"), std::string::npos);
  auto g = store_->game_summary("britain-1");
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->turn, 1);  // nothing written
  EXPECT_TRUE(storage_test::commit_turn(*store_, "britain-1", commit_for(state_, {*b, *a})).ok());
}

TEST_P(IntegrityTest, CommitClearsTheResolvingMark) {
  ASSERT_TRUE(store_->begin_resolving("britain-1", 1, kIntegrityNow).ok());
  ASSERT_TRUE(storage_test::commit_turn(*store_, "britain-1", commit_for(state_, {})).ok());
  EXPECT_TRUE(store_->put_submission(file_for("britain-1", 2, "WSX", kIntegrityNow + 1)).ok());
}

TEST_P(IntegrityTest, RollbackKeepsTheFilesOfLaterTurnsForWhenTheyOpenAgain) {
  auto t1 = store_->put_submission(file_for("britain-1", 1, "WSX"));
  ASSERT_TRUE(t1.ok());
  ASSERT_TRUE(storage_test::commit_turn(*store_, "britain-1", commit_for(state_, {*t1})).ok());
  ASSERT_TRUE(store_->put_submission(file_for("britain-1", 2, "WSX")).ok());
  ASSERT_TRUE(store_->rollback("britain-1", 1).ok());
  auto cur1 = store_->current_submissions("britain-1", 1);
  auto cur2 = store_->current_submissions("britain-1", 2);
  ASSERT_TRUE(cur1.ok() && cur2.ok());
  ASSERT_EQ(cur1->size(), 1u);  // the reopened turn keeps the files it was resolved with
  EXPECT_EQ(cur1->front().id, *t1);
  ASSERT_EQ(cur2->size(), 1u);  // used again (checked again) when turn 2 opens again
  // A file for turn 2 is not taken while turn 1 is open again.
  EXPECT_FALSE(store_->put_submission(file_for("britain-1", 2, "MRC")).ok());
  auto all = store_->all_submissions("britain-1");
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), 2u);
}

TEST_P(IntegrityTest, GameIdsAreUniqueRegardlessOfCase) {
  Status s = store_->create_game(make_state("Britain-1"), Json::object(), kIntegrityNow);
  EXPECT_EQ(s.code(), StatusCode::kAlreadyExists);
  EXPECT_NE(s.message().find("differs only by case from the existing game britain-1"),
            std::string::npos)
      << s.message();
  auto id = store_->stored_game_id("BRITAIN-1");
  ASSERT_TRUE(id.ok());
  EXPECT_EQ(*id, "britain-1");
  EXPECT_EQ(store_->stored_game_id("britain-2").status().code(), StatusCode::kNotFound);
}

TEST_F(IntegrityFileTest, TheDatabaseAndItsWalAreTheOwnersOnly) {
  EXPECT_EQ(mode_of(path()), 0600);
  EXPECT_EQ(mode_of(path() + "-wal"), 0600);
  EXPECT_EQ(mode_of(path() + "-shm"), 0600);
  const std::string copy = dir_.file("backup.db");
  auto b = sqlite::backup_database(path(), copy);
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  EXPECT_EQ(mode_of(copy), 0600);
}

ADJ_ON_EVERY_BACKEND(IntegrityTest);

TEST(IntegrityFiles, AnExistingWorldReadableDatabaseIsTightenedAtOpen) {
  ::adj::testing::TempDir dir;
  const std::string db = dir.file("old.db");
  {
    auto s = SqliteStore::open(db);
    ASSERT_TRUE(s.ok());
  }
  ASSERT_EQ(::chmod(db.c_str(), 0644), 0);
  ASSERT_EQ(mode_of(db), 0644);
  auto s = SqliteStore::open(db);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  EXPECT_EQ(mode_of(db), 0600);
}

// A database as migration 6 left it, with the given game ids.
void make_v6(const std::string& path, const std::vector<std::string>& ids) {
  auto db = sqlite::Database::open(path);
  ASSERT_TRUE(db.ok());
  auto all = adj::bundled_migrations(sql::Dialect::kSqlite);
  ASSERT_TRUE(all.ok());
  ASSERT_GE(all->size(), 7u);
  std::vector<Migration> first(all->begin(), all->begin() + 6);
  ASSERT_TRUE(adj::migrate(*db, first).ok());
  for (const auto& id : ids) {
    auto st = db->prepare(
        "INSERT INTO games(id, name, engine, scenario_json, open_turn, created_at) "
        "VALUES (?, 'n', 'dark-age', '{}', 1, 0)");
    ASSERT_TRUE(st.ok());
    st->bind(1, id);
    ASSERT_TRUE(st->run().ok());
  }
}

TEST(IntegrityMigration, KeepsMixedCaseIdsAndFindsThemInAnyCase) {
  ::adj::testing::TempDir dir;
  const std::string db = dir.file("v6.db");
  make_v6(db, {"Britain-1", "gaul"});
  auto s = SqliteStore::open(db);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  auto id = (*s)->stored_game_id("britain-1");
  ASSERT_TRUE(id.ok());
  EXPECT_EQ(*id, "Britain-1");
  EXPECT_EQ((*s)->create_game(make_state("BRITAIN-1"), Json::object(), kIntegrityNow).code(),
            StatusCode::kAlreadyExists);
}

TEST(IntegrityMigration, RefusesClearlyWhenTwoIdsDifferOnlyByCaseAndLosesNothing) {
  ::adj::testing::TempDir dir;
  const std::string db = dir.file("v6.db");
  make_v6(db, {"britain-1", "Britain-1"});
  auto s = SqliteStore::open(db);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("two games have ids that differ only by case"),
            std::string::npos)
      << s.status().message();
  auto raw = sqlite::Database::open(db);
  ASSERT_TRUE(raw.ok());
  auto n = raw->query("SELECT count(*) FROM games", {});
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(n->int64(0, 0), 2);
  EXPECT_EQ(adj::schema_version(*raw).value(), 6);
}

}  // namespace
}  // namespace adj
