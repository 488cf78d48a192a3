#include "rules/combat/dark_age_engine.h"

#include <algorithm>

namespace adj {

int dark_age_defence_level(const Area& area, int armies, const RulesConfig& rules) {
  const int bonus =
      area.kind == AreaKind::kCity ? rules.city_bonus : rules.terrain_bonus_of(area.terrain);
  return armies + area.population + rules.fort_weight * area.fort + bonus;
}

const EngineTraits& DarkAgeEngine::traits() const {
  static constexpr EngineTraits kTraits{
      .name = "dark-age",
      .summary =
          "Dark Age: losses by formula, no dice. Attacker strength is the number of attacking "
          "armies; defender strength is the area's defence level (armies + population + forts + "
          "terrain or city bonus). MOVE fights one round at 1/2 losses, PROBE one round at 1/3 "
          "(immune to ambush, not against cities), ASSAULT fights to the finish at 1/3, OVERRUN "
          "sweeps a weak defender aside or turns into a costly assault (not against cities).",
      .order_help =
          "RAID <from> <to> [<n> | AB-<n>] (1 BP, not against cities): a hit-and-run attack. The "
          "raiders lose 1 army if the defence level is above 0, the defenders 1 army unless an "
          "ambush faces the raiders' area or the area is forest, mountains or wetlands; the "
          "raiders "
          "always go home, and pillage the area (it loses population) when no defending army is "
          "left. A RETREAT defence mode may withdraw the defenders first. "
          "INVADE <from> <to> [-] (Gaelic kingdoms only: Irish, Scots, Picts; 0 BP, not against "
          "cities): a barbarian invasion. The origin loses 1 population; the target loses 1 army, "
          "else 1 fort, else 1 population. Nothing moves. "
          "Gaelic areas attacked by a non-Gaelic kingdom: when a retreat triggers, the population "
          "turns into armies and retreats too.",
      .deterministic = true,
      .dark_age_actions = true,
  };
  return kTraits;
}

Status DarkAgeEngine::check_game(const GameState& state) const {
  if (!state.engine.options.is_object() || !state.engine.options.empty())
    return Status::InvalidArgument(
        "/engine/options: dark-age takes no engine options (its numbers are under /rules)");
  return Status::Ok();
}

EngineVocabulary DarkAgeEngine::vocabulary(const Json&, const RulesConfig& rules) const {
  EngineVocabulary v;
  for (const auto& [word, bonus] : rules.terrain_bonus)
    v.terrain.add(word, bonus == 0 ? "no defence bonus (rules.terrain_bonus)"
                                   : "defence level +" + std::to_string(bonus) +
                                         " when defending a land area (rules.terrain_bonus)");
  return v;
}

namespace {

struct Sides {
  int a;  // attacking armies
  int k;  // defending armies
};

// Losses (attacker, defender) of one round for `divisor` 2 (MOVE) or 3 (ASSAULT/PROBE).
std::pair<int, int> formula_losses(int a, int d, int divisor, bool with_difference) {
  int a_loss = d / divisor;
  int d_loss = a / divisor;
  if (with_difference) {
    if (a < d) a_loss += (d - a) / divisor;
    if (a > d) d_loss += (a - d) / divisor;
  }
  return {a_loss, d_loss};
}

}  // namespace

Result<BattleOutcome> DarkAgeEngine::resolve(const BattleInput& in, Rng&) const {
  const Area& area = in.target();
  const RulesConfig& rules = in.world->rules;
  Sides s{in.attacker_armies, area.armies};
  BattleOutcome out;
  int round_no = 0;
  bool ambush_pending = in.ambush && in.kind != AttackKind::kProbe;

  // Plays one round with the given loss rule; returns false when nobody lost anything.
  auto play = [&](const std::string& phase, int a_loss, int d_loss, bool ambushable) {
    BattleRound r;
    r.phase = phase;
    r.attacker_before = s.a;
    r.defender_before = s.k;
    r.attacker_strength = s.a;
    r.defender_strength = dark_age_defence_level(area, s.k, rules);
    if (ambushable && ambush_pending) {
      r.detail["ambush_multiplier"] = rules.ambush_multiplier;
      a_loss *= rules.ambush_multiplier;
      ambush_pending = false;
    }
    r.attacker_losses = std::min(a_loss, s.a);
    r.defender_losses = std::min(d_loss, s.k);
    s.a -= r.attacker_losses;
    s.k -= r.defender_losses;
    const bool progress = r.attacker_losses > 0 || r.defender_losses > 0;
    out.rounds.push_back(std::move(r));
    return progress;
  };
  auto level = [&] { return dark_age_defence_level(area, s.k, rules); };

  bool stalemate = false;
  switch (in.kind) {
    case AttackKind::kMove: {
      auto [al, dl] = formula_losses(s.a, level(), 2, true);
      play("move", al, dl, true);
      break;
    }
    case AttackKind::kProbe: {
      auto [al, dl] = formula_losses(s.a, level(), 3, false);
      play("probe", al, dl, false);
      out.attacker_stops = true;
      break;
    }
    case AttackKind::kAssault:
    case AttackKind::kOverrun: {
      const bool overrun = in.kind == AttackKind::kOverrun;
      if (overrun) {
        const int d = level();
        const int diff = std::abs(s.a - d) / 3;
        play("overrun", s.a < d ? diff : 0, s.a > d ? diff : 0, false);
      } else {
        out.attacker_stops = true;
      }
      // Overrun phase 1 wiped the defenders (or there were none): no assault follows.
      const bool assault = !overrun || (s.k > 0 && s.a > 0);
      if (assault) {
        out.attacker_stops = true;
        do {
          if (round_no >= rules.max_assault_rounds) {
            stalemate = true;
            break;
          }
          ++round_no;
          auto [al, dl] = formula_losses(s.a, level(), 3, true);
          if (overrun) al += 1;
          if (!play("round " + std::to_string(round_no), al, dl, true)) {
            stalemate = true;
            break;
          }
        } while (s.k > 0 && s.a > 0);
      }
      break;
    }
  }
  out.attacker_losses = in.attacker_armies - s.a;
  out.defender_losses = area.armies - s.k;
  out.attacker_wins = s.k == 0 && s.a > 0;
  if (stalemate && s.k > 0)
    out.detail["ended"] = round_no >= rules.max_assault_rounds
                              ? "round limit reached: the attack fails"
                              : "a round without losses: the attack fails";
  return out;
}

}  // namespace adj
