// GameStore::begin_resolving as the claim among processes sharing one database: one run holds a
// turn until it commits, gives the mark back or its lease runs out; on every backend.
#include <gtest/gtest.h>

#include "storage/sqlite/sqlite_store.h"
#include "tests/storage/store_test_util.h"

namespace adj::storage_test {
namespace {

class TurnClaimTest : public BackendTest {
 protected:
  void SetUp() override {
    BackendTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    create_game_or_fail();
  }
  static constexpr UnixTime kNow = 1'700'000'000;
};

TEST_P(TurnClaimTest, OneRunHoldsTheTurnUntilItsLeaseRunsOut) {
  const UnixTime lease = resolving_lease_seconds();
  ASSERT_TRUE(store_->begin_resolving("britain", 1, kNow).ok());
  // A second run (another daemon) is refused while the first one's lease holds.
  EXPECT_EQ(store_->begin_resolving("britain", 1, kNow).code(), StatusCode::kUnavailable);
  EXPECT_EQ(store_->begin_resolving("britain", 1, kNow + lease - 1).code(),
            StatusCode::kUnavailable);
  // The first run died: at the end of its lease another takes the turn over.
  EXPECT_TRUE(store_->begin_resolving("britain", 1, kNow + lease).ok());
  EXPECT_EQ(store_->begin_resolving("britain", 1, kNow + lease).code(), StatusCode::kUnavailable);
  // Given back (a failed run): free at once.
  ASSERT_TRUE(store_->end_resolving("britain", 1).ok());
  EXPECT_TRUE(store_->begin_resolving("britain", 1, kNow + lease).ok());
  // Committed: the claim is gone with the turn; the next turn is free, the old one refused.
  commit_open_turn_or_fail();
  EXPECT_EQ(store_->begin_resolving("britain", 1, kNow + lease).code(),
            StatusCode::kFailedPrecondition);
  EXPECT_TRUE(store_->begin_resolving("britain", 2, kNow + lease).ok());
}

ADJ_ON_EVERY_BACKEND(TurnClaimTest);

}  // namespace
}  // namespace adj::storage_test
