#include "rules/combat/exalted_engine.h"

#include <algorithm>
#include <limits>
#include <optional>

namespace adj {

const EngineTraits& ExaltedEngine::traits() const {
  static constexpr EngineTraits kTraits{
      .name = "exalted-mass-combat",
      .summary =
          "Exalted mass combat: units trade cycles of War Events. Magnitude comes from the "
          "soldiers (armies x soldiers per army); commander and unit traits from each player's "
          "profile. Attack: Wits + War + Accuracy d10s (7+ a success, 10 two) plus the Magnitude "
          "difference, minus penalties and War DV (terrain, city, forts, DEFEND raise it). Damage: "
          "remaining + Charisma + unit Damage, stopped by Hardness, minus soak but never below "
          "the attacker's Magnitude; the damage roll (10s count once) plus Might is health levels "
          "lost; every army has a track of health levels, a full track is an army lost. The "
          "defender counterattacks only when it elected to (COUNTER n). MOVE and PROBE are one "
          "attack; ASSAULT is a fight to the finish in which the defender also attacks; OVERRUN "
          "strikes first without reply and, if defenders survive, fights to the finish in "
          "confusion; an AMBUSH strikes first.",
      .order_help =
          "Exalted mass combat options on orders:\n"
          "  DEFEND|AMBUSH|RETREAT <area> [...] COUNTER <n>\n"
          "      standing choice for battles in that area: the defenders counterattack (strike "
          "back at an attack that hit and got past their Hardness, their damage dealt together "
          "with the attack's) at most n times per battle; COUNTER 0 = never. Without it they do "
          "not "
          "counterattack. The choice stays until changed and ends when the area is taken.\n"
          "MOVE = one attack; you take the area only if no defenders remain. PROBE = one attack, "
          "then home. ASSAULT = a fight to the finish (at most 10 exchanges): each exchange you "
          "attack, then the defenders attack your largest force; survivors stop. OVERRUN = your "
          "first strike gets no counterattack; if defenders survive it becomes a fight to the "
          "finish with -1 to your attacks and War DV (confusion); survivors stop. Lines of the "
          "same action against one area attack together, each origin as its own unit. "
          "AMBUSH <area> <against>: the defenders strike first at the force from <against>. "
          "DEFEND: +1 War DV. RETREAT: the defenders withdraw from a larger (higher Magnitude) "
          "attacker.",
  };
  return kTraits;
}

Status ExaltedEngine::check_game(const GameState& state) const { return ex_check_game(state); }

namespace {

// One attacking unit of a battle: one attack group, or every group as one unit (combined
// "one_unit").
struct ExForce {
  std::string from;
  int start = 0, armies = 0;
  std::vector<int> wounds;
  ExProfile profile;
  int dv = 0;  // bare War DV (the attacker is out of its own area)
  bool river = false, ambushed = false;
};

// One battle: the defender, the attacking forces, and the cycles of War Events between them
// (the steps of exalted_engine.h), recorded as rounds in order.
struct ExBattle {
  ExBattle(const BattleInput& battle, const ExOptions& opt, Rng& r)
      : in(battle),
        o(opt),
        rng(r),
        w(*battle.world),
        to(battle.target()),
        groups(attack_groups(battle)),
        pd(ex_profile_of(w, to.owner, o)),
        d_armies(to.armies),
        d_wounds(ex_wounds_of(to.engine_state, d_armies)),
        probe(battle.kind == AttackKind::kProbe),
        overrun(battle.kind == AttackKind::kOverrun) {}

  const BattleInput& in;
  const ExOptions& o;
  Rng& rng;
  const GameState& w;
  const Area& to;
  const std::vector<AttackGroup> groups;
  const ExProfile pd;
  int d_armies;
  std::vector<int> d_wounds;
  const bool probe, overrun;
  BattleOutcome out;
  int d_dv = 0;
  std::vector<ExForce> forces;
  int counters = 0, counters_used = 0;

  int attackers() const {
    int n = 0;
    for (const ExForce& f : forces) n += f.armies;
    return n;
  }

  // Step 2: the defender's War DV in its own area.
  void defender_dv() {
    d_dv = exalted_war_dv(pd.intelligence, pd.war, pd.defense, o.dv_round_up);
    if (to.kind == AreaKind::kCity)
      d_dv += o.city_dv;
    else if (auto it = o.terrain_dv.find(to.terrain); it != o.terrain_dv.end())
      d_dv += it->second;
    d_dv += o.fort_dv * to.fort;
    if (to.mode == DefenceMode::kDefend) d_dv += o.defend_dv;
    d_dv = std::max(0, d_dv);
  }

  // An ambush strikes the group attacking from the area it is set against (probes avoid it).
  bool ambushed(const AttackGroup& g) const {
    if (groups.size() == 1) return in.ambush;
    return !probe && to.mode == DefenceMode::kAmbush && to.ambush_against &&
           *to.ambush_against == g.from;
  }

  // The attacking forces: each group its own unit, or all one unit (combined "one_unit").
  void muster() {
    for (const AttackGroup& g : groups) {
      if (forces.empty() || o.combined_units) {
        ExForce f;
        f.from = g.from;
        f.profile = ex_profile_of(w, g.player, o);
        f.dv =
            exalted_war_dv(f.profile.intelligence, f.profile.war, f.profile.defense, o.dv_round_up);
        forces.push_back(std::move(f));
      }
      ExForce& f = forces.back();
      f.start += g.armies;
      for (int x : ex_wounds_of(g.units, g.armies)) f.wounds.push_back(x);
      f.river = f.river || w.edge_flag(g.from, in.to, "river");
      f.ambushed = f.ambushed || ambushed(g);
    }
    for (ExForce& f : forces) {
      f.armies = f.start;
      std::sort(f.wounds.begin(), f.wounds.end(), std::greater<int>());
    }
    // Step 9: counterattacks the defender elected (area engine_state "counter", COUNTER n), or
    // in every attack cycle but a probe's under counterattack "always".
    if (o.counter_always)
      counters = probe ? 0 : std::numeric_limits<int>::max();
    else
      counters = std::clamp(ex_int_or(to.engine_state, "counter", 0), 0, kExMaxCounter);
  }

  // Steps 1-8 of one cycle on the current state: `by_attacker` (force f strikes the defender) or
  // the defender strikes f. `confused`: an overrun that failed (overrun_confusion). Returns the
  // round and sets `levels`; the damage is applied by the caller (Step 10).
  BattleRound strike(const std::string& phase, const ExForce& f, bool by_attacker, bool confused,
                     int& levels) {
    BattleRound r;
    r.phase = phase;
    r.attacker_before = attackers();
    r.defender_before = d_armies;
    const ExProfile& sp = by_attacker ? f.profile : pd;
    const ExProfile& tp = by_attacker ? pd : f.profile;
    const ExAttacker s = ex_striker(sp, by_attacker ? f.armies : d_armies, o);
    const int confusion = confused ? o.overrun_confusion : 0;
    ExTarget t;
    t.magnitude = ex_striker(tp, by_attacker ? d_armies : f.armies, o).magnitude;
    t.dv = by_attacker ? d_dv : std::max(0, f.dv - confusion);
    t.hardness = tp.hardness;
    t.soak = tp.soak.at(sp.damage_type);
    ExCycleOptions co;
    co.magnitude_cap = o.magnitude_cap;
    co.external_penalty =
        o.external_penalty + (by_attacker ? (f.river ? o.river_penalty : 0) + confusion : 0);
    co.attacker_reroll = o.attacker_reroll;
    co.defender_reroll = o.defender_reroll;
    co.stunt_dice = o.stunt_dice;
    const ExCycle c = exalted_war_event(s, t, co, rng);
    std::vector<int> striker_dice = c.attack_dice;
    striker_dice.insert(striker_dice.end(), c.reroll_dice.begin(), c.reroll_dice.end());
    striker_dice.insert(striker_dice.end(), c.damage_dice.begin(), c.damage_dice.end());
    std::vector<int> target_dice = c.stunt_dice;
    target_dice.insert(target_dice.end(), c.stunt_reroll_dice.begin(), c.stunt_reroll_dice.end());
    (by_attacker ? r.attacker_dice : r.defender_dice) = striker_dice;
    (by_attacker ? r.defender_dice : r.attacker_dice) = target_dice;
    r.attacker_strength = by_attacker ? s.pool : t.dv;
    r.defender_strength = by_attacker ? t.dv : s.pool;
    r.detail = c.detail();
    r.detail["striker"] = by_attacker ? "attacker" : "defender";
    r.detail["from"] = f.from;
    r.detail["striker_magnitude"] = s.magnitude;
    r.detail["target_magnitude"] = t.magnitude;
    r.detail["solo"] = s.solo;
    r.detail["war_dv"] = t.dv;
    r.detail["hardness"] = t.hardness;
    r.detail["soak"] = t.soak;
    r.detail["damage_type"] = sp.damage_type;
    r.detail["external_penalty"] = co.external_penalty;
    if (confused) r.detail["confusion"] = confusion;
    levels = c.levels;
    return r;
  }

  std::string named(const std::string& s, const ExForce& f) const {
    return forces.size() > 1 ? s + " " + f.from : s;
  }

  // A cycle of War Events opened by force f: its attack, the defender's counterattack when one
  // is elected and allowed and the cycle reaches Step 9, then (Step 10) both damages at once.
  void attack_cycle(const std::string& tag, ExForce& f, bool counter_allowed, bool confused) {
    int la = 0, lc = 0;
    BattleRound ra = strike(named(tag + ": attack", f), f, true, confused, la);
    std::optional<BattleRound> rc;
    // Steps 5, 6 and 8A end a cycle that misses or is stopped by Hardness ("this cycle of War
    // Events ends") before Step 9; counterattack "always" answers every attack.
    const bool step9 = ra.detail["hit"].get<bool>() && !ra.detail["hardness_stopped"].get<bool>();
    if (counter_allowed && counters_used < counters && (step9 || o.counter_always)) {
      ++counters_used;
      rc =
          strike(forces.size() > 1 ? tag + ": counterattack on " + f.from : tag + ": counterattack",
                 f, false, confused, lc);
      rc->detail["counterattack"] = true;
    }
    ra.defender_losses = exalted_apply_levels(d_armies, d_wounds, la, pd.track);
    if (rc) rc->attacker_losses = exalted_apply_levels(f.armies, f.wounds, lc, f.profile.track);
    out.rounds.push_back(std::move(ra));
    if (rc) out.rounds.push_back(std::move(*rc));
  }

  // The defender's own War Event against force f (an ambush, or its turn in a fight to the
  // finish); the damage applies at once.
  void defender_cycle(const std::string& phase, ExForce& f, bool confused) {
    int l = 0;
    BattleRound r = strike(phase, f, false, confused, l);
    r.attacker_losses = exalted_apply_levels(f.armies, f.wounds, l, f.profile.track);
    out.rounds.push_back(std::move(r));
  }

  // The defender's target in its own turn: the largest surviving force (the first on a tie).
  ExForce* largest() {
    ExForce* best = nullptr;
    for (ExForce& f : forces)
      if (f.armies > 0 && (!best || f.armies > best->armies)) best = &f;
    return best;
  }

  // Ambushes, then the exchanges; whether the defenders were cleared in the first exchange.
  bool fight() {
    for (ExForce& f : forces)
      if (f.ambushed && d_armies > 0 && f.armies > 0) defender_cycle(named("ambush", f), f, false);
    const bool to_the_finish = in.kind == AttackKind::kAssault || overrun;
    const int n = std::max(1, o.exchanges.at(to_string(in.kind)));
    bool cleared_in_first = to.armies == 0;
    for (int e = 1; e <= n && attackers() > 0 && d_armies > 0; ++e) {
      const std::string tag = "exchange " + std::to_string(e);
      // OVERRUN: the first exchange is the attacker's strike alone; after it, confusion.
      const bool sweep = overrun && e == 1, confused = overrun && e > 1;
      for (ExForce& f : forces)
        if (f.armies > 0 && d_armies > 0) attack_cycle(tag, f, !sweep, confused);
      if (to_the_finish && !sweep && o.defender_turns && d_armies > 0)
        if (ExForce* f = largest())
          defender_cycle(named(tag + ": defender attacks", *f), *f, confused);
      if (e == 1 && d_armies == 0) cleared_in_first = true;
    }
    return cleared_in_first;
  }

  // Losses, who stops, the wounds both sides carry away and the battle's detail.
  void conclude(bool cleared_in_first) {
    int started = 0;
    for (const ExForce& f : forces) started += f.start;
    out.attacker_losses = started - attackers();
    out.defender_losses = to.armies - d_armies;
    out.attacker_wins = !probe && d_armies == 0 && attackers() > 0;
    switch (in.kind) {
      case AttackKind::kMove:
        out.attacker_stops = false;
        break;
      case AttackKind::kOverrun:
        out.attacker_stops = !cleared_in_first;
        break;
      default:
        out.attacker_stops = true;
    }
    Json def_state = to.engine_state.is_object() ? to.engine_state : Json::object();
    ex_store_wounds(def_state, d_wounds);
    out.defender_units = def_state;
    std::vector<int> all_wounds;
    for (const ExForce& f : forces)
      all_wounds.insert(all_wounds.end(), f.wounds.begin(), f.wounds.end());
    Json att_state = Json::object();
    ex_store_wounds(att_state, all_wounds);
    out.attacker_units = att_state;
    if (o.combined_units && !in.groups.empty() && forces.size() == in.groups.size())
      for (const ExForce& f : forces) {
        out.group_losses.push_back(f.start - f.armies);
        Json u = Json::object();
        ex_store_wounds(u, f.wounds);
        out.group_units.push_back(u);
      }
    out.detail = {{"attacker_magnitude_start", ex_magnitude_of(started, o)},
                  {"defender_magnitude_start", ex_magnitude_of(to.armies, o)},
                  {"defender_war_dv", d_dv},
                  {"attacker_war_dv", forces.front().dv},
                  {"river", forces.front().river},
                  {"counterattacks_elected", o.counter_always ? Json("always") : Json(counters)},
                  {"counterattacks", counters_used}};
    if (forces.size() > 1) {
      Json fs = Json::array();
      for (const ExForce& f : forces)
        fs.push_back({{"from", f.from},
                      {"armies", f.start},
                      {"magnitude", ex_magnitude_of(f.start, o)},
                      {"war_dv", f.dv},
                      {"river", f.river},
                      {"losses", f.start - f.armies}});
      out.detail["forces"] = fs;
    }
  }
};

}  // namespace

bool ExaltedEngine::retreat_triggers(const BattleInput& in) const {
  const ExOptions o = ex_options_of(in.options);
  int armies = in.attacker_armies;
  if (o.combined_units) {
    armies = 0;
    for (const AttackGroup& g : attack_groups(in)) armies = std::max(armies, g.armies);
  }
  return ex_magnitude_of(armies, o) >= ex_magnitude_of(in.target().armies, o) + o.retreat_margin;
}

Result<BattleOutcome> ExaltedEngine::resolve(const BattleInput& in, Rng& rng) const {
  const ExOptions o = ex_options_of(in.options);
  ExBattle b(in, o, rng);
  b.defender_dv();
  b.muster();
  b.conclude(b.fight());
  return b.out;
}

Status ExaltedEngine::check_order(const Order& order, const GameState&) const {
  for (const auto& [k, v] : order.extras)
    if (k != "COUNTER")
      return Status::InvalidArgument(k +
                                     " is not part of the orders of this game's rules "
                                     "(exalted-mass-combat takes COUNTER n on DEFEND, AMBUSH and "
                                     "RETREAT)");
  if (order.extras.empty()) return Status::Ok();
  if (order.verb != Verb::kDefend && order.verb != Verb::kAmbush && order.verb != Verb::kRetreat)
    return Status::InvalidArgument(
        std::string("COUNTER goes with DEFEND, AMBUSH or RETREAT, not ") + verb_name(order.verb));
  const int n = order.extras.at("COUNTER");
  if (n < 0 || n > kExMaxCounter)
    return Status::InvalidArgument("COUNTER must be 0.." + std::to_string(kExMaxCounter) +
                                   " (counterattacks per battle; 0 = none)");
  return Status::Ok();
}

void ExaltedEngine::standing_order(const Order& order, Area& area, Player&) const {
  auto it = order.extras.find("COUNTER");
  if (it == order.extras.end()) return;
  if (!area.engine_state.is_object()) area.engine_state = Json::object();
  if (it->second > 0)
    area.engine_state["counter"] = std::min(it->second, kExMaxCounter);
  else
    area.engine_state.erase("counter");
}

Json ExaltedEngine::detach_units(Json& area_units, int area_armies, int n) const {
  std::vector<int> w = ex_wounds_of(area_units, area_armies);
  const int fresh = area_armies - static_cast<int>(w.size());
  std::vector<int> moving;
  // Fresh armies move first; wounded ones (least wounded first) only when needed.
  int need = n - std::min(n, fresh);
  while (need-- > 0 && !w.empty()) {
    moving.push_back(w.back());
    w.pop_back();
  }
  ex_store_wounds(area_units, w);
  Json out = Json::object();
  ex_store_wounds(out, moving);
  return out;
}

void ExaltedEngine::merge_units(Json& area_units, int area_armies, const Json& incoming,
                                int n) const {
  std::vector<int> w = ex_wounds_of(area_units, area_armies);
  for (int x : ex_wounds_of(incoming, n)) w.push_back(x);
  ex_store_wounds(area_units, w);
}

void ExaltedEngine::end_turn(GameState& state) const {
  const ExOptions o = ex_options_of(&state.engine.options);
  if (o.heal_per_turn <= 0) return;
  for (Area& a : state.areas) {
    std::vector<int> w = ex_wounds_of(a.engine_state, a.armies), left;
    for (int x : w)
      if (x - o.heal_per_turn > 0) left.push_back(x - o.heal_per_turn);
    if (a.engine_state.is_object() && a.engine_state.contains("wounds"))
      ex_store_wounds(a.engine_state, left);
  }
}

}  // namespace adj
