// ThrottleStore (migration 0008; PostgreSQL's in 0002) on every backend:
// states round-trip, two connections (as two processes would) add their failures up, quiet keys
// are forgotten, the table is capped, and StoredThrottle locks through it.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "server/app/auth_throttle.h"
#include "tests/storage/shared_db.h"

namespace adj::storage_test {
namespace {

constexpr std::int64_t kT0 = 1'800'000'000;

class ThrottleStoreTest : public SharedDatabaseTest {};
ADJ_ON_EVERY_BACKEND(ThrottleStoreTest);

TEST_P(ThrottleStoreTest, AStateRoundTrips) {
  auto store = open();
  ASSERT_TRUE(store);
  ThrottleState want;
  want.failures = 2;
  want.window_start = kT0 - 5;
  want.last_failure = kT0;
  want.lockouts = 3;
  want.locked_until = kT0 + 4;
  want.total_failures = 17;
  want.trusted = {"addr:192.0.2.1", "sender:a@example.org"};
  want.recent = {"sender:eve@example.org"};
  ASSERT_TRUE(store
                  ->update_throttle(
                      {"player:g/wsx"}, [&](std::vector<ThrottleState>& s) { s[0] = want; }, kT0,
                      kT0 - 1000, 100)
                  .ok());
  auto got = open()->throttle_states({"player:g/wsx", "player:g/none"});
  ASSERT_TRUE(got.ok()) << got.status().to_string();
  const ThrottleState& s = (*got)[0];
  EXPECT_EQ(s.failures, 2);
  EXPECT_EQ(s.window_start, kT0 - 5);
  EXPECT_EQ(s.last_failure, kT0);
  EXPECT_EQ(s.lockouts, 3);
  EXPECT_EQ(s.locked_until, kT0 + 4);
  EXPECT_EQ(s.total_failures, 17);
  EXPECT_EQ(s.trusted, want.trusted);
  EXPECT_EQ(s.recent, want.recent);
  EXPECT_EQ((*got)[1].total_failures, 0);  // never stored: the empty state
}

TEST_P(ThrottleStoreTest, TwoConnectionsCountingAtOnceLoseNoFailure) {
  std::vector<std::thread> threads;
  for (int k = 0; k < 2; ++k)
    threads.emplace_back([this] {
      auto store = open();
      ASSERT_TRUE(store);
      for (int i = 0; i < 50; ++i)
        ASSERT_TRUE(store
                        ->update_throttle(
                            {"sender:eve@example.org"},
                            [](std::vector<ThrottleState>& s) {
                              ++s[0].total_failures;
                              s[0].last_failure = kT0;
                            },
                            kT0, kT0 - 1000, 100)
                        .ok());
    });
  for (auto& t : threads) t.join();
  auto got = open()->throttle_states({"sender:eve@example.org"});
  ASSERT_TRUE(got.ok());
  EXPECT_EQ((*got)[0].total_failures, 100);
}

TEST_P(ThrottleStoreTest, KeysTakenInOppositeOrdersAtOnceNeitherStallNorLoseCounts) {
  // As StoredThrottle does (an account and a client key per failure), from two connections
  // naming the keys in opposite orders: no deadlock error, and every failure counts on both.
  const std::vector<std::vector<std::string>> orders = {{"player:g/WSX", "sender:eve@example.org"},
                                                        {"sender:eve@example.org", "player:g/WSX"}};
  std::vector<std::thread> threads;
  for (const auto& keys : orders)
    threads.emplace_back([this, keys] {
      auto store = open();
      ASSERT_TRUE(store);
      for (int i = 0; i < 40; ++i) {
        const Status s = store->update_throttle(
            keys,
            [](std::vector<ThrottleState>& states) {
              for (auto& st : states) {
                ++st.total_failures;
                st.last_failure = kT0;
              }
            },
            kT0, kT0 - 1000, 100);
        ASSERT_TRUE(s.ok()) << s.to_string();
      }
    });
  for (auto& t : threads) t.join();
  auto got = open()->throttle_states({"player:g/WSX", "sender:eve@example.org"});
  ASSERT_TRUE(got.ok()) << got.status().to_string();
  EXPECT_EQ((*got)[0].total_failures, 80);
  EXPECT_EQ((*got)[1].total_failures, 80);
}

TEST_P(ThrottleStoreTest, QuietKeysAreForgottenAndTheTableIsCapped) {
  auto store = open();
  ASSERT_TRUE(store);
  auto fail_at = [&](const std::string& key, std::int64_t t, std::int64_t locked_until) {
    return store->update_throttle(
        {key},
        [&](std::vector<ThrottleState>& s) {
          s[0].last_failure = t;
          s[0].total_failures = 1;
          s[0].locked_until = locked_until;
        },
        kT0, kT0 - 100, 3);
  };
  ASSERT_TRUE(fail_at("sender:old@example.org", kT0 - 500, 0).ok());
  ASSERT_TRUE(fail_at("sender:locked@example.org", kT0 - 500, kT0 + 60).ok());
  // The next write forgets the quiet, unlocked key (not the locked one).
  ASSERT_TRUE(fail_at("sender:a@example.org", kT0 - 3, 0).ok());
  auto got = store->throttle_states({"sender:old@example.org", "sender:locked@example.org"});
  ASSERT_TRUE(got.ok());
  EXPECT_EQ((*got)[0].total_failures, 0);
  EXPECT_EQ((*got)[1].total_failures, 1);
  // Beyond 3 rows, the least recently failed unlocked rows go; the locked one stays.
  ASSERT_TRUE(fail_at("sender:b@example.org", kT0 - 2, 0).ok());
  ASSERT_TRUE(fail_at("sender:c@example.org", kT0 - 1, 0).ok());
  got = store->throttle_states({"sender:a@example.org", "sender:b@example.org",
                                "sender:c@example.org", "sender:locked@example.org"});
  ASSERT_TRUE(got.ok());
  EXPECT_EQ((*got)[0].total_failures, 0);
  EXPECT_EQ((*got)[1].total_failures, 1);
  EXPECT_EQ((*got)[2].total_failures, 1);
  EXPECT_EQ((*got)[3].total_failures, 1);
}

TEST_P(ThrottleStoreTest, AKeyWithANewlineIsRefused) {
  auto store = open();
  ASSERT_TRUE(store);
  const Status s = store->update_throttle(
      {"sender:a@example.org\nx"}, [](std::vector<ThrottleState>&) {}, kT0, kT0, 10);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
}

TEST_P(ThrottleStoreTest, StoredThrottleLocksAcrossObjectsSharingTheFile) {
  ThrottleConfig c;
  c.max_failures = 2;
  const ThrottleKeys keys{throttle_key_sender("eve@example.org"), throttle_key_player("g", "WSX")};
  {
    auto store = open();
    StoredThrottle t(*store, c);
    EXPECT_TRUE(t.check(keys, kT0).allowed);
    t.record(keys, false, kT0);
  }
  auto store = open();  // another process, say
  StoredThrottle t(*store, c);
  EXPECT_TRUE(t.check(keys, kT0).allowed);
  const ThrottleEvent e = t.record(keys, false, kT0);
  EXPECT_TRUE(t.last_error().ok()) << t.last_error().to_string();
  EXPECT_TRUE(e.account_locked);
  EXPECT_TRUE(e.client_locked);
  const ThrottleVerdict v = t.check(keys, kT0);
  EXPECT_FALSE(v.allowed);
  EXPECT_EQ(v.retry_after, 1);
  EXPECT_TRUE(t.check(keys, kT0 + 1).allowed);
}

}  // namespace
}  // namespace adj::storage_test
