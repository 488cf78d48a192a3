// crt_options_from_json (crt_data.h): the CRT engine's options with their defaults, and the
// table and shift chart they name.
#include "rules/combat/crt_data.h"

#include <algorithm>
#include <initializer_list>
#include <string>
#include <vector>

namespace adj {

namespace {

constexpr const char* kOpt = "/engine/options";

Status bad(const std::string& key, const std::string& what) {
  return Status::InvalidArgument(std::string(kOpt) + "/" + key + ": " + what);
}

Status read_int(const Json& obj, const std::string& key, int lo, int hi, int& out) {
  if (!obj.contains(key)) return Status::Ok();
  const Json& v = obj[key];
  if (!v.is_number_integer() || v.get<long long>() < lo || v.get<long long>() > hi)
    return bad(key, "must be an integer from " + std::to_string(lo) + " to " + std::to_string(hi));
  out = v.get<int>();
  return Status::Ok();
}

Status read_bool(const Json& obj, const std::string& key, bool& out) {
  if (!obj.contains(key)) return Status::Ok();
  if (!obj[key].is_boolean()) return bad(key, "must be true or false");
  out = obj[key].get<bool>();
  return Status::Ok();
}

// Reads options[key] into `out` when it is one of `words`; false when present and not one of them.
bool read_word(const Json& obj, const std::string& key, std::initializer_list<const char*> words,
               std::string& out) {
  if (!obj.contains(key)) return true;
  const Json& v = obj[key];
  if (!v.is_string()) return false;
  for (const char* w : words)
    if (v.get<std::string>() == w) {
      out = w;
      return true;
    }
  return false;
}

}  // namespace

Result<CrtOptions> crt_options_from_json(const Json& options, bool validate) {
  if (!options.is_object())
    return Status::InvalidArgument(std::string(kOpt) + ": must be an object");
  static const std::vector<std::string> kKeys = {"method",
                                                 "table",
                                                 "shifts",
                                                 "strength_per_army",
                                                 "population_strength",
                                                 "fort_strength",
                                                 "zoc",
                                                 "retreat_into_empty",
                                                 "ambush_shift",
                                                 "overrun_shift",
                                                 "assault_rolls",
                                                 "attacker_retreat",
                                                 "river_shift",
                                                 "advance",
                                                 "overrun",
                                                 "overrun_rout",
                                                 "overrun_confusion_loss",
                                                 "combat_phase",
                                                 "one_attack_per_unit",
                                                 "one_attack_per_target"};
  for (const auto& [k, v] : options.items())
    if (std::find(kKeys.begin(), kKeys.end(), k) == kKeys.end()) {
      std::string names;
      for (const auto& n : kKeys) names += (names.empty() ? "" : ", ") + n;
      return bad(k, "unknown option (crt takes " + names + ")");
    }
  CrtOptions o;
  std::string method;
  if (options.contains("method")) {
    const Json& m = options["method"];
    method = m.is_string() ? m.get<std::string>() : "";
    if (method != "differential" && method != "ratio")
      return bad("method", "must be one of differential, ratio");
  }
  const Json table_spec = options.contains("table")
                              ? options["table"]
                              : Json(method == "ratio" ? "crt-ratio" : "crt-differential");
  Result<Json> tdoc = crt_document(table_spec, "crt", std::string(kOpt) + "/table", validate);
  if (!tdoc.ok()) return tdoc.status();
  Result<CrtTable> table = crt_table_from_json(tdoc.value(), std::string(kOpt) + "/table");
  if (!table.ok()) return table.status();
  o.table = std::move(table).value();
  if (!method.empty() && method != o.table.method)
    return bad("table", "\"" + o.table.name + "\" is a " + o.table.method +
                            " table but method is " + method);
  const Json shift_spec = options.value("shifts", Json("crt-terrain"));
  Result<Json> sdoc = crt_document(shift_spec, "shifts", std::string(kOpt) + "/shifts", validate);
  if (!sdoc.ok()) return sdoc.status();
  Result<ShiftChart> chart = shift_chart_from_json(sdoc.value(), std::string(kOpt) + "/shifts");
  if (!chart.ok()) return chart.status();
  o.shifts = std::move(chart).value();
  for (Status s : {read_int(options, "strength_per_army", 1, 1000, o.strength_per_army),
                   read_int(options, "population_strength", 0, 1000, o.population_strength),
                   read_int(options, "fort_strength", 0, 1000, o.fort_strength),
                   read_int(options, "ambush_shift", -20, 20, o.ambush_shift),
                   read_int(options, "overrun_shift", -20, 20, o.overrun_shift),
                   read_int(options, "assault_rolls", 1, 100, o.assault_rolls),
                   read_int(options, "attacker_retreat", 0, 5, o.attacker_retreat),
                   read_bool(options, "zoc", o.zoc),
                   read_bool(options, "retreat_into_empty", o.retreat_into_empty),
                   read_int(options, "overrun_rout", 0, 5, o.overrun_rout_areas),
                   read_int(options, "overrun_confusion_loss", 1, 100, o.overrun_confusion_loss),
                   read_bool(options, "one_attack_per_unit", o.phase.one_attack_per_unit),
                   read_bool(options, "one_attack_per_target", o.phase.one_attack_per_target)})
    if (!s.ok()) return s;
  std::string word;
  if (!read_word(options, "river_shift", {"all", "any", "proportional"}, word))
    return bad("river_shift", "must be one of all, any, proportional");
  if (word == "any") o.river_shift = CrtOptions::RiverShift::kAny;
  if (word == "proportional") o.river_shift = CrtOptions::RiverShift::kProportional;
  word.clear();
  if (!read_word(options, "overrun", {"rout", "shift"}, word))
    return bad("overrun", "must be one of rout, shift");
  o.overrun_rout = word != "shift";
  word.clear();
  if (!read_word(options, "combat_phase", {"turn", "action"}, word))
    return bad("combat_phase", "must be one of turn, action");
  if (word == "action") o.phase.scope = CombatPhaseRules::Scope::kActionRound;
  if (options.contains("advance")) {
    const Json& v = options["advance"];
    if (v == "all")
      o.advance.reset();
    else if (v.is_number_integer() && v.get<long long>() >= 0 && v.get<long long>() <= 100000)
      o.advance = v.get<int>();
    else
      return bad("advance", "must be \"all\" or an integer from 0 to 100000");
  }
  return o;
}

EngineVocabulary crt_vocabulary(const Json& options) {
  Result<CrtOptions> parsed = crt_options_from_json(options, false);
  if (!parsed.ok()) parsed = crt_options_from_json(Json::object(), false);
  EngineVocabulary v;
  if (!parsed.ok()) return v;  // the bundled tables are missing: nothing is known
  const CrtOptions& o = parsed.value();
  const std::string chart = " (shift chart " + o.shifts.name + "; an area's highest shift counts)";
  for (const auto& [word, shift] : o.shifts.terrain) {
    std::string effect = shift == 0
                             ? std::string("no column shift")
                             : std::to_string(shift) + " column shift" +
                                   (shift == 1 || shift == -1 ? "" : "s") + " left when attacked";
    if (word == "fortified") effect += ", also in any area with a fort";
    v.terrain.add(word, effect + chart);
    v.features.add(word, "true: as the terrain " + word + ": " + effect + chart);
  }
  std::string river = "true: retreats never cross it";
  if (o.shifts.river != 0)
    river = "true: " + std::to_string(o.shifts.river) +
            " column shifts left when the attack comes across it (river_shift); retreats never "
            "cross it";
  v.borders.add("river", river);
  return v;
}

}  // namespace adj
