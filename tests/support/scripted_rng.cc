#include "tests/support/scripted_rng.h"

#include <string>

namespace adj::testing {

std::uint32_t ScriptedRng::next_uniform(std::uint32_t bound) {
  if (faces_.empty()) throw std::logic_error("ScriptedRng: script exhausted");
  const int v = faces_.front();
  faces_.pop_front();
  if (v < 1 || static_cast<std::uint32_t>(v) > bound)
    throw std::logic_error("ScriptedRng: face " + std::to_string(v) + " out of range 1.." +
                           std::to_string(bound));
  return static_cast<std::uint32_t>(v - 1);
}

}  // namespace adj::testing
