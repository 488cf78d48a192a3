#include "rules/rng/rng.h"

#include <cassert>

namespace adj {

std::uint64_t splitmix64_mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

Seed derive_seed(Seed parent, std::string_view tag) {
  // FNV-1a 64 of the tag, then mixed with the parent through two SplitMix64 rounds.
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : tag) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return splitmix64_mix(splitmix64_mix(parent + 0x9e3779b97f4a7c15ULL) ^ h);
}

std::uint32_t Rng::uniform(std::uint32_t bound) {
  assert(bound >= 1);
  std::uint32_t v = next_uniform(bound);
  assert(v < bound);
  draws_.push_back({bound, v});
  return v;
}

namespace {
std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
}  // namespace

Xoshiro256::Xoshiro256(Seed seed) {
  std::uint64_t x = seed;
  for (auto& s : s_) {
    x += 0x9e3779b97f4a7c15ULL;
    s = splitmix64_mix(x);
  }
}

std::uint64_t Xoshiro256::next_u64() {
  const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

std::uint32_t Xoshiro256::next_uniform(std::uint32_t bound) {
  // Lemire (2019): multiply the top 32 bits of a draw by bound; reject the biased low zone.
  std::uint64_t m = (next_u64() >> 32) * bound;
  auto low = static_cast<std::uint32_t>(m);
  if (low < bound) {
    const std::uint32_t threshold = static_cast<std::uint32_t>(-bound) % bound;
    while (low < threshold) {
      m = (next_u64() >> 32) * bound;
      low = static_cast<std::uint32_t>(m);
    }
  }
  return static_cast<std::uint32_t>(m >> 32);
}

}  // namespace adj
