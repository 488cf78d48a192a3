// PressStore over SQLite (migration 0012): options, messages, bounds, one row per mail block.
#include <gtest/gtest.h>

#include "rules/game/scenario.h"
#include "server/app/services.h"
#include "storage/sqlite/sqlite_store.h"
#include "tests/support/temp_dir.h"

namespace adj {
namespace {

class PressStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = SqliteStore::open(dir_.file("p.db"));
    ASSERT_TRUE(s.ok()) << s.status().to_string();
    store_ = std::move(s).value();
    Services svc(Stores{*store_, *store_, *store_, *store_, *store_}, [] { return 1; });
    auto doc = bundled_scenario("dark-age-britain");
    ASSERT_TRUE(doc.ok());
    ASSERT_TRUE(svc.create_game(*doc, 1).ok());
  }
  PressMessage msg(const std::string& from, int turn, const std::string& source = "web") {
    PressMessage m;
    m.game = "britain-1";
    m.turn = turn;
    m.sent_at = 100;
    m.sender = from;
    m.recipients = {"MRC", "NUM"};
    m.body = "hello";
    m.source = source;
    return m;
  }
  ::adj::testing::TempDir dir_;
  std::unique_ptr<SqliteStore> store_;
};

TEST_F(PressStoreTest, OptionsDefaultAndChange) {
  auto o = store_->press_options("britain-1");
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->press, "private");
  EXPECT_TRUE(o->gm_reads_private);
  ASSERT_TRUE(store_->set_press_options("britain-1", {"anonymous", false}).ok());
  EXPECT_EQ(store_->press_options("britain-1")->press, "anonymous");
  EXPECT_FALSE(store_->press_options("britain-1")->gm_reads_private);
  EXPECT_EQ(store_->set_press_options("britain-1", {"loud", true}).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->press_options("nope").status().code(), StatusCode::kNotFound);
}

TEST_F(PressStoreTest, MessagesRoundTripAndMailBlocksAreStoredOnce) {
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
  auto list = store_->press_messages("britain-1");
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

TEST_F(PressStoreTest, BoundsAreCheckedWhenStoring) {
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

}  // namespace
}  // namespace adj
