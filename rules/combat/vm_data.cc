#include "rules/combat/vm_data.h"

#include <algorithm>

#include "rules/game/json_schema.h"
#include "schemas/embedded.h"

namespace adj {

namespace {

constexpr const char* kDataSchema = "schemas/vm_data.schema.json";
constexpr const char* kDefaultTable = "vm-default";

}  // namespace

const std::set<std::string>& vm_known_options() {
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
const std::set<std::string>& vm_bonus_keys() {
  static const std::set<std::string> k = {"move",   "assault", "probe",  "overrun",
                                          "defend", "ambush",  "support"};
  return k;
}
const std::set<std::string>& vm_weathers() {
  static const std::set<std::string> k = {"clear", "mud", "frozen"};
  return k;
}

// REQUIRES: options passed check_game (malformed values fall back to defaults).
VmOptions vm_options_of(const Json* o) {
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

std::string vm_weather_of(const Area& a, const VmOptions& o) {
  if (a.features.is_object() && a.features.contains("weather") && a.features["weather"].is_string())
    return a.features["weather"].get<std::string>();
  return o.weather;
}

// Raw unit entries of an engine_state, padded with {} (a fresh default unit) or cut to `armies`.
std::vector<Json> vm_entries_of(const Json& state, int armies) {
  std::vector<Json> out;
  if (state.is_object() && state.contains("units") && state["units"].is_array())
    for (const auto& u : state["units"]) out.push_back(u.is_object() ? u : Json::object());
  out.resize(static_cast<std::size_t>(std::max(armies, 0)), Json::object());
  return out;
}

void vm_store_entries(Json& state, const std::vector<Json>& entries) {
  if (!state.is_object()) state = Json::object();
  const bool all_fresh =
      std::all_of(entries.begin(), entries.end(), [](const Json& e) { return e.empty(); });
  if (all_fresh)
    state.erase("units");
  else
    state["units"] = entries;
}

bool vm_is_int(const Json& j, int lo, int hi) {
  return j.is_number_integer() && j.get<long long>() >= lo && j.get<long long>() <= hi;
}

VmCard vm_card_of(const Json& c) {
  VmCard k;
  if (!c.is_object()) return k;
  k.id = c.value("id", std::string());
  k.strength = c.value("strength", 0);
  k.hp = c.value("hp", 0);
  if (c.contains("dice") && c["dice"].is_array())
    for (const auto& d : c["dice"])
      if (d.is_string()) k.dice.push_back(d.get<std::string>());
  return k;
}

const Json& vm_hand_of(const Player* p) {
  static const Json empty = Json::array();
  if (!p || !p->engine_state.is_object() || !p->engine_state.contains("hand") ||
      !p->engine_state["hand"].is_array())
    return empty;
  return p->engine_state["hand"];
}
int vm_air_of(const Player* p) {
  if (!p || !p->engine_state.is_object()) return 0;
  return std::max(0, p->engine_state.value("air", 0));
}

Status vm_check_card(const Json& c, const std::string& path, const VmData& data) {
  if (!c.is_object()) return Status::InvalidArgument(path + ": a card must be an object");
  if (!c.contains("id") || !c["id"].is_string() || c["id"].get<std::string>().empty())
    return Status::InvalidArgument(path + "/id: a card needs a non-empty string id");
  if (!vm_is_int(c.value("strength", Json(0)), 0, 99))
    return Status::InvalidArgument(path + "/strength: must be an integer 0..99");
  if (!vm_is_int(c.value("hp", Json(0)), 0, 99))
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
  for (const Json& e : vm_entries_of(state, armies)) {
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

Status vm_check_game(const GameState& state) {
  const Json& o = state.engine.options;
  if (!o.is_object()) return Status::InvalidArgument("/engine/options: must be an object");
  for (const auto& [k, v] : o.items())
    if (!vm_known_options().count(k))
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
      if (!vm_bonus_keys().count(k))
        return Status::InvalidArgument(
            "/engine/options/order_bonus/" + k +
            ": unknown (known: move, assault, probe, overrun, defend, ambush, support)");
      if (!vm_is_int(v, -99, 99))
        return Status::InvalidArgument("/engine/options/order_bonus/" + k +
                                       ": must be an integer -99..99");
    }
  }
  if (o.contains("fort_strength") && !vm_is_int(o["fort_strength"], 0, 99))
    return Status::InvalidArgument("/engine/options/fort_strength: must be an integer 0..99");
  if (o.contains("air_tokens_per_turn") && !vm_is_int(o["air_tokens_per_turn"], 0, 99))
    return Status::InvalidArgument("/engine/options/air_tokens_per_turn: must be an integer 0..99");
  if (o.contains("shore_bombardment") && !vm_is_int(o["shore_bombardment"], 0, 99))
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
  if (o.contains("weather") && (!o["weather"].is_string() || !vm_weathers().count(o["weather"])))
    return Status::InvalidArgument("/engine/options/weather: must be clear, mud or frozen");
  for (std::size_t i = 0; i < state.areas.size(); ++i) {
    const Area& a = state.areas[i];
    const std::string path = "/areas/" + std::to_string(i);
    if (a.features.is_object() && a.features.contains("weather") &&
        (!a.features["weather"].is_string() || !vm_weathers().count(a.features["weather"])))
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
      if (u.contains("level") && !vm_is_int(u["level"], 1, static_cast<int>(levels.size())))
        return Status::InvalidArgument(up + "/level: must be 1.." + std::to_string(levels.size()) +
                                       " for " + type);
      const int level = u.value("level", 1);
      if (u.contains("hp") && !vm_is_int(u["hp"], 1, levels[level - 1].hp))
        return Status::InvalidArgument(up + "/hp: must be 1.." +
                                       std::to_string(levels[level - 1].hp) + " at level " +
                                       std::to_string(level));
    }
  }
  for (std::size_t i = 0; i < state.players.size(); ++i) {
    const Player& p = state.players[i];
    const std::string path = "/players/" + std::to_string(i) + "/engine_state";
    if (!p.engine_state.is_object()) continue;
    if (p.engine_state.contains("air") && !vm_is_int(p.engine_state["air"], 0, 999))
      return Status::InvalidArgument(path + "/air: must be an integer 0..999 (" + p.code + ")");
    if (!p.engine_state.contains("hand")) continue;
    if (!p.engine_state["hand"].is_array())
      return Status::InvalidArgument(path + "/hand: must be an array of cards (" + p.code + ")");
    for (std::size_t j = 0; j < p.engine_state["hand"].size(); ++j)
      ADJ_RETURN_IF_ERROR(
          vm_check_card(p.engine_state["hand"][j], path + "/hand/" + std::to_string(j), *data));
  }
  return Status::Ok();
}

EngineVocabulary vm_vocabulary() {
  EngineVocabulary v;
  v.features.add("weather",
                 "\"clear\", \"mud\" or \"frozen\": the area's weather instead of the game's "
                 "(option weather); mud: no air support in battles there; frozen: its rivers do "
                 "not halve");
  v.features.add("port",
                 "true: a port: the loser of a sea battle next to it may retreat into it (by sea "
                 "a retreat reaches only sea areas and ports)");
  v.borders.add("river",
                "true: units attacking or supporting across it count half, unless it is frozen");
  v.borders.add("frozen", "true: the river of this border is frozen (no halving)");
  v.area_state.add("units",
                   "the area's units, [{type, level, hp, exhausted}] (unlisted armies are fresh "
                   "units of the data's default type)");
  v.area_state.add("support",
                   "written by SUPPORT orders: {to, by}; cleared at the end of the turn");
  v.area_state.add("defence", "written by standing orders: the card and air tokens they commit");
  v.player_state.add("hand", "the player's cards, [{id, name, strength, dice, hp}]");
  v.player_state.add("air", "the player's air support tokens (0..999)");
  return v;
}

}  // namespace adj
