#include "rules/rng/rng.h"

#include <cassert>

namespace adj {

std::uint64_t splitmix64_mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

namespace {

std::uint64_t rotl64(std::uint64_t x, int b) { return (x << b) | (x >> (64 - b)); }

void sip_round(std::uint64_t& v0, std::uint64_t& v1, std::uint64_t& v2, std::uint64_t& v3) {
  v0 += v1;
  v1 = rotl64(v1, 13);
  v1 ^= v0;
  v0 = rotl64(v0, 32);
  v2 += v3;
  v3 = rotl64(v3, 16);
  v3 ^= v2;
  v0 += v3;
  v3 = rotl64(v3, 21);
  v3 ^= v0;
  v2 += v1;
  v1 = rotl64(v1, 17);
  v1 ^= v2;
  v2 = rotl64(v2, 32);
}

}  // namespace

std::uint64_t siphash24(std::uint64_t k0, std::uint64_t k1, std::string_view m) {
  std::uint64_t v0 = 0x736f6d6570736575ULL ^ k0, v1 = 0x646f72616e646f6dULL ^ k1,
                v2 = 0x6c7967656e657261ULL ^ k0, v3 = 0x7465646279746573ULL ^ k1;
  const std::size_t whole = m.size() / 8 * 8;
  for (std::size_t i = 0; i < whole; i += 8) {
    std::uint64_t w = 0;
    for (int b = 7; b >= 0; --b) w = (w << 8) | static_cast<unsigned char>(m[i + b]);
    v3 ^= w;
    sip_round(v0, v1, v2, v3);
    sip_round(v0, v1, v2, v3);
    v0 ^= w;
  }
  std::uint64_t last = static_cast<std::uint64_t>(m.size() & 0xff) << 56;
  for (std::size_t i = whole; i < m.size(); ++i)
    last |= static_cast<std::uint64_t>(static_cast<unsigned char>(m[i])) << (8 * (i - whole));
  v3 ^= last;
  sip_round(v0, v1, v2, v3);
  sip_round(v0, v1, v2, v3);
  v0 ^= last;
  v2 ^= 0xff;
  for (int r = 0; r < 4; ++r) sip_round(v0, v1, v2, v3);
  return v0 ^ v1 ^ v2 ^ v3;
}

Seed derive_seed(Seed parent, std::string_view tag) {
  // SipHash-2-4 keyed by the parent: a pseudo-random function, so a child seed (a battle's is
  // printed in reports) tells nothing about its parent or its siblings.
  return siphash24(parent, parent ^ 0x61646a7574616e74ULL /* "adjutant" */, tag);
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
