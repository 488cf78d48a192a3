#include "server/app/reports_in_flight.h"

#include <gtest/gtest.h>

namespace adj {
namespace {

TEST(ReportsInFlight, ARecoveryWaitsForTheQueueingUnderWayButARunNeverDoes) {
  ReportsInFlight f;
  ASSERT_TRUE(f.begin("g", 3, false, 100));
  EXPECT_FALSE(f.begin("g", 3, true, 101)) << "the run's queueing is still at work";
  EXPECT_TRUE(f.begin("g", 4, true, 101)) << "another turn";
  EXPECT_TRUE(f.begin("h", 3, true, 101)) << "another game";
  EXPECT_TRUE(f.begin("g", 3, false, 102)) << "a rerun always queues";
  f.end("g", 3, true, 110);
  EXPECT_FALSE(f.begin("g", 3, true, 111)) << "the rerun's queueing is still at work";
  f.end("g", 3, true, 120);
  EXPECT_TRUE(f.begin("g", 3, true, 121)) << "both done";
}

TEST(ReportsInFlight, AFailedQueueingIsRetriedByARecoveryOnlyAfterTheDelay) {
  ReportsInFlight f;
  ASSERT_TRUE(f.begin("g", 3, true, 1000));
  f.end("g", 3, false, 1000);
  EXPECT_FALSE(f.begin("g", 3, true, 1000 + ReportsInFlight::kRetrySeconds - 1));
  EXPECT_TRUE(f.begin("g", 3, false, 1001)) << "a run is not held back by an earlier failure";
  f.end("g", 3, false, 1002);
  EXPECT_FALSE(f.begin("g", 3, true, 1002 + ReportsInFlight::kRetrySeconds - 1));
  ASSERT_TRUE(f.begin("g", 3, true, 1002 + ReportsInFlight::kRetrySeconds));
  f.end("g", 3, true, 1002 + ReportsInFlight::kRetrySeconds);
  EXPECT_TRUE(f.begin("g", 3, true, 1003 + ReportsInFlight::kRetrySeconds))
      << "succeeded: forgotten";
}

}  // namespace
}  // namespace adj
