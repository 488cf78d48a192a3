#include "rules/combat/exalted_numbers.h"

#include <algorithm>

namespace adj {

namespace {

std::vector<int> roll_d10(int n, Rng& rng) {
  std::vector<int> d;
  for (int i = 0; i < n; ++i) d.push_back(rng.die(10));
  return d;
}

// Rerolls every failed die (below 7) once; returns the new dice in order and updates `dice`.
std::vector<int> reroll_failures(std::vector<int>& dice, Rng& rng) {
  std::vector<int> rolled;
  for (int& d : dice)
    if (d < 7) {
      d = rng.die(10);
      rolled.push_back(d);
    }
  return rolled;
}

}  // namespace

// The attacking or target side of `code`'s force of `armies` armies.
ExAttacker ex_striker(const ExProfile& p, int armies, const ExOptions& o) {
  ExAttacker a;
  const long long soldiers = static_cast<long long>(armies) * o.soldiers_per_army;
  a.magnitude = exalted_magnitude(soldiers);
  a.might = p.might;
  if (soldiers == 1 && p.has_solo) {
    a.solo = true;
    a.pool = p.solo_attribute + std::min(p.solo_ability, p.war) + p.solo_extra;
    a.damage = p.solo_damage;
    a.ping = std::max(p.overwhelming, p.essence);
  } else {
    a.pool = p.wits + p.war + p.accuracy;
    a.damage = p.charisma + p.damage;
    a.ping = a.magnitude;
  }
  return a;
}

int ex_magnitude_of(int armies, const ExOptions& o) {
  return exalted_magnitude(static_cast<long long>(armies) * o.soldiers_per_army);
}

int exalted_successes(const std::vector<int>& dice, bool damage_roll) {
  int s = 0;
  for (int d : dice)
    if (d >= 7) s += (d == 10 && !damage_roll) ? 2 : 1;
  return s;
}

int exalted_magnitude(long long soldiers) {
  static const long long upper[] = {1, 10, 75, 150, 300, 650, 1250, 2500, 5000};
  int m = 0;
  while (m < 9 && soldiers > upper[m]) ++m;
  return m;
}

int exalted_war_dv(int intelligence, int war, int defense, bool round_up) {
  const int sum = intelligence + war + defense;
  return round_up ? (sum + 1) / 2 : sum / 2;
}

Json ExCycle::detail() const {
  return Json{{"attack_dice", attack_dice},
              {"reroll_dice", reroll_dice},
              {"stunt_dice", stunt_dice},
              {"stunt_reroll_dice", stunt_reroll_dice},
              {"successes", successes},
              {"magnitude_difference", magnitude_diff},
              {"remaining", remaining},
              {"hit", hit},
              {"raw_damage", raw},
              {"hardness_stopped", hardness_stopped},
              {"damage_pool", pool},
              {"ping", pinged},
              {"damage_dice", damage_dice},
              {"health_levels", levels},
              {"botch", botch}};
}

ExCycle exalted_war_event(const ExAttacker& a, const ExTarget& t, const ExCycleOptions& o,
                          Rng& rng) {
  ExCycle c;
  // Step 3: the attack roll and the Magnitude difference.
  c.attack_dice = roll_d10(std::max(0, a.pool), rng);
  // Step 4: attacker rerolls.
  if (o.attacker_reroll) c.reroll_dice = reroll_failures(c.attack_dice, rng);
  c.successes = exalted_successes(c.attack_dice, false);
  c.botch = c.successes == 0 &&
            std::count(c.attack_dice.begin(), c.attack_dice.end(), 1) > 0;  // logged only
  c.magnitude_diff = a.magnitude - t.magnitude;
  if (o.magnitude_cap >= 0)
    c.magnitude_diff = std::clamp(c.magnitude_diff, -o.magnitude_cap, o.magnitude_cap);
  int s = std::max(0, c.successes + c.magnitude_diff);
  // Step 5: external penalties, then DV; then the defender's stunt dice.
  s -= o.external_penalty + t.dv;
  if (s > 0 && o.stunt_dice > 0) {
    c.stunt_dice = roll_d10(o.stunt_dice, rng);
    // Step 6: defender rerolls its failed stunt dice.
    if (o.defender_reroll) c.stunt_reroll_dice = reroll_failures(c.stunt_dice, rng);
    s -= exalted_successes(c.stunt_dice, false);
  }
  c.remaining = s;
  if (s <= 0) return c;
  c.hit = true;
  // Step 7: raw damage.
  c.raw = s + a.damage;
  // Step 8: hardness, soak, ping, the damage roll, Might.
  if (t.hardness >= c.raw) {
    c.hardness_stopped = true;
    return c;
  }
  c.pool = c.raw - t.soak;
  if (c.pool < a.ping) {
    c.pool = a.ping;
    c.pinged = true;
  }
  c.damage_dice = roll_d10(std::max(0, c.pool), rng);
  c.levels = exalted_successes(c.damage_dice, true) + a.might;
  return c;
}

int exalted_apply_levels(int& armies, std::vector<int>& wounds, int levels, int track) {
  std::sort(wounds.begin(), wounds.end(), std::greater<int>());
  int lost = 0;
  std::vector<int> left;
  for (int w : wounds) {
    const int take = std::min(levels, track - w);
    levels -= take;
    if (w + take >= track)
      ++lost;
    else
      left.push_back(w + take);
  }
  int fresh = armies - static_cast<int>(wounds.size());
  while (levels > 0 && fresh > 0) {
    const int take = std::min(levels, track);
    levels -= take;
    --fresh;
    if (take >= track)
      ++lost;
    else
      left.push_back(take);
  }
  armies -= lost;
  std::sort(left.begin(), left.end(), std::greater<int>());
  wounds = left;
  return lost;
}

}  // namespace adj
