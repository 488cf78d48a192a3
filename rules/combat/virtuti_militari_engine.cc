#include "rules/combat/virtuti_militari_engine.h"

#include <algorithm>
#include <climits>
#include <set>

#include "rules/game/json_schema.h"
#include "schemas/embedded.h"

namespace adj {

namespace {

constexpr const char* kDataSchema = "schemas/vm_data.schema.json";
constexpr const char* kDefaultTable = "vm-default";

const std::set<std::string>& known_options() {
  static const std::set<std::string> k = {"data",
                                          "order_bonus",
                                          "fort_strength",
                                          "forts_used_up",
                                          "initiative",
                                          "weather",
                                          "air_tokens_spent",
                                          "air_tokens_per_turn",
                                          "shore_bombardment",
                                          "overrun_halves_losses",
                                          "overrun_failed"};
  return k;
}
const std::set<std::string>& bonus_keys() {
  static const std::set<std::string> k = {"move",   "assault", "probe",  "overrun",
                                          "defend", "ambush",  "support"};
  return k;
}
const std::set<std::string>& weathers() {
  static const std::set<std::string> k = {"clear", "mud", "frozen"};
  return k;
}

// The game's option values with their defaults (the project's decisions,
// docs/rules/virtuti-militari.md §3.3).
struct VmOptions {
  std::map<std::string, int> bonus = {{"move", 1},   {"assault", 2}, {"probe", 0},  {"overrun", 1},
                                      {"defend", 1}, {"ambush", 2},  {"support", 1}};
  int fort_strength = 1;
  bool forts_used_up = true;
  std::vector<std::string> initiative;
  std::string weather = "clear";
  bool air_spent = false;  // seed: "Used Air Support Tokens return to Faction's ... pool"
  int air_per_turn = 0;
  int shore = 1;  // Shore Bombardment points per supporting Fleet
  bool overrun_halves = true;
  bool overrun_failed_eliminated = true;
};

// REQUIRES: options passed check_game (malformed values fall back to defaults).
VmOptions options_of(const Json* o) {
  VmOptions v;
  if (!o || !o->is_object()) return v;
  if (o->contains("order_bonus") && (*o)["order_bonus"].is_object())
    for (const auto& [k, x] : (*o)["order_bonus"].items())
      if (x.is_number_integer()) v.bonus[k] = x.get<int>();
  if (o->contains("fort_strength") && (*o)["fort_strength"].is_number_integer())
    v.fort_strength = (*o)["fort_strength"].get<int>();
  v.forts_used_up = o->value("forts_used_up", true);
  if (o->contains("initiative") && (*o)["initiative"].is_array())
    for (const auto& x : (*o)["initiative"])
      if (x.is_string()) v.initiative.push_back(x.get<std::string>());
  if (o->contains("weather") && (*o)["weather"].is_string())
    v.weather = (*o)["weather"].get<std::string>();
  v.air_spent = o->value("air_tokens_spent", false);
  if (o->contains("shore_bombardment") && (*o)["shore_bombardment"].is_number_integer())
    v.shore = (*o)["shore_bombardment"].get<int>();
  v.overrun_halves = o->value("overrun_halves_losses", true);
  if (o->contains("overrun_failed") && (*o)["overrun_failed"].is_string())
    v.overrun_failed_eliminated = (*o)["overrun_failed"].get<std::string>() != "retreat";
  if (o->contains("air_tokens_per_turn") && (*o)["air_tokens_per_turn"].is_number_integer())
    v.air_per_turn = (*o)["air_tokens_per_turn"].get<int>();
  return v;
}

std::string weather_of(const Area& a, const VmOptions& o) {
  if (a.features.is_object() && a.features.contains("weather") && a.features["weather"].is_string())
    return a.features["weather"].get<std::string>();
  return o.weather;
}

// Raw unit entries of an engine_state, padded with {} (a fresh default unit) or cut to `armies`.
std::vector<Json> entries_of(const Json& state, int armies) {
  std::vector<Json> out;
  if (state.is_object() && state.contains("units") && state["units"].is_array())
    for (const auto& u : state["units"]) out.push_back(u.is_object() ? u : Json::object());
  out.resize(static_cast<std::size_t>(std::max(armies, 0)), Json::object());
  return out;
}

void store_entries(Json& state, const std::vector<Json>& entries) {
  if (!state.is_object()) state = Json::object();
  const bool all_fresh =
      std::all_of(entries.begin(), entries.end(), [](const Json& e) { return e.empty(); });
  if (all_fresh)
    state.erase("units");
  else
    state["units"] = entries;
}

bool is_int(const Json& j, int lo, int hi) {
  return j.is_number_integer() && j.get<long long>() >= lo && j.get<long long>() <= hi;
}

// A card from a hand; empty `id` when the card is malformed.
struct Card {
  std::string id;
  int strength = 0;
  std::vector<std::string> dice;
  int hp = 0;
};

Card card_of(const Json& c) {
  Card k;
  if (!c.is_object()) return k;
  k.id = c.value("id", std::string());
  k.strength = c.value("strength", 0);
  k.hp = c.value("hp", 0);
  if (c.contains("dice") && c["dice"].is_array())
    for (const auto& d : c["dice"])
      if (d.is_string()) k.dice.push_back(d.get<std::string>());
  return k;
}

const Json& hand_of(const Player* p) {
  static const Json empty = Json::array();
  if (!p || !p->engine_state.is_object() || !p->engine_state.contains("hand") ||
      !p->engine_state["hand"].is_array())
    return empty;
  return p->engine_state["hand"];
}
int air_of(const Player* p) {
  if (!p || !p->engine_state.is_object()) return 0;
  return std::max(0, p->engine_state.value("air", 0));
}

// Initiative rank: lower is higher on the track; INT_MAX when not listed. The track is options
// "initiative" (player codes or nations) when given, else the turn's order of play (earlier is
// higher).
int initiative_rank(const GameState& w, const std::optional<std::string>& code,
                    const VmOptions& o) {
  if (!code) return INT_MAX;
  const Player* p = w.find_player(*code);
  if (o.initiative.empty()) {
    for (std::size_t i = 0; i < w.order_of_play.size(); ++i)
      if (w.order_of_play[i] == *code) return static_cast<int>(i);
    return INT_MAX;
  }
  for (std::size_t i = 0; i < o.initiative.size(); ++i)
    if (o.initiative[i] == *code || (p && o.initiative[i] == p->nation)) return static_cast<int>(i);
  return INT_MAX;
}

// A strength in half-points as points: "7", "7.5", "-0.5".
std::string points_text(int half) {
  std::string s = std::to_string(half / 2);
  if (half % 2 != 0) s = (half < 0 && half / 2 == 0 ? "-0" : s) + ".5";
  return s;
}

// One area's SUPPORT in a battle: its strength in half-points (units at half across an unfrozen
// river, plus the support order bonus).
struct Supporter {
  std::string area;
  int points = 0;   // the whole contribution, shore bombardment included
  int bombard = 0;  // of which Shore Bombardment
};

Json support_json(const std::vector<Supporter>& list) {
  Json a = Json::array();
  for (const auto& s : list) {
    Json j = {{"area", s.area}, {"points", s.points / 2.0}};
    if (s.bombard > 0) j["shore_bombardment"] = s.bombard / 2.0;
    a.push_back(std::move(j));
  }
  return a;
}

// Whether a unit fights in a battle in `to`: Fleets do not fight on land (seed 002: fleets are
// destroyed, not retreated, when a port is captured; land supports land, naval supports naval).
bool fights(const VmUnit& u, const Area& to, const VmData& data) {
  return to.kind == AreaKind::kSea || !data.is_naval(u);
}

// Step 1 for both sides, in half-points.
struct Step1 {
  int attacker_units = 0, attacker_bonus = 0;
  int defender_units = 0, defender_bonus = 0, fort = 0;
  bool river = false;            // some group attacks across an open river
  std::vector<int> group_units;  // each group's units, after its own river halving
  std::vector<bool> group_river;
  std::vector<Supporter> attacker_support, defender_support;
  static int total(const std::vector<Supporter>& list) {
    int n = 0;
    for (const auto& s : list) n += s.points;
    return n;
  }
  int attacker_support_total() const { return total(attacker_support); }
  int defender_support_total() const { return total(defender_support); }
};

// Whether the edge a-b is a river that is not frozen (by the edge or the weather at either end).
bool open_river(const GameState& w, const std::string& a, const std::string& b,
                const VmOptions& o) {
  if (!w.edge_flag(a, b, "river")) return false;
  const Area* x = w.find_area(a);
  const Area* y = w.find_area(b);
  return !w.edge_flag(a, b, "frozen") && !(x && weather_of(*x, o) == "frozen") &&
         !(y && weather_of(*y, o) == "frozen");
}

// The areas next to the battle with a SUPPORT order for it, given by their current owner, on the
// attacker's or the defender's side (seed 3.2 step 1; OQ-VM2: they add strength, no dice). An
// area an attack group comes from does not also support it (one order per area). In a land
// battle a supporting area's Fleets do not add their strength: each non-exhausted Fleet adds
// `shore_bombardment` points instead (seed: "Bonus values from ... Shore Bombardment Orders";
// a bonus, so never halved, OQ-VM6). The Support order's bonus counts when the area holds units
// that fight in the battle; an area with none of those and no Fleet adds nothing.
void add_support(const BattleInput& in, const std::vector<AttackGroup>& groups, const VmData& data,
                 const VmOptions& o, Step1& s) {
  const GameState& w = *in.world;
  const Area& to = in.target();
  for (const std::string& code : w.neighbours(in.to)) {
    if (std::any_of(groups.begin(), groups.end(),
                    [&](const AttackGroup& g) { return g.from == code; }))
      continue;
    const Area* a = w.find_area(code);
    if (!a || !a->owner || !a->engine_state.is_object()) continue;
    const Json& sup = a->engine_state.value("support", Json());
    if (!sup.is_object() || sup.value("to", "") != in.to || sup.value("by", "") != *a->owner)
      continue;
    const bool attacking = *a->owner == in.attacker;
    if (!attacking && a->owner != to.owner) continue;
    int units = 0, fleets = 0;
    bool fighters = false;  // units that fight in this battle (exhausted or not)
    for (const auto& u : vm_units_of(a->engine_state, a->armies, data)) {
      if (!fights(u, to, data)) {
        if (!u.exhausted) ++fleets;
        continue;
      }
      fighters = true;
      if (!u.exhausted)
        units += 2 * (attacking ? data.level_of(u).attack : data.level_of(u).defense);
    }
    if (open_river(w, code, in.to, o)) units /= 2;
    const int bonus = fighters ? 2 * o.bonus.at("support") : 0;
    const int bombard = 2 * o.shore * fleets;
    if (!fighters && fleets == 0) continue;  // nothing there supports
    const Supporter sp{code, units + bonus + bombard, bombard};
    (attacking ? s.attacker_support : s.defender_support).push_back(sp);
  }
}

Step1 step1(const BattleInput& in, const std::vector<AttackGroup>& groups,
            const std::vector<VmUnit>& att, const std::vector<VmUnit>& def, const VmData& data,
            const VmOptions& o) {
  Step1 s;
  const Area& to = in.target();
  // Each group's units, halved across its own edge when that is an open river.
  s.group_units.assign(groups.size(), 0);
  for (const auto& u : att)
    if (!u.exhausted && fights(u, to, data))
      s.group_units[static_cast<std::size_t>(u.group)] += 2 * data.level_of(u).attack;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    s.group_river.push_back(open_river(*in.world, groups[g].from, in.to, o));
    if (s.group_river.back()) s.group_units[g] /= 2;  // exact in half-points (OQ-VM1)
    s.river = s.river || s.group_river.back();
    s.attacker_units += s.group_units[g];
  }
  s.attacker_bonus = 2 * o.bonus.at(to_string(in.kind));
  for (const auto& u : def)
    if (!u.exhausted && fights(u, to, data)) s.defender_units += 2 * data.level_of(u).defense;
  if (to.mode == DefenceMode::kDefend) s.defender_bonus = 2 * o.bonus.at("defend");
  if (to.mode == DefenceMode::kAmbush &&
      std::any_of(groups.begin(), groups.end(),
                  [&](const AttackGroup& g) { return to.ambush_against == g.from; }))
    s.defender_bonus = 2 * o.bonus.at("ambush");
  s.fort = 2 * to.fort * o.fort_strength;
  add_support(in, groups, data, o, s);
  return s;
}

// The attacking units of every group, in group order, each tagged with its group.
std::vector<VmUnit> attacking_units(const std::vector<AttackGroup>& groups, const VmData& data) {
  std::vector<VmUnit> out;
  for (std::size_t g = 0; g < groups.size(); ++g)
    for (VmUnit u : vm_units_of(groups[g].units, groups[g].armies, data)) {
      u.group = static_cast<int>(g);
      out.push_back(u);
    }
  return out;
}

// Rolls one die by name; appends pips to `pips` and the roll to `log`.
int roll(const VmData& data, const std::string& die, Rng& rng, std::vector<int>& pips, Json& log,
         const std::string& source) {
  const int face = rng.die(6);
  const int p = data.dice.at(die).at(static_cast<std::size_t>(face - 1));
  pips.push_back(p);
  log.push_back({{"source", source}, {"die", die}, {"face", face}, {"pips", p}});
  return p;
}

Status check_card(const Json& c, const std::string& path, const VmData& data) {
  if (!c.is_object()) return Status::InvalidArgument(path + ": a card must be an object");
  if (!c.contains("id") || !c["id"].is_string() || c["id"].get<std::string>().empty())
    return Status::InvalidArgument(path + "/id: a card needs a non-empty string id");
  if (!is_int(c.value("strength", Json(0)), 0, 99))
    return Status::InvalidArgument(path + "/strength: must be an integer 0..99");
  if (!is_int(c.value("hp", Json(0)), 0, 99))
    return Status::InvalidArgument(path + "/hp: must be an integer 0..99");
  if (c.contains("dice")) {
    if (!c["dice"].is_array()) return Status::InvalidArgument(path + "/dice: must be an array");
    for (std::size_t i = 0; i < c["dice"].size(); ++i) {
      const Json& d = c["dice"][i];
      if (!d.is_string() || !data.dice.count(d.get<std::string>()))
        return Status::InvalidArgument(path + "/dice/" + std::to_string(i) +
                                       ": not a die of the unit data");
    }
  }
  for (const auto& [k, v] : c.items())
    if (k != "id" && k != "name" && k != "strength" && k != "dice" && k != "hp")
      return Status::InvalidArgument(path + "/" + k + ": unknown card field");
  return Status::Ok();
}

}  // namespace

VmUnit VmData::fresh(const std::string& type) const {
  VmUnit u;
  u.type = type;
  u.level = 1;
  u.hp = units.at(type).front().hp;
  return u;
}

Result<VmData> vm_parse_data(const Json& data_in, const std::string& prefix) {
  Json data = data_in;
  if (data.is_string()) {
    const std::string path = "schemas/tables/" + data.get<std::string>() + ".json";
    auto text = embedded_file(path);
    if (!text)
      return Status::InvalidArgument(prefix + ": no bundled table \"" + data.get<std::string>() +
                                     "\"");
    data = Json::parse(*text);
  }
  auto errors = validate_against_schema(data, kDataSchema);
  if (!errors.empty())
    return Status::InvalidArgument(prefix + errors.front().path + ": " + errors.front().message);
  VmData d;
  d.placeholder = data.value("placeholder", false);
  for (const auto& [name, faces] : data["dice"].items())
    d.dice[name] = faces.get<std::vector<int>>();
  for (const auto& [name, u] : data["units"].items()) {
    int prev_hp = 0;
    const auto& levels = u["levels"];
    for (std::size_t i = 0; i < levels.size(); ++i) {
      const std::string path = prefix + "/units/" + name + "/levels/" + std::to_string(i);
      VmLevel l;
      l.attack = levels[i]["attack"];
      l.defense = levels[i]["defense"];
      l.hp = levels[i]["hp"];
      l.die = levels[i]["die"];
      if (!d.dice.count(l.die))
        return Status::InvalidArgument(path + "/die: \"" + l.die + "\" is not one of the dice");
      if (l.hp <= prev_hp)
        return Status::InvalidArgument(path +
                                       "/hp: hit points must increase with the level (OQ-VM4)");
      prev_hp = l.hp;
      d.units[name].push_back(l);
    }
    d.naval[name] = u.value("naval", false);
  }
  d.default_unit = data["default_unit"];
  if (!d.units.count(d.default_unit))
    return Status::InvalidArgument(prefix + "/default_unit: \"" + d.default_unit +
                                   "\" is not one of the unit types");
  d.air_strength = data["air_token"]["strength"];
  d.air_die = data["air_token"]["die"];
  if (!d.dice.count(d.air_die))
    return Status::InvalidArgument(prefix + "/air_token/die: \"" + d.air_die +
                                   "\" is not one of the dice");
  return d;
}

Result<VmData> vm_data_of(const Json& options) {
  // The bundled default is parsed once (the engines are shared by every thread).
  if (!options.is_object() || !options.contains("data")) {
    static const Result<VmData> def = vm_parse_data(Json(kDefaultTable), "/engine/options/data");
    return def;
  }
  return vm_parse_data(options["data"], "/engine/options/data");
}

std::vector<VmUnit> vm_units_of(const Json& state, int armies, const VmData& data) {
  std::vector<VmUnit> out;
  for (const Json& e : entries_of(state, armies)) {
    std::string type = e.value("type", data.default_unit);
    if (!data.units.count(type)) type = data.default_unit;
    const auto& levels = data.units.at(type);
    VmUnit u;
    u.type = type;
    u.level = std::clamp(e.value("level", 1), 1, static_cast<int>(levels.size()));
    u.hp = std::clamp(e.value("hp", levels[u.level - 1].hp), 1, levels[u.level - 1].hp);
    u.exhausted = e.value("exhausted", false);
    out.push_back(u);
  }
  return out;
}

Json vm_units_json(const std::vector<VmUnit>& units) {
  Json a = Json::array();
  for (const auto& u : units) {
    Json j = {{"type", u.type}, {"level", u.level}, {"hp", u.hp}};
    if (u.exhausted) j["exhausted"] = true;
    a.push_back(std::move(j));
  }
  return Json{{"units", a}};
}

int vm_apply_damage(std::vector<VmUnit>& units, int damage, const VmData& data) {
  int destroyed = 0;
  auto strength = [&](const VmUnit& u) {
    const VmLevel& l = data.level_of(u);
    return l.attack + l.defense;
  };
  auto drop_levels = [&](VmUnit& u) {
    while (u.level > 1 && u.hp <= data.units.at(u.type)[u.level - 2].hp) u.level -= 1;
  };
  // Concentrate on one unit at a time without destroying it: the unit with the most HP left,
  // then the stronger, then list order; it takes points down to 1 HP.
  while (damage > 0) {
    int pick = -1;
    for (int i = 0; i < static_cast<int>(units.size()); ++i) {
      if (units[i].hp <= 1) continue;
      if (pick < 0 || units[i].hp > units[pick].hp ||
          (units[i].hp == units[pick].hp && strength(units[i]) > strength(units[pick])))
        pick = i;
    }
    if (pick < 0) break;
    const int take = std::min(damage, units[pick].hp - 1);
    units[pick].hp -= take;
    damage -= take;
    drop_levels(units[pick]);
  }
  // Every unit is at 1 HP: each further point destroys one, the weakest first (list order).
  while (damage > 0 && !units.empty()) {
    int pick = 0;
    for (int i = 1; i < static_cast<int>(units.size()); ++i)
      if (strength(units[i]) < strength(units[pick])) pick = i;
    units.erase(units.begin() + pick);
    --damage;
    ++destroyed;
  }
  return destroyed;
}

std::string_view VirtutiMilitariEngine::summary() const {
  return "Virtuti Militari: the higher strength wins, dice only decide losses. Strength = unit "
         "attack (defender: defence) + order bonus (MOVE/OVERRUN +1, ASSAULT +2, DEFEND +1, "
         "AMBUSH +2) + forts (defender) + a card from the hand + air tokens (not in mud or at "
         "sea; they return to the pool) + SUPPORT from adjacent areas (strength, no dice; Fleets "
         "there give Shore Bombardment); units across an unfrozen river count half, each attack "
         "group by its own border. Fleets do not fight on land and are destroyed when their port "
         "is captured. A tie goes to the side higher on the initiative track (else the order of "
         "play). Both sides roll their units', card's and tokens' dice for damage; forts and card "
         "HP symbols absorb first. The loser retreats and is exhausted to the end of the turn; a "
         "winning attacker takes the area and razes its forts. A winning OVERRUN takes half the "
         "damage; a failed one is destroyed. PROBE is a raid: losses only, nobody moves. "
         "Strengths are shown in points (x.5 across rivers). Unit and dice tables are data "
         "(placeholder defaults).";
}

std::string_view VirtutiMilitariEngine::order_help() const {
  return "Virtuti Militari options on orders:\n"
         "  MOVE|ASSAULT|PROBE|OVERRUN <from> <to> [n] CARD <k> AIR <m>\n"
         "      play card k of your hand (1 = the first card listed in your report) and commit m "
         "air support tokens (they return to your pool after the battle); both are optional.\n"
         "  DEFEND|AMBUSH|RETREAT <area> [...] CARD <k> AIR <m>\n"
         "      standing choice for battles in that area: the card (kept by name, spent when "
         "played) and air tokens the defender commits.\n"
         "MOVE = Move order (+1), ASSAULT = Move order +2 (survivors stop), PROBE = raid "
         "(losses only), OVERRUN = Move order +1: if it wins the attackers take half the damage, "
         "if it fails they fight to the finish and are destroyed. DEFEND = Defense order (+1); "
         "AMBUSH against the attacker's origin +2. Lines of one action number against one area "
         "are one battle; each group's units count half across its own unfrozen river, and a "
         "losing group goes home to its own area.\n"
         "  SUPPORT <where> <to>\n"
         "      for the rest of the turn the units in <where> add their strength (attack or "
         "defence, half across an unfrozen river, +1 for the order; no dice) to your side in "
         "battles in the adjacent area <to>; Fleets there do not fight on land but give Shore "
         "Bombardment (+1 per Fleet). An area that attacks does not also support.\n"
         "Fleets never fight in a land battle; a port's Fleets are destroyed when it is captured.";
}

Status VirtutiMilitariEngine::check_game(const GameState& state) const {
  const Json& o = state.engine.options;
  if (!o.is_object()) return Status::InvalidArgument("/engine/options: must be an object");
  for (const auto& [k, v] : o.items())
    if (!known_options().count(k))
      return Status::InvalidArgument(
          "/engine/options/" + k +
          ": unknown option (known: data, order_bonus, fort_strength, forts_used_up, initiative, "
          "weather, air_tokens_spent, air_tokens_per_turn, shore_bombardment, "
          "overrun_halves_losses, overrun_failed)");
  Result<VmData> data = vm_data_of(o);
  if (!data.ok()) return data.status();
  if (o.contains("order_bonus")) {
    if (!o["order_bonus"].is_object())
      return Status::InvalidArgument("/engine/options/order_bonus: must be an object");
    for (const auto& [k, v] : o["order_bonus"].items()) {
      if (!bonus_keys().count(k))
        return Status::InvalidArgument(
            "/engine/options/order_bonus/" + k +
            ": unknown (known: move, assault, probe, overrun, defend, ambush, support)");
      if (!is_int(v, -99, 99))
        return Status::InvalidArgument("/engine/options/order_bonus/" + k +
                                       ": must be an integer -99..99");
    }
  }
  if (o.contains("fort_strength") && !is_int(o["fort_strength"], 0, 99))
    return Status::InvalidArgument("/engine/options/fort_strength: must be an integer 0..99");
  if (o.contains("air_tokens_per_turn") && !is_int(o["air_tokens_per_turn"], 0, 99))
    return Status::InvalidArgument("/engine/options/air_tokens_per_turn: must be an integer 0..99");
  if (o.contains("shore_bombardment") && !is_int(o["shore_bombardment"], 0, 99))
    return Status::InvalidArgument("/engine/options/shore_bombardment: must be an integer 0..99");
  if (o.contains("overrun_failed") &&
      (!o["overrun_failed"].is_string() ||
       (o["overrun_failed"] != "eliminated" && o["overrun_failed"] != "retreat")))
    return Status::InvalidArgument("/engine/options/overrun_failed: must be eliminated or retreat");
  for (const char* k : {"forts_used_up", "air_tokens_spent", "overrun_halves_losses"})
    if (o.contains(k) && !o[k].is_boolean())
      return Status::InvalidArgument(std::string("/engine/options/") + k +
                                     ": must be true or false");
  if (o.contains("initiative")) {
    if (!o["initiative"].is_array())
      return Status::InvalidArgument(
          "/engine/options/initiative: must be an array of player codes or nations");
    for (std::size_t i = 0; i < o["initiative"].size(); ++i)
      if (!o["initiative"][i].is_string())
        return Status::InvalidArgument("/engine/options/initiative/" + std::to_string(i) +
                                       ": must be a player code or nation");
  }
  if (o.contains("weather") && (!o["weather"].is_string() || !weathers().count(o["weather"])))
    return Status::InvalidArgument("/engine/options/weather: must be clear, mud or frozen");
  for (std::size_t i = 0; i < state.areas.size(); ++i) {
    const Area& a = state.areas[i];
    const std::string path = "/areas/" + std::to_string(i);
    if (a.features.is_object() && a.features.contains("weather") &&
        (!a.features["weather"].is_string() || !weathers().count(a.features["weather"])))
      return Status::InvalidArgument(path + "/features/weather: must be clear, mud or frozen (" +
                                     a.code + ")");
    if (!a.engine_state.is_object() || !a.engine_state.contains("units")) continue;
    const Json& us = a.engine_state["units"];
    if (!us.is_array() || static_cast<int>(us.size()) > a.armies)
      return Status::InvalidArgument(path + "/engine_state/units: must be an array of at most " +
                                     std::to_string(a.armies) + " units (" + a.code + ")");
    for (std::size_t j = 0; j < us.size(); ++j) {
      const std::string up = path + "/engine_state/units/" + std::to_string(j);
      const Json& u = us[j];
      if (!u.is_object()) return Status::InvalidArgument(up + ": must be an object");
      const std::string type = u.value("type", data->default_unit);
      if (!data->units.count(type))
        return Status::InvalidArgument(up + "/type: unknown unit type \"" + type + "\" (" + a.code +
                                       ")");
      const auto& levels = data->units.at(type);
      if (u.contains("level") && !is_int(u["level"], 1, static_cast<int>(levels.size())))
        return Status::InvalidArgument(up + "/level: must be 1.." + std::to_string(levels.size()) +
                                       " for " + type);
      const int level = u.value("level", 1);
      if (u.contains("hp") && !is_int(u["hp"], 1, levels[level - 1].hp))
        return Status::InvalidArgument(up + "/hp: must be 1.." +
                                       std::to_string(levels[level - 1].hp) + " at level " +
                                       std::to_string(level));
    }
  }
  for (std::size_t i = 0; i < state.players.size(); ++i) {
    const Player& p = state.players[i];
    const std::string path = "/players/" + std::to_string(i) + "/engine_state";
    if (!p.engine_state.is_object()) continue;
    if (p.engine_state.contains("air") && !is_int(p.engine_state["air"], 0, 999))
      return Status::InvalidArgument(path + "/air: must be an integer 0..999 (" + p.code + ")");
    if (!p.engine_state.contains("hand")) continue;
    if (!p.engine_state["hand"].is_array())
      return Status::InvalidArgument(path + "/hand: must be an array of cards (" + p.code + ")");
    for (std::size_t j = 0; j < p.engine_state["hand"].size(); ++j)
      ADJ_RETURN_IF_ERROR(
          check_card(p.engine_state["hand"][j], path + "/hand/" + std::to_string(j), *data));
  }
  return Status::Ok();
}

Status VirtutiMilitariEngine::check_order(const Order& order, const GameState& state) const {
  if (order.extras.empty()) return Status::Ok();
  for (const auto& [k, v] : order.extras)
    if (k != "CARD" && k != "AIR")
      return Status::InvalidArgument(k +
                                     " is not part of the orders of this game's rules "
                                     "(virtuti-militari takes CARD n and AIR n)");
  if (!is_attack_verb(order.verb) && order.verb != Verb::kDefend && order.verb != Verb::kAmbush &&
      order.verb != Verb::kRetreat)
    return Status::InvalidArgument(std::string("CARD and AIR go with MOVE, ASSAULT, PROBE, "
                                               "OVERRUN, DEFEND, AMBUSH or RETREAT, not ") +
                                   verb_name(order.verb));
  const Area* a = state.find_area(order.from);
  const Player* p = a && a->owner ? state.find_player(*a->owner) : nullptr;
  if (auto it = order.extras.find("CARD"); it != order.extras.end()) {
    const int n = static_cast<int>(hand_of(p).size());
    if (it->second < 1 || it->second > n)
      return Status::InvalidArgument(n == 0 ? std::string("you have no cards in your hand")
                                            : "CARD must be 1.." + std::to_string(n) +
                                                  " (the cards in your hand)");
  }
  if (auto it = order.extras.find("AIR"); it != order.extras.end()) {
    const int n = air_of(p);
    if (it->second < 0 || it->second > n)
      return Status::InvalidArgument("you have " + std::to_string(n) +
                                     " air support tokens (AIR 0.." + std::to_string(n) + ")");
  }
  return Status::Ok();
}

bool VirtutiMilitariEngine::retreat_triggers(const BattleInput& in) const {
  Result<VmData> data = vm_data_of(*in.options);
  if (!data.ok()) return false;
  const VmOptions o = options_of(in.options);
  const std::vector<AttackGroup> groups = attack_groups(in);
  const auto att = attacking_units(groups, *data);
  const auto def = vm_units_of(in.target().engine_state, in.target().armies, *data);
  const Step1 s = step1(in, groups, att, def, *data, o);
  return s.attacker_units + s.attacker_bonus + s.attacker_support_total() >
         s.defender_units + s.defender_bonus + s.fort + s.defender_support_total();
}

namespace {

// Splits `units` into those that fight in a battle in `to` and those that do not (Fleets on land).
void split_fighting(std::vector<VmUnit>& units, std::vector<VmUnit>& idle, const Area& to,
                    const VmData& data) {
  std::vector<VmUnit> fighting;
  for (auto& u : units) (fights(u, to, data) ? fighting : idle).push_back(u);
  units = std::move(fighting);
}

// Fills the attacker's survivors (total and per group) and per-group losses. `att` are the
// fighting survivors, `idle` the attacking units that did not fight; `before[g]` the armies of
// group g.
void set_attacker_units(BattleOutcome& out, const std::vector<VmUnit>& att,
                        const std::vector<VmUnit>& idle, const std::vector<AttackGroup>& groups) {
  std::vector<VmUnit> all;
  out.group_losses.clear();
  out.group_units.clear();
  for (std::size_t g = 0; g < groups.size(); ++g) {
    std::vector<VmUnit> mine;
    for (const auto* list : {&att, &idle})
      for (const auto& u : *list)
        if (u.group == static_cast<int>(g)) mine.push_back(u);
    out.group_losses.push_back(groups[g].armies - static_cast<int>(mine.size()));
    out.group_units.push_back(vm_units_json(mine));
    all.insert(all.end(), mine.begin(), mine.end());
  }
  out.attacker_units = vm_units_json(all);
}

}  // namespace

Result<BattleOutcome> VirtutiMilitariEngine::resolve(const BattleInput& in, Rng& rng) const {
  Result<VmData> data_r = vm_data_of(*in.options);
  if (!data_r.ok()) return data_r.status();
  const VmData& data = *data_r;
  const VmOptions o = options_of(in.options);
  const GameState& w = *in.world;
  const Area& to = in.target();
  const std::vector<AttackGroup> groups = attack_groups(in);
  std::vector<VmUnit> att = attacking_units(groups, data);
  std::vector<VmUnit> def = vm_units_of(to.engine_state, to.armies, data);
  // Fleets do not fight on land: no strength, no dice, no losses. A defender's Fleets stay in
  // the port, or are destroyed when the area is captured (step 7); an attacker's ride along.
  std::vector<VmUnit> att_idle, def_fleets;
  split_fighting(att, att_idle, to, data);
  split_fighting(def, def_fleets, to, data);
  const int fleets_in_port = static_cast<int>(def_fleets.size());
  BattleOutcome out;
  const bool probe = in.kind == AttackKind::kProbe;
  out.attacker_stops = probe || in.kind == AttackKind::kAssault;
  Json def_state = to.engine_state.is_object() ? to.engine_state : Json::object();
  auto store_defenders = [&](std::vector<VmUnit> survivors) {
    survivors.insert(survivors.end(), def_fleets.begin(), def_fleets.end());
    def_state["units"] = vm_units_json(survivors)["units"];
    if (survivors.empty()) def_state.erase("units");
    out.defender_units = def_state;
  };

  if (def.empty()) {
    // No defending units that fight: no battle; the attacker walks in (a probe turns back), and
    // Fleets in the captured port are destroyed.
    BattleRound r;
    r.phase = "unopposed";
    r.attacker_before = in.attacker_armies;
    r.defender_before = to.armies;
    out.attacker_wins = !probe;
    if (!probe && to.fort > 0) out.fort_after = 0;
    if (!probe && fleets_in_port > 0) {
      out.defender_losses = fleets_in_port;
      r.defender_losses = fleets_in_port;
      out.detail["fleets_destroyed_in_port"] = fleets_in_port;
      def_fleets.clear();
    }
    out.rounds.push_back(r);
    set_attacker_units(out, att, att_idle, groups);
    if (fleets_in_port == 0)
      out.defender_units = to.engine_state;
    else
      store_defenders({});
    return out;
  }

  const Player* attacker = w.find_player(in.attacker);
  const Player* defender = to.owner ? w.find_player(*to.owner) : nullptr;
  const Json defence = def_state.value("defence", Json::object());

  // Step 1.
  const Step1 s = step1(in, groups, att, def, data, o);
  // Step 2: cards.
  Json att_hand = hand_of(attacker), def_hand = hand_of(defender);
  std::optional<Card> att_card, def_card;
  if (auto it = in.extras.find("CARD"); it != in.extras.end()) {
    if (it->second >= 1 && it->second <= static_cast<int>(att_hand.size())) {
      att_card = card_of(att_hand[it->second - 1]);
      att_hand.erase(static_cast<std::size_t>(it->second - 1));
    } else {
      out.detail["attacker_card_missing"] = it->second;
    }
  }
  if (defence.contains("card") && defence["card"].is_string()) {
    const std::string id = defence["card"];
    for (std::size_t i = 0; i < def_hand.size(); ++i)
      if (card_of(def_hand[i]).id == id) {
        def_card = card_of(def_hand[i]);
        def_hand.erase(i);
        break;
      }
    if (!def_card) out.detail["defender_card_missing"] = id;
    def_state["defence"].erase("card");  // the choice is used up either way
  }
  for (auto* c : {&att_card, &def_card})
    if (*c)
      for (const auto& d : (*c)->dice)
        if (!data.dice.count(d))
          return Status::InvalidArgument("card " + (*c)->id + ": unknown die \"" + d + "\"");
  // Step 3: air support ("skipped in naval battles and in Mud areas").
  const bool no_air = to.kind == AreaKind::kSea || weather_of(to, o) == "mud";
  int att_air = 0, def_air = 0;
  if (!no_air) {
    if (auto it = in.extras.find("AIR"); it != in.extras.end())
      att_air = std::clamp(it->second, 0, air_of(attacker));
    if (defender) def_air = std::clamp(defence.value("air", 0), 0, air_of(defender));
  }
  const int att_total = s.attacker_units + s.attacker_bonus + s.attacker_support_total() +
                        2 * (att_card ? att_card->strength : 0) + 2 * att_air * data.air_strength;
  const int def_total = s.defender_units + s.defender_bonus + s.fort + s.defender_support_total() +
                        2 * (def_card ? def_card->strength : 0) + 2 * def_air * data.air_strength;
  // Step 4: the winner ("In case of a tie, the winner is a Faction higher on the Initiative
  // Track"; with no track configured, the order of play; unranked on both sides: the defender).
  bool attacker_won = att_total > def_total;
  std::string tie_break;
  if (att_total == def_total) {
    const int ra = initiative_rank(w, in.attacker, o), rd = initiative_rank(w, to.owner, o);
    attacker_won = ra < rd;
    tie_break = ra == INT_MAX && rd == INT_MAX ? "default (neither side is ranked)"
                : o.initiative.empty()         ? "order of play"
                                               : "initiative track";
  }

  // Step 5: dice, attacker's first (units in order, card, air), then the defender's.
  BattleRound r;
  r.phase = probe ? "probe" : "battle";
  r.attacker_before = in.attacker_armies;
  r.defender_before = to.armies;
  r.attacker_strength = att_total;
  r.defender_strength = def_total;
  Json att_rolls = Json::array(), def_rolls = Json::array();
  int att_damage = 0, def_damage = 0;
  for (const auto& u : att)
    if (!u.exhausted)
      att_damage += roll(data, data.level_of(u).die, rng, r.attacker_dice, att_rolls, u.type);
  if (att_card)
    for (const auto& d : att_card->dice)
      att_damage += roll(data, d, rng, r.attacker_dice, att_rolls, "card");
  for (int i = 0; i < att_air; ++i)
    att_damage += roll(data, data.air_die, rng, r.attacker_dice, att_rolls, "air");
  for (const auto& u : def)
    if (!u.exhausted)
      def_damage += roll(data, data.level_of(u).die, rng, r.defender_dice, def_rolls, u.type);
  if (def_card)
    for (const auto& d : def_card->dice)
      def_damage += roll(data, d, rng, r.defender_dice, def_rolls, "card");
  for (int i = 0; i < def_air; ++i)
    def_damage += roll(data, data.air_die, rng, r.defender_dice, def_rolls, "air");

  // OVERRUN (seed 001 5.5): "If successful the attacker will suffer a minimum of losses": a
  // winning overrun takes half the defender's damage (rounded down).
  const bool overrun = in.kind == AttackKind::kOverrun;
  int to_att = def_damage;
  if (overrun && attacker_won && o.overrun_halves) to_att /= 2;
  const int overrun_spared = def_damage - to_att;
  // Absorb: the defender first (forts, then card HP symbols), then the attacker.
  int to_def = att_damage;
  const int fort_absorbed = std::min(to.fort, to_def);
  to_def -= fort_absorbed;
  const int def_hp_absorbed = std::min(def_card ? def_card->hp : 0, to_def);
  to_def -= def_hp_absorbed;
  const int def_destroyed = vm_apply_damage(def, to_def, data);
  const int att_hp_absorbed = std::min(att_card ? att_card->hp : 0, to_att);
  to_att -= att_hp_absorbed;
  int att_destroyed = vm_apply_damage(att, to_att, data);
  r.detail = {{"strength_unit", "half-points"},
              {"attacker_strength_points", points_text(att_total)},
              {"defender_strength_points", points_text(def_total)},
              {"attacker_units", s.attacker_units},
              {"attacker_bonus", s.attacker_bonus},
              {"river_halved", s.river},
              {"attacker_card", att_card ? Json(att_card->id) : Json()},
              {"attacker_air", att_air},
              {"defender_units", s.defender_units},
              {"defender_bonus", s.defender_bonus},
              {"attacker_support", support_json(s.attacker_support)},
              {"defender_support", support_json(s.defender_support)},
              {"fort", s.fort},
              {"defender_card", def_card ? Json(def_card->id) : Json()},
              {"defender_air", def_air},
              {"air_skipped", no_air},
              {"attacker_total_points", att_total / 2.0},
              {"defender_total_points", def_total / 2.0},
              {"winner", attacker_won ? "attacker" : "defender"},
              {"tie_by_initiative", att_total == def_total},
              {"attacker_rolls", att_rolls},
              {"defender_rolls", def_rolls},
              {"attacker_damage", att_damage},
              {"defender_damage", def_damage},
              {"fort_absorbed", fort_absorbed},
              {"defender_hp_absorbed", def_hp_absorbed},
              {"attacker_hp_absorbed", att_hp_absorbed}};
  if (!tie_break.empty()) r.detail["tie_break"] = tie_break;
  if (groups.size() > 1) {
    Json gs = Json::array();
    for (std::size_t g = 0; g < groups.size(); ++g)
      gs.push_back({{"from", groups[g].from},
                    {"units_points", s.group_units[g] / 2.0},
                    {"river_halved", static_cast<bool>(s.group_river[g])}});
    r.detail["groups"] = gs;
  }
  if (overrun_spared > 0) r.detail["overrun_spared"] = overrun_spared;
  if (!att_idle.empty()) r.detail["attacker_fleets_idle"] = static_cast<int>(att_idle.size());
  if (fleets_in_port > 0) r.detail["defender_fleets_idle"] = fleets_in_port;

  int def_losses = def_destroyed;
  if (!probe && attacker_won && !def.empty()) {
    // Step 6: the defender retreats, all to one area, or is eliminated.
    std::optional<std::string> dest;
    if (to.owner) {
      std::vector<const Area*> cands;
      for (const auto& code : w.neighbours(to.code)) {
        const Area* n = w.find_area(code);
        const bool origin = std::any_of(groups.begin(), groups.end(),
                                        [&](const AttackGroup& g) { return g.from == code; });
        // A land battle's losers retreat overland; a naval battle's Fleets to a friendly sea area
        // or port (area feature "port").
        const bool by_sea = n && (n->kind == AreaKind::kSea || feature_flag(n->features, "port"));
        const bool reachable = to.kind == AreaKind::kSea ? by_sea : n && n->kind != AreaKind::kSea;
        if (n && n->owner == to.owner && reachable && !origin) cands.push_back(n);
      }
      for (const Area* c : cands)
        if (to.retreat_to && c->code == *to.retreat_to) dest = c->code;
      if (!dest && !cands.empty()) {
        const Area* best = cands.front();
        for (const Area* c : cands)
          if (c->armies > best->armies) best = c;  // neighbours are sorted: ties keep the code
        dest = best->code;
      }
    }
    if (dest) {
      for (auto& u : def) u.exhausted = true;
      out.defender_retreats_to = dest;
    } else {
      def_losses += static_cast<int>(def.size());
      def.clear();
      out.detail["defender_eliminated"] = "no adjacent friendly area to retreat to";
    }
  }
  // Step 7: "If captured area has a port with enemy Fleets in it, they are destroyed." The
  // defender's Fleets cannot retreat overland: they are destroyed whenever its land units lose
  // the area.
  if (!probe && attacker_won && fleets_in_port > 0) {
    def_losses += fleets_in_port;
    def_fleets.clear();
    out.detail["fleets_destroyed_in_port"] = fleets_in_port;
  }
  if (!probe && !attacker_won) {
    if (overrun && o.overrun_failed_eliminated && !att.empty()) {
      // "If unsuccessful the attacker will be thrown into confusion and forced to fight to the
      // finish": strength does not change, so the finish is the attacker's end.
      att_destroyed += static_cast<int>(att.size());
      att.clear();
      out.detail["overrun_failed"] = "the attackers fought to the finish and were destroyed";
    }
    for (auto& u : att) u.exhausted = true;  // home to the origin, exhausted
    for (auto& u : att_idle) u.exhausted = true;
  }
  r.attacker_losses = att_destroyed;
  r.defender_losses = def_losses;
  out.rounds.push_back(r);
  // The battle in points, for reports and logs.
  out.detail["attacker_strength_points"] = points_text(att_total);
  out.detail["defender_strength_points"] = points_text(def_total);
  out.detail["winner"] = attacker_won ? "attacker" : "defender";
  if (!tie_break.empty()) out.detail["tie_break"] = tie_break;

  out.attacker_losses = att_destroyed;
  out.defender_losses = def_losses;
  out.attacker_wins = !probe && attacker_won && !att.empty();
  store_defenders(def);
  set_attacker_units(out, att, att_idle, groups);
  if (!probe && attacker_won) {
    if (to.fort > 0) out.fort_after = 0;  // step 7: the forts are razed
  } else if (o.forts_used_up && fort_absorbed > 0) {
    out.fort_after = to.fort - fort_absorbed;
  }

  // Spent cards and tokens (air tokens return to the pool unless air_tokens_spent).
  if (attacker && (att_card || (att_air > 0 && o.air_spent))) {
    Json st = attacker->engine_state.is_object() ? attacker->engine_state : Json::object();
    if (att_card) st["hand"] = att_hand;
    if (o.air_spent && att_air > 0) st["air"] = air_of(attacker) - att_air;
    out.attacker_player_state = st;
  }
  if (defender && (def_card || (def_air > 0 && o.air_spent))) {
    Json st = defender->engine_state.is_object() ? defender->engine_state : Json::object();
    if (def_card) st["hand"] = def_hand;
    if (o.air_spent && def_air > 0) st["air"] = air_of(defender) - def_air;
    out.defender_player_state = st;
  }
  out.detail["placeholder_data"] = data.placeholder;
  return out;
}

Json VirtutiMilitariEngine::detach_units(Json& area_units, int area_armies, int n) const {
  std::vector<Json> all = entries_of(area_units, area_armies);
  std::vector<Json> moving, staying;
  // Fresh units first (exhausted units may not move; they go only when the order needs them).
  for (int pass = 0; pass < 2; ++pass)
    for (auto& e : all) {
      if (e.is_null()) continue;
      const bool tired = e.value("exhausted", false);
      if (static_cast<int>(moving.size()) < n && tired == (pass == 1)) {
        moving.push_back(e);
        e = Json();
      }
    }
  for (auto& e : all)
    if (!e.is_null()) staying.push_back(e);
  store_entries(area_units, staying);
  Json out = Json::object();
  store_entries(out, moving);
  return out;
}

Json VirtutiMilitariEngine::withdraw_units(Area& area, const Json& options, int& n) const {
  Result<VmData> data = vm_data_of(options);
  if (!data.ok() || area.kind == AreaKind::kSea)
    return CombatEngine::withdraw_units(area, options, n);
  // Split the unit entries only: the area's other state (standing choices, SUPPORT) stays.
  const std::vector<Json> all = entries_of(area.engine_state, area.armies);
  const std::vector<VmUnit> units = vm_units_of(area.engine_state, area.armies, *data);
  std::vector<Json> moving, staying;
  for (std::size_t i = 0; i < all.size() && i < units.size(); ++i)
    (data->is_naval(units[i]) ? staying : moving).push_back(all[i]);
  n = static_cast<int>(moving.size());
  if (n == 0) return Json::object();
  store_entries(area.engine_state, staying);
  Json out = Json::object();
  store_entries(out, moving);
  return out;
}

void VirtutiMilitariEngine::merge_units(Json& area_units, int area_armies, const Json& incoming,
                                        int n) const {
  std::vector<Json> all = entries_of(area_units, area_armies);
  std::vector<Json> in = entries_of(incoming.is_object() ? incoming : Json::object(), n);
  all.insert(all.end(), in.begin(), in.end());
  store_entries(area_units, all);
}

void VirtutiMilitariEngine::standing_order(const Order& order, Area& area, Player& player) const {
  if (!area.engine_state.is_object()) area.engine_state = Json::object();
  if (order.verb == Verb::kSupport) {  // for the rest of this turn, while `player` holds the area
    area.engine_state["support"] = {{"to", order.to}, {"by", player.code}};
    return;
  }
  Json d = Json::object();
  if (auto it = order.extras.find("CARD"); it != order.extras.end()) {
    const Json& hand = hand_of(&player);
    if (it->second >= 1 && it->second <= static_cast<int>(hand.size()))
      d["card"] = card_of(hand[it->second - 1]).id;
  }
  if (auto it = order.extras.find("AIR"); it != order.extras.end())
    d["air"] = std::max(0, it->second);
  area.engine_state["defence"] = d;
}

void VirtutiMilitariEngine::end_turn(GameState& state) const {
  for (Area& a : state.areas)
    if (a.engine_state.is_object()) a.engine_state.erase("support");  // SUPPORT lasts one turn
  for (Area& a : state.areas) {
    if (!a.engine_state.is_object() || !a.engine_state.contains("units")) continue;
    std::vector<Json> all = entries_of(a.engine_state, a.armies);
    for (auto& e : all) e.erase("exhausted");
    store_entries(a.engine_state, all);
  }
  const VmOptions o = options_of(&state.engine.options);
  if (o.air_per_turn > 0)
    for (Player& p : state.players) {
      if (!p.engine_state.is_object()) p.engine_state = Json::object();
      p.engine_state["air"] = air_of(&p) + o.air_per_turn;
    }
}

int VirtutiMilitariEngine::movable_armies(const Area& area) const {
  int exhausted = 0;
  if (area.engine_state.contains("units") && area.engine_state["units"].is_array())
    for (const auto& u : area.engine_state["units"])
      if (u.is_object() && u.value("exhausted", false)) ++exhausted;
  return std::max(0, area.armies - exhausted);
}

}  // namespace adj
