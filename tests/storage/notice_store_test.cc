// NoticeStore (storage/notice_store.h) on every backend: appending, the dedupe key (also from two
// connections at once, as two daemons would), the pending queue, marking done, the game's list.
#include <gtest/gtest.h>

#include <thread>

#include "storage/notice_store.h"
#include "tests/storage/store_test_util.h"
#include "tests/support/pg_test_db.h"

namespace adj::storage_test {
namespace {

Notice make_notice(const std::string& key, const std::string& kind = "press") {
  Notice n;
  n.game = "britain";
  n.kind = kind;
  n.players = {"WSX", "MRC"};
  n.addresses = {"standby@example.org"};
  n.subject = "Subject " + key;
  n.text = "Text of " + key;
  n.dedupe_key = key;
  n.thread = "thread-1";
  n.created_at = 1'700'000'000;
  return n;
}

class NoticeStoreTest : public BackendTest {
 protected:
  void SetUp() override {
    BackendTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    create_game_or_fail();
  }
};

TEST_P(NoticeStoreTest, AppendedNoticesReadBackAndQueueInOrder) {
  auto a = store_->append_notice(make_notice("k1"));
  ASSERT_TRUE(a.ok()) << a.status().to_string();
  auto b = store_->append_notice(make_notice("k2", "takeover"));
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  EXPECT_LT(*a, *b);

  auto pending = store_->pending_notices(10);
  ASSERT_TRUE(pending.ok()) << pending.status().to_string();
  ASSERT_EQ(pending->size(), 2u);
  const Notice& n = (*pending)[0];
  EXPECT_EQ(n.id, *a);
  EXPECT_EQ(n.game, "britain");
  EXPECT_EQ(n.kind, "press");
  EXPECT_EQ(n.players, (std::vector<std::string>{"WSX", "MRC"}));
  EXPECT_EQ(n.addresses, (std::vector<std::string>{"standby@example.org"}));
  EXPECT_EQ(n.subject, "Subject k1");
  EXPECT_EQ(n.text, "Text of k1");
  EXPECT_EQ(n.dedupe_key, "k1");
  EXPECT_EQ(n.thread, "thread-1");
  EXPECT_EQ(n.created_at, 1'700'000'000);
  EXPECT_EQ(n.state, "pending");
  auto one = store_->pending_notices(1);
  ASSERT_TRUE(one.ok());
  ASSERT_EQ(one->size(), 1u);
  EXPECT_EQ((*one)[0].id, *a);

  // Done: off the queue; a takeover notice loses its text (it held a code).
  ASSERT_TRUE(store_->mark_notice_done(*b).ok());
  pending = store_->pending_notices(10);
  ASSERT_TRUE(pending.ok());
  ASSERT_EQ(pending->size(), 1u);
  EXPECT_EQ((*pending)[0].id, *a);
  auto all = store_->notices("britain");
  ASSERT_TRUE(all.ok()) << all.status().to_string();
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[1].state, "done");
  EXPECT_EQ((*all)[1].text.find("k2"), std::string::npos);
  EXPECT_EQ((*all)[0].text, "Text of k1");
  EXPECT_EQ(store_->mark_notice_done(*b + 100).code(), StatusCode::kNotFound);
}

TEST_P(NoticeStoreTest, RefusesWhatCannotBeMailed) {
  EXPECT_EQ(store_->append_notice(make_notice("k1")).status().code(), StatusCode::kOk);
  EXPECT_EQ(store_->append_notice(make_notice("k1")).status().code(), StatusCode::kAlreadyExists);
  Notice unknown = make_notice("k2");
  unknown.game = "atlantis";
  EXPECT_EQ(store_->append_notice(unknown).status().code(), StatusCode::kNotFound);
  Notice nobody = make_notice("k3");
  nobody.players.clear();
  nobody.addresses.clear();
  EXPECT_EQ(store_->append_notice(nobody).status().code(), StatusCode::kInvalidArgument);
  Notice broken = make_notice("k4");
  broken.addresses = {"a@example.org\nBcc: b@example.org"};
  EXPECT_EQ(store_->append_notice(broken).status().code(), StatusCode::kInvalidArgument);
  Notice empty = make_notice("");
  EXPECT_EQ(store_->append_notice(empty).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->notices("atlantis").status().code(), StatusCode::kNotFound);
  auto all = store_->notices("britain");
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), 1u);
}

ADJ_ON_EVERY_BACKEND(NoticeStoreTest);

}  // namespace
}  // namespace adj::storage_test
