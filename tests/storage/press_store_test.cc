// PressStore (migration 0012; PostgreSQL's in 0002) on every backend:
// options, messages, bounds, one row per mail block, and bounds that hold when several
// connections send at once.
#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>
#include <vector>

#include "storage/core/messages.h"
#include "tests/storage/shared_db.h"
#include "tests/storage/store_test_util.h"

namespace adj::storage_test {
namespace {

PressMessage msg(const std::string& from, int turn, const std::string& source = "web") {
  PressMessage m;
  m.game = "britain";
  m.turn = turn;
  m.sent_at = 100;
  m.sender = from;
  m.recipients = {"MRC", "NUM"};
  m.body = "hello";
  m.source = source;
  return m;
}

class PressStoreTest : public BackendTest {
 protected:
  void SetUp() override {
    BackendTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    create_game_or_fail();
  }
};
ADJ_ON_EVERY_BACKEND(PressStoreTest);

TEST_P(PressStoreTest, OptionsDefaultAndChange) {
  auto o = store_->press_options("britain");
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->press, "private");
  EXPECT_TRUE(o->gm_reads_private);
  ASSERT_TRUE(store_->set_press_options("britain", {"anonymous", false, false, ""}).ok());
  EXPECT_EQ(store_->press_options("britain")->press, "anonymous");
  EXPECT_FALSE(store_->press_options("britain")->gm_reads_private);
  EXPECT_FALSE(store_->press_options("britain")->new_holder_reads_earlier);
  ASSERT_TRUE(store_->set_press_options("britain", {"anonymous", false, true, ""}).ok());
  EXPECT_TRUE(store_->press_options("britain")->new_holder_reads_earlier);
  EXPECT_EQ(store_->press_options("britain")->gm_address, "");
  ASSERT_TRUE(
      store_->set_press_options("britain", {"anonymous", false, true, "gm@example.org"}).ok());
  EXPECT_EQ(store_->press_options("britain")->gm_address, "gm@example.org");
  EXPECT_EQ(store_->set_press_options("britain", {"loud", true, false, ""}).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->press_options("nope").status().code(), StatusCode::kNotFound);
}

TEST_P(PressStoreTest, MessagesRoundTripAndMailBlocksAreStoredOnce) {
  auto a = store_->append_press(msg("WSX", 1, "email:x@y#1"), {});
  ASSERT_TRUE(a.ok()) << a.status().to_string();
  auto b = store_->append_press(msg("WSX", 1, "email:x@y#1"), {});
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(*a, *b);
  PressMessage all = msg("MRC", 1);
  all.recipients.clear();
  all.to_all = true;
  all.anonymous = true;
  ASSERT_TRUE(store_->append_press(all, {}).ok());
  auto list = store_->press_messages_after("britain", 0);
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ((*list)[0].recipients, (std::vector<std::string>{"MRC", "NUM"}));
  EXPECT_EQ((*list)[0].source, "email:x@y#1");
  EXPECT_TRUE((*list)[1].to_all);
  EXPECT_TRUE((*list)[1].anonymous);
  EXPECT_TRUE((*list)[1].recipients.empty());
  PressMessage nobody = msg("WSX", 1);
  nobody.recipients.clear();
  EXPECT_EQ(store_->append_press(nobody, {}).status().code(), StatusCode::kInvalidArgument);
}

TEST_P(PressStoreTest, BoundsAreCheckedWhenStoring) {
  const PressBounds bounds{2, 3};
  ASSERT_TRUE(store_->append_press(msg("WSX", 1), bounds).ok());
  ASSERT_TRUE(store_->append_press(msg("WSX", 1), bounds).ok());
  auto third = store_->append_press(msg("WSX", 1), bounds);
  EXPECT_EQ(third.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(third.status().message().find("2 press messages this turn"), std::string::npos);
  ASSERT_TRUE(store_->append_press(msg("WSX", 2), bounds).ok());  // a new turn
  auto full = store_->append_press(msg("MRC", 2), bounds);
  EXPECT_EQ(full.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(full.status().message().find("holds 3 press messages"), std::string::npos);
}

TEST_P(PressStoreTest, EveryFieldRoundTripsAndUnknownGamesAreNotFound) {
  EXPECT_TRUE(store_->press_messages_after("britain", 0)->empty());
  PressMessage m = msg("WSX", 3, "api");
  m.sent_at = 1'700'000'123;
  m.body = "Meet at the ford.\nBring \"spears\" \u00e6\u00fe.";
  auto id = store_->append_press(m, {});
  ASSERT_TRUE(id.ok()) << id.status().to_string();
  auto list = store_->press_messages_after("britain", 0);
  ASSERT_TRUE(list.ok()) << list.status().to_string();
  ASSERT_EQ(list->size(), 1u);
  const PressMessage& got = list->front();
  EXPECT_EQ(got.id, *id);
  EXPECT_EQ(got.game, "britain");
  EXPECT_EQ(got.turn, 3);
  EXPECT_EQ(got.sent_at, 1'700'000'123);
  EXPECT_EQ(got.sender, "WSX");
  EXPECT_EQ(got.recipients, m.recipients);
  EXPECT_FALSE(got.to_all);
  EXPECT_FALSE(got.anonymous);
  EXPECT_EQ(got.body, m.body);
  EXPECT_EQ(got.source, "api");

  PressMessage elsewhere = msg("WSX", 1);
  elsewhere.game = "nope";
  EXPECT_EQ(store_->append_press(elsewhere, {}).status().message(), no_such_game("nope"));
  EXPECT_EQ(store_->press_messages_after("nope", 0).status().message(), no_such_game("nope"));
  EXPECT_EQ(store_->set_press_options("nope", {}).message(), no_such_game("nope"));
  PressMessage broken = msg("WSX", 1);
  broken.recipients = {"MRC", "NUM\nWSX"};
  EXPECT_EQ(store_->append_press(broken, {}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->press_messages_after("britain", 0)->size(), 1u);
}

// 1 when a digest claim won, 0 when it lost, -1 on an error.
int press_digest_claimed(const Result<bool>& r) { return r.ok() ? (*r ? 1 : 0) : -1; }

Notice press_digest_notice(const std::string& player, std::int64_t to_id) {
  Notice n;
  n.game = "britain";
  n.kind = "press";
  n.players = {player};
  n.subject = "Press: new messages";
  n.text = "digest";
  n.dedupe_key = "press-digest:britain:" + player + ":" + std::to_string(to_id);
  return n;
}

TEST_P(PressStoreTest, DigestMarksMoveOnlyFromWhereTheyWereRead) {
  auto st = store_->press_digest_state("britain");
  ASSERT_TRUE(st.ok()) << st.status().to_string();
  EXPECT_EQ(st->last_press_id, 0);
  EXPECT_TRUE(st->marks.empty());
  const std::int64_t a = *store_->append_press(msg("WSX", 1), {});
  const std::int64_t b = *store_->append_press(msg("WSX", 1), {});
  EXPECT_EQ(store_->press_digest_state("britain")->last_press_id, b);
  auto after = store_->press_messages_after("britain", a);
  ASSERT_TRUE(after.ok());
  ASSERT_EQ(after->size(), 1u);
  EXPECT_EQ(after->at(0).id, b);

  const Notice n = press_digest_notice("MRC", a);
  EXPECT_EQ(press_digest_claimed(store_->queue_press_digest("britain", "MRC", 0, a, 500, &n)), 1);
  // A second claim from the same reading finds the mark moved: nothing written.
  const Notice again = press_digest_notice("MRC", b);
  EXPECT_EQ(press_digest_claimed(store_->queue_press_digest("britain", "MRC", 0, b, 501, &again)),
            0);
  EXPECT_EQ(
      press_digest_claimed(store_->queue_press_digest("britain", "MRC", b, b + 1, 501, &again)), 0);
  EXPECT_EQ(press_digest_claimed(store_->queue_press_digest("britain", "MRC", a, b, 600, &again)),
            1);
  // No notice: the mark moves alone (a player with nothing to read).
  EXPECT_EQ(press_digest_claimed(store_->queue_press_digest("britain", "NUM", 0, b, 0, nullptr)),
            1);
  st = store_->press_digest_state("britain");
  ASSERT_EQ(st->marks.size(), 2u);
  EXPECT_EQ(st->marks[0].player, "MRC");
  EXPECT_EQ(st->marks[0].last_id, b);
  EXPECT_EQ(st->marks[0].sent_at, 600);
  EXPECT_EQ(st->marks[1].last_id, b);
  auto notices = store_->notices("britain");
  ASSERT_TRUE(notices.ok());
  EXPECT_EQ(notices->size(), 2u);
  // A used dedupe key writes nothing, not even the mark.
  EXPECT_EQ(press_digest_claimed(store_->queue_press_digest("britain", "GWN", 0, a, 700, &n)), 0);
  EXPECT_EQ(store_->press_digest_state("britain")->marks.size(), 2u);
  EXPECT_EQ(store_->queue_press_digest("britain", "MRC", b, b, 1, nullptr).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->press_digest_state("nope").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(store_->queue_press_digest("nope", "MRC", 0, 1, 1, nullptr).status().code(),
            StatusCode::kNotFound);
}

// Several connections sending at once (two daemons, say) cannot pass a bound together, nor store
// one mail block twice.
class PressConcurrencyTest : public SharedDatabaseTest {};
ADJ_ON_EVERY_BACKEND(PressConcurrencyTest);

TEST_P(PressConcurrencyTest, BoundsHoldAcrossConnections) {
  create_game_or_fail("britain");
  const PressBounds bounds{100, 30};
  std::atomic<int> stored{0}, refused{0};
  std::vector<std::thread> threads;
  for (const char* sender : {"WSX", "MRC"})
    threads.emplace_back([&, sender] {
      auto store = open();
      ASSERT_TRUE(store);
      for (int i = 0; i < 25; ++i) {
        auto id = store->append_press(msg(sender, 1), bounds);
        if (id.ok()) {
          ++stored;
        } else {
          EXPECT_EQ(id.status().code(), StatusCode::kFailedPrecondition) << id.status().to_string();
          ++refused;
        }
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(stored.load(), 30);
  EXPECT_EQ(refused.load(), 20);
  EXPECT_EQ(open()->press_messages_after("britain", 0)->size(), 30u);
}

TEST_P(PressConcurrencyTest, AMailBlockSentFromTwoConnectionsAtOnceIsStoredOnce) {
  create_game_or_fail("britain");
  std::vector<std::set<std::int64_t>> ids(2);
  std::vector<std::thread> threads;
  for (int k = 0; k < 2; ++k)
    threads.emplace_back([&, k] {
      auto store = open();
      ASSERT_TRUE(store);
      for (int i = 0; i < 20; ++i) {
        auto id = store->append_press(msg("WSX", 1, "email:m" + std::to_string(i) + "@x#1"), {});
        ASSERT_TRUE(id.ok()) << id.status().to_string();
        ids[k].insert(*id);
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(ids[0], ids[1]);  // both were answered with the one stored row of each block
  EXPECT_EQ(open()->press_messages_after("britain", 0)->size(), 20u);
}

// Two connections claiming every player's digest at once: each digest is queued once.
TEST_P(PressConcurrencyTest, ADigestClaimedFromTwoConnectionsAtOnceIsQueuedOnce) {
  create_game_or_fail("britain");
  const std::int64_t last = *open()->append_press(msg("WSX", 1), {});
  std::atomic<int> won{0};
  std::vector<std::thread> threads;
  for (int k = 0; k < 2; ++k)
    threads.emplace_back([&] {
      auto store = open();
      ASSERT_TRUE(store);
      for (int i = 0; i < 20; ++i) {
        const std::string player = "P" + std::to_string(i);
        const Notice n = press_digest_notice(player, last);
        auto got = store->queue_press_digest("britain", player, 0, last, 10, &n);
        ASSERT_TRUE(got.ok()) << got.status().to_string();
        won += *got ? 1 : 0;
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(won.load(), 20);
  EXPECT_EQ(open()->notices("britain")->size(), 20u);
}

}  // namespace
}  // namespace adj::storage_test
