// PostgreSQL only: two PgStores (two connections, as two daemons have) racing for the same
// claims on one database. Outbox claims, inbox leases, inbox dedupe, the sign-up bound and
// takeover codes each let exactly one through.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <latch>
#include <map>
#include <set>
#include <thread>

#include "storage/postgres/pg_store.h"
#include "tests/storage/store_test_util.h"

namespace adj::storage_test {
namespace {

class PgMailConcurrency : public ::testing::Test {
 protected:
  void SetUp() override {
    auto conninfo = adj::testing::fresh_pg_database();
    if (!conninfo.ok() && conninfo.status().code() == StatusCode::kUnavailable)
      GTEST_SKIP() << "PostgreSQL not available: " << conninfo.status().message();
    ASSERT_TRUE(conninfo.ok()) << conninfo.status().to_string();
    for (auto* s : {&a_, &b_}) {
      auto opened = PgStore::open(*conninfo);
      ASSERT_TRUE(opened.ok()) << opened.status().to_string();
      *s = std::move(opened).value();
    }
  }

  // Runs `body(store, index)` on a_ and b_ in two threads, started together. Returns the
  // milliseconds both took.
  double race(const std::function<void(PgStore&, int)>& body) {
    const auto t0 = std::chrono::steady_clock::now();
    std::latch start(2);
    std::thread other([&] {
      start.arrive_and_wait();
      body(*b_, 1);
    });
    start.arrive_and_wait();
    body(*a_, 0);
    other.join();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }

  std::unique_ptr<PgStore> a_, b_;
};

TEST_F(PgMailConcurrency, TwoClaimersNeverGetTheSameOutboxMessage) {
  constexpr int kMessages = 300;
  for (int i = 0; i < kMessages; ++i) {
    OutboxMessage m;
    m.kind = i % 3 == 0 ? "refusal" : "report";
    m.to = "p" + std::to_string(i) + "@example.org";
    m.raw = "Subject: " + std::to_string(i) + "\r\n\r\nbody\r\n";
    m.dedupe_key = "k" + std::to_string(i);
    m.next_attempt_at = 100 + i % 7;
    m.created_at = 100;
    ASSERT_TRUE(a_->enqueue(m).ok());
  }
  std::vector<std::int64_t> got[2];
  Status failed[2];
  const double ms = race([&](PgStore& s, int who) {
    for (;;) {
      auto claimed = s.claim(1000, 7, 600);
      if (!claimed.ok()) {
        failed[who] = claimed.status();
        return;
      }
      if (claimed->empty()) return;
      for (const auto& m : *claimed) got[who].push_back(m.id);
    }
  });
  ASSERT_TRUE(failed[0].ok()) << failed[0].to_string();
  ASSERT_TRUE(failed[1].ok()) << failed[1].to_string();
  std::set<std::int64_t> all(got[0].begin(), got[0].end());
  for (std::int64_t id : got[1]) EXPECT_TRUE(all.insert(id).second) << "claimed twice: " << id;
  EXPECT_EQ(all.size(), static_cast<std::size_t>(kMessages));
  EXPECT_EQ(got[0].size() + got[1].size(), static_cast<std::size_t>(kMessages));
  auto rows = a_->outbox("", kMessages);
  ASSERT_TRUE(rows.ok());
  for (const auto& m : *rows) {
    EXPECT_EQ(m.state, "sending");
    EXPECT_EQ(m.attempts, 1) << m.id;
  }
  std::cout << "[ figures  ] " << kMessages << " messages claimed 7 at a time by two stores in "
            << ms << " ms, split " << got[0].size() << " / " << got[1].size() << "\n";
}

TEST_F(PgMailConcurrency, TwoLeasingOneInboxMessageOneWins) {
  constexpr int kMessages = 100;
  std::vector<std::int64_t> ids;
  for (int i = 0; i < kMessages; ++i) {
    InboxMessage m;
    m.message_id = "m" + std::to_string(i) + "@x";
    m.channel = "smtp";
    m.raw = "body";
    auto id = a_->put_inbox(m, nullptr);
    ASSERT_TRUE(id.ok()) << id.status().to_string();
    ids.push_back(*id);
  }
  std::vector<int> wins[2];
  Status failed[2];
  const double ms = race([&](PgStore& s, int who) {
    for (std::int64_t id : ids) {
      auto won = s.lease_inbox(id, who == 0 ? "host:1:1" : "host:2:1", 100, 60);
      if (!won.ok()) {
        failed[who] = won.status();
        return;
      }
      wins[who].push_back(*won ? 1 : 0);
    }
  });
  ASSERT_TRUE(failed[0].ok()) << failed[0].to_string();
  ASSERT_TRUE(failed[1].ok()) << failed[1].to_string();
  ASSERT_EQ(wins[0].size(), ids.size());
  ASSERT_EQ(wins[1].size(), ids.size());
  int first = 0;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    EXPECT_EQ(wins[0][i] + wins[1][i], 1) << "message " << ids[i];
    first += wins[0][i];
    EXPECT_EQ(a_->inbox_message(ids[i])->attempts, 1);
  }
  EXPECT_EQ(a_->inbox_leases()->size(), ids.size());
  std::cout << "[ figures  ] " << kMessages << " messages leased by two stores racing in " << ms
            << " ms, won " << first << " / " << kMessages - first << "\n";
}

TEST_F(PgMailConcurrency, ConcurrentInboxPutsOfOneMessageStoreItOnce) {
  constexpr int kMessages = 60;
  std::vector<InboxMessage> batch;
  for (int i = 0; i < kMessages; ++i) {
    InboxMessage m;
    m.message_id = "dup" + std::to_string(i) + "@x";
    m.channel = "smtp";
    m.raw = "raw " + std::to_string(i);
    batch.push_back(m);
  }
  std::map<std::string, std::int64_t> ids[2];
  Status failed[2];
  race([&](PgStore& s, int who) {
    std::vector<InboxMessage> mine = batch;
    if (who == 1) std::reverse(mine.begin(), mine.end());  // opposite orders: deadlocks retried
    // Half in batches of 5, half one by one.
    for (std::size_t i = 0; i < mine.size(); i += 5) {
      std::vector<InboxMessage> part(mine.begin() + static_cast<std::ptrdiff_t>(i),
                                     mine.begin() + static_cast<std::ptrdiff_t>(i + 5));
      if (i % 10 == 0) {
        auto put = s.put_inbox_batch(part);
        if (!put.ok()) {
          failed[who] = put.status();
          return;
        }
        for (std::size_t k = 0; k < part.size(); ++k) ids[who][part[k].message_id] = (*put)[k].id;
      } else {
        for (const auto& m : part) {
          auto id = s.put_inbox(m, nullptr);
          if (!id.ok()) {
            failed[who] = id.status();
            return;
          }
          ids[who][m.message_id] = *id;
        }
      }
    }
  });
  ASSERT_TRUE(failed[0].ok()) << failed[0].to_string();
  ASSERT_TRUE(failed[1].ok()) << failed[1].to_string();
  EXPECT_EQ(ids[0], ids[1]) << "both saw the one stored row of every message";
  EXPECT_EQ(a_->inbox_list("new", 1000, false)->size(), static_cast<std::size_t>(kMessages));
}

TEST_F(PgMailConcurrency, SignUpsNeverPassTheBoundTogether) {
  // Many small lists: each round's race is at its bound.
  constexpr int kRounds = 10, kMax = 2, kTries = 3;
  for (int round = 0; round < kRounds; ++round) {
    const std::string game = "g" + std::to_string(round);
    ASSERT_TRUE(a_->create_game(make_state(game), make_scenario(game), 1).ok());
    int added[2] = {0, 0}, full[2] = {0, 0};
    Status failed[2];
    race([&](PgStore& s, int who) {
      for (int i = 0; i < kTries; ++i) {
        Signup su;
        su.game = game;
        su.email = "p" + std::to_string(who) + "-" + std::to_string(i) + "@example.org";
        su.created_at = 1;
        auto id = s.add_signup(su, kMax);
        if (id.ok())
          ++added[who];
        else if (id.status().code() == StatusCode::kFailedPrecondition)
          ++full[who];
        else
          failed[who] = id.status();
      }
    });
    ASSERT_TRUE(failed[0].ok()) << failed[0].to_string();
    ASSERT_TRUE(failed[1].ok()) << failed[1].to_string();
    EXPECT_EQ(added[0] + added[1], kMax) << game;
    EXPECT_EQ(full[0] + full[1], 2 * kTries - kMax) << game;
    EXPECT_EQ(a_->signups(game)->size(), static_cast<std::size_t>(kMax)) << game;
  }
}

TEST_F(PgMailConcurrency, ATakeoverCodeIsUsedOnce) {
  ASSERT_TRUE(a_->create_game(make_state("g1"), make_scenario("g1"), 1).ok());
  constexpr int kRounds = 20;
  int used[2] = {0, 0};
  Status failed[2];
  for (int round = 0; round < kRounds; ++round) {
    // Two codes of one position each round: the one the racers use, and one its use voids.
    for (char d : {'a', 'b'}) {
      TakeoverCode c;
      c.game = "g1";
      c.player = "WSX";
      c.code_hash = std::string(62, d) + (round < 10 ? "0" : "") + std::to_string(round);
      c.issued_by = "gm";
      c.created_at = 1;
      c.expires_at = 1000;
      ASSERT_TRUE(a_->add_takeover_code(c).ok());
    }
    const std::string which =
        std::string(62, 'a') + (round < 10 ? "0" : "") + std::to_string(round);
    const std::string other =
        std::string(62, 'b') + (round < 10 ? "0" : "") + std::to_string(round);
    race([&](PgStore& s, int who) {
      // Even rounds: both use one code. Odd rounds: each uses another code of the position.
      const bool same = round % 2 == 0;
      auto r = s.use_takeover_code("g1", "WSX", who == 0 || same ? which : other, "x", 500);
      if (!r.ok())
        failed[who] = r.status();
      else
        used[who] += *r ? 1 : 0;
    });
  }
  ASSERT_TRUE(failed[0].ok()) << failed[0].to_string();
  ASSERT_TRUE(failed[1].ok()) << failed[1].to_string();
  EXPECT_EQ(used[0] + used[1], kRounds) << "one code of the position per round";
  auto codes = a_->takeover_codes("g1");
  ASSERT_TRUE(codes.ok());
  int marked = 0;
  for (const auto& c : *codes) marked += c.used_at.has_value();
  EXPECT_EQ(marked, kRounds);
}

}  // namespace
}  // namespace adj::storage_test
