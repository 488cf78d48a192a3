#include "rules/game/scenario.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "base/ascii.h"
#include "rules/combat/engine_registry.h"
#include "rules/combat/engine_resolver.h"
#include "rules/combat/script_engine.h"
#include "rules/game/json_schema.h"
#include "schemas/embedded.h"

namespace adj {

namespace {

constexpr const char* kSchema = "schemas/scenario.schema.json";
constexpr const char* kBundledPrefix = "schemas/scenarios/";

using ascii::upper;

std::string at(const std::string& base, std::size_t i, const char* key = nullptr) {
  std::string p = base + "/" + std::to_string(i);
  if (key) p += std::string("/") + key;
  return p;
}

// Upper-cases every code and lower-cases the game id, the canonical forms the rest of the program
// compares exactly (game ids are unique regardless of case; see SqliteStore::create_game).
Json normalise_codes(Json j) {
  if (j.contains("id") && j["id"].is_string()) {
    std::string id = j["id"].get<std::string>();
    for (char& c : id) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    j["id"] = id;
  }
  for (auto& p : j["players"]) p["code"] = upper(p["code"].get<std::string>());
  for (auto& a : j["areas"]) {
    a["code"] = upper(a["code"].get<std::string>());
    for (const char* k : {"owner", "hinterland", "retreat_to", "ambush_against"})
      if (a.contains(k) && a[k].is_string()) a[k] = upper(a[k].get<std::string>());
  }
  for (auto& e : j["adjacency"]) {
    e[0] = upper(e[0].get<std::string>());
    e[1] = upper(e[1].get<std::string>());
  }
  if (j.contains("order_of_play"))
    for (auto& c : j["order_of_play"]) c = upper(c.get<std::string>());
  return j;
}

// The victory conditions (rules/game/victory.h) beyond their schema: at least one condition,
// and every area's "vp" feature a whole number of at least 0.
void victory_checks(const Json& j, std::vector<ScenarioError>& errors) {
  if (j.contains("victory")) {
    const Json& v = j["victory"];
    const bool any = v.contains("vp") || v.contains("last_turn") ||
                     v.value("last_standing", false) || v.value("draw", false);
    if (!any)
      errors.push_back({"/victory",
                        "no way to end the game: give vp, last_turn, or set last_standing or "
                        "draw to true (or leave victory out)"});
  }
  for (std::size_t i = 0; i < j["areas"].size(); ++i) {
    const Json& a = j["areas"][i];
    if (!a.contains("features") || !a["features"].contains("vp")) continue;
    const Json& vp = a["features"]["vp"];
    if (!vp.is_number_integer() || vp.get<long long>() < 0 || vp.get<long long>() > 1000000)
      errors.push_back({at("/areas", i, "features") + "/vp",
                        "victory points of an area must be a whole number from 0 to 1000000"});
  }
}

void semantic_checks(const Json& j, std::vector<ScenarioError>& errors) {
  auto err = [&](std::string path, std::string msg) {
    errors.push_back({std::move(path), std::move(msg)});
  };
  std::set<std::string> players, areas, seen;
  std::map<std::string, std::string> kinds;
  for (std::size_t i = 0; i < j["players"].size(); ++i) {
    const std::string code = j["players"][i]["code"];
    if (!players.insert(code).second)
      err(at("/players", i, "code"), "duplicate player code " + code);
  }
  for (std::size_t i = 0; i < j["areas"].size(); ++i) {
    const Json& a = j["areas"][i];
    const std::string code = a["code"];
    if (!areas.insert(code).second) err(at("/areas", i, "code"), "duplicate area code " + code);
    kinds[code] = a["kind"];
  }
  for (std::size_t i = 0; i < j["areas"].size(); ++i) {
    const Json& a = j["areas"][i];
    const std::string kind = a["kind"];
    if (a.contains("owner") && a["owner"].is_string() && !players.count(a["owner"]))
      err(at("/areas", i, "owner"), "unknown player " + a["owner"].get<std::string>());
    if (kind == "sea" && a.value("armies", 0) > 0)
      err(at("/areas", i, "armies"), "a sea area cannot hold armies");
    if (kind == "sea" && a.contains("owner") && a["owner"].is_string())
      err(at("/areas", i, "owner"), "a sea area cannot be owned");
    if (kind == "city") {
      if (!a.contains("hinterland")) {
        err(at("/areas", i), "a city must name its hinterland");
      } else {
        const std::string h = a["hinterland"];
        if (!areas.count(h))
          err(at("/areas", i, "hinterland"), "unknown area " + h);
        else if (kinds[h] != "land")
          err(at("/areas", i, "hinterland"), "the hinterland " + h + " must be a land area");
      }
    } else if (a.contains("hinterland")) {
      err(at("/areas", i, "hinterland"), "only a city has a hinterland");
    }
    for (const char* k : {"retreat_to", "ambush_against"})
      if (a.contains(k) && a[k].is_string() && !areas.count(a[k]))
        err(at("/areas", i, k), "unknown area " + a[k].get<std::string>());
  }
  std::set<std::pair<std::string, std::string>> edges;
  for (std::size_t i = 0; i < j["adjacency"].size(); ++i) {
    const Json& e = j["adjacency"][i];
    std::string a = e[0], b = e[1];
    if (!areas.count(a)) err(at("/adjacency", i) + "/0", "unknown area " + a);
    if (!areas.count(b)) err(at("/adjacency", i) + "/1", "unknown area " + b);
    if (a == b) err(at("/adjacency", i), "an area cannot border itself (" + a + ")");
    if (b < a) std::swap(a, b);
    if (!edges.insert({a, b}).second) err(at("/adjacency", i), "duplicate border " + a + "-" + b);
  }
  // A city borders its hinterland (rule 2.3: you must go through the hinterland).
  for (std::size_t i = 0; i < j["areas"].size(); ++i) {
    const Json& a = j["areas"][i];
    if (a["kind"] != "city" || !a.contains("hinterland")) continue;
    std::string c = a["code"], h = a["hinterland"];
    if (h < c) std::swap(c, h);
    if (areas.count(a["hinterland"]) && !edges.count({c, h}))
      err(at("/areas", i, "hinterland"),
          "the city must border its hinterland " + a["hinterland"].get<std::string>());
  }
  if (j.contains("order_of_play")) {
    std::set<std::string> listed;
    for (std::size_t i = 0; i < j["order_of_play"].size(); ++i) {
      const std::string c = j["order_of_play"][i];
      if (!players.count(c)) err(at("/order_of_play", i), "unknown player " + c);
      if (!listed.insert(c).second) err(at("/order_of_play", i), "player " + c + " listed twice");
    }
  }
  victory_checks(j, errors);
  const std::string engine = j["engine"]["name"];
  if (engine == kScriptEngineName) {
    if (!j["engine"].contains("script"))
      err("/engine/script", "a \"lua\" engine needs its script (the Lua source as a string)");
  } else if (j["engine"].contains("script")) {
    err("/engine/script", "only a \"lua\" engine takes a script (this one is \"" + engine + "\")");
  } else if (!find_engine(engine)) {
    std::string names;
    for (const auto* e : all_engines())
      names += (names.empty() ? "" : ", ") + std::string(e->name());
    err("/engine/name",
        "unknown engine \"" + engine + "\" (available: " + names + ", " + kScriptEngineName + ")");
  }
}

GameState build_state(const Json& j, Seed seed) {
  Json s = {
      {"game", j["id"]},
      {"name", j["name"]},
      {"turn", 1},
      {"seed", std::to_string(seed)},
      {"engine",
       {{"name", j["engine"]["name"]}, {"options", j["engine"].value("options", Json::object())}}},
      {"rules", j.value("rules", Json::object())},
      {"players", j["players"]},
      {"areas", j["areas"]},
      {"adjacency", j["adjacency"]},
      {"order_of_play", j.value("order_of_play", Json::array())}};
  for (auto& a : s["areas"]) {
    if (!a.contains("owner")) a["owner"] = nullptr;
    if (a["kind"] != "land" && !a.contains("terrain")) a["terrain"] = a["kind"];
  }
  Json extra = Json::object();
  if (j.contains("description")) extra["description"] = j["description"];
  if (j.contains("victory")) extra["victory"] = j["victory"];  // rules/game/victory.h
  s["scenario_extra"] = extra;
  Result<GameState> st = state_from_json(s);
  assert(st.ok());
  return std::move(st).value();
}

// Engines index the state's players and areas, which are sorted by code; a scenario lists them in
// its own order. Rewrites a leading "/areas/N" or "/players/N" to the scenario's index of the same
// code, so the error points at the right entry of the file. `doc` has normalised codes.
std::string document_path(const std::string& path, const GameState& st, const Json& doc) {
  for (const std::string list : {"areas", "players"}) {
    const std::string prefix = "/" + list + "/";
    if (!path.starts_with(prefix)) continue;
    const std::size_t end = path.find('/', prefix.size());
    const std::string index = path.substr(
        prefix.size(), end == std::string::npos ? std::string::npos : end - prefix.size());
    if (index.empty() || index.find_first_not_of("0123456789") != std::string::npos ||
        index.size() > 6)
      return path;
    const std::size_t i = std::stoul(index);
    const std::string code = list == "areas" ? (i < st.areas.size() ? st.areas[i].code : "")
                                             : (i < st.players.size() ? st.players[i].code : "");
    if (code.empty() || !doc.contains(list) || !doc[list].is_array()) return path;
    for (std::size_t k = 0; k < doc[list].size(); ++k)
      if (doc[list][k].value("code", "") == code)
        return prefix + std::to_string(k) + (end == std::string::npos ? "" : path.substr(end));
    return path;
  }
  return path;
}

}  // namespace

std::vector<ScenarioError> validate_scenario(const Json& scenario) {
  std::vector<ScenarioError> errors = validate_against_schema(scenario, kSchema);
  if (!errors.empty()) return errors;
  const Json j = normalise_codes(scenario);
  semantic_checks(j, errors);
  if (!errors.empty()) return errors;
  Result<RulesConfig> rules = rules_from_json(j.value("rules", Json::object()));
  if (!rules.ok()) return {{"/rules", rules.status().message()}};
  GameState st = build_state(j, 0);
  std::shared_ptr<const CombatEngine> script;
  if (st.engine.name == kScriptEngineName) {
    // Compiled here only to check the game; the caller stores it and names its version.
    auto loaded = load_script_engine(j["engine"]["script"].get<std::string>(), ScriptId{1, ""});
    if (!loaded.ok()) return {{"/engine/script", loaded.status().message()}};
    script = std::move(loaded).value();
  }
  Status engine_ok = (script ? script.get() : find_engine(st.engine.name))->check_game(st);
  if (!engine_ok.ok()) {
    // Engines report "<path>: <message>".
    const std::string& m = engine_ok.message();
    auto colon = m.find(": ");
    if (!m.empty() && m[0] == '/' && colon != std::string::npos)
      errors.push_back({document_path(m.substr(0, colon), st, j), m.substr(colon + 2)});
    else
      errors.push_back({"/engine", m});
  }
  return errors;
}

std::string format_errors(const std::vector<ScenarioError>& errors) {
  std::string out;
  for (const auto& e : errors) out += (out.empty() ? "" : "\n") + e.path + ": " + e.message;
  return out;
}

Result<GameState> state_from_scenario(const Json& scenario, Seed seed) {
  try {
    auto errors = validate_scenario(scenario);
    if (!errors.empty())
      return Status::InvalidArgument("the scenario is not valid:\n" + format_errors(errors));
    const Json j = normalise_codes(scenario);
    if (j.contains("seed")) {
      const Json& s = j["seed"];
      seed = s.is_string() ? std::stoull(s.get<std::string>()) : s.get<std::uint64_t>();
    }
    return build_state(j, seed);
  } catch (const std::exception& e) {
    return Status::InvalidArgument(std::string("the scenario is not valid: ") + e.what());
  }
}

std::vector<std::string> bundled_scenarios() {
  std::vector<std::string> names;
  for (const auto& path : embedded_files(kBundledPrefix)) {
    std::string name = path.substr(std::string(kBundledPrefix).size());
    if (name.size() > 5 && name.ends_with(".json") && name.find('/') == std::string::npos)
      names.push_back(name.substr(0, name.size() - 5));
  }
  return names;
}

Result<Json> bundled_scenario_published(const std::string& name) {
  auto text = embedded_file(std::string(kBundledPrefix) + name + ".json");
  if (!text) return Status::NotFound("no bundled scenario named " + name);
  return Json::parse(*text);
}

Result<Json> bundled_scenario(const std::string& name) {
  Result<Json> doc = bundled_scenario_published(name);
  if (doc.ok() && doc->is_object()) doc->erase("seed");
  return doc;
}

}  // namespace adj
