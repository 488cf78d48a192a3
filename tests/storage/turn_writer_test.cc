// GameStore::begin_commit on both backends (storage/turn_writer.h): a turn committed in parts
// stores exactly what one finish() holding every record stores (store_test_util.h commit_turn),
// and a writer that fails or is dropped writes nothing.
// Both write each record as it is added (sql_turn_writer.cc): SQLite at once, PostgreSQL as
// binary COPY sent a chunk at a time and ended at finish(), so only the moment of an error (a
// duplicate key) differs.
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "storage/sqlite/sqlite_store.h"
#include "tests/storage/backend_sql.h"
#include "tests/storage/store_test_util.h"

namespace adj::storage_test {
namespace {

class TurnWriterTest : public BackendTest {
 protected:
  void SetUp() override {
    BackendTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    create_game_or_fail();
  }
  std::string counts() {
    return query_text(
        *store_, dir_,
        "SELECT (SELECT count(*) FROM turn_states) || '/' || (SELECT count(*) FROM turns) || '/' "
        "|| (SELECT count(*) FROM battles) || '/' || (SELECT count(*) FROM reports) || '/' || "
        "(SELECT open_turn FROM games WHERE id = 'britain')");
  }
  // SQLite: the store's own connection checks its CHECKs again (the writer turned them off).
  // The JSON CHECKs a commit skips for its own rows are on again once it ended, on the store's
  // own connection (PostgreSQL: the game's state refused as text that is not JSON).
  void expect_checks_on() {
    auto* lite = dynamic_cast<SqliteStore*>(store_.get());
    if (!lite) {
      Status s = exec_sql(*store_, dir_,
                          "UPDATE turn_states SET state_json = 'not json' WHERE game_id = "
                          "'britain'");
      EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.to_string();
      return;
    }
    auto flag = lite->database().query("PRAGMA ignore_check_constraints", {});
    ASSERT_TRUE(flag.ok());
    EXPECT_EQ(flag->int64(0, 0), 0);
  }
};

TEST_P(TurnWriterTest, PartsStoreWhatOneCommitStores) {
  const GameState turn1 = *store_->load_state("britain", std::nullopt);
  TurnCommit c = make_commit(turn1);
  // One battle and one report handed over as text, the others as trees; one of each left for
  // finish() to write after those added.
  c.battles[0].input_text = R"({"attackers":3,"note":"as \"given\""})";
  c.battles[0].outcome_text = R"({"dice":[6,1,3],"winner":"defender"})";
  c.reports[1].json_text = R"({"player":"MRC","x":[1,2]})";
  const TurnCommit expected = c;

  auto w = store_->begin_commit("britain", 1, {});
  ASSERT_TRUE(w.ok()) << w.status().to_string();
  ASSERT_TRUE((*w)->add_battle(std::move(c.battles[0])).ok());
  ASSERT_TRUE((*w)->add_report(std::move(c.reports[1])).ok());
  c.battles.erase(c.battles.begin());
  c.reports.pop_back();
  Status done = (*w)->finish(c);
  ASSERT_TRUE(done.ok()) << done.to_string();
  EXPECT_EQ(to_json(c.next_state), to_json(expected.next_state));  // left to the caller
  w->reset();
  expect_checks_on();

  EXPECT_EQ(counts(), "2/1/2/2/2");
  auto b = store_->battle("britain", 1, expected.battles[0].id);
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  EXPECT_EQ(b->input, Json::parse(expected.battles[0].input_text));
  EXPECT_EQ(b->outcome, Json::parse(expected.battles[0].outcome_text));
  EXPECT_EQ(query_text(*store_, dir_,
                       "SELECT input_json FROM battles WHERE battle_id = '" +
                           expected.battles[0].id + "'"),
            expected.battles[0].input_text);  // verbatim
  auto b2 = store_->battle("britain", 1, expected.battles[1].id);
  ASSERT_TRUE(b2.ok()) << b2.status().to_string();
  EXPECT_EQ(b2->input, expected.battles[1].input);
  EXPECT_EQ(b2->seed, expected.battles[1].seed);
  auto mrc = store_->report("britain", "MRC", 1);
  ASSERT_TRUE(mrc.ok()) << mrc.status().to_string();
  EXPECT_EQ(mrc->json, Json::parse(expected.reports[1].json_text));
  EXPECT_EQ(mrc->text, expected.reports[1].text);
  EXPECT_EQ(store_->report("britain", "WSX", 1)->json, expected.reports[0].json);
  auto record = store_->turn_record("britain", 1);
  ASSERT_TRUE(record.ok()) << record.status().to_string();
  EXPECT_EQ((*record)["summary"], expected.summary);
  EXPECT_EQ((*record)["ran_at"], expected.ran_at);
  EXPECT_EQ(to_json(*store_->load_state("britain", std::nullopt)), to_json(expected.next_state));

  commit_open_turn_or_fail();  // and the game goes on
  EXPECT_EQ(counts(), "3/2/4/4/3");
}

// Texts come back byte for byte whatever they hold: the bytes COPY's text format escaped (tab,
// newline, carriage return, backslash), "\\N", UTF-8, and a report longer than the COPY's chunk
// of 1 MiB, so that rows cross chunk boundaries.
TEST_P(TurnWriterTest, TextsComeBackByteForByte) {
  TurnCommit c = make_commit(*store_->load_state("britain", std::nullopt));
  c.reports[0].text = "a\tb\nc\r\nd\\e \\N \\x00 \u00e6\u00f8\u00e5 \u2694\t\n";
  std::string big;
  for (int i = 0; big.size() < (3u << 19); ++i) big += "line " + std::to_string(i) + "\t\\\n";
  c.reports[1].text = big;
  const std::string p0 = c.reports[0].player, p1 = c.reports[1].player;
  const std::string t0 = c.reports[0].text;
  auto w = store_->begin_commit("britain", 1, {});
  ASSERT_TRUE(w.ok()) << w.status().to_string();
  Status done = (*w)->finish(c);
  ASSERT_TRUE(done.ok()) << done.to_string();
  w->reset();
  auto r0 = store_->report("britain", p0, 1), r1 = store_->report("britain", p1, 1);
  ASSERT_TRUE(r0.ok() && r1.ok()) << r0.status().to_string() << r1.status().to_string();
  EXPECT_EQ(r0->text, t0);
  EXPECT_EQ(r1->text.size(), big.size());
  EXPECT_TRUE(r1->text == big);
}

TEST_P(TurnWriterTest, ADroppedWriterWritesNothing) {
  const GameState turn1 = *store_->load_state("britain", std::nullopt);
  TurnCommit c = make_commit(turn1);
  const std::string before = counts();
  {
    auto w = store_->begin_commit("britain", 1, {});
    ASSERT_TRUE(w.ok()) << w.status().to_string();
    ASSERT_TRUE((*w)->add_battle(c.battles[0]).ok());
    ASSERT_TRUE((*w)->add_report(c.reports[0]).ok());
  }  // never finished
  EXPECT_EQ(counts(), before);
  EXPECT_EQ(store_->turn_record("britain", 1).status().code(), StatusCode::kNotFound);
  expect_checks_on();
  commit_open_turn_or_fail();
  EXPECT_EQ(counts(), "2/1/2/2/2");
}

TEST_P(TurnWriterTest, AFailedRowFailsTheWholeCommit) {
  TurnCommit c = make_commit(*store_->load_state("britain", std::nullopt));
  const std::string before = counts();
  auto w = store_->begin_commit("britain", 1, {});
  ASSERT_TRUE(w.ok()) << w.status().to_string();
  ASSERT_TRUE((*w)->add_battle(c.battles[0]).ok());
  // The same battle id again: SQLite refuses it at once, PostgreSQL at finish().
  Status again = (*w)->add_battle(c.battles[0]);
  if (is_sqlite()) {
    EXPECT_EQ(again.code(), StatusCode::kAlreadyExists) << again.to_string();
  }
  Status done = (*w)->finish(c);
  ASSERT_FALSE(done.ok());
  EXPECT_EQ(done.code(), StatusCode::kAlreadyExists) << done.to_string();
  EXPECT_FALSE((*w)->add_report(c.reports[0]).ok());  // a failed writer stays failed
  w->reset();
  EXPECT_EQ(counts(), before);
  expect_checks_on();
  commit_open_turn_or_fail();
}

TEST_P(TurnWriterTest, AReportOfAnotherTurnIsRefused) {
  TurnCommit c = make_commit(*store_->load_state("britain", std::nullopt));
  const std::string before = counts();
  auto w = store_->begin_commit("britain", 1, {});
  ASSERT_TRUE(w.ok()) << w.status().to_string();
  ReportRecord late = c.reports[0];
  late.turn = 2;
  Status s = (*w)->add_report(late);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.to_string();
  EXPECT_NE(s.message().find("WSX"), std::string::npos) << s.message();
  EXPECT_FALSE((*w)->finish(c).ok());
  w->reset();
  EXPECT_EQ(counts(), before);
}

TEST_P(TurnWriterTest, FilesThatChangedAreRefused) {
  SubmissionRecord sub;
  sub.game = "britain";
  sub.player = "WSX";
  sub.turn = 1;
  sub.source = "test";
  sub.raw_text = "GAME britain\n";
  sub.accepted = true;
  ASSERT_TRUE(store_->put_submission(sub).ok());
  TurnCommit c = make_commit(*store_->load_state("britain", std::nullopt));
  const std::string before = counts();
  // The run read no file, but one is current: refused at begin (SQLite) or at finish.
  auto w = store_->begin_commit("britain", 1, {});
  Status s = w.ok() ? (*w)->finish(c) : w.status();
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition) << s.to_string();
  EXPECT_NE(s.message().find("changed while it was being resolved"), std::string::npos)
      << s.message();
  if (w.ok()) w->reset();
  EXPECT_EQ(counts(), before);
  // And a writer for a turn that is not open.
  TurnCommit later = c;
  later.battles.clear();
  later.reports.clear();
  later.turn = 2;
  later.next_state.turn = 3;
  auto stale = store_->begin_commit("britain", 2, {});
  Status t = stale.ok() ? (*stale)->finish(later) : stale.status();
  EXPECT_EQ(t.code(), StatusCode::kFailedPrecondition) << t.to_string();
}

TEST_P(TurnWriterTest, ASummaryGivenAsTextIsStoredAsTheSummary) {
  // TurnCommit::summary_text: stored instead of summary.dump(); `summary` is read for "ending".
  TurnCommit c = make_commit(*store_->load_state("britain", std::nullopt));
  const Json full = {{"digest", "abc123"},
                     {"ending", {{"kind", "victory"}, {"winners", {"WSX"}}}},
                     {"orders", {{"WSX", {"MOVE A B 1"}}}}};
  c.summary = {{"ending", full["ending"]}};
  c.summary_text = full.dump();
  auto w = store_->begin_commit("britain", 1, {});
  ASSERT_TRUE(w.ok()) << w.status().to_string();
  Status done = (*w)->finish(c);
  ASSERT_TRUE(done.ok()) << done.to_string();
  w->reset();
  auto record = store_->turn_record("britain", 1);
  ASSERT_TRUE(record.ok()) << record.status().to_string();
  EXPECT_EQ((*record)["summary"], full);
  if (is_sqlite()) {
    EXPECT_EQ(query_text(*store_, dir_, "SELECT summary_json FROM turns"), c.summary_text);
  }
  EXPECT_EQ(store_->game_summary("britain")->status, "finished");

  // Every record given to finish() (commit_turn) too, without an ending.
  ASSERT_TRUE(store_->rollback("britain", 1).ok());
  ASSERT_TRUE(store_->set_game_status("britain", "open").ok());
  TurnCommit again = make_commit(*store_->load_state("britain", std::nullopt));
  again.summary = Json::object();
  again.summary_text = R"({"digest":"d","orders":{}})";
  ASSERT_TRUE(commit_turn(*store_, "britain", again).ok());
  EXPECT_EQ((*store_->turn_record("britain", 1))["summary"], Json::parse(again.summary_text));
  EXPECT_EQ(store_->game_summary("britain")->status, "open");
}

ADJ_ON_EVERY_BACKEND(TurnWriterTest);

}  // namespace
}  // namespace adj::storage_test
