// Golden values pin the generator, the seed derivation and the range reduction: any change in
// compiler, platform or code that shifts a die fails here first.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "rules/rng/rng.h"

namespace adj {
namespace {

TEST(RngGolden, SplitMix64MatchesReference) {
  // SplitMix64 seeded with 0: the reference implementation's first output.
  EXPECT_EQ(splitmix64_mix(0x9e3779b97f4a7c15ULL), 0xe220a8397b1dcdafULL);
}

TEST(RngGolden, XoshiroMatchesReferenceFromRawState) {
  // xoshiro256** (Blackman & Vigna) from state {1,2,3,4}.
  Xoshiro256 r(1, 2, 3, 4);
  EXPECT_EQ(r.next_u64(), 11520ULL);
  EXPECT_EQ(r.next_u64(), 0ULL);
  EXPECT_EQ(r.next_u64(), 1509978240ULL);
  EXPECT_EQ(r.next_u64(), 1215971899390074240ULL);
}

TEST(RngGolden, SeededStreamIsPinned) {
  Xoshiro256 r(42);
  EXPECT_EQ(r.next_u64(), 0x15780b2e0c2ec716ULL);
  EXPECT_EQ(r.next_u64(), 0x6104d9866d113a7eULL);
  EXPECT_EQ(r.next_u64(), 0xae17533239e499a1ULL);
  EXPECT_EQ(r.next_u64(), 0xecb8ad4703b360a1ULL);
}

// The reference vectors of the SipHash paper (appendix A and the reference implementation's
// vectors.h): key 00..0f, messages 00..0e (15 bytes) and empty.
TEST(RngGolden, SipHashMatchesTheReferenceVectors) {
  const std::uint64_t k0 = 0x0706050403020100ULL, k1 = 0x0f0e0d0c0b0a0908ULL;
  std::string m;
  for (int i = 0; i < 15; ++i) m.push_back(static_cast<char>(i));
  EXPECT_EQ(siphash24(k0, k1, m), 0xa129ca6149be45e5ULL);
  EXPECT_EQ(siphash24(k0, k1, ""), 0x726fdb47dd0e0e31ULL);
}

TEST(RngGolden, DeriveSeedIsPinned) {
  EXPECT_EQ(derive_seed(42, "turn:1"), 10675616159923436513ULL);
  EXPECT_NE(derive_seed(42, "turn:1"), derive_seed(42, "turn:2"));
  EXPECT_NE(derive_seed(42, "turn:1"), derive_seed(43, "turn:1"));
}

TEST(RngGolden, DiceArePinned) {
  Xoshiro256 r(7);
  std::vector<int> got;
  for (int i = 0; i < 10; ++i) got.push_back(r.die(6));
  EXPECT_EQ(got, (std::vector<int>{5, 2, 6, 6, 6, 6, 1, 1, 3, 1}));
}

TEST(Rng, RecordsEveryDraw) {
  Xoshiro256 r(1);
  int a = r.die(6), b = r.die(10);
  ASSERT_EQ(r.draw_count(), 2u);
  EXPECT_EQ(r.draws()[0].bound, 6u);
  EXPECT_EQ(static_cast<int>(r.draws()[0].value) + 1, a);
  EXPECT_EQ(r.draws()[1].bound, 10u);
  EXPECT_EQ(static_cast<int>(r.draws()[1].value) + 1, b);
}

TEST(Rng, UniformIsUnbiasedOverManyDraws) {
  Xoshiro256 r(2024);
  std::map<int, int> counts;
  const int n = 600000;
  for (int i = 0; i < n; ++i) counts[r.die(6)]++;
  for (int face = 1; face <= 6; ++face) EXPECT_NEAR(counts[face] / double(n), 1.0 / 6, 0.003);
}

TEST(Rng, StreamsAreIndependentOfEachOther) {
  // Adding a battle must not shift another battle's dice: streams are derived, not shared.
  const Seed turn = derive_seed(9, "turn:3");
  Xoshiro256 a1(derive_seed(turn, "battle:3.1.WSX"));
  Xoshiro256 other(derive_seed(turn, "battle:3.1.MRC"));
  for (int i = 0; i < 100; ++i) other.die(6);
  Xoshiro256 a2(derive_seed(turn, "battle:3.1.WSX"));
  for (int i = 0; i < 20; ++i) EXPECT_EQ(a1.die(6), a2.die(6));
}

}  // namespace
}  // namespace adj
