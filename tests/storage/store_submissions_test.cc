// SubmissionStore on both backends: order submissions (replace-but-keep).
#include <gtest/gtest.h>

#include "tests/storage/backend_sql.h"
#include "tests/storage/store_test_util.h"

namespace adj::storage_test {
namespace {

class SubmissionsTest : public BackendTest {
 protected:
  void SetUp() override {
    BackendTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    create_game_or_fail();
  }

  Status exec(const std::string& sql) { return exec_sql(*store_, dir_, sql); }

  std::int64_t put(const std::string& player, int turn, bool accepted, const std::string& text) {
    SubmissionRecord r;
    r.game = "britain";
    r.player = player;
    r.turn = turn;
    r.source = "email:<" + text + "@example.org>";
    r.received_at = 1'700'000'000 + next_time_++;
    r.raw_text = text;
    r.ack = {{"lines", {text}}, {"accepted", accepted}};
    r.accepted = accepted;
    auto id = store_->put_submission(r);
    EXPECT_TRUE(id.ok()) << id.status().to_string();
    return id.ok() ? *id : -1;
  }

  static std::vector<std::string> texts(const std::vector<SubmissionRecord>& rs) {
    std::vector<std::string> out;
    for (const auto& r : rs) out.push_back(r.raw_text);
    return out;
  }

  int next_time_ = 0;
};

TEST_P(SubmissionsTest, FieldsRoundTrip) {
  SubmissionRecord r;
  r.game = "britain";
  r.player = "WSX";
  r.turn = 1;
  r.source = "cli";
  r.received_at = 1'700'000'123;
  static constexpr char kRaw[] = "PLAYER WSX s3cret\r\nMOVE 3 HRS LON\r\n\0tail";
  r.raw_text = std::string(kRaw, sizeof kRaw - 1);  // with the embedded NUL
  r.ack = {{"player", "WSX"}, {"lines", {{{"ok", true}}}}};
  r.accepted = true;
  r.current = false;  // ignored: accepted files become current
  r.id = 999;         // ignored: assigned by the store
  auto id = store_->put_submission(r);
  ASSERT_TRUE(id.ok()) << id.status().to_string();
  EXPECT_NE(*id, 999);

  auto all = store_->all_submissions("britain");
  ASSERT_TRUE(all.ok()) << all.status().to_string();
  ASSERT_EQ(all->size(), 1u);
  const SubmissionRecord& got = (*all)[0];
  EXPECT_EQ(got.id, *id);
  EXPECT_EQ(got.game, "britain");
  EXPECT_EQ(got.player, "WSX");
  EXPECT_EQ(got.turn, 1);
  EXPECT_EQ(got.source, "cli");
  EXPECT_EQ(got.received_at, 1'700'000'123);
  EXPECT_EQ(got.raw_text, r.raw_text);  // byte for byte, CRLF and NUL included
  EXPECT_EQ(got.ack, r.ack);
  EXPECT_TRUE(got.accepted);
  EXPECT_TRUE(got.current);
}

TEST_P(SubmissionsTest, NewAcceptedFileReplacesButKeepsTheOldOne) {
  const auto first = put("WSX", 1, true, "first");
  const auto second = put("WSX", 1, true, "second");
  EXPECT_GT(second, first);

  auto current = store_->current_submissions("britain", 1);
  ASSERT_TRUE(current.ok());
  EXPECT_EQ(texts(*current), std::vector<std::string>{"second"});
  EXPECT_EQ((*current)[0].id, second);

  auto all = store_->all_submissions("britain");
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].raw_text, "first");  // oldest first
  EXPECT_TRUE((*all)[0].accepted);
  EXPECT_FALSE((*all)[0].current);
  EXPECT_TRUE((*all)[1].current);
}

TEST_P(SubmissionsTest, RefusedFileIsKeptButReplacesNothing) {
  put("WSX", 1, true, "good");
  put("WSX", 1, false, "garbage");
  EXPECT_EQ(texts(*store_->current_submissions("britain", 1)), std::vector<std::string>{"good"});
  auto all = store_->all_submissions("britain");
  ASSERT_EQ(all->size(), 2u);
  EXPECT_FALSE((*all)[1].accepted);
  EXPECT_FALSE((*all)[1].current);
  EXPECT_EQ((*all)[1].raw_text, "garbage");
}

TEST_P(SubmissionsTest, CurrentIsPerPlayerAndTurnSortedByPlayer) {
  put("WSX", 1, true, "wsx-1");
  put("MRC", 1, true, "mrc-1");
  put("", 1, false, "anonymous");
  put("MRC", 1, true, "mrc-1b");
  EXPECT_EQ(texts(*store_->current_submissions("britain", 1)),
            (std::vector<std::string>{"mrc-1b", "wsx-1"}));
  commit_open_turn_or_fail();
  put("WSX", 2, true, "wsx-2");  // a later turn does not replace turn 1
  EXPECT_EQ(texts(*store_->current_submissions("britain", 1)),
            (std::vector<std::string>{"mrc-1b", "wsx-1"}));
  EXPECT_EQ(texts(*store_->current_submissions("britain", 2)), std::vector<std::string>{"wsx-2"});
  EXPECT_TRUE(store_->current_submissions("britain", 3)->empty());
  EXPECT_EQ(texts(*store_->all_submissions("britain")),
            (std::vector<std::string>{"wsx-1", "mrc-1", "anonymous", "mrc-1b", "wsx-2"}));
}

TEST_P(SubmissionsTest, CurrentSubmissionIsThePlayersEntryOfTheCurrentOnes) {
  put("WSX", 1, true, "wsx-1");
  put("WSX", 1, true, "wsx-1b");
  put("MRC", 1, false, "refused");
  commit_open_turn_or_fail();
  put("WSX", 2, true, "wsx-2");
  auto wsx = store_->current_submission("britain", 1, "WSX");
  ASSERT_TRUE(wsx.ok()) << wsx.status().to_string();
  ASSERT_TRUE(wsx->has_value());
  EXPECT_EQ((*wsx)->raw_text, "wsx-1b");
  EXPECT_TRUE((*wsx)->current);
  // The same record the default (a scan of current_submissions) finds.
  auto all = store_->current_submissions("britain", 1);
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 1u);
  EXPECT_EQ((*all)[0].id, (*wsx)->id);
  EXPECT_EQ((*all)[0].ack, (*wsx)->ack);
  EXPECT_EQ(store_->current_submission("britain", 2, "WSX")->value().raw_text, "wsx-2");
  EXPECT_FALSE(store_->current_submission("britain", 1, "MRC")->has_value());  // refused only
  EXPECT_FALSE(store_->current_submission("britain", 1, "wsx")->has_value());  // codes exactly
  EXPECT_EQ(store_->current_submission("nowhere", 1, "WSX").status().code(), StatusCode::kNotFound);
}

TEST_P(SubmissionsTest, GamesAreSeparate) {
  ASSERT_TRUE(store_->create_game(make_state("albion"), Json::object(), 1).ok());
  put("WSX", 1, true, "britain-wsx");
  SubmissionRecord r;
  r.game = "albion";
  r.player = "WSX";
  r.turn = 1;
  r.raw_text = "albion-wsx";
  r.accepted = true;
  ASSERT_TRUE(store_->put_submission(r).ok());
  EXPECT_EQ(texts(*store_->current_submissions("britain", 1)),
            std::vector<std::string>{"britain-wsx"});
  EXPECT_EQ(texts(*store_->all_submissions("albion")), std::vector<std::string>{"albion-wsx"});
}

TEST_P(SubmissionsTest, BadSubmissionsAreRefused) {
  SubmissionRecord r;
  r.game = "britain";
  r.player = "WSX";
  r.turn = 0;
  EXPECT_EQ(store_->put_submission(r).status().code(), StatusCode::kInvalidArgument);
  r.turn = 1;
  r.game = "atlantis";
  EXPECT_EQ(store_->put_submission(r).status().code(), StatusCode::kNotFound);
  r.game = "britain";
  r.ack = {{"line", "caf\xE9"}};  // Latin-1, not UTF-8
  EXPECT_EQ(store_->put_submission(r).status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(store_->all_submissions("britain")->empty());
}

TEST_P(SubmissionsTest, CorruptAcknowledgementIsCorruption) {
  const auto id = put("WSX", 1, true, "x");
  ASSERT_TRUE(exec(is_sqlite() ? "PRAGMA ignore_check_constraints = ON;"
                                 "UPDATE submissions SET ack_json = '{'"
                               : "ALTER TABLE submissions DROP CONSTRAINT "
                                 "submissions_ack_json_check;"
                                 "UPDATE submissions SET ack_json = '{'")
                  .ok());
  auto all = store_->all_submissions("britain");
  ASSERT_FALSE(all.ok());
  EXPECT_EQ(all.status().code(), StatusCode::kCorruption);
  EXPECT_NE(all.status().message().find("submission " + std::to_string(id)), std::string::npos)
      << all.status().message();
}

TEST_P(SubmissionsTest, SchemaAllowsOneCurrentFilePerPlayerAndTurn) {
  put("WSX", 1, true, "a");
  Status s = exec(
      "INSERT INTO submissions(game_id, player, turn, source, received_at, raw_text, ack_json, "
      "accepted, current) VALUES ('britain', 'WSX', 1, 'cli', 0, 'b', '{}', 1, 1)");
  EXPECT_EQ(s.code(), StatusCode::kAlreadyExists) << s.to_string();
}

TEST_P(SubmissionsTest, AnyBytesAreKeptExactly) {
  SubmissionRecord r;
  r.game = "britain";
  r.player = "WSX";
  r.turn = 1;
  r.source = "email:<x@example.org>";
  for (int i = 0; i < 256; ++i) r.raw_text += static_cast<char>(i);  // not UTF-8 either
  r.accepted = false;
  ASSERT_TRUE(store_->put_submission(r).ok());
  auto all = store_->all_submissions("britain");
  ASSERT_TRUE(all.ok()) << all.status().to_string();
  ASSERT_EQ(all->size(), 1u);
  EXPECT_EQ((*all)[0].raw_text, r.raw_text);
}

ADJ_ON_EVERY_BACKEND(SubmissionsTest);

}  // namespace
}  // namespace adj::storage_test
