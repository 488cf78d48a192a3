// Exalted mass combat's numbers (the rules: exalted_engine.h): Magnitude, War DV, the
// successes of d10s, one cycle of War Events and how health levels fall on armies. Pure
// functions (the dice through the Rng passed in); thread-safe.
#pragma once

#include <vector>

#include "rules/combat/exalted_data.h"

namespace adj {

// Successes of d10 faces: 7-9 one, 10 two (or one on damage rolls).
int exalted_successes(const std::vector<int>& dice, bool damage_roll);
// Magnitude of a unit of `soldiers` soldiers (0 for one soldier or none).
int exalted_magnitude(long long soldiers);
// War DV = (Int + War + Defense) / 2, rounded up or down.
int exalted_war_dv(int intelligence, int war, int defense, bool round_up);

// The striking side of one cycle.
struct ExAttacker {
  bool solo = false;
  int magnitude = 0;
  int pool = 0;    // unit: Wits + War + Accuracy; solo: Attribute + min(Ability, War) + extra
  int damage = 0;  // unit: Charisma + unit Damage; solo: its damage
  int might = 0;
  int ping = 0;  // unit: Magnitude; solo: max(Overwhelming, Essence)
};
// The struck side of one cycle.
struct ExTarget {
  int magnitude = 0;
  int dv = 0;  // War DV with its modifiers
  int hardness = 0;
  int soak = 0;  // of the attack's damage type
};
struct ExCycleOptions {
  int magnitude_cap = -1;  // < 0: uncapped
  int external_penalty = 0;
  bool attacker_reroll = false;
  bool defender_reroll = false;
  int stunt_dice = 0;
};
struct ExCycle {
  std::vector<int> attack_dice, reroll_dice, stunt_dice, stunt_reroll_dice, damage_dice;
  int successes = 0;       // of the attack roll (after any reroll)
  int magnitude_diff = 0;  // applied (after the cap)
  int remaining = 0;       // after penalties, DV and stunts
  bool hit = false;
  int raw = 0;
  bool hardness_stopped = false;
  int pool = 0;  // damage dice rolled
  bool pinged = false;
  int levels = 0;  // health levels inflicted (damage successes + Might)
  bool botch = false;
  Json detail() const;
};

// Runs steps 3-8 of one cycle. Draws: the attack dice, rerolls, stunt dice, then the damage dice.
ExCycle exalted_war_event(const ExAttacker& a, const ExTarget& t, const ExCycleOptions& o,
                          Rng& rng);

// Applies `levels` health levels to a force of `armies` armies with per-army `wounds` (most
// wounded first) and `track` levels per army; returns the armies lost and updates both.
int exalted_apply_levels(int& armies, std::vector<int>& wounds, int levels, int track);

// The striking (or struck) side of a force of `armies` armies with profile `p`: a Solo Unit
// when it is one soldier and the profile has "solo".
ExAttacker ex_striker(const ExProfile& p, int armies, const ExOptions& o);
// The Magnitude of `armies` armies.
int ex_magnitude_of(int armies, const ExOptions& o);

}  // namespace adj
