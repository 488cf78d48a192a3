// ReportStore on both backends: reports and battle records of resolved turns.
#include <gtest/gtest.h>

#include <limits>

#include "tests/storage/store_test_util.h"

namespace adj::storage_test {
namespace {

class ReportsTest : public BackendTest {
 protected:
  void SetUp() override {
    BackendTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    create_game_or_fail();
  }
};

TEST_P(ReportsTest, ReportsOfResolvedTurns) {
  EXPECT_TRUE(store_->report_turns("britain")->empty());
  commit_open_turn_or_fail();
  commit_open_turn_or_fail();

  auto turns = store_->report_turns("britain");
  ASSERT_TRUE(turns.ok()) << turns.status().to_string();
  EXPECT_EQ(*turns, (std::vector<int>{1, 2}));

  auto r = store_->report("britain", "MRC", 2);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->player, "MRC");
  EXPECT_EQ(r->turn, 2);
  EXPECT_EQ(r->text, "Turn 2 report for Mercia\n");
  EXPECT_EQ(r->json, (Json{{"player", "MRC"}}));
  EXPECT_EQ(store_->report("britain", "WSX", 1)->text, "Turn 1 report for Wessex\n");
}

TEST_P(ReportsTest, MissingReportIsNotFound) {
  commit_open_turn_or_fail();
  for (auto [player, turn] : {std::pair<std::string, int>{"WSX", 2}, {"XXX", 1}, {"wsx", 1}}) {
    auto r = store_->report("britain", player, turn);
    ASSERT_FALSE(r.ok()) << player << turn;
    EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
    EXPECT_NE(r.status().message().find(player), std::string::npos) << r.status().message();
  }
}

TEST_P(ReportsTest, BattlesOfATurn) {
  const TurnCommit c = make_commit(*store_->load_state("britain", std::nullopt));
  ASSERT_TRUE(commit_turn(*store_, "britain", c).ok());

  auto all = store_->battles("britain", 1);
  ASSERT_TRUE(all.ok()) << all.status().to_string();
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].id, "1.1.WSX");  // sorted by id, not by commit order
  EXPECT_EQ((*all)[1].id, "1.2.MRC");
  EXPECT_EQ((*all)[0].seed, std::uint64_t{1} << 63);

  auto b = store_->battle("britain", 1, "1.2.MRC");
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  EXPECT_EQ(b->id, c.battles[0].id);
  EXPECT_EQ(b->seed, 42u);
  EXPECT_EQ(b->engine, "dark-age");
  EXPECT_EQ(b->input, c.battles[0].input);
  EXPECT_EQ(b->outcome, c.battles[0].outcome);

  EXPECT_TRUE(store_->battles("britain", 2)->empty());
  auto missing = store_->battle("britain", 1, "1.3.WSX");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(store_->battle("britain", 2, "1.2.MRC").status().code(), StatusCode::kNotFound);
}

TEST_P(ReportsTest, ExtremeSeedsRoundTrip) {
  TurnCommit c = make_commit(*store_->load_state("britain", std::nullopt));
  c.battles[0].seed = 0;
  c.battles[1].seed = std::numeric_limits<std::uint64_t>::max();
  ASSERT_TRUE(commit_turn(*store_, "britain", c).ok());
  EXPECT_EQ(store_->battle("britain", 1, c.battles[0].id)->seed, 0u);
  EXPECT_EQ(store_->battle("britain", 1, c.battles[1].id)->seed,
            std::numeric_limits<std::uint64_t>::max());
}

TEST_P(ReportsTest, BattleIdsSortByteWise) {
  TurnCommit c = make_commit(*store_->load_state("britain", std::nullopt));
  c.battles = {BattleRecord{"1.a", 1, "dark-age", {}, {}, {}, {}},
               BattleRecord{"1.B", 2, "dark-age", {}, {}, {}, {}},
               BattleRecord{"1.10", 3, "dark-age", {}, {}, {}, {}},
               BattleRecord{"1.9", 4, "dark-age", {}, {}, {}, {}},
               BattleRecord{"1._", 5, "dark-age", {}, {}, {}, {}}};
  ASSERT_TRUE(commit_turn(*store_, "britain", c).ok());
  std::vector<std::string> ids;
  auto battles = store_->battles("britain", 1);
  ASSERT_TRUE(battles.ok()) << battles.status().to_string();
  for (const auto& b : *battles) ids.push_back(b.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"1.10", "1.9", "1.B", "1._", "1.a"}));
}

ADJ_ON_EVERY_BACKEND(ReportsTest);

}  // namespace
}  // namespace adj::storage_test
