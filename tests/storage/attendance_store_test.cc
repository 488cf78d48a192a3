// The AttendanceStore contract (storage/attendance_store.h) on every backend: options with their
// defaults, per-position records, absences, the standby list, single-use takeover codes and who
// had no orders in each resolved turn. The policy built on it is tested in
// tests/server/attendance_test.cc.
#include <gtest/gtest.h>

#include "tests/storage/store_test_util.h"

namespace adj::storage_test {
namespace {

class AttendanceStoreTest : public BackendTest {
 protected:
  void SetUp() override {
    BackendTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    create_game_or_fail();
  }
  TakeoverCode code(const std::string& player, char digit, UnixTime expires_at) {
    TakeoverCode c;
    c.game = "britain";
    c.player = player;
    c.code_hash = std::string(64, digit);
    c.address = "stand@example.org";
    c.issued_by = "scheduler";
    c.created_at = 100;
    c.expires_at = expires_at;
    return c;
  }
};

TEST_P(AttendanceStoreTest, OptionsHaveDefaultsUntilSet) {
  auto o = store_->attendance_options("britain");
  ASSERT_TRUE(o.ok()) << o.status().to_string();
  EXPECT_EQ(o->civil_disorder_after, 2);
  EXPECT_TRUE(o->absence_extends);
  AttendanceOptions set;
  set.civil_disorder_after = 0;
  set.absence_extends = false;
  set.absence_max_days = 14;
  set.absence_max_per_game = 0;
  set.takeover_code_days = 3;
  ASSERT_TRUE(store_->set_attendance_options("britain", set).ok());
  set.absence_max_days = 21;  // replaced, not added
  ASSERT_TRUE(store_->set_attendance_options("britain", set).ok());
  o = store_->attendance_options("britain");
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->civil_disorder_after, 0);
  EXPECT_FALSE(o->absence_extends);
  EXPECT_EQ(o->absence_max_days, 21);
  EXPECT_EQ(o->absence_max_per_game, 0);
  EXPECT_EQ(o->takeover_code_days, 3);
  set.takeover_code_days = 0;  // the schema's CHECK
  EXPECT_FALSE(store_->set_attendance_options("britain", set).ok());
  EXPECT_EQ(store_->attendance_options("nope").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(store_->set_attendance_options("nope", set).code(), StatusCode::kNotFound);
}

TEST_P(AttendanceStoreTest, RecordsArePerPositionByCode) {
  EXPECT_TRUE(store_->attendance_records("britain")->empty());
  ASSERT_TRUE(store_->put_attendance_record("britain", {"WSX", 3, 4}).ok());
  ASSERT_TRUE(store_->put_attendance_record("britain", {"MRC", 0, std::nullopt}).ok());
  ASSERT_TRUE(store_->put_attendance_record("britain", {"WSX", 5, std::nullopt}).ok());
  auto rs = store_->attendance_records("britain");
  ASSERT_TRUE(rs.ok()) << rs.status().to_string();
  ASSERT_EQ(rs->size(), 2u);
  EXPECT_EQ(rs->at(0).player, "MRC");
  EXPECT_EQ(rs->at(0).misses_from_turn, 1) << "at least 1";
  EXPECT_FALSE(rs->at(0).disorder_turn.has_value());
  EXPECT_EQ(rs->at(1).player, "WSX");
  EXPECT_EQ(rs->at(1).misses_from_turn, 5);
  EXPECT_FALSE(rs->at(1).disorder_turn.has_value());
  ASSERT_TRUE(store_->put_attendance_record("britain", {"WSX", 5, 6}).ok());
  EXPECT_EQ(store_->attendance_records("britain")->at(1).disorder_turn, std::optional<int>(6));
  EXPECT_EQ(store_->put_attendance_record("britain", {"", 1, std::nullopt}).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->put_attendance_record("nope", {"WSX", 1, std::nullopt}).code(),
            StatusCode::kNotFound);
  EXPECT_EQ(store_->attendance_records("nope").status().code(), StatusCode::kNotFound);
}

TEST_P(AttendanceStoreTest, AbsencesAreCheckedAndKeptInOrder) {
  auto a = store_->add_absence({0, "britain", "WSX", "2026-12-01", "2026-12-10", 50});
  ASSERT_TRUE(a.ok()) << a.status().to_string();
  auto b = store_->add_absence({0, "britain", "MRC", "2026-11-30", "2026-11-30", 60});
  ASSERT_TRUE(b.ok());
  EXPECT_GT(*b, *a);
  EXPECT_EQ(
      store_->add_absence({0, "britain", "WSX", "2026-12-10", "2026-12-01", 1}).status().code(),
      StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->add_absence({0, "britain", "", "2026-12-01", "2026-12-01", 1}).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(
      store_->add_absence({0, "britain", "WSX", "2026-12-1", "2026-12-10", 1}).status().code(),
      StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->add_absence({0, "nope", "WSX", "2026-12-01", "2026-12-01", 1}).status().code(),
            StatusCode::kNotFound);
  auto list = store_->absences("britain");
  ASSERT_TRUE(list.ok()) << list.status().to_string();
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ(list->at(0).id, *a);
  EXPECT_EQ(list->at(0).game, "britain");
  EXPECT_EQ(list->at(0).player, "WSX");
  EXPECT_EQ(list->at(0).from, "2026-12-01");
  EXPECT_EQ(list->at(0).to, "2026-12-10");
  EXPECT_EQ(list->at(0).declared_at, 50);
  EXPECT_EQ(list->at(1).player, "MRC");
  EXPECT_EQ(store_->absences("nope").status().code(), StatusCode::kNotFound);
}

TEST_P(AttendanceStoreTest, StandbyIsOncePerAddressOldestFirst) {
  EXPECT_TRUE(*store_->add_standby("britain", "b@example.org", 20));
  EXPECT_TRUE(*store_->add_standby("britain", "a@example.org", 30));
  EXPECT_FALSE(*store_->add_standby("britain", "b@example.org", 40));
  EXPECT_EQ(store_->add_standby("britain", "", 40).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->add_standby("nope", "c@example.org", 40).status().code(),
            StatusCode::kNotFound);
  auto list = store_->standby_list("britain");
  ASSERT_TRUE(list.ok()) << list.status().to_string();
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ(list->at(0).address, "b@example.org");
  EXPECT_EQ(list->at(0).created_at, 20);
  EXPECT_EQ(list->at(0).game, "britain");
  EXPECT_EQ(list->at(1).address, "a@example.org");
  ASSERT_TRUE(store_->remove_standby("britain", "b@example.org").ok());
  ASSERT_TRUE(store_->remove_standby("britain", "zz@example.org").ok());
  list = store_->standby_list("britain");
  ASSERT_EQ(list->size(), 1u);
  EXPECT_EQ(list->at(0).address, "a@example.org");
  EXPECT_TRUE(*store_->add_standby("britain", "b@example.org", 50)) << "back on the list";
}

TEST_P(AttendanceStoreTest, TakeoverCodesAreSingleUseAndVoidTheOthers) {
  auto a = store_->add_takeover_code(code("WSX", 'a', 1000));
  ASSERT_TRUE(a.ok()) << a.status().to_string();
  auto b = store_->add_takeover_code(code("WSX", 'b', 1000));
  ASSERT_TRUE(b.ok());
  auto m = store_->add_takeover_code(code("MRC", 'c', 1000));
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(store_->add_takeover_code(code("WSX", 'a', 1000)).status().code(),
            StatusCode::kAlreadyExists)
      << "hashes are unique";
  TakeoverCode short_hash = code("WSX", 'd', 1000);
  short_hash.code_hash = "abc";
  EXPECT_EQ(store_->add_takeover_code(short_hash).status().code(), StatusCode::kInvalidArgument);
  TakeoverCode elsewhere = code("WSX", 'e', 1000);
  elsewhere.game = "nope";
  EXPECT_EQ(store_->add_takeover_code(elsewhere).status().code(), StatusCode::kNotFound);

  const std::string hash_a(64, 'a'), hash_b(64, 'b');
  EXPECT_FALSE(*store_->use_takeover_code("britain", "MRC", hash_a, "x@example.org", 500))
      << "another position's code";
  EXPECT_FALSE(*store_->use_takeover_code("britain", "WSX", hash_a, "x@example.org", 1000))
      << "expired at 1000";
  EXPECT_TRUE(*store_->use_takeover_code("britain", "WSX", hash_a, "x@example.org", 500));
  EXPECT_FALSE(*store_->use_takeover_code("britain", "WSX", hash_a, "y@example.org", 501))
      << "used";
  EXPECT_FALSE(*store_->use_takeover_code("britain", "WSX", hash_b, "y@example.org", 501))
      << "voided by the use of a";

  auto codes = store_->takeover_codes("britain");
  ASSERT_TRUE(codes.ok()) << codes.status().to_string();
  ASSERT_EQ(codes->size(), 3u);
  EXPECT_EQ(codes->at(0).id, *a);
  EXPECT_EQ(codes->at(0).used_at, std::optional<UnixTime>(500));
  EXPECT_EQ(codes->at(0).used_by, "x@example.org");
  EXPECT_EQ(codes->at(0).address, "stand@example.org");
  EXPECT_EQ(codes->at(0).issued_by, "scheduler");
  EXPECT_EQ(codes->at(0).created_at, 100);
  EXPECT_EQ(codes->at(1).expires_at, 500);
  EXPECT_FALSE(codes->at(1).used_at.has_value());
  EXPECT_EQ(codes->at(1).used_by, "");
  EXPECT_EQ(codes->at(2).player, "MRC");
  EXPECT_EQ(codes->at(2).expires_at, 1000) << "other positions' codes are untouched";
  EXPECT_EQ(store_->takeover_codes("nope").status().code(), StatusCode::kNotFound);
}

TEST_P(AttendanceStoreTest, TurnsWithoutOrdersComeFromTheTurnRecordsNewestFirst) {
  for (int turn = 1; turn <= 3; ++turn) {
    auto state = store_->load_state("britain", std::nullopt);
    ASSERT_TRUE(state.ok()) << state.status().to_string();
    TurnCommit c = make_commit(*state);
    if (turn == 1) c.summary["players_without_orders"] = {"MRC", "WSX"};
    if (turn == 3) c.summary["players_without_orders"] = Json::array();
    ASSERT_TRUE(commit_turn(*store_, "britain", c).ok());
  }
  auto all = store_->turns_without_orders("britain", 1);
  ASSERT_TRUE(all.ok()) << all.status().to_string();
  ASSERT_EQ(all->size(), 3u);
  EXPECT_EQ(all->at(0).turn, 3);
  EXPECT_TRUE(all->at(0).without_orders.empty());
  EXPECT_EQ(all->at(0).ran_at, 1'700'000'003);
  EXPECT_EQ(all->at(1).turn, 2);
  EXPECT_TRUE(all->at(1).without_orders.empty()) << "no list in the record";
  EXPECT_EQ(all->at(2).without_orders, (std::vector<std::string>{"MRC", "WSX"}));
  EXPECT_EQ(store_->turns_without_orders("britain", 3)->size(), 1u);
  EXPECT_TRUE(store_->turns_without_orders("britain", 4)->empty());
  EXPECT_EQ(store_->turns_without_orders("nope", 1).status().code(), StatusCode::kNotFound);
}

TEST_P(AttendanceStoreTest, ANonListOfPlayersWithoutOrdersIsCorruption) {
  auto state = store_->load_state("britain", std::nullopt);
  ASSERT_TRUE(state.ok());
  TurnCommit c = make_commit(*state);
  c.summary["players_without_orders"] = "MRC";
  ASSERT_TRUE(commit_turn(*store_, "britain", c).ok());
  auto got = store_->turns_without_orders("britain", 1);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), StatusCode::kCorruption);
  EXPECT_EQ(got.status().message(), "game britain turn 1: players_without_orders is not a list");
}

// Every attendance and membership table has the revision triggers (migration 0013, and its
// PostgreSQL twin): each write moves the game's revision. Mail does not (it has no game page).
TEST_P(AttendanceStoreTest, EveryWriteMovesTheGamesRevisionButMailDoesNot) {
  const auto rev = [&] {
    auto map = store_->revisions();
    EXPECT_TRUE(map.ok()) << map.status().to_string();
    if (!map.ok()) return std::int64_t{-1};
    auto it = (*map)->find("britain");
    return it == (*map)->end() ? std::int64_t{0} : it->second;
  };
  std::int64_t before = rev();
  const auto moved = [&](const char* what) {
    const std::int64_t now = rev();
    EXPECT_GT(now, before) << what;
    before = now;
  };
  ASSERT_TRUE(store_->set_attendance_options("britain", AttendanceOptions{}).ok());
  moved("attendance_options");
  ASSERT_TRUE(store_->put_attendance_record("britain", {"WSX", 2, std::nullopt}).ok());
  moved("attendance_players");
  ASSERT_TRUE(store_->add_absence({0, "britain", "WSX", "2026-12-01", "2026-12-02", 1}).ok());
  moved("absences");
  ASSERT_TRUE(store_->add_standby("britain", "s@example.org", 1).ok());
  moved("standby");
  ASSERT_TRUE(store_->add_takeover_code(code("WSX", 'f', 1000)).ok());
  moved("takeover_codes");
  ASSERT_TRUE(*store_->use_takeover_code("britain", "WSX", std::string(64, 'f'), "x", 10));
  moved("takeover_codes (used)");
  Signup su;
  su.game = "britain";
  su.email = "s@example.org";
  auto id = store_->add_signup(su, 10);
  ASSERT_TRUE(id.ok()) << id.status().to_string();
  moved("signups");
  ASSERT_TRUE(store_->set_signup_state("britain", *id, "approved", "").ok());
  moved("signups (state)");
  ASSERT_TRUE(store_->set_contact("britain", Contact{"WSX", "w@example.org", "", 1}).ok());
  moved("contacts");
  ASSERT_TRUE(store_->remove_standby("britain", "s@example.org").ok());
  moved("standby (removed)");

  OutboxMessage o;
  o.kind = "report";
  o.game = "britain";
  o.to = "w@example.org";
  o.raw = "Subject: x\r\n\r\nx\r\n";
  o.dedupe_key = "r1";
  auto oid = store_->enqueue(o);
  ASSERT_TRUE(oid.ok()) << oid.status().to_string();
  ASSERT_TRUE(store_->claim(0, 10, 60).ok());
  ASSERT_TRUE(store_->mark_sent(*oid, 1).ok());
  InboxMessage in;
  in.message_id = "m@x";
  in.raw = "x";
  ASSERT_TRUE(store_->put_inbox(in, nullptr).ok());
  EXPECT_EQ(rev(), before) << "mail moved the game's revision";
}

ADJ_ON_EVERY_BACKEND(AttendanceStoreTest);

}  // namespace
}  // namespace adj::storage_test
