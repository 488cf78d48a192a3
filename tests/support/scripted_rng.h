// Test support: an Rng that replays given values, for feeding worked examples' dice to engines.
#pragma once

#include <deque>
#include <stdexcept>

#include "rules/rng/rng.h"

namespace adj::testing {

// Returns the queued die faces (1-based) in order; each call to uniform(bound) consumes one value
// v and returns v - 1. Throws std::logic_error when the script runs out or a value exceeds bound.
class ScriptedRng final : public Rng {
 public:
  explicit ScriptedRng(std::deque<int> faces) : faces_(std::move(faces)) {}
  std::size_t remaining() const { return faces_.size(); }

 protected:
  std::uint32_t next_uniform(std::uint32_t bound) override;

 private:
  std::deque<int> faces_;
};

}  // namespace adj::testing
