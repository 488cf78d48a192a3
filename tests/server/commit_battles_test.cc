// add_battles (server/app/commit_battles.h): a turn's battles reach the store as the records the
// one-thread path made, in order, whatever the chunk each thread works on; a log that cannot be
// JSON fails the commit, which then writes nothing.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "server/app/commit_battles.h"
#include "server/app/services.h"
#include "storage/sqlite/database.h"
#include "storage/sqlite/sqlite_store.h"
#include "tests/support/grid_world.h"
#include "tests/support/temp_dir.h"

namespace adj {
namespace {

using namespace testing::grid_world;
constexpr const char* kBattlesGame = "battles";

class CommitBattles : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = SqliteStore::open(dir_.file("b.db"));
    ASSERT_TRUE(opened.ok()) << opened.status().to_string();
    store_ = std::move(opened).value();
    svc_ = std::make_unique<Services>(Stores{*store_, *store_, *store_, *store_, *store_, *store_},
                                      [] { return UnixTime{1'700'000'000}; });
    const Size size{40, 10};
    ASSERT_TRUE(svc_->create_game(world(kBattlesGame, size), 7).ok());
    for (int p = 0; p < size.players; ++p) {
      SubmissionRecord r;
      r.game = kBattlesGame;
      r.player = player(p);
      r.turn = 1;
      r.source = "test";
      r.raw_text = orders_for(p, kBattlesGame, size);
      r.accepted = true;
      auto id = store_->put_submission(r);
      ASSERT_TRUE(id.ok()) << id.status().to_string();
      used_.push_back(*id);
    }
    auto preview = svc_->run_turn(kBattlesGame, true);  // the turn, resolved and not stored
    ASSERT_TRUE(preview.ok()) << preview.status().to_string();
    result_ = std::move(preview->result);
    ASSERT_GT(result_.battles.size(), 20u);
  }

  // What the store got for each battle: battle_id, input_json, outcome_json, in rowid order.
  std::vector<std::vector<std::string>> stored() {
    auto db = sqlite::Database::open(dir_.file("b.db"));
    EXPECT_TRUE(db.ok());
    auto r =
        db->query("SELECT battle_id, input_json, outcome_json FROM battles ORDER BY rowid", {});
    EXPECT_TRUE(r.ok());
    std::vector<std::vector<std::string>> rows;
    for (int i = 0; r.ok() && i < r->size(); ++i)
      rows.push_back({r->text(i, 0), r->text(i, 1), r->text(i, 2)});
    return rows;
  }

  TurnCommit rest() {
    TurnCommit c;
    c.turn = 1;
    c.seed = result_.seed;
    c.next_state = result_.next_state;
    c.summary = {{"digest", result_.digest}};
    return c;
  }

  ::adj::testing::TempDir dir_;
  std::unique_ptr<SqliteStore> store_;
  std::unique_ptr<Services> svc_;
  std::vector<std::int64_t> used_;
  TurnResult result_;
};

TEST_F(CommitBattles, ChunksOnTwoThreadsStoreWhatOneThreadMakes) {
  std::vector<std::vector<std::string>> expected;
  for (const BattleLog& b : result_.battles) expected.push_back({b.id, b.input, to_json(b).dump()});
  // Chunks of 3: many hand-overs between the threads, and a last chunk that is not full.
  auto w = store_->begin_commit(kBattlesGame, 1, used_);
  ASSERT_TRUE(w.ok()) << w.status().to_string();
  Status added = add_battles(result_.battles, **w, 3);
  ASSERT_TRUE(added.ok()) << added.to_string();
  for (const BattleLog& b : result_.battles) EXPECT_TRUE(b.input.empty()) << b.id;  // moved
  TurnCommit c = rest();
  Status done = (*w)->finish(c);
  ASSERT_TRUE(done.ok()) << done.to_string();
  EXPECT_EQ(stored(), expected);
}

TEST_F(CommitBattles, ALogThatIsNotJsonFailsTheCommit) {
  result_.battles[7].attacker = "\xFF\xFE";  // not UTF-8: dump() would throw
  auto w = store_->begin_commit(kBattlesGame, 1, used_);
  ASSERT_TRUE(w.ok()) << w.status().to_string();
  Status added = add_battles(result_.battles, **w, 2);
  ASSERT_FALSE(added.ok());
  EXPECT_EQ(added.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(added.message().find(result_.battles[7].id), std::string::npos) << added.message();
  w->reset();  // dropped unfinished
  EXPECT_TRUE(stored().empty());
  EXPECT_EQ(store_->game_summary(kBattlesGame)->turn, 1);
}

}  // namespace
}  // namespace adj
