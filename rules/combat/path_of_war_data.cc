#include "rules/combat/path_of_war_data.h"

#include <algorithm>
#include <functional>

namespace adj {

namespace {

constexpr const char* kPowOpt = "/engine/options";

std::map<std::string, PowTerrain> default_terrain() {
  return {{"hills", {1, -1}}, {"plateau", {1, -1}}, {"forest", {1, -1}}, {"village", {-1, -1}},
          {"city", {-1, -1}}, {"castle", {0, -2}},  {"radar", {0, -2}}};
}

Status pow_bad(const std::string& key, const std::string& what) {
  return Status::InvalidArgument(std::string(kPowOpt) + "/" + key + ": " + what);
}

// Reads an integer option in [lo, hi] into `out` when present.
Status pow_read_int(const Json& obj, const std::string& key, const std::string& path, int lo,
                    int hi, int& out) {
  if (!obj.contains(key)) return Status::Ok();
  const Json& v = obj[key];
  if (!v.is_number_integer() || v.get<long long>() < lo || v.get<long long>() > hi)
    return pow_bad(path,
                   "must be an integer from " + std::to_string(lo) + " to " + std::to_string(hi));
  out = v.get<int>();
  return Status::Ok();
}

}  // namespace

Result<PowOptions> pow_options_from_json(const Json& options) {
  PowOptions o;
  o.terrain = default_terrain();
  if (!options.is_object())
    return Status::InvalidArgument(std::string(kPowOpt) + ": must be an object");
  static const std::vector<std::string> kKeys = {"variant",
                                                 "hit_points",
                                                 "shot_damage",
                                                 "hit_on",
                                                 "damages",
                                                 "terrain",
                                                 "modifiers",
                                                 "max_exchanges",
                                                 "overrun_confusion_losses",
                                                 "overrun_confusion_dice",
                                                 "overrun_defender_bonus",
                                                 "return_fire"};
  for (const auto& [k, v] : options.items())
    if (std::find(kKeys.begin(), kKeys.end(), k) == kKeys.end())
      return pow_bad(k,
                     "unknown option (path-of-war takes variant, hit_points, shot_damage, "
                     "hit_on, damages, terrain, modifiers, max_exchanges, "
                     "overrun_confusion_losses, overrun_confusion_dice, overrun_defender_bonus, "
                     "return_fire)");
  if (options.contains("variant")) {
    const Json& v = options["variant"];
    const std::string s = v.is_string() ? v.get<std::string>() : "";
    if (s == "boardgame")
      o.variant = PowVariant::kBoardgame;
    else if (s == "videogamer")
      o.variant = PowVariant::kVideogamer;
    else if (s == "no-luck")
      o.variant = PowVariant::kNoLuck;
    else
      return pow_bad("variant", "must be one of boardgame, videogamer, no-luck");
  }
  if (Status s = pow_read_int(options, "hit_points", "hit_points", 1, 1000, o.hit_points); !s.ok())
    return s;
  o.shot_damage = (o.hit_points + 1) / 2;
  if (Status s = pow_read_int(options, "shot_damage", "shot_damage", 1, 1000, o.shot_damage);
      !s.ok())
    return s;
  if (Status s = pow_read_int(options, "hit_on", "hit_on", 1, 6, o.hit_on); !s.ok()) return s;
  if (Status s = pow_read_int(options, "max_exchanges", "max_exchanges", 1, 1000, o.max_exchanges);
      !s.ok())
    return s;
  if (Status s = pow_read_int(options, "overrun_confusion_losses", "overrun_confusion_losses", 0,
                              10, o.overrun_confusion_losses);
      !s.ok())
    return s;
  if (Status s = pow_read_int(options, "overrun_confusion_dice", "overrun_confusion_dice", 0, 10,
                              o.overrun_confusion_dice);
      !s.ok())
    return s;
  if (options.contains("return_fire")) {
    if (!options["return_fire"].is_boolean())
      return pow_bad("return_fire", "must be true or false");
    o.return_fire = options["return_fire"].get<bool>();
  }
  if (options.contains("overrun_defender_bonus")) {
    // The rule before issue 12, kept so that games created with it adjudicate as they did.
    if (options.contains("overrun_confusion_losses") || options.contains("overrun_confusion_dice"))
      return pow_bad("overrun_defender_bonus",
                     "selects the old OVERRUN (one simultaneous exchange, the defender with extra "
                     "dice) and cannot be combined with overrun_confusion_losses or "
                     "overrun_confusion_dice; remove it for the seed's OVERRUN");
    int bonus = 0;
    if (Status s = pow_read_int(options, "overrun_defender_bonus", "overrun_defender_bonus", -10,
                                10, bonus);
        !s.ok())
      return s;
    o.overrun_defender_bonus = bonus;
  }
  if (options.contains("damages")) {
    const Json& d = options["damages"];
    if (!d.is_array() || d.empty() || d.size() > 100)
      return pow_bad("damages", "must be an array of 1 to 100 positive integers");
    o.damages.clear();
    for (std::size_t i = 0; i < d.size(); ++i) {
      if (!d[i].is_number_integer() || d[i].get<long long>() < 1 || d[i].get<long long>() > 1000)
        return pow_bad("damages/" + std::to_string(i), "must be an integer from 1 to 1000");
      o.damages.push_back(d[i].get<int>());
    }
  }
  if (options.contains("terrain")) {
    const Json& t = options["terrain"];
    if (!t.is_object())
      return pow_bad("terrain", "must be an object of terrain name -> {from, against}");
    for (const auto& [name, v] : t.items()) {
      const std::string path = "terrain/" + name;
      if (v.is_null()) {
        o.terrain.erase(name);
        continue;
      }
      if (!v.is_object()) return pow_bad(path, "must be {\"from\": n, \"against\": n} or null");
      for (const auto& [k, x] : v.items())
        if (k != "from" && k != "against")
          return pow_bad(path + "/" + k, "unknown key (from, against)");
      PowTerrain pt = o.terrain.count(name) ? o.terrain[name] : PowTerrain{};
      if (Status s = pow_read_int(v, "from", path + "/from", -10, 10, pt.from); !s.ok()) return s;
      if (Status s = pow_read_int(v, "against", path + "/against", -10, 10, pt.against); !s.ok())
        return s;
      o.terrain[name] = pt;
    }
  }
  if (options.contains("modifiers")) {
    const Json& m = options["modifiers"];
    if (!m.is_object()) return pow_bad("modifiers", "must be an object");
    const std::vector<std::pair<std::string, int*>> fields = {{"flanking", &o.flanking},
                                                              {"outnumbered", &o.outnumbered},
                                                              {"outnumbered_by", &o.outnumbered_by},
                                                              {"road", &o.road},
                                                              {"rails", &o.rails},
                                                              {"min_dice", &o.min_dice}};
    for (const auto& item : m.items()) {
      const std::string& k = item.key();  // not a structured binding: clang 14 cannot capture one
      auto it = std::find_if(fields.begin(), fields.end(), [&](auto& f) { return f.first == k; });
      if (it == fields.end())
        return pow_bad("modifiers/" + k,
                       "unknown modifier (flanking, outnumbered, outnumbered_by, road, rails, "
                       "min_dice)");
    }
    for (auto& [k, p] : fields) {
      const int lo = (k == "outnumbered_by" || k == "min_dice") ? 1 : -10;
      if (Status s = pow_read_int(m, k, "modifiers/" + k, lo, 10, *p); !s.ok()) return s;
    }
  }
  return o;
}

namespace {

std::string pow_signed(int n, const char* unit) {
  return (n > 0 ? "+" : "") + std::to_string(n) + " " + unit;
}

}  // namespace

EngineVocabulary pow_vocabulary(const Json& options) {
  Result<PowOptions> parsed = pow_options_from_json(options);
  PowOptions o;
  if (parsed.ok()) {
    o = std::move(parsed).value();
  } else {
    o.terrain = default_terrain();
  }
  EngineVocabulary v;
  for (const auto& [word, t] : o.terrain) {
    const std::string effect = "firing from it " + pow_signed(t.from, "dice") + ", firing at it " +
                               pow_signed(t.against, "dice") + " (engine option terrain)";
    v.terrain.add(word, effect);
    v.features.add(word,
                   "true: as the terrain " + word + ", beside the area's own terrain: " + effect);
  }
  v.features.add("road", "true: tanks not on a road firing at the area roll " +
                             pow_signed(o.road, "dice") + " (modifiers.road)");
  v.features.add("rails", "true: tanks not on rails firing at the area roll " +
                              pow_signed(o.rails, "dice") + " (modifiers.rails)");
  v.borders.add("sidemountain",
                "true: no move or attack crosses the border, and an army beyond it does not "
                "flank");
  v.area_state.add("hp", "the damaged tanks' hit points, e.g. [4, 7] (unlisted tanks are fresh)");
  return v;
}

std::vector<int> pow_hp_list(const Json& units, int armies, int hit_points) {
  std::vector<int> listed;
  if (units.is_object() && units.contains("hp") && units["hp"].is_array())
    for (const auto& v : units["hp"])
      if (v.is_number_integer()) listed.push_back(std::clamp(v.get<int>(), 1, hit_points));
  std::sort(listed.begin(), listed.end(), std::greater<>());
  std::vector<int> hp;
  const int fresh = std::max(0, armies - static_cast<int>(listed.size()));
  hp.assign(static_cast<std::size_t>(fresh), hit_points);
  for (int h : listed)
    if (static_cast<int>(hp.size()) < armies) hp.push_back(h);
  return hp;
}

Json pow_units_json(std::vector<int> hp, int hit_points) {
  std::vector<int> damaged;
  for (int h : hp)
    if (h < hit_points) damaged.push_back(h);
  if (damaged.empty()) return Json::object();
  std::sort(damaged.begin(), damaged.end(), std::greater<>());
  return Json{{"hp", damaged}};
}

}  // namespace adj
