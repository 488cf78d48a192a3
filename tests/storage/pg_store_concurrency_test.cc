// PgStore where several daemons share one PostgreSQL database: claims that exactly one
// connection wins, writes that wait for each other on the game's row, revisions seen across
// connections. Real server (the test run's cluster); skipped, saying why, without one.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

#include "storage/postgres/pg_store.h"
#include "storage/sqlite/sqlite_store.h"
#include "tests/storage/store_test_util.h"
#include "tests/support/pg_test_db.h"

namespace adj::storage_test {
namespace {

constexpr UnixTime kNow = 1'700'000'000;

class PgConcurrencyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = adj::testing::fresh_pg_database();
    if (!db.ok() && db.status().code() == StatusCode::kUnavailable)
      GTEST_SKIP() << "PostgreSQL not available: " << db.status().message();
    ASSERT_TRUE(db.ok()) << db.status().to_string();
    conninfo_ = *db;
    a_ = open();
    b_ = open();
    ASSERT_TRUE(a_ && b_);
    Status s = a_->create_game(make_state("britain"), make_scenario("britain"), kNow);
    ASSERT_TRUE(s.ok()) << s.to_string();
  }

  std::unique_ptr<PgStore> open() {
    auto s = PgStore::open(conninfo_);
    EXPECT_TRUE(s.ok()) << s.status().to_string();
    return s.ok() ? std::move(s).value() : nullptr;
  }

  static SubmissionRecord file(const std::string& player, int turn, UnixTime at) {
    SubmissionRecord r;
    r.game = "britain";
    r.player = player;
    r.turn = turn;
    r.source = "test";
    r.received_at = at;
    r.raw_text = "PLAYER " + player;
    r.accepted = true;
    return r;
  }

  std::string conninfo_;
  std::unique_ptr<PgStore> a_, b_;
};

// Runs f(store, i) on `stores` threads at once (released together).
template <typename F>
void race(std::vector<PgStore*> stores, F f) {
  std::atomic<int> ready{0};
  std::vector<std::thread> ts;
  for (std::size_t i = 0; i < stores.size(); ++i)
    ts.emplace_back([&, i] {
      ++ready;
      while (ready.load() < static_cast<int>(stores.size())) std::this_thread::yield();
      f(*stores[i], static_cast<int>(i));
    });
  for (auto& t : ts) t.join();
}

TEST_F(PgConcurrencyTest, TwoConnectionsRacingBeginResolvingExactlyOneWins) {
  for (int round = 0; round < 25; ++round) {
    Status results[2];
    race({a_.get(), b_.get()}, [&](PgStore& s, int i) {
      results[i] = s.begin_resolving("britain", 1, kNow + round * 10);
    });
    const int wins = results[0].ok() + results[1].ok();
    ASSERT_EQ(wins, 1) << "round " << round << ": " << results[0].to_string() << " / "
                       << results[1].to_string();
    const Status& lost = results[0].ok() ? results[1] : results[0];
    EXPECT_EQ(lost.code(), StatusCode::kUnavailable) << lost.to_string();
    ASSERT_TRUE(a_->end_resolving("britain", 1).ok());
  }
}

TEST_F(PgConcurrencyTest, AnExpiredResolvingLeaseIsTakenOver) {
  ASSERT_TRUE(a_->begin_resolving("britain", 1, kNow).ok());
  const UnixTime lease = kResolvingLeaseSeconds;
  EXPECT_EQ(b_->begin_resolving("britain", 1, kNow + lease - 1).code(), StatusCode::kUnavailable);
  EXPECT_TRUE(b_->begin_resolving("britain", 1, kNow + lease).ok());  // the first run died
  EXPECT_EQ(a_->begin_resolving("britain", 1, kNow + lease + 1).code(), StatusCode::kUnavailable);
  EXPECT_EQ(a_->begin_resolving("britain", 2, kNow).code(), StatusCode::kFailedPrecondition);
}

// Files keep arriving on one connection while the other resolves and commits: every file is
// either in the committed turn or refused (never accepted and left out), and a commit that read
// stale files is refused.
TEST_F(PgConcurrencyTest, FilesRacingACommitAreNeverAcceptedAndLost) {
  std::atomic<bool> stop{false}, sending{true};
  std::vector<std::int64_t> accepted_for_1;
  std::thread sender([&] {
    for (int i = 0; !stop.load() && i < 2000; ++i) {
      auto id = b_->put_submission(file(i % 2 ? "WSX" : "MRC", 1, kNow + 1));
      if (id.ok()) accepted_for_1.push_back(*id);
    }
    sending = false;
  });
  Status committed;
  std::vector<std::int64_t> used;
  // Tried again while files keep arriving (how many tries that takes depends on the machine's
  // load), and a few times once they stopped: then a commit must go through.
  for (int after = 0; after < 3;) {
    if (!sending.load()) ++after;
    auto state = a_->load_state("britain", std::nullopt);
    ASSERT_TRUE(state.ok());
    TurnCommit c = make_commit(*state);
    auto files = a_->current_submissions("britain", 1);
    ASSERT_TRUE(files.ok());
    for (const auto& f : *files) c.submissions.push_back(f.id);
    committed = commit_turn(*a_, "britain", c);
    used = c.submissions;
    if (committed.ok()) break;
    ASSERT_EQ(committed.code(), StatusCode::kFailedPrecondition) << committed.to_string();
  }
  stop = true;
  sender.join();
  ASSERT_TRUE(committed.ok()) << committed.to_string();
  // Every file accepted for turn 1 was accepted before the commit; the current ones were used.
  auto current = a_->current_submissions("britain", 1);
  ASSERT_TRUE(current.ok());
  auto all = a_->all_submissions("britain");
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), accepted_for_1.size());
  EXPECT_EQ(a_->game_summary("britain")->turn, 2);
  // The turn's current files after the commit are exactly those it resolved: none slipped in.
  std::vector<std::int64_t> now_current;
  for (const auto& f : *current) now_current.push_back(f.id);
  std::sort(now_current.begin(), now_current.end());
  std::sort(used.begin(), used.end());
  EXPECT_EQ(now_current, used);
}

TEST_F(PgConcurrencyTest, TwoCommitsOfOneTurnExactlyOneWins) {
  auto state = a_->load_state("britain", std::nullopt);
  ASSERT_TRUE(state.ok());
  const TurnCommit c = make_commit(*state);
  Status results[2];
  race({a_.get(), b_.get()}, [&](PgStore& s, int i) { results[i] = commit_turn(s, "britain", c); });
  EXPECT_EQ(results[0].ok() + results[1].ok(), 1)
      << results[0].to_string() << " / " << results[1].to_string();
  EXPECT_EQ(a_->game_summary("britain")->turn, 2);
  EXPECT_EQ(a_->battles("britain", 1)->size(), 2u);
}

TEST_F(PgConcurrencyTest, RevisionsWrittenByAnotherConnectionAreSeen) {
  auto before = a_->revisions();
  ASSERT_TRUE(before.ok()) << before.status().to_string();
  const auto first = before->get();
  ASSERT_TRUE(b_->put_submission(file("WSX", 1, kNow)).ok());
  auto after = a_->revisions();
  ASSERT_TRUE(after.ok());
  EXPECT_NE(after->get(), first);
  EXPECT_GT(after->get()->at("britain"), first->at("britain"));
  EXPECT_EQ(a_->revisions()->get(), after->get());  // unchanged since: the same map
}

// A GM deleting a draft while its first turn commits, or a player's file arrives: the deletion
// and the commit never both succeed, and a file is either counted in the deletion or refused
// (no row of a deleted game is left behind).
TEST_F(PgConcurrencyTest, ADeletionRacingACommitOrAFileLeavesNoHalfGame) {
  for (int round = 0; round < 10; ++round) {
    const std::string id = "draft-" + std::to_string(round);
    ASSERT_TRUE(a_->create_game(make_state(id), make_scenario(id), kNow).ok());
    auto state = a_->load_state(id, std::nullopt);
    ASSERT_TRUE(state.ok());
    TurnCommit c = make_commit(*state);
    SubmissionRecord f = file("WSX", 1, kNow);
    f.game = id;
    Status commit = Status::Internal("not run"), put;
    Result<GameDeletion> deleted = Status::Internal("not run");
    race({a_.get(), b_.get()}, [&](PgStore& s, int i) {
      if (i == 0) {
        auto stored = s.put_submission(f);
        put = stored.status();
        if (stored.ok()) c.submissions = {*stored};
        commit = commit_turn(s, id, c);
      } else {
        deleted = s.delete_game(id, {0, "", kNow, "gm", "delete", Json::object()});
      }
    });
    ASSERT_NE(commit.ok(), deleted.ok())
        << "round " << round << ": " << commit.to_string() << " / " << deleted.status().to_string();
    if (deleted.ok()) {
      for (const char* t : {"submissions", "turns", "turn_states", "reports"}) {
        auto n = b_->connection().query(std::string("SELECT count(*) FROM ") + t +
                                        " WHERE game_id = '" + id + "'");
        ASSERT_TRUE(n.ok());
        EXPECT_EQ(n->text(0, 0), "0") << t;
      }
      EXPECT_EQ(deleted->rows.count("submissions") == 1, put.ok()) << put.to_string();
    } else {
      EXPECT_EQ(deleted.status().code(), StatusCode::kFailedPrecondition)
          << deleted.status().to_string();
    }
  }
}

}  // namespace
}  // namespace adj::storage_test
