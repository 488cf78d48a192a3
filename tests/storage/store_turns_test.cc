// GameStore on both backends: commit_turn, rollback, turn records and the resolving mark.
#include <gtest/gtest.h>

#include <limits>

#include "tests/storage/backend_sql.h"
#include "tests/storage/store_test_util.h"

namespace adj::storage_test {
namespace {

class TurnsTest : public BackendTest {
 protected:
  void SetUp() override {
    BackendTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    create_game_or_fail();
  }

  Status exec(const std::string& sql) { return exec_sql(*store_, dir_, sql); }

  // Row counts of every per-turn table, to show that a refused commit wrote nothing.
  std::string counts() {
    return query_text(
        *store_, dir_,
        "SELECT (SELECT count(*) FROM turn_states) || '/' || (SELECT count(*) FROM turns) || '/' "
        "|| (SELECT count(*) FROM battles) || '/' || (SELECT count(*) FROM reports) || '/' || "
        "(SELECT open_turn FROM games WHERE id = 'britain')");
  }

  int open_turn() { return store_->game_summary("britain")->turn; }
};

TEST_P(TurnsTest, CommitStoresEverythingAndOpensTheNextTurn) {
  const GameState turn1 = *store_->load_state("britain", std::nullopt);
  const TurnCommit c = make_commit(turn1);
  ASSERT_TRUE(commit_turn(*store_, "britain", c).ok());

  EXPECT_EQ(open_turn(), 2);
  EXPECT_EQ(counts(), "2/1/2/2/2");
  auto next = store_->load_state("britain", std::nullopt);
  ASSERT_TRUE(next.ok()) << next.status().to_string();
  EXPECT_EQ(to_json(*next), to_json(c.next_state));
  EXPECT_EQ(next->find_area("HRS")->armies, 4);
  EXPECT_EQ(to_json(*store_->load_state("britain", 1)), to_json(turn1));  // kept

  auto record = store_->turn_record("britain", 1);
  ASSERT_TRUE(record.ok()) << record.status().to_string();
  EXPECT_EQ((*record)["seed"], "18446744073709551615");  // UINT64_MAX, exactly
  EXPECT_EQ((*record)["summary"], c.summary);
  EXPECT_EQ((*record)["turn"], 1);
  EXPECT_EQ((*record)["game"], "britain");
  EXPECT_EQ((*record)["ran_at"], c.ran_at);
  EXPECT_EQ(store_->turn_record("britain", 2).status().code(), StatusCode::kNotFound);
}

TEST_P(TurnsTest, PreSerialisedBattleInputsAndReportsAreStoredVerbatim) {
  // A big turn hands battle inputs and report JSON over as text (records.h input_text,
  // json_text): written as given, read back as JSON; the tree beside it is ignored.
  const GameState turn1 = *store_->load_state("britain", std::nullopt);
  TurnCommit c = make_commit(turn1);
  c.battles[0].input_text = R"({"kind":"assault","to":"HRS"})";
  c.battles[0].input = {{"ignored", true}};
  c.reports[1].json_text = R"({"player":"MRC","areas":[1,2]})";
  c.reports[1].json = Json();
  ASSERT_TRUE(commit_turn(*store_, "britain", c).ok());

  auto b = store_->battle("britain", 1, c.battles[0].id);
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  EXPECT_EQ(b->input, Json({{"kind", "assault"}, {"to", "HRS"}}));
  EXPECT_TRUE(b->input_text.empty());
  auto other = store_->battle("britain", 1, c.battles[1].id);
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(other->input, c.battles[1].input);  // no text: the tree is written
  auto r = store_->report("britain", "MRC", 1);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->json, Json({{"player", "MRC"}, {"areas", {1, 2}}}));
  EXPECT_EQ(r->text, c.reports[1].text);
  EXPECT_EQ(store_->report("britain", "WSX", 1)->json, c.reports[0].json);
}

TEST_P(TurnsTest, PreSerialisedOutcomesAndNextStateAreStoredVerbatim) {
  // The run hands battle outcomes and the next state over as text too (records.h outcome_text,
  // next_state_text: the digest's dump of the state); written as given, read back as JSON.
  const GameState turn1 = *store_->load_state("britain", std::nullopt);
  TurnCommit c = make_commit(turn1);
  c.battles[0].outcome_text = R"({"winner":"attacker","dice":[2]})";
  c.battles[0].outcome = {{"ignored", true}};
  c.next_state_text = to_json(c.next_state).dump();
  ASSERT_TRUE(commit_turn(*store_, "britain", c).ok());

  auto b = store_->battle("britain", 1, c.battles[0].id);
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  EXPECT_EQ(b->outcome, Json({{"winner", "attacker"}, {"dice", {2}}}));
  EXPECT_TRUE(b->outcome_text.empty());
  EXPECT_EQ(store_->battle("britain", 1, c.battles[1].id)->outcome, c.battles[1].outcome);
  auto next = store_->load_state("britain", std::nullopt);
  ASSERT_TRUE(next.ok()) << next.status().to_string();
  EXPECT_EQ(to_json(*next).dump(), c.next_state_text);
  EXPECT_EQ(next->find_area("HRS")->armies, 4);
}

TEST_P(TurnsTest, WrongTurnIsRefusedAndWritesNothing) {
  TurnCommit c = make_commit(*store_->load_state("britain", std::nullopt));
  const std::string before = counts();
  for (int turn : {0, 2, 5}) {
    TurnCommit wrong = c;
    wrong.turn = turn;
    wrong.next_state.turn = turn + 1;
    for (auto& r : wrong.reports) r.turn = turn;
    Status s = commit_turn(*store_, "britain", wrong);
    EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition) << turn << ": " << s.to_string();
    EXPECT_NE(s.message().find("open turn (1)"), std::string::npos) << s.message();
  }
  EXPECT_EQ(counts(), before);
  // Committing turn 1 twice: the second is for a turn no longer open.
  ASSERT_TRUE(commit_turn(*store_, "britain", c).ok());
  const std::string after = counts();
  EXPECT_EQ(commit_turn(*store_, "britain", c).code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(counts(), after);
}

TEST_P(TurnsTest, InconsistentCommitIsInvalidArgument) {
  const TurnCommit good = make_commit(*store_->load_state("britain", std::nullopt));
  const std::string before = counts();
  TurnCommit wrong_state_turn = good;
  wrong_state_turn.next_state.turn = 1;
  EXPECT_EQ(commit_turn(*store_, "britain", wrong_state_turn).code(), StatusCode::kInvalidArgument);
  TurnCommit wrong_game = good;
  wrong_game.next_state.game_id = "albion";
  EXPECT_EQ(commit_turn(*store_, "britain", wrong_game).code(), StatusCode::kInvalidArgument);
  TurnCommit wrong_report = good;
  wrong_report.reports[1].turn = 0;
  EXPECT_EQ(commit_turn(*store_, "britain", wrong_report).code(), StatusCode::kInvalidArgument);
  TurnCommit bad_json = good;
  bad_json.battles[1].outcome = {{"note", "\xC3"}};  // truncated UTF-8
  EXPECT_EQ(commit_turn(*store_, "britain", bad_json).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(counts(), before);
}

TEST_P(TurnsTest, FailureHalfwayLeavesThePreviousTurnIntact) {
  const GameState turn1 = *store_->load_state("britain", std::nullopt);
  TurnCommit c = make_commit(turn1);
  c.battles.push_back(c.battles[0]);  // same id twice: the third battle INSERT fails
  const std::string before = counts();
  Status s = commit_turn(*store_, "britain", c);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kAlreadyExists) << s.to_string();
  EXPECT_NE(s.message().find("battles"), std::string::npos) << s.message();
  EXPECT_EQ(counts(), before);
  EXPECT_EQ(open_turn(), 1);
  EXPECT_EQ(to_json(*store_->load_state("britain", std::nullopt)), to_json(turn1));
  EXPECT_EQ(store_->turn_record("britain", 1).status().code(), StatusCode::kNotFound);

  c.battles.pop_back();
  ASSERT_TRUE(commit_turn(*store_, "britain", c).ok());  // the turn can be committed again
  EXPECT_EQ(open_turn(), 2);
  EXPECT_EQ(counts(), "2/1/2/2/2");
}

TEST_P(TurnsTest, FailureInTheLastInsertAlsoRollsBack) {
  // A duplicate report is inserted after the turn row and both battles.
  TurnCommit c = make_commit(*store_->load_state("britain", std::nullopt));
  c.reports.push_back(c.reports[0]);
  const std::string before = counts();
  EXPECT_FALSE(commit_turn(*store_, "britain", c).ok());
  EXPECT_EQ(counts(), before);
  EXPECT_TRUE(store_->battles("britain", 1)->empty());
}

TEST_P(TurnsTest, RollbackThenRecommit) {
  commit_open_turn_or_fail();  // turn 1
  SubmissionRecord sub;
  sub.game = "britain";
  sub.player = "WSX";
  sub.turn = 2;
  sub.accepted = true;
  auto sub_id = store_->put_submission(sub);
  ASSERT_TRUE(sub_id.ok()) << sub_id.status().to_string();
  commit_open_turn_or_fail();  // turn 2, with that file
  sub.turn = 3;
  ASSERT_TRUE(store_->put_submission(sub).ok());
  commit_open_turn_or_fail();  // turn 3
  sub.turn = 4;
  ASSERT_TRUE(store_->put_submission(sub).ok());
  EXPECT_EQ(open_turn(), 4);
  EXPECT_EQ(counts(), "4/3/6/6/4");

  ASSERT_TRUE(store_->rollback("britain", 2).ok());
  EXPECT_EQ(open_turn(), 2);
  EXPECT_EQ(counts(), "2/1/2/2/2");
  EXPECT_TRUE(store_->turn_record("britain", 1).ok());
  EXPECT_EQ(store_->turn_record("britain", 2).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(store_->load_state("britain", 3).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(*store_->report_turns("britain"), std::vector<int>{1});
  EXPECT_EQ(store_->current_submissions("britain", 2)->size(), 1u);  // submissions are kept
  // Those of the removed turns too, for when those turns open again.
  EXPECT_EQ(store_->current_submissions("britain", 3)->size(), 1u);
  EXPECT_EQ(store_->current_submissions("britain", 4)->size(), 1u);

  // Turn 2 again, this time with a different result.
  TurnCommit redo = make_commit(*store_->load_state("britain", std::nullopt));
  redo.seed = 7;
  redo.submissions = {*sub_id};
  redo.next_state.find_area("LON")->armies = 12;
  ASSERT_TRUE(commit_turn(*store_, "britain", redo).ok());
  EXPECT_EQ(open_turn(), 3);
  EXPECT_EQ((*store_->turn_record("britain", 2))["seed"], "7");
  EXPECT_EQ(store_->load_state("britain", std::nullopt)->find_area("LON")->armies, 12);
}

TEST_P(TurnsTest, RollbackToTheOpenTurnChangesNothing) {
  commit_open_turn_or_fail();
  const std::string before = counts();
  ASSERT_TRUE(store_->rollback("britain", 2).ok());
  EXPECT_EQ(counts(), before);
}

TEST_P(TurnsTest, RollbackOutsideTheGameIsRefused) {
  commit_open_turn_or_fail();
  const std::string before = counts();
  for (int turn : {0, -1, 3}) {
    Status s = store_->rollback("britain", turn);
    EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition) << turn << ": " << s.to_string();
  }
  EXPECT_EQ(counts(), before);
}

TEST_P(TurnsTest, RollbackBeforeTheFirstStoredTurnIsRefused) {
  ASSERT_TRUE(store_->create_game(make_state("late", 3), Json::object(), 1).ok());
  Status s = store_->rollback("late", 2);
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition) << s.to_string();
  EXPECT_EQ(store_->game_summary("late")->turn, 3);
}

TEST_P(TurnsTest, CorruptSeedIsCorruption) {
  commit_open_turn_or_fail();
  // 2^64 passes the column's digits-only CHECK but does not fit in 64 bits.
  ASSERT_TRUE(exec("UPDATE turns SET seed = '18446744073709551616';"
                   "UPDATE battles SET seed = '99999999999999999999' WHERE battle_id = '1.1.WSX'")
                  .ok());
  EXPECT_EQ(store_->turn_record("britain", 1).status().code(), StatusCode::kCorruption);
  EXPECT_EQ(store_->battle("britain", 1, "1.1.WSX").status().code(), StatusCode::kCorruption);
  EXPECT_EQ(store_->battles("britain", 1).status().code(), StatusCode::kCorruption);
  EXPECT_TRUE(store_->battle("britain", 1, "1.2.MRC").ok());
}

TEST_P(TurnsTest, SchemaRefusesAMalformedSeed) {
  commit_open_turn_or_fail();
  EXPECT_EQ(exec("UPDATE turns SET seed = '-1'").code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(exec("UPDATE turns SET seed = ''").code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(exec("UPDATE turns SET seed = '123456789012345678901'").code(),
            StatusCode::kInvalidArgument);
}

// A big turn goes in batches: more rows than one batch holds, with text that needs quoting in
// the batch's arrays, all read back exactly.
TEST_P(TurnsTest, ABigCommitStoresEveryRowExactly) {
  TurnCommit c = make_commit(*store_->load_state("britain", std::nullopt));
  c.battles.clear();
  c.reports.clear();
  constexpr int kRows = 12'000;
  for (int i = 0; i < kRows; ++i) {
    const std::string n = std::to_string(i);
    c.battles.push_back(BattleRecord{"1." + n + ".W\"S\\X",
                                     static_cast<std::uint64_t>(i) << 40,
                                     "dark-age",
                                     {{"n", i}, {"q", "a\"b\\c{d},e"}},
                                     {{"winner", "defender"}},
                                     {},
                                     {}});
    c.reports.push_back(ReportRecord{
        "P" + n, 1, "Report \"" + n + "\"\n\ttab\\ {x}, y\n", {{"player", "P" + n}}, {}});
  }
  ASSERT_TRUE(commit_turn(*store_, "britain", c).ok());
  EXPECT_EQ(counts(), "2/1/12000/12000/2");
  auto battles = store_->battles("britain", 1);
  ASSERT_TRUE(battles.ok()) << battles.status().to_string();
  ASSERT_EQ(battles->size(), static_cast<std::size_t>(kRows));
  auto b = store_->battle("britain", 1, "1.11999.W\"S\\X");
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  EXPECT_EQ(b->seed, std::uint64_t{11999} << 40);
  EXPECT_EQ(b->input, (Json{{"n", 11999}, {"q", "a\"b\\c{d},e"}}));
  auto r = store_->report("britain", "P7", 1);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->text, "Report \"7\"\n\ttab\\ {x}, y\n");
  EXPECT_EQ(r->json, (Json{{"player", "P7"}}));
}

TEST_P(TurnsTest, BeginResolvingMarksTheOpenTurnOnly) {
  EXPECT_EQ(store_->begin_resolving("britain", 2, 1000).code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(store_->begin_resolving("atlantis", 1, 1000).code(), StatusCode::kNotFound);
  ASSERT_TRUE(store_->begin_resolving("britain", 1, 1000).ok());
  EXPECT_EQ(query_text(*store_, dir_, "SELECT resolving_turn FROM games"), "1");
  ASSERT_TRUE(store_->end_resolving("britain", 2).ok());  // another turn's: nothing
  EXPECT_EQ(query_text(*store_, dir_, "SELECT resolving_turn FROM games"), "1");
  ASSERT_TRUE(store_->end_resolving("britain", 1).ok());
  EXPECT_EQ(query_text(*store_, dir_, "SELECT count(*) FROM games WHERE resolving_turn IS NULL"),
            "1");
  // A commit clears the mark.
  ASSERT_TRUE(store_->begin_resolving("britain", 1, 1000).ok());
  commit_open_turn_or_fail();
  EXPECT_EQ(query_text(*store_, dir_, "SELECT count(*) FROM games WHERE resolving_turn IS NULL"),
            "1");
}

ADJ_ON_EVERY_BACKEND(TurnsTest);

}  // namespace
}  // namespace adj::storage_test
