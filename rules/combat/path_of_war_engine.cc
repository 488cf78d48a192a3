#include "rules/combat/path_of_war_engine.h"

#include <algorithm>
#include <functional>

namespace adj {

namespace {

// The listed HP values, healthiest first, truncated to `armies`. Unlisted tanks are fresh and
// healthier than any listed one (a listed value never exceeds the game's hit points).
std::vector<int> listed_hp(const Json& units, int armies) {
  std::vector<int> listed;
  if (units.is_object() && units.contains("hp") && units["hp"].is_array())
    for (const auto& v : units["hp"])
      if (v.is_number_integer()) listed.push_back(v.get<int>());
  std::sort(listed.begin(), listed.end(), std::greater<>());
  if (static_cast<int>(listed.size()) > armies) listed.resize(static_cast<std::size_t>(armies));
  return listed;
}

Json listed_json(const std::vector<int>& listed) {
  return listed.empty() ? Json::object() : Json{{"hp", listed}};
}

}  // namespace

Json PathOfWarEngine::detach_units(Json& area_units, int area_armies, int n) const {
  std::vector<int> listed = listed_hp(area_units, std::max(0, area_armies));
  const int unlisted = std::max(0, area_armies - static_cast<int>(listed.size()));
  const int from_listed = std::clamp(n - unlisted, 0, static_cast<int>(listed.size()));
  std::vector<int> moving(listed.begin(), listed.begin() + from_listed);
  listed.erase(listed.begin(), listed.begin() + from_listed);
  area_units = listed_json(listed);
  return listed_json(moving);
}

void PathOfWarEngine::merge_units(Json& area_units, int area_armies, const Json& incoming,
                                  int n) const {
  std::vector<int> listed = listed_hp(area_units, std::max(0, area_armies));
  if (!incoming.is_null()) {
    std::vector<int> more = listed_hp(incoming, std::max(0, n));
    listed.insert(listed.end(), more.begin(), more.end());
  }
  std::sort(listed.begin(), listed.end(), std::greater<>());
  area_units = listed_json(listed);
}

const EngineTraits& PathOfWarEngine::traits() const {
  static constexpr EngineTraits kTraits{
      .name = "path-of-war",
      .summary =
          "Path of War: every army is a tank with 10 hit points; damage persists between turns. "
          "Each side fires one die (boardgame: 5-6 destroys a tank), one shot (videogamer: "
          "damage 1-12) or one sure shot (no-luck: two destroy a fresh tank, one a damaged tank) "
          "per tank, plus or minus terrain (from/against hills, forests, villages; castles -2), "
          "flanking +1, outnumbered -1, target on road +1 or rails +2; all modifiers add up "
          "first, then never fewer than one die. Fire is simultaneous: casualties are removed "
          "after each exchange. Areas attacking together each fire their own dice with their own "
          "modifiers (flanking each other), and the defender fires back at each. MOVE fights one "
          "exchange and enters only if the defenders are destroyed; ASSAULT exchanges until a "
          "side is destroyed; PROBE fires one exchange at half dice; OVERRUN fires first, alone, "
          "and if defenders survive turns into an assault in which the attacker loses one extra "
          "tank per exchange. An AMBUSH fires a volley before the first exchange; RETREAT "
          "withdraws when the attacking tanks outnumber the defenders. No attack or move across "
          "a sidemountain.",
      .order_help =
          "Path of War: no extra keywords. MOVE/ASSAULT/PROBE/OVERRUN may not cross a "
          "sidemountain edge. The healthiest tanks of an area move first; damaged tanks stay. "
          "OVERRUN: your tanks fire first and alone; if defenders survive, the attack goes on to "
          "the finish and you lose one extra tank in each exchange. Areas attacking one area "
          "together each fire with their own modifiers and flank each other (+1 die each); the "
          "defender fires back at each of them.",
      .simultaneous_fire = true,
  };
  return kTraits;
}

Status PathOfWarEngine::check_game(const GameState& state) const {
  Result<PowOptions> o = pow_options_from_json(state.engine.options);
  if (!o.ok()) return o.status();
  for (std::size_t i = 0; i < state.areas.size(); ++i) {
    const Area& a = state.areas[i];
    if (a.engine_state.empty()) continue;
    const std::string where = "/areas: area " + a.code;
    for (const auto& [k, v] : a.engine_state.items())
      if (k != "hp") return Status::InvalidArgument(where + " engine_state." + k + " is unknown");
    const Json& hp = a.engine_state["hp"];
    if (!hp.is_array() || static_cast<int>(hp.size()) > a.armies)
      return Status::InvalidArgument(where + " engine_state.hp must list at most one HP per army");
    for (const auto& h : hp)
      if (!h.is_number_integer() || h.get<long long>() < 1 || h.get<long long>() > o->hit_points)
        return Status::InvalidArgument(where + " engine_state.hp values must be 1.." +
                                       std::to_string(o->hit_points));
  }
  return Status::Ok();
}

Status PathOfWarEngine::check_order(const Order& order, const GameState& state) const {
  if (Status s = CombatEngine::check_order(order, state); !s.ok()) return s;
  if (is_attack_verb(order.verb) && pow_sidemountain(state, order.from, order.to))
    return Status::InvalidArgument("no move or attack across the sidemountain between " +
                                   order.from + " and " + order.to);
  return Status::Ok();
}

bool PathOfWarEngine::retreat_triggers(const BattleInput& in) const {
  return in.attacker_armies > in.target().armies;
}

namespace {

// One battle: the attacking forces (every attacking group a unit of its own in the seed's sense:
// its own dice and modifiers, and the defender fights back at each; a group across a
// sidemountain does not fight), the defender's tanks, and the exchanges between them.
struct PowBattle {
  struct Force {
    AttackGroup g;
    const Area* from = nullptr;
    std::vector<int> hp;
    bool blocked = false;
    bool ambushed = false;
  };
  // How one exchange is fought.
  struct Fire {
    bool attackers = true;       // the attacking groups fire
    bool defender = true;        // the defender answers each fighting group ...
    bool ambushed_only = false;  // ... or only the groups it ambushes
    bool halve = false;          // PROBE
    bool confusion = false;      // OVERRUN turned assault
    int defender_extra = 0;      // the old OVERRUN's defender dice
  };

  PowBattle(const BattleInput& battle, const PowOptions& opt, Rng& r)
      : in(battle), o(opt), rng(r), w(*battle.world), target(battle.target()) {}

  const BattleInput& in;
  const PowOptions& o;
  Rng& rng;
  const GameState& w;
  const Area& target;
  std::vector<Force> forces;
  bool several = false;
  std::vector<int> d;  // the defender's tanks
  BattleOutcome out;

  Status muster() {
    for (AttackGroup& g : attack_groups(in)) {
      Force f;
      f.from = w.find_area(g.from);
      if (!f.from) return Status::InvalidArgument("attack group from unknown area " + g.from);
      f.hp = pow_hp_list(g.units, g.armies, o.hit_points);
      f.blocked = pow_sidemountain(w, g.from, in.to);
      // The ambush strikes the force from the area it is set against (in.ambush alone says so
      // for a single force, e.g. the calculator's compact form).
      f.ambushed = in.kind != AttackKind::kProbe &&
                   ((in.ambush && in.groups.size() <= 1) ||
                    (target.mode == DefenceMode::kAmbush && target.ambush_against == g.from));
      f.g = std::move(g);
      forces.push_back(std::move(f));
    }
    several = forces.size() > 1;
    d = pow_hp_list(target.engine_state, target.armies, o.hit_points);
    out.detail["variant"] = o.variant == PowVariant::kBoardgame    ? "boardgame"
                            : o.variant == PowVariant::kVideogamer ? "videogamer"
                                                                   : "no-luck";
    return Status::Ok();
  }

  static bool fighting(const Force& f) { return !f.blocked && !f.hp.empty(); }
  bool attackers_left() const { return std::any_of(forces.begin(), forces.end(), fighting); }

  void exchange(const std::string& phase, const Fire& fire) {
    BattleRound r;
    r.phase = phase;
    const int d0 = static_cast<int>(d.size());
    r.defender_before = d0;
    std::vector<int> an(forces.size(), 0), dn(forces.size(), 0);
    std::vector<Json> amods(forces.size(), Json::object()), dmods(forces.size(), Json::object());
    std::vector<std::vector<int>> adice(forces.size()), ddice(forces.size());
    std::vector<bool> answered(forces.size(), false);
    // Every group and the defender fire from the state at the start of the exchange.
    for (std::size_t i = 0; i < forces.size(); ++i) {
      const Force& f = forces[i];
      r.attacker_before += static_cast<int>(f.hp.size());
      if (!fire.attackers || !fighting(f)) continue;
      bool friend_attacking = false;
      for (std::size_t j = 0; j < forces.size(); ++j)
        friend_attacking =
            friend_attacking || (j != i && fighting(forces[j]) && forces[j].g.player == f.g.player);
      PowVolley v{.shooter_area = f.from,
                  .target_area = &target,
                  .side = f.g.player,
                  .tanks = static_cast<int>(f.hp.size()),
                  .enemy_tanks = d0,
                  .friend_attacking = friend_attacking,
                  .halve = fire.halve};
      if (fire.confusion && o.overrun_confusion_dice > 0)
        v.extra.emplace_back("confusion", -o.overrun_confusion_dice);
      an[i] = pow_fire_dice(w, o, v, amods[i]);
      adice[i] = pow_roll(o, an[i], rng);
    }
    for (std::size_t i = 0; i < forces.size(); ++i) {
      const Force& f = forces[i];
      if (!fire.defender || !fighting(f) || (fire.ambushed_only && !f.ambushed) ||
          (!fire.ambushed_only && !o.return_fire))
        continue;
      answered[i] = true;
      PowVolley v{.shooter_area = &target,
                  .target_area = f.from,
                  .side = target.owner,
                  .tanks = d0,
                  .enemy_tanks = static_cast<int>(f.hp.size()),
                  .halve = fire.halve};
      if (fire.defender_extra != 0) v.extra.emplace_back("overrun", fire.defender_extra);
      dn[i] = pow_fire_dice(w, o, v, dmods[i]);
      ddice[i] = pow_roll(o, dn[i], rng);
    }
    // Casualties are removed after the exchange. Each group's hits are capped at the target's
    // tanks; applied one group after the other, their total never exceeds them.
    std::vector<int> d2 = d;
    for (std::size_t i = 0; i < forces.size(); ++i)
      if (an[i] > 0) d2 = pow_apply(o, d2, an[i], adice[i]);
    Json groups = Json::array();
    int confusion_losses = 0;
    for (std::size_t i = 0; i < forces.size(); ++i) {
      Force& f = forces[i];
      const int before = static_cast<int>(f.hp.size());
      std::vector<int> a2 = answered[i] ? pow_apply(o, f.hp, dn[i], ddice[i]) : f.hp;
      if (fire.confusion && fighting(f)) {
        const int extra = std::min(o.overrun_confusion_losses, static_cast<int>(a2.size()));
        a2.resize(a2.size() - static_cast<std::size_t>(extra));  // the most damaged go
        confusion_losses += extra;
      }
      f.hp = std::move(a2);
      r.attacker_strength += an[i];
      r.defender_strength += dn[i];
      r.attacker_losses += before - static_cast<int>(f.hp.size());
      r.attacker_dice.insert(r.attacker_dice.end(), adice[i].begin(), adice[i].end());
      r.defender_dice.insert(r.defender_dice.end(), ddice[i].begin(), ddice[i].end());
      if (several) {
        Json gj = {{"from", f.g.from},
                   {"before", before},
                   {"losses", before - (int)f.hp.size()},
                   {"hp", f.hp}};
        if (an[i] > 0) {
          gj["dice"] = an[i];
          gj["modifiers"] = amods[i];
        }
        if (answered[i]) {
          gj["defender_dice"] = dn[i];
          gj["defender_modifiers"] = dmods[i];
        }
        groups.push_back(std::move(gj));
      }
    }
    r.defender_losses = d0 - static_cast<int>(d2.size());
    d = std::move(d2);
    if (several) {
      r.detail["groups"] = std::move(groups);
    } else {
      if (an[0] > 0) r.detail["attacker_modifiers"] = amods[0];
      if (answered[0]) r.detail["defender_modifiers"] = dmods[0];
      r.detail["attacker_hp"] = forces[0].hp;
    }
    if (confusion_losses > 0) r.detail["confusion_losses"] = confusion_losses;
    r.detail["defender_hp"] = d;
    out.rounds.push_back(std::move(r));
  }

  void assault(bool confusion) {
    out.attacker_stops = true;
    int n = 0;
    while (attackers_left() && !d.empty() && n < o.max_exchanges)
      exchange("exchange " + std::to_string(++n), Fire{.confusion = confusion});
    if (attackers_left() && !d.empty())
      out.detail["ended"] = "exchange limit reached: the attack fails";
  }

  // The ambush volley, then the exchanges of the attack kind.
  void fight() {
    if (!attackers_left()) {
      out.detail["ended"] = "no attack across a sidemountain";
      return;
    }
    if (d.empty()) return;
    if (std::any_of(forces.begin(), forces.end(), [](const Force& f) { return f.ambushed; }))
      exchange("ambush", Fire{.attackers = false, .ambushed_only = true});
    if (attackers_left()) switch (in.kind) {
        case AttackKind::kMove:
          exchange("exchange 1", Fire{});
          break;
        case AttackKind::kProbe:
          exchange("probe", Fire{.halve = true});
          out.attacker_stops = true;
          break;
        case AttackKind::kOverrun:
          if (o.overrun_defender_bonus) {
            exchange("overrun", Fire{.defender_extra = *o.overrun_defender_bonus});
            if (attackers_left() && !d.empty()) assault(false);
          } else {
            // Seed 001 5.5: the attacker fires alone and the defender's casualties are removed
            // before it answers; survivors make it an assault with the attacker in confusion.
            exchange("overrun", Fire{.defender = false});
            if (!d.empty()) assault(true);
          }
          break;
        case AttackKind::kAssault:
          assault(false);
          break;
      }
    if (in.kind == AttackKind::kAssault) out.attacker_stops = true;
  }

  // Losses and survivors of both sides.
  void conclude() {
    std::vector<int> survivors;
    for (const Force& f : forces) {
      out.group_losses.push_back(f.g.armies - static_cast<int>(f.hp.size()));
      out.group_units.push_back(pow_units_json(f.hp, o.hit_points));
      out.attacker_losses += out.group_losses.back();
      survivors.insert(survivors.end(), f.hp.begin(), f.hp.end());
    }
    std::sort(survivors.begin(), survivors.end(), std::greater<>());
    out.defender_losses = target.armies - static_cast<int>(d.size());
    out.attacker_wins = d.empty() && attackers_left();
    out.attacker_units = pow_units_json(survivors, o.hit_points);
    out.defender_units = pow_units_json(d, o.hit_points);
  }
};

}  // namespace

Result<BattleOutcome> PathOfWarEngine::resolve(const BattleInput& in, Rng& rng) const {
  Result<PowOptions> parsed = pow_options_from_json(*in.options);
  if (!parsed.ok()) return parsed.status();
  PowBattle b(in, parsed.value(), rng);
  ADJ_RETURN_IF_ERROR(b.muster());
  b.fight();
  b.conclude();
  return b.out;
}

}  // namespace adj
