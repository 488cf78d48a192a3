// Deterministic random streams for adjudication.
//
// The generator is xoshiro256** (Blackman & Vigna, 2018) seeded through SplitMix64; range reduction
// is Lemire's multiply-shift with rejection. Both are specified here and golden-tested, so a seed
// gives the same dice on every platform and compiler: no std:: distributions are used anywhere.
//
// Streams are derived, never shared: game seed -> turn seed ("turn:N") -> battle seed
// ("battle:<id>"), one way (derive_seed). Adding a battle never shifts the dice of another.
//
// Thread-safety: an Rng is a mutable value; use one per thread (one per battle in practice).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace adj {

using Seed = std::uint64_t;

// SplitMix64 finaliser: a bijective 64-bit mix.
std::uint64_t splitmix64_mix(std::uint64_t x);

// SipHash-2-4 (Aumasson & Bernstein, 2012) of `m` under the 128-bit key (k0, k1).
std::uint64_t siphash24(std::uint64_t k0, std::uint64_t k1, std::string_view m);

// Derives a child seed from a parent seed and a stream tag such as "turn:3" or "battle:5.2.WSX":
// SipHash-2-4 of the tag keyed by the parent. One-way: a child seed (reports print each battle's)
// reveals neither the parent nor any other child, so no player can work out the game's seed and
// foresee later dice. Pure; stable across releases (golden-tested).
Seed derive_seed(Seed parent, std::string_view tag);

// One draw as recorded for audit: a value in [0, bound).
struct Draw {
  std::uint32_t bound = 0;
  std::uint32_t value = 0;
};

// A source of uniform integers. Subclasses provide uniform(); helpers build dice on top of it.
// Every draw is appended to draws() so that a battle log can show every die.
class Rng {
 public:
  virtual ~Rng() = default;

  // A uniform integer in [0, bound). REQUIRES: bound >= 1.
  std::uint32_t uniform(std::uint32_t bound);
  // One die with `sides` faces: 1..sides. REQUIRES: sides >= 1.
  int die(int sides) { return static_cast<int>(uniform(static_cast<std::uint32_t>(sides))) + 1; }

  const std::vector<Draw>& draws() const { return draws_; }
  std::size_t draw_count() const { return draws_.size(); }

 protected:
  virtual std::uint32_t next_uniform(std::uint32_t bound) = 0;

 private:
  std::vector<Draw> draws_;
};

// The production generator: xoshiro256** seeded by SplitMix64 from one 64-bit seed.
class Xoshiro256 final : public Rng {
 public:
  explicit Xoshiro256(Seed seed);
  // Starts from a raw state (for golden tests against the reference implementation).
  // REQUIRES: not all zero.
  Xoshiro256(std::uint64_t s0, std::uint64_t s1, std::uint64_t s2, std::uint64_t s3)
      : s_{s0, s1, s2, s3} {}
  // Raw 64-bit output (not recorded as a draw). Exposed for golden tests.
  std::uint64_t next_u64();

 protected:
  std::uint32_t next_uniform(std::uint32_t bound) override;

 private:
  std::uint64_t s_[4];
};

}  // namespace adj
