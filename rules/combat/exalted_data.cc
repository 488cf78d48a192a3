#include "rules/combat/exalted_data.h"

#include <algorithm>

#include "rules/game/json_schema.h"

namespace adj {

namespace {

constexpr const char* kProfileSchema = "schemas/exalted_profiles.schema.json";

// Built-in default (mortal militia), then options default_profile, then the player's profile.
void ex_overlay(ExProfile& p, const Json& j) {
  if (!j.is_object()) return;
  if (j.contains("commander")) {
    const Json& c = j["commander"];
    p.wits = ex_int_or(c, "wits", p.wits);
    p.war = ex_int_or(c, "war", p.war);
    p.charisma = ex_int_or(c, "charisma", p.charisma);
    p.intelligence = ex_int_or(c, "intelligence", p.intelligence);
  }
  if (j.contains("unit")) {
    const Json& u = j["unit"];
    if (u.contains("soldiers") && u["soldiers"].is_object()) {
      const Json& s = u["soldiers"];
      const int dex = ex_int_or(s, "dexterity", 2), ab = ex_int_or(s, "ability", 2),
                str = ex_int_or(s, "strength", 2);
      p.accuracy = std::max(0, (dex + ab + ex_int_or(s, "weapon_accuracy", 0)) / 2);
      p.defense = std::max(0, (dex + ab + ex_int_or(s, "weapon_defense", 0)) / 2);
      p.damage = (str + ex_int_or(s, "weapon_damage", 0) + 2) / 3;
    }
    p.accuracy = ex_int_or(u, "accuracy", p.accuracy);
    p.damage = ex_int_or(u, "damage", p.damage);
    p.defense = ex_int_or(u, "defense", p.defense);
    p.might = ex_int_or(u, "might", p.might);
    p.hardness = ex_int_or(u, "hardness", p.hardness);
    p.track = ex_int_or(u, "health_track", p.track);
    if (u.contains("soak")) {
      if (u["soak"].is_number_integer())
        for (auto& [k, v] : p.soak) v = u["soak"].get<int>();
      else if (u["soak"].is_object())
        for (auto& [k, v] : p.soak) v = ex_int_or(u["soak"], k.c_str(), v);
    }
  }
  if (j.contains("damage_type") && j["damage_type"].is_string()) p.damage_type = j["damage_type"];
  if (j.contains("solo") && j["solo"].is_object()) {
    const Json& s = j["solo"];
    p.has_solo = true;
    p.solo_attribute = ex_int_or(s, "attribute", p.solo_attribute);
    p.solo_ability = ex_int_or(s, "ability", p.solo_ability);
    p.solo_extra = ex_int_or(s, "extra_dice", p.solo_extra);
    p.solo_damage = ex_int_or(s, "damage", p.solo_damage);
    p.essence = ex_int_or(s, "essence", p.essence);
    p.overwhelming = ex_int_or(s, "overwhelming", p.overwhelming);
  }
}

Status ex_check_profile(const Json& profile, const std::string& path) {
  auto errors = validate_against_schema(profile, kProfileSchema);
  if (!errors.empty())
    return Status::InvalidArgument(path + errors.front().path + ": " + errors.front().message);
  return Status::Ok();
}

}  // namespace

const std::set<std::string>& ex_known_options() {
  static const std::set<std::string> k = {
      "soldiers_per_army", "magnitude_cap",     "dv_rounding",     "terrain_dv",
      "city_dv",           "fort_dv",           "defend_dv",       "external_penalty",
      "river_penalty",     "exchanges",         "retreat_margin",  "charm_rerolls",
      "stunt_dice",        "heal_per_turn",     "default_profile", "counterattack",
      "defender_turns",    "overrun_confusion", "combined"};
  return k;
}

int ex_int_or(const Json& o, const char* k, int d) {
  return o.contains(k) && o[k].is_number_integer() ? o[k].get<int>() : d;
}

// REQUIRES: options passed check_game (malformed values fall back to defaults).
ExOptions ex_options_of(const Json* p) {
  ExOptions v;
  if (!p || !p->is_object()) return v;
  const Json& o = *p;
  v.soldiers_per_army = std::max(1, ex_int_or(o, "soldiers_per_army", v.soldiers_per_army));
  v.magnitude_cap = ex_int_or(o, "magnitude_cap", -1);
  v.dv_round_up = o.value("dv_rounding", std::string("up")) != "down";
  if (o.contains("terrain_dv") && o["terrain_dv"].is_object())
    for (const auto& [k, x] : o["terrain_dv"].items())
      if (x.is_number_integer()) v.terrain_dv[k] = x.get<int>();
  v.city_dv = ex_int_or(o, "city_dv", v.city_dv);
  v.fort_dv = ex_int_or(o, "fort_dv", v.fort_dv);
  v.defend_dv = ex_int_or(o, "defend_dv", v.defend_dv);
  v.external_penalty = ex_int_or(o, "external_penalty", 0);
  v.river_penalty = ex_int_or(o, "river_penalty", v.river_penalty);
  if (o.contains("exchanges") && o["exchanges"].is_object())
    for (const auto& [k, x] : o["exchanges"].items())
      if (x.is_number_integer()) v.exchanges[k] = x.get<int>();
  v.retreat_margin = ex_int_or(o, "retreat_margin", v.retreat_margin);
  if (o.contains("charm_rerolls") && o["charm_rerolls"].is_object()) {
    v.attacker_reroll = o["charm_rerolls"].value("attacker", false);
    v.defender_reroll = o["charm_rerolls"].value("defender", false);
  }
  v.stunt_dice = ex_int_or(o, "stunt_dice", 0);
  v.heal_per_turn = ex_int_or(o, "heal_per_turn", 0);
  v.counter_always = o.value("counterattack", std::string("elected")) == "always";
  v.defender_turns = o.value("defender_turns", std::string("assault")) != "never";
  v.overrun_confusion = ex_int_or(o, "overrun_confusion", v.overrun_confusion);
  v.combined_units = o.value("combined", std::string("units")) != "one_unit";
  if (o.contains("default_profile") && o["default_profile"].is_object())
    v.default_profile = o["default_profile"];
  return v;
}

bool ex_int_in(const Json& j, int lo, int hi) {
  return j.is_number_integer() && j.get<long long>() >= lo && j.get<long long>() <= hi;
}

ExProfile ex_profile_of(const GameState& w, const std::optional<std::string>& code,
                        const ExOptions& o) {
  ExProfile p;
  ex_overlay(p, o.default_profile);
  if (code)
    if (const Player* pl = w.find_player(*code))
      if (pl->engine_state.is_object() && pl->engine_state.contains("profile"))
        ex_overlay(p, pl->engine_state["profile"]);
  return p;
}

std::vector<int> ex_wounds_of(const Json& state, int armies) {
  std::vector<int> w;
  if (state.is_object() && state.contains("wounds") && state["wounds"].is_array())
    for (const auto& x : state["wounds"])
      if (x.is_number_integer() && x.get<int>() > 0) w.push_back(x.get<int>());
  std::sort(w.begin(), w.end(), std::greater<int>());
  if (static_cast<int>(w.size()) > armies) w.resize(static_cast<std::size_t>(std::max(armies, 0)));
  return w;
}

void ex_store_wounds(Json& state, std::vector<int> w) {
  if (!state.is_object()) state = Json::object();
  std::sort(w.begin(), w.end(), std::greater<int>());
  if (w.empty())
    state.erase("wounds");
  else
    state["wounds"] = w;
}

Status ex_check_game(const GameState& state) {
  const Json& o = state.engine.options;
  if (!o.is_object()) return Status::InvalidArgument("/engine/options: must be an object");
  for (const auto& [k, v] : o.items()) {
    const std::string path = "/engine/options/" + k;
    if (!ex_known_options().count(k))
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
    if (k == "overrun_confusion" && !ex_int_in(v, 0, 10))
      return Status::InvalidArgument(path + ": must be an integer 0..10");
    if (k == "soldiers_per_army" && !ex_int_in(v, 1, 1000000))
      return Status::InvalidArgument(path + ": must be an integer 1..1000000");
    if (k == "magnitude_cap" && !ex_int_in(v, 0, 20))
      return Status::InvalidArgument(path + ": must be an integer 0..20 (leave out for no cap)");
    if (k == "dv_rounding" && v != "up" && v != "down")
      return Status::InvalidArgument(path + ": must be \"up\" or \"down\"");
    if ((k == "city_dv" || k == "fort_dv" || k == "defend_dv" || k == "external_penalty" ||
         k == "river_penalty") &&
        !ex_int_in(v, -10, 10))
      return Status::InvalidArgument(path + ": must be an integer -10..10");
    if ((k == "stunt_dice" || k == "heal_per_turn") && !ex_int_in(v, 0, 20))
      return Status::InvalidArgument(path + ": must be an integer 0..20");
    if (k == "retreat_margin" && !ex_int_in(v, 0, 20))
      return Status::InvalidArgument(path + ": must be an integer 0..20");
    if (k == "terrain_dv") {
      if (!v.is_object()) return Status::InvalidArgument(path + ": must be an object");
      for (const auto& [t, x] : v.items())
        if (!ex_int_in(x, -10, 10))
          return Status::InvalidArgument(path + "/" + t + ": must be an integer -10..10");
    }
    if (k == "exchanges") {
      if (!v.is_object()) return Status::InvalidArgument(path + ": must be an object");
      for (const auto& [t, x] : v.items()) {
        if (t != "move" && t != "assault" && t != "probe" && t != "overrun")
          return Status::InvalidArgument(path + "/" + t +
                                         ": unknown (known: move, assault, probe, overrun)");
        if (!ex_int_in(x, 1, 100))
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
    if (k == "default_profile") ADJ_RETURN_IF_ERROR(ex_check_profile(v, path));
  }
  for (std::size_t i = 0; i < state.players.size(); ++i) {
    const Player& p = state.players[i];
    if (p.engine_state.is_object() && p.engine_state.contains("profile"))
      ADJ_RETURN_IF_ERROR(ex_check_profile(
          p.engine_state["profile"], "/players/" + std::to_string(i) + "/engine_state/profile"));
  }
  for (std::size_t i = 0; i < state.areas.size(); ++i) {
    const Area& a = state.areas[i];
    if (a.engine_state.is_object() && a.engine_state.contains("counter") &&
        !ex_int_in(a.engine_state["counter"], 0, kExMaxCounter))
      return Status::InvalidArgument("/areas/" + std::to_string(i) +
                                     "/engine_state/counter: must be an integer 0.." +
                                     std::to_string(kExMaxCounter) + " (" + a.code + ")");
    if (!a.engine_state.is_object() || !a.engine_state.contains("wounds")) continue;
    const Json& w = a.engine_state["wounds"];
    const std::string path = "/areas/" + std::to_string(i) + "/engine_state/wounds";
    if (!w.is_array() || static_cast<int>(w.size()) > a.armies)
      return Status::InvalidArgument(path + ": must be an array of at most " +
                                     std::to_string(a.armies) + " entries (" + a.code + ")");
    const ExProfile pr = ex_profile_of(state, a.owner, ex_options_of(&o));
    for (std::size_t j = 0; j < w.size(); ++j)
      if (!ex_int_in(w[j], 1, pr.track - 1))
        return Status::InvalidArgument(path + "/" + std::to_string(j) + ": must be 1.." +
                                       std::to_string(pr.track - 1) + " (" + a.code + ")");
  }
  return Status::Ok();
}

EngineVocabulary ex_vocabulary(const Json& options) {
  const ExOptions o = ex_options_of(&options);
  EngineVocabulary v;
  for (const auto& [word, dv] : o.terrain_dv)
    v.terrain.add(word, "the defenders' War DV " + std::string(dv >= 0 ? "+" : "") +
                            std::to_string(dv) + " in a land area (option terrain_dv)");
  v.borders.add("river", "true: a force attacking across it has " +
                             std::to_string(o.river_penalty) +
                             " more external penalty on its attack roll (option river_penalty)");
  v.area_state.add("counter", "written by COUNTER n: the counterattacks the defenders elected");
  v.area_state.add("wounds", "the wounded armies' health levels lost, e.g. [2, 1]");
  v.player_state.add("profile",
                     "the player's forces: commander and unit traits "
                     "(schemas/exalted_profiles.schema.json) over the options' default_profile");
  return v;
}

}  // namespace adj
