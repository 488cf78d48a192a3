// server/app/secrets.h: hash_secrets hashes many secrets on several threads, each hash verifying
// its own secret, in order; hash_secrets_estimate scales one timed hash by the threads.
#include "server/app/secrets.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

namespace adj {
namespace {

TEST(Secrets, HashSecretsKeepsTheOrderAndEveryHashVerifiesItsOwnSecret) {
  std::vector<std::string> plain;
  for (int i = 0; i < 9; ++i) plain.push_back(new_secret());
  auto hashed = hash_secrets(plain);
  ASSERT_TRUE(hashed.ok()) << hashed.status().to_string();
  ASSERT_EQ(hashed->size(), plain.size());
  std::set<std::string> distinct(hashed->begin(), hashed->end());
  EXPECT_EQ(distinct.size(), plain.size());  // fresh salts
  for (std::size_t i = 0; i < plain.size(); ++i) {
    EXPECT_TRUE(verify_secret(plain[i], (*hashed)[i])) << i;
    EXPECT_FALSE(verify_secret(plain[(i + 1) % plain.size()], (*hashed)[i])) << i;
  }
  auto none = hash_secrets({});
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST(Secrets, TheEstimateGrowsWithTheCountAndShrinksWithThreads) {
  const double one = hash_secrets_estimate(1);
  EXPECT_GT(one, 0);
  const SecretHashCost cost = secret_hash_cost();
  const int threads = std::max(1, cost.max_concurrent - cost.reserved_for_checks);
  EXPECT_NEAR(hash_secrets_estimate(static_cast<std::size_t>(10 * threads)), 10 * one, 1e-9);
}

}  // namespace
}  // namespace adj
