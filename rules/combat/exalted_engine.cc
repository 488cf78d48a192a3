#include "rules/combat/exalted_engine.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <set>

#include "rules/game/json_schema.h"

namespace adj {

namespace {

constexpr const char* kProfileSchema = "schemas/exalted_profiles.schema.json";
// COUNTER n: at most n counterattacks per battle (area engine_state "counter").
constexpr int kMaxCounter = 100;

// The game's option values with their defaults (the project's decisions,
// docs/rules/exalted-mass-combat.md §5.3).
struct ExOptions {
  int soldiers_per_army = 100;
  int magnitude_cap = -1;
  bool dv_round_up = true;
  std::map<std::string, int> terrain_dv = {
      {"forest", 1}, {"hills", 1}, {"uplands", 1}, {"wetlands", 1}, {"mountains", 2}};
  int city_dv = 1, fort_dv = 1, defend_dv = 1;
  int external_penalty = 0, river_penalty = 1;
  std::map<std::string, int> exchanges = {
      {"move", 1}, {"probe", 1}, {"overrun", 10}, {"assault", 10}};
  bool counter_always = false;  // counterattack "always" (before issue 12) or "elected"
  bool defender_turns = true;   // defender_turns "assault" or "never"
  int overrun_confusion = 1;
  bool combined_units = true;  // combined "units" or "one_unit"
  int retreat_margin = 1;
  bool attacker_reroll = false, defender_reroll = false;
  int stunt_dice = 0;
  int heal_per_turn = 0;
  Json default_profile = Json::object();
};

const std::set<std::string>& known_options() {
  static const std::set<std::string> k = {
      "soldiers_per_army", "magnitude_cap",     "dv_rounding",     "terrain_dv",
      "city_dv",           "fort_dv",           "defend_dv",       "external_penalty",
      "river_penalty",     "exchanges",         "retreat_margin",  "charm_rerolls",
      "stunt_dice",        "heal_per_turn",     "default_profile", "counterattack",
      "defender_turns",    "overrun_confusion", "combined"};
  return k;
}

int int_or(const Json& o, const char* k, int d) {
  return o.contains(k) && o[k].is_number_integer() ? o[k].get<int>() : d;
}

// REQUIRES: options passed check_game (malformed values fall back to defaults).
ExOptions options_of(const Json* p) {
  ExOptions v;
  if (!p || !p->is_object()) return v;
  const Json& o = *p;
  v.soldiers_per_army = std::max(1, int_or(o, "soldiers_per_army", v.soldiers_per_army));
  v.magnitude_cap = int_or(o, "magnitude_cap", -1);
  v.dv_round_up = o.value("dv_rounding", std::string("up")) != "down";
  if (o.contains("terrain_dv") && o["terrain_dv"].is_object())
    for (const auto& [k, x] : o["terrain_dv"].items())
      if (x.is_number_integer()) v.terrain_dv[k] = x.get<int>();
  v.city_dv = int_or(o, "city_dv", v.city_dv);
  v.fort_dv = int_or(o, "fort_dv", v.fort_dv);
  v.defend_dv = int_or(o, "defend_dv", v.defend_dv);
  v.external_penalty = int_or(o, "external_penalty", 0);
  v.river_penalty = int_or(o, "river_penalty", v.river_penalty);
  if (o.contains("exchanges") && o["exchanges"].is_object())
    for (const auto& [k, x] : o["exchanges"].items())
      if (x.is_number_integer()) v.exchanges[k] = x.get<int>();
  v.retreat_margin = int_or(o, "retreat_margin", v.retreat_margin);
  if (o.contains("charm_rerolls") && o["charm_rerolls"].is_object()) {
    v.attacker_reroll = o["charm_rerolls"].value("attacker", false);
    v.defender_reroll = o["charm_rerolls"].value("defender", false);
  }
  v.stunt_dice = int_or(o, "stunt_dice", 0);
  v.heal_per_turn = int_or(o, "heal_per_turn", 0);
  v.counter_always = o.value("counterattack", std::string("elected")) == "always";
  v.defender_turns = o.value("defender_turns", std::string("assault")) != "never";
  v.overrun_confusion = int_or(o, "overrun_confusion", v.overrun_confusion);
  v.combined_units = o.value("combined", std::string("units")) != "one_unit";
  if (o.contains("default_profile") && o["default_profile"].is_object())
    v.default_profile = o["default_profile"];
  return v;
}

// A profile resolved to numbers.
struct Profile {
  int wits = 2, war = 2, charisma = 2, intelligence = 2;
  int accuracy = 2, damage = 1, defense = 1, might = 0, hardness = 0, track = 3;
  std::map<std::string, int> soak = {{"bashing", 2}, {"lethal", 1}, {"aggravated", 0}};
  std::string damage_type = "lethal";
  bool has_solo = false;
  int solo_attribute = 0, solo_ability = 0, solo_extra = 0, solo_damage = 0, essence = 0,
      overwhelming = 0;
};

// Built-in default (mortal militia), then options default_profile, then the player's profile.
void overlay(Profile& p, const Json& j) {
  if (!j.is_object()) return;
  if (j.contains("commander")) {
    const Json& c = j["commander"];
    p.wits = int_or(c, "wits", p.wits);
    p.war = int_or(c, "war", p.war);
    p.charisma = int_or(c, "charisma", p.charisma);
    p.intelligence = int_or(c, "intelligence", p.intelligence);
  }
  if (j.contains("unit")) {
    const Json& u = j["unit"];
    if (u.contains("soldiers") && u["soldiers"].is_object()) {
      const Json& s = u["soldiers"];
      const int dex = int_or(s, "dexterity", 2), ab = int_or(s, "ability", 2),
                str = int_or(s, "strength", 2);
      p.accuracy = std::max(0, (dex + ab + int_or(s, "weapon_accuracy", 0)) / 2);
      p.defense = std::max(0, (dex + ab + int_or(s, "weapon_defense", 0)) / 2);
      p.damage = (str + int_or(s, "weapon_damage", 0) + 2) / 3;
    }
    p.accuracy = int_or(u, "accuracy", p.accuracy);
    p.damage = int_or(u, "damage", p.damage);
    p.defense = int_or(u, "defense", p.defense);
    p.might = int_or(u, "might", p.might);
    p.hardness = int_or(u, "hardness", p.hardness);
    p.track = int_or(u, "health_track", p.track);
    if (u.contains("soak")) {
      if (u["soak"].is_number_integer())
        for (auto& [k, v] : p.soak) v = u["soak"].get<int>();
      else if (u["soak"].is_object())
        for (auto& [k, v] : p.soak) v = int_or(u["soak"], k.c_str(), v);
    }
  }
  if (j.contains("damage_type") && j["damage_type"].is_string()) p.damage_type = j["damage_type"];
  if (j.contains("solo") && j["solo"].is_object()) {
    const Json& s = j["solo"];
    p.has_solo = true;
    p.solo_attribute = int_or(s, "attribute", p.solo_attribute);
    p.solo_ability = int_or(s, "ability", p.solo_ability);
    p.solo_extra = int_or(s, "extra_dice", p.solo_extra);
    p.solo_damage = int_or(s, "damage", p.solo_damage);
    p.essence = int_or(s, "essence", p.essence);
    p.overwhelming = int_or(s, "overwhelming", p.overwhelming);
  }
}

Profile profile_of(const GameState& w, const std::optional<std::string>& code, const ExOptions& o) {
  Profile p;
  overlay(p, o.default_profile);
  if (code)
    if (const Player* pl = w.find_player(*code))
      if (pl->engine_state.is_object() && pl->engine_state.contains("profile"))
        overlay(p, pl->engine_state["profile"]);
  return p;
}

std::vector<int> wounds_of(const Json& state, int armies) {
  std::vector<int> w;
  if (state.is_object() && state.contains("wounds") && state["wounds"].is_array())
    for (const auto& x : state["wounds"])
      if (x.is_number_integer() && x.get<int>() > 0) w.push_back(x.get<int>());
  std::sort(w.begin(), w.end(), std::greater<int>());
  if (static_cast<int>(w.size()) > armies) w.resize(static_cast<std::size_t>(std::max(armies, 0)));
  return w;
}

void store_wounds(Json& state, std::vector<int> w) {
  if (!state.is_object()) state = Json::object();
  std::sort(w.begin(), w.end(), std::greater<int>());
  if (w.empty())
    state.erase("wounds");
  else
    state["wounds"] = w;
}

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

// The attacking or target side of `code`'s force of `armies` armies.
ExAttacker striker(const Profile& p, int armies, const ExOptions& o) {
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

Status check_profile(const Json& profile, const std::string& path) {
  auto errors = validate_against_schema(profile, kProfileSchema);
  if (!errors.empty())
    return Status::InvalidArgument(path + errors.front().path + ": " + errors.front().message);
  return Status::Ok();
}

bool int_in(const Json& j, int lo, int hi) {
  return j.is_number_integer() && j.get<long long>() >= lo && j.get<long long>() <= hi;
}

}  // namespace

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

std::string_view ExaltedEngine::summary() const {
  return "Exalted mass combat: units trade cycles of War Events. Magnitude comes from the "
         "soldiers (armies x soldiers per army); commander and unit traits from each player's "
         "profile. Attack: Wits + War + Accuracy d10s (7+ a success, 10 two) plus the Magnitude "
         "difference, minus penalties and War DV (terrain, city, forts, DEFEND raise it). Damage: "
         "remaining + Charisma + unit Damage, stopped by Hardness, minus soak but never below "
         "the attacker's Magnitude; the damage roll (10s count once) plus Might is health levels "
         "lost; every army has a track of health levels, a full track is an army lost. The "
         "defender counterattacks only when it elected to (COUNTER n). MOVE and PROBE are one "
         "attack; ASSAULT is a fight to the finish in which the defender also attacks; OVERRUN "
         "strikes first without reply and, if defenders survive, fights to the finish in "
         "confusion; an AMBUSH strikes first.";
}

std::string_view ExaltedEngine::order_help() const {
  return "Exalted mass combat options on orders:\n"
         "  DEFEND|AMBUSH|RETREAT <area> [...] COUNTER <n>\n"
         "      standing choice for battles in that area: the defenders counterattack (strike "
         "back at an attack that hit and got past their Hardness, their damage dealt together "
         "with the attack's) at most n times per battle; COUNTER 0 = never. Without it they do not "
         "counterattack. The choice stays until changed and ends when the area is taken.\n"
         "MOVE = one attack; you take the area only if no defenders remain. PROBE = one attack, "
         "then home. ASSAULT = a fight to the finish (at most 10 exchanges): each exchange you "
         "attack, then the defenders attack your largest force; survivors stop. OVERRUN = your "
         "first strike gets no counterattack; if defenders survive it becomes a fight to the "
         "finish with -1 to your attacks and War DV (confusion); survivors stop. Lines of the "
         "same action against one area attack together, each origin as its own unit. "
         "AMBUSH <area> <against>: the defenders strike first at the force from <against>. "
         "DEFEND: +1 War DV. RETREAT: the defenders withdraw from a larger (higher Magnitude) "
         "attacker.";
}

Status ExaltedEngine::check_game(const GameState& state) const {
  const Json& o = state.engine.options;
  if (!o.is_object()) return Status::InvalidArgument("/engine/options: must be an object");
  for (const auto& [k, v] : o.items()) {
    const std::string path = "/engine/options/" + k;
    if (!known_options().count(k))
      return Status::InvalidArgument(
          path +
          ": unknown option (known: soldiers_per_army, magnitude_cap, dv_rounding, "
          "terrain_dv, city_dv, fort_dv, defend_dv, external_penalty, river_penalty, "
          "exchanges, retreat_margin, charm_rerolls, stunt_dice, heal_per_turn, "
          "default_profile, counterattack, defender_turns, overrun_confusion, combined)");
    if (k == "counterattack" && v != "elected" && v != "always")
      return Status::InvalidArgument(path + ": must be \"elected\" or \"always\"");
    if (k == "defender_turns" && v != "assault" && v != "never")
      return Status::InvalidArgument(path + ": must be \"assault\" or \"never\"");
    if (k == "combined" && v != "units" && v != "one_unit")
      return Status::InvalidArgument(path + ": must be \"units\" or \"one_unit\"");
    if (k == "overrun_confusion" && !int_in(v, 0, 10))
      return Status::InvalidArgument(path + ": must be an integer 0..10");
    if (k == "soldiers_per_army" && !int_in(v, 1, 1000000))
      return Status::InvalidArgument(path + ": must be an integer 1..1000000");
    if (k == "magnitude_cap" && !int_in(v, 0, 20))
      return Status::InvalidArgument(path + ": must be an integer 0..20 (leave out for no cap)");
    if (k == "dv_rounding" && v != "up" && v != "down")
      return Status::InvalidArgument(path + ": must be \"up\" or \"down\"");
    if ((k == "city_dv" || k == "fort_dv" || k == "defend_dv" || k == "external_penalty" ||
         k == "river_penalty") &&
        !int_in(v, -10, 10))
      return Status::InvalidArgument(path + ": must be an integer -10..10");
    if ((k == "stunt_dice" || k == "heal_per_turn") && !int_in(v, 0, 20))
      return Status::InvalidArgument(path + ": must be an integer 0..20");
    if (k == "retreat_margin" && !int_in(v, 0, 20))
      return Status::InvalidArgument(path + ": must be an integer 0..20");
    if (k == "terrain_dv") {
      if (!v.is_object()) return Status::InvalidArgument(path + ": must be an object");
      for (const auto& [t, x] : v.items())
        if (!int_in(x, -10, 10))
          return Status::InvalidArgument(path + "/" + t + ": must be an integer -10..10");
    }
    if (k == "exchanges") {
      if (!v.is_object()) return Status::InvalidArgument(path + ": must be an object");
      for (const auto& [t, x] : v.items()) {
        if (t != "move" && t != "assault" && t != "probe" && t != "overrun")
          return Status::InvalidArgument(path + "/" + t +
                                         ": unknown (known: move, assault, probe, overrun)");
        if (!int_in(x, 1, 100))
          return Status::InvalidArgument(path + "/" + t + ": must be an integer 1..100");
      }
    }
    if (k == "charm_rerolls") {
      if (!v.is_object()) return Status::InvalidArgument(path + ": must be an object");
      for (const auto& [t, x] : v.items())
        if ((t != "attacker" && t != "defender") || !x.is_boolean())
          return Status::InvalidArgument(path + "/" + t +
                                         ": only attacker and defender, true or false");
    }
    if (k == "default_profile") ADJ_RETURN_IF_ERROR(check_profile(v, path));
  }
  for (std::size_t i = 0; i < state.players.size(); ++i) {
    const Player& p = state.players[i];
    if (p.engine_state.is_object() && p.engine_state.contains("profile"))
      ADJ_RETURN_IF_ERROR(check_profile(p.engine_state["profile"],
                                        "/players/" + std::to_string(i) + "/engine_state/profile"));
  }
  for (std::size_t i = 0; i < state.areas.size(); ++i) {
    const Area& a = state.areas[i];
    if (a.engine_state.is_object() && a.engine_state.contains("counter") &&
        !int_in(a.engine_state["counter"], 0, kMaxCounter))
      return Status::InvalidArgument("/areas/" + std::to_string(i) +
                                     "/engine_state/counter: must be an integer 0.." +
                                     std::to_string(kMaxCounter) + " (" + a.code + ")");
    if (!a.engine_state.is_object() || !a.engine_state.contains("wounds")) continue;
    const Json& w = a.engine_state["wounds"];
    const std::string path = "/areas/" + std::to_string(i) + "/engine_state/wounds";
    if (!w.is_array() || static_cast<int>(w.size()) > a.armies)
      return Status::InvalidArgument(path + ": must be an array of at most " +
                                     std::to_string(a.armies) + " entries (" + a.code + ")");
    const Profile pr = profile_of(state, a.owner, options_of(&o));
    for (std::size_t j = 0; j < w.size(); ++j)
      if (!int_in(w[j], 1, pr.track - 1))
        return Status::InvalidArgument(path + "/" + std::to_string(j) + ": must be 1.." +
                                       std::to_string(pr.track - 1) + " (" + a.code + ")");
  }
  return Status::Ok();
}

namespace {

// One attacking unit of a battle: one attack group, or every group as one unit (combined
// "one_unit").
struct ExForce {
  std::string from;
  int start = 0, armies = 0;
  std::vector<int> wounds;
  Profile profile;
  int dv = 0;  // bare War DV (the attacker is out of its own area)
  bool river = false, ambushed = false;
};

int magnitude_of(int armies, const ExOptions& o) {
  return exalted_magnitude(static_cast<long long>(armies) * o.soldiers_per_army);
}

}  // namespace

bool ExaltedEngine::retreat_triggers(const BattleInput& in) const {
  const ExOptions o = options_of(in.options);
  int armies = in.attacker_armies;
  if (o.combined_units) {
    armies = 0;
    for (const AttackGroup& g : attack_groups(in)) armies = std::max(armies, g.armies);
  }
  return magnitude_of(armies, o) >= magnitude_of(in.target().armies, o) + o.retreat_margin;
}

Result<BattleOutcome> ExaltedEngine::resolve(const BattleInput& in, Rng& rng) const {
  const ExOptions o = options_of(in.options);
  const GameState& w = *in.world;
  const Area& to = in.target();
  const std::vector<AttackGroup> groups = attack_groups(in);
  const Profile pd = profile_of(w, to.owner, o);
  int d_armies = to.armies;
  std::vector<int> d_wounds = wounds_of(to.engine_state, d_armies);
  BattleOutcome out;
  const bool probe = in.kind == AttackKind::kProbe;
  const bool overrun = in.kind == AttackKind::kOverrun;

  // Step 2: the defender's War DV in its own area.
  int d_dv = exalted_war_dv(pd.intelligence, pd.war, pd.defense, o.dv_round_up);
  if (to.kind == AreaKind::kCity)
    d_dv += o.city_dv;
  else if (auto it = o.terrain_dv.find(to.terrain); it != o.terrain_dv.end())
    d_dv += it->second;
  d_dv += o.fort_dv * to.fort;
  if (to.mode == DefenceMode::kDefend) d_dv += o.defend_dv;
  d_dv = std::max(0, d_dv);

  auto crosses_river = [&](const std::string& from) { return w.edge_flag(from, in.to, "river"); };
  // An ambush strikes the group attacking from the area it is set against (probes avoid it).
  auto ambushed = [&](std::size_t i, const AttackGroup& g) {
    if (groups.size() == 1) return in.ambush;
    (void)i;
    return !probe && to.mode == DefenceMode::kAmbush && to.ambush_against &&
           *to.ambush_against == g.from;
  };
  std::vector<ExForce> forces;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const AttackGroup& g = groups[i];
    if (forces.empty() || o.combined_units) {
      ExForce f;
      f.from = g.from;
      f.profile = profile_of(w, g.player, o);
      f.dv =
          exalted_war_dv(f.profile.intelligence, f.profile.war, f.profile.defense, o.dv_round_up);
      forces.push_back(std::move(f));
    }
    ExForce& f = forces.back();
    f.start += g.armies;
    for (int x : wounds_of(g.units, g.armies)) f.wounds.push_back(x);
    f.river = f.river || crosses_river(g.from);
    f.ambushed = f.ambushed || ambushed(i, g);
  }
  for (ExForce& f : forces) {
    f.armies = f.start;
    std::sort(f.wounds.begin(), f.wounds.end(), std::greater<int>());
  }
  auto attackers = [&] {
    int n = 0;
    for (const ExForce& f : forces) n += f.armies;
    return n;
  };

  // Step 9: counterattacks the defender elected (area engine_state "counter", COUNTER n), or in
  // every attack cycle but a probe's under counterattack "always".
  int counters = 0;
  if (o.counter_always)
    counters = probe ? 0 : std::numeric_limits<int>::max();
  else
    counters = std::clamp(int_or(to.engine_state, "counter", 0), 0, kMaxCounter);
  int counters_used = 0;

  // Steps 1-8 of one cycle on the current state: `by_attacker` (force f strikes the defender) or
  // the defender strikes f. `confused`: an overrun that failed (overrun_confusion). Returns the
  // round and sets `levels`; the damage is applied by the caller (Step 10).
  auto strike = [&](const std::string& phase, const ExForce& f, bool by_attacker, bool confused,
                    int& levels) {
    BattleRound r;
    r.phase = phase;
    r.attacker_before = attackers();
    r.defender_before = d_armies;
    const Profile& sp = by_attacker ? f.profile : pd;
    const Profile& tp = by_attacker ? pd : f.profile;
    const ExAttacker s = striker(sp, by_attacker ? f.armies : d_armies, o);
    const int confusion = confused ? o.overrun_confusion : 0;
    ExTarget t;
    t.magnitude = striker(tp, by_attacker ? d_armies : f.armies, o).magnitude;
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
  };
  auto hit_defender = [&](BattleRound& r, int levels) {
    r.defender_losses = exalted_apply_levels(d_armies, d_wounds, levels, pd.track);
  };
  auto hit_force = [&](BattleRound& r, ExForce& f, int levels) {
    r.attacker_losses = exalted_apply_levels(f.armies, f.wounds, levels, f.profile.track);
  };
  auto named = [&](const std::string& s, const ExForce& f) {
    return forces.size() > 1 ? s + " " + f.from : s;
  };
  // A cycle of War Events opened by force f: its attack, the defender's counterattack when one
  // is elected and allowed and the cycle reaches Step 9, then (Step 10) both damages at once.
  auto attack_cycle = [&](const std::string& tag, ExForce& f, bool counter_allowed, bool confused) {
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
    hit_defender(ra, la);
    if (rc) hit_force(*rc, f, lc);
    out.rounds.push_back(std::move(ra));
    if (rc) out.rounds.push_back(std::move(*rc));
  };
  // The defender's own War Event against force f (an ambush, or its turn in a fight to the
  // finish); the damage applies at once.
  auto defender_cycle = [&](const std::string& phase, ExForce& f, bool confused) {
    int l = 0;
    BattleRound r = strike(phase, f, false, confused, l);
    hit_force(r, f, l);
    out.rounds.push_back(std::move(r));
  };
  // The defender's target in its own turn: the largest surviving force (the first on a tie).
  auto largest = [&]() -> ExForce* {
    ExForce* best = nullptr;
    for (ExForce& f : forces)
      if (f.armies > 0 && (!best || f.armies > best->armies)) best = &f;
    return best;
  };

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
  store_wounds(def_state, d_wounds);
  out.defender_units = def_state;
  std::vector<int> all_wounds;
  for (const ExForce& f : forces)
    all_wounds.insert(all_wounds.end(), f.wounds.begin(), f.wounds.end());
  Json att_state = Json::object();
  store_wounds(att_state, all_wounds);
  out.attacker_units = att_state;
  if (o.combined_units && !in.groups.empty() && forces.size() == in.groups.size())
    for (const ExForce& f : forces) {
      out.group_losses.push_back(f.start - f.armies);
      Json u = Json::object();
      store_wounds(u, f.wounds);
      out.group_units.push_back(u);
    }
  out.detail = {{"attacker_magnitude_start", magnitude_of(started, o)},
                {"defender_magnitude_start", magnitude_of(to.armies, o)},
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
                    {"magnitude", magnitude_of(f.start, o)},
                    {"war_dv", f.dv},
                    {"river", f.river},
                    {"losses", f.start - f.armies}});
    out.detail["forces"] = fs;
  }
  return out;
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
  if (n < 0 || n > kMaxCounter)
    return Status::InvalidArgument("COUNTER must be 0.." + std::to_string(kMaxCounter) +
                                   " (counterattacks per battle; 0 = none)");
  return Status::Ok();
}

void ExaltedEngine::standing_order(const Order& order, Area& area, Player&) const {
  auto it = order.extras.find("COUNTER");
  if (it == order.extras.end()) return;
  if (!area.engine_state.is_object()) area.engine_state = Json::object();
  if (it->second > 0)
    area.engine_state["counter"] = std::min(it->second, kMaxCounter);
  else
    area.engine_state.erase("counter");
}

Json ExaltedEngine::detach_units(Json& area_units, int area_armies, int n) const {
  std::vector<int> w = wounds_of(area_units, area_armies);
  const int fresh = area_armies - static_cast<int>(w.size());
  std::vector<int> moving;
  // Fresh armies move first; wounded ones (least wounded first) only when needed.
  int need = n - std::min(n, fresh);
  while (need-- > 0 && !w.empty()) {
    moving.push_back(w.back());
    w.pop_back();
  }
  store_wounds(area_units, w);
  Json out = Json::object();
  store_wounds(out, moving);
  return out;
}

void ExaltedEngine::merge_units(Json& area_units, int area_armies, const Json& incoming,
                                int n) const {
  std::vector<int> w = wounds_of(area_units, area_armies);
  for (int x : wounds_of(incoming, n)) w.push_back(x);
  store_wounds(area_units, w);
}

void ExaltedEngine::end_turn(GameState& state) const {
  const ExOptions o = options_of(&state.engine.options);
  if (o.heal_per_turn <= 0) return;
  for (Area& a : state.areas) {
    std::vector<int> w = wounds_of(a.engine_state, a.armies), left;
    for (int x : w)
      if (x - o.heal_per_turn > 0) left.push_back(x - o.heal_per_turn);
    if (a.engine_state.is_object() && a.engine_state.contains("wounds"))
      store_wounds(a.engine_state, left);
  }
}

}  // namespace adj
