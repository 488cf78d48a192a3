// Path of War's numbers (the rules: path_of_war_engine.h): the dice (or shots) of one volley with
// every modifier, the roll, and how a volley's hits fall on tanks. Pure functions (the dice
// through the Rng passed in); thread-safe.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rules/combat/path_of_war_data.h"

namespace adj {

// One volley: who fires at whom, and the adjustments of the attack kind.
struct PowVolley {
  const Area* shooter_area = nullptr;  // where the firing force stands
  const Area* target_area = nullptr;   // where its target stands
  std::optional<std::string> side;     // owner of the firing force (flanking friends)
  int tanks = 0;                       // the firing force's tanks at the start of the exchange
  int enemy_tanks = 0;                 // its target's tanks at the start of the exchange
  bool friend_attacking = false;       // another group of the same player attacks the target
  // Attack-kind dice (OVERRUN confusion, the old overrun_defender_bonus).
  std::vector<std::pair<std::string, int>> extra = {};
  bool halve = false;  // PROBE: half the dice
};

// Whether the edge a-b is a sidemountain (no attack or flanking across it).
bool pow_sidemountain(const GameState& w, std::string_view a, std::string_view b);
// Dice (or shots) of one volley, every modifier recorded in `mods`. All modifiers sum first, a
// PROBE halves the sum (rounding down), and the floor max(N, min_dice) applies once at the end
// (seed 000: "it is always possible to attack with at least one die").
int pow_fire_dice(const GameState& w, const PowOptions& o, const PowVolley& v, Json& mods);
// Rolls one volley of `n` dice or shots; returns the faces or damages shown in the report.
std::vector<int> pow_roll(const PowOptions& o, int n, Rng& rng);
// Applies one volley (n dice/shots with results `rolled`) to `hp`; returns the survivors,
// healthiest first.
std::vector<int> pow_apply(const PowOptions& o, std::vector<int> hp, int n,
                           const std::vector<int>& rolled);

}  // namespace adj
