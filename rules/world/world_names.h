// Names and order codes for generated worlds (world_generator.h): readable, varied, unique within
// one world, and the same for the same seed.
#pragma once

#include <set>
#include <string>

#include "rules/rng/rng.h"

namespace adj::world {

enum class NameKind { kLand, kCity, kSea, kKingdom };

// Hands out names and codes for one world. Not thread-safe; one per generation.
class NameBook {
 public:
  explicit NameBook(Rng& rng) : rng_(rng) {}

  // A name of `kind` not handed out before by this book (e.g. "Ashford", "Port Kelmere",
  // "Gulf of Tor", "Velmark").
  std::string name(NameKind kind);
  // An order code for `name`: three capitals drawn from it where one is free (Ashford -> ASH,
  // ASF...), else two of its letters and a digit, else four letters; unique in this book.
  std::string code(const std::string& name);

 private:
  std::string root();
  bool take_code(const std::string& c) { return codes_.insert(c).second; }

  Rng& rng_;
  std::set<std::string> names_, codes_;
};

}  // namespace adj::world
