#include "rules/game/scenario_lint.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "base/ascii.h"
#include "rules/combat/engine_registry.h"
#include "rules/combat/engine_resolver.h"
#include "rules/combat/script_engine.h"
#include "rules/game/vocabulary.h"

namespace adj {

namespace {
namespace lint_local {

using Severity = ScenarioFinding::Severity;
using Findings = std::vector<ScenarioFinding>;

// A JSON pointer token: "~" and "/" escaped (RFC 6901).
std::string pointer_token(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return s;
}

// Edit distance of two short words (insertions, deletions, substitutions).
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

// The listed word `word` was probably meant as: the same word in another case, else the closest
// word at most two edits away; "" when none.
std::string nearest_word(const std::string& word, const VocabularyList& list) {
  std::string best;
  std::size_t best_d = 3;
  for (const VocabularyWord& w : list.words) {
    if (lower(w.word) == lower(word)) return w.word;
    if (word.size() > 64) continue;
    const std::size_t d = edit_distance(lower(word), lower(w.word));
    if (d < best_d) {
      best_d = d;
      best = w.word;
    }
  }
  return best;
}

// "unknown terrain "forrest" (did you mean "forest"?); under dark-age the terrain words are: ...;
// the map also draws ... (no effect on play)".
std::string unknown_word(const char* what, const std::string& word, const VocabularyList& list,
                         const std::string& engine) {
  std::string m = std::string("unknown ") + what + " \"" + word + "\"";
  if (const std::string near = nearest_word(word, list); !near.empty())
    m += " (did you mean \"" + near + "\"?)";
  std::string played, drawn;
  for (const VocabularyWord& w : list.words) {
    std::string& to = w.effect.starts_with("no effect on play") ? drawn : played;
    to += (to.empty() ? "" : ", ") + w.word;
  }
  m += "; under " + engine + " the " + what + " words are: " + (played.empty() ? "none" : played);
  if (!drawn.empty()) m += "; the map also draws " + drawn + " (no effect on play)";
  return m + " (docs/scenarios.md lists what each does)";
}

// The game's engine: a built-in one, or the scenario's Lua script compiled here. REQUIRES: the
// scenario passed validate_scenario.
Result<EngineHandle> engine_of(const Json& j) {
  const std::string name = j["engine"]["name"];
  if (name != kScriptEngineName) {
    const CombatEngine* e = find_engine(name);
    if (!e) return Status::InvalidArgument("unknown engine " + name);
    return builtin_handle(e);
  }
  return load_script_engine(j["engine"]["script"].get<std::string>(), ScriptId{1, ""});
}

// game_vocabulary of the scenario's engine, options and rules. REQUIRES: the scenario passed
// validate_scenario. Errors name the path ("/engine: ...", "/rules: ...").
Result<EngineVocabulary> vocabulary_of(const Json& j) {
  Result<EngineHandle> engine = engine_of(j);
  if (!engine.ok()) return Status::InvalidArgument("/engine: " + engine.status().message());
  Result<RulesConfig> rules = rules_from_json(j.value("rules", Json::object()));
  if (!rules.ok()) return Status::InvalidArgument(rules.status().message());
  return game_vocabulary(**engine, j["engine"].value("options", Json::object()), *rules);
}

// The terrain words, feature keys and border flags that no part of the game reads.
void word_errors(const Json& j, Findings& out) {
  Result<EngineVocabulary> known = vocabulary_of(j);
  if (!known.ok()) {
    const std::string& m = known.status().message();
    const std::size_t colon = m.find(": ");
    out.push_back({Severity::kError, colon == std::string::npos ? "" : m.substr(0, colon),
                   colon == std::string::npos ? m : m.substr(colon + 2)});
    return;
  }
  const std::string name = j["engine"]["name"];
  const EngineVocabulary& v = *known;
  const Json& areas = j["areas"];
  for (std::size_t i = 0; i < areas.size(); ++i) {
    const Json& a = areas[i];
    const std::string at = "/areas/" + std::to_string(i);
    if (a.contains("terrain") && a["terrain"].is_string() && !v.terrain.any &&
        !v.terrain.find(a["terrain"].get<std::string>()))
      out.push_back({Severity::kError, at + "/terrain",
                     unknown_word("terrain", a["terrain"], v.terrain, name)});
    if (a.contains("features") && a["features"].is_object() && !v.features.any)
      for (const auto& [key, value] : a["features"].items())
        if (!v.features.find(key))
          out.push_back({Severity::kError, at + "/features/" + pointer_token(key),
                         unknown_word("feature", key, v.features, name)});
  }
  const Json& edges = j["adjacency"];
  for (std::size_t i = 0; i < edges.size(); ++i)
    if (edges[i].size() > 2 && edges[i][2].is_object() && !v.borders.any)
      for (const auto& [key, value] : edges[i][2].items())
        if (!v.borders.find(key))
          out.push_back({Severity::kError,
                         "/adjacency/" + std::to_string(i) + "/2/" + pointer_token(key),
                         unknown_word("border", key, v.borders, name)});
}

std::string code_at(const Json& item) { return ascii::upper(item["code"].get<std::string>()); }

// A disjoint-set forest over area indices.
struct Components {
  std::vector<std::size_t> parent;
  explicit Components(std::size_t n) : parent(n) {
    for (std::size_t i = 0; i < n; ++i) parent[i] = i;
  }
  std::size_t root(std::size_t i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
  }
  void unite(std::size_t a, std::size_t b) { parent[root(a)] = root(b); }
};

// Cities that border a land area or a city other than their hinterland.
void city_warnings(const Json& j, Findings& out) {
  const Json& areas = j["areas"];
  std::map<std::string, const Json*> by_code;
  for (const Json& a : areas) by_code.emplace(code_at(a), &a);
  const Json& edges = j["adjacency"];
  for (std::size_t i = 0; i < edges.size(); ++i) {
    const std::string x = ascii::upper(edges[i][0].get<std::string>());
    const std::string y = ascii::upper(edges[i][1].get<std::string>());
    for (const auto& [city, other] : {std::pair(x, y), std::pair(y, x)}) {
      auto c = by_code.find(city);
      auto o = by_code.find(other);
      if (c == by_code.end() || o == by_code.end() || c->second->value("kind", "") != "city" ||
          o->second->value("kind", "") == "sea")
        continue;
      const std::string hinterland = ascii::upper(c->second->value("hinterland", ""));
      if (other == hinterland) continue;
      out.push_back({Severity::kWarning, "/adjacency/" + std::to_string(i),
                     "the city " + city + " borders " + other + " besides its hinterland " +
                         hinterland +
                         ": a city is reached only through its hinterland (Dark Age rule 2.3; "
                         "a sea may border it too)"});
    }
  }
}

// Areas with no borders, players with no areas, players that reach no other player.
void graph_warnings(const Json& j, Findings& out) {
  const Json& areas = j["areas"];
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < areas.size(); ++i) index.emplace(code_at(areas[i]), i);
  Components parts(areas.size());
  std::vector<bool> bordered(areas.size(), false);
  for (const Json& e : j["adjacency"]) {
    auto a = index.find(ascii::upper(e[0].get<std::string>()));
    auto b = index.find(ascii::upper(e[1].get<std::string>()));
    if (a == index.end() || b == index.end()) continue;
    bordered[a->second] = bordered[b->second] = true;
    parts.unite(a->second, b->second);
  }
  for (std::size_t i = 0; i < areas.size(); ++i)
    if (!bordered[i])
      out.push_back({Severity::kWarning, "/areas/" + std::to_string(i),
                     code_at(areas[i]) +
                         " has no borders: no army can enter or leave it (list its neighbours "
                         "in adjacency)"});
  // The components each player's areas lie in.
  std::map<std::string, std::set<std::size_t>> reach;
  for (std::size_t i = 0; i < areas.size(); ++i)
    if (areas[i].contains("owner") && areas[i]["owner"].is_string())
      reach[ascii::upper(areas[i]["owner"].get<std::string>())].insert(parts.root(i));
  const Json& players = j["players"];
  for (std::size_t i = 0; i < players.size(); ++i) {
    const std::string code = code_at(players[i]);
    const std::string at = "/players/" + std::to_string(i);
    auto mine = reach.find(code);
    if (mine == reach.end()) {
      out.push_back({Severity::kWarning, at,
                     code +
                         " holds no area: the player has nothing to give orders to (give it an "
                         "area with \"owner\": \"" +
                         code + "\")"});
      continue;
    }
    if (reach.size() < 2) continue;
    bool linked = false;
    for (const auto& [other, roots] : reach)
      if (other != code)
        for (std::size_t r : roots) linked = linked || mine->second.count(r) > 0;
    if (!linked)
      out.push_back({Severity::kWarning, at,
                     code + " cannot reach another player: no chain of borders (over land or "
                            "sea) leads from its areas to another player's"});
  }
}

std::string number_text(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%g", v);
  return b;
}

// Areas without x and y, and areas at (nearly) the same place.
void layout_warnings(const Json& j, Findings& out) {
  const Json& areas = j["areas"];
  struct Placed {
    std::size_t i;
    double x, y;
  };
  std::vector<Placed> placed;
  std::vector<std::size_t> missing;
  for (std::size_t i = 0; i < areas.size(); ++i) {
    const Json& a = areas[i];
    const bool xy = a.contains("x") && a["x"].is_number() && a.contains("y") && a["y"].is_number();
    const bool outline =
        a.contains("outline") && a["outline"].is_array() && a["outline"].size() >= 3;
    if (xy)
      placed.push_back({i, a["x"].get<double>(), a["y"].get<double>()});
    else if (!outline)
      missing.push_back(i);
  }
  if (!missing.empty()) {
    std::string codes;
    for (std::size_t k = 0; k < missing.size() && k < 5; ++k)
      codes += (k ? ", " : "") + code_at(areas[missing[k]]);
    if (missing.size() > 5) codes += ", ...";
    out.push_back(
        {Severity::kWarning,
         missing.size() == areas.size() ? "/areas" : "/areas/" + std::to_string(missing.front()),
         missing.size() == areas.size()
             ? "no area has x and y: the layout is automatic (the map places the areas itself); "
               "give every area x and y to draw your own"
             : std::to_string(missing.size()) + " of " + std::to_string(areas.size()) +
                   " areas have no x and y (" + codes +
                   "): the layout is automatic (the map ignores every x and y and places the "
                   "areas itself); give every area x and y"});
  }
  if (placed.size() < 2) return;
  double minx = INFINITY, maxx = -INFINITY, miny = INFINITY, maxy = -INFINITY;
  for (const Placed& p : placed) {
    minx = std::min(minx, p.x);
    maxx = std::max(maxx, p.x);
    miny = std::min(miny, p.y);
    maxy = std::max(maxy, p.y);
  }
  // The typical distance between neighbours: the side of each area's share of the bounding box
  // (for areas spread over a plane), or the diagonal over the count (for areas along a line).
  const double n = static_cast<double>(placed.size());
  const double spacing = std::max(std::sqrt((maxx - minx) * (maxy - miny) / n),
                                  std::hypot(maxx - minx, maxy - miny) / n);
  if (!std::isfinite(spacing)) return;
  const double near = 0.1 * spacing;
  const double cell = near > 0 ? near : 1;
  // Areas by grid cell: a pair within `near` lies in the same or a neighbouring cell.
  std::map<std::pair<long long, long long>, std::vector<std::size_t>> grid;
  auto cell_of = [&](double v, double lo) { return static_cast<long long>((v - lo) / cell); };
  auto own_city = [&](const Json& a, const Json& b) {
    return a.value("kind", "") == "city" && a.contains("hinterland") &&
           ascii::upper(a["hinterland"].get<std::string>()) == code_at(b);
  };
  for (std::size_t k = 0; k < placed.size(); ++k) {
    const Placed& p = placed[k];
    const long long cx = cell_of(p.x, minx), cy = cell_of(p.y, miny);
    std::optional<std::size_t> hit;
    for (long long dx = -1; dx <= 1 && !hit; ++dx)
      for (long long dy = -1; dy <= 1 && !hit; ++dy) {
        auto it = grid.find({cx + dx, cy + dy});
        if (it == grid.end()) continue;
        for (std::size_t other : it->second) {
          const Placed& q = placed[other];
          const Json& a = areas[p.i];
          const Json& b = areas[q.i];
          if (std::hypot(p.x - q.x, p.y - q.y) > near || own_city(a, b) || own_city(b, a)) continue;
          hit = other;
          break;
        }
      }
    grid[{cx, cy}].push_back(k);
    if (!hit) continue;
    const Placed& q = placed[*hit];
    const bool same = p.x == q.x && p.y == q.y;
    out.push_back(
        {Severity::kWarning, "/areas/" + std::to_string(p.i),
         code_at(areas[p.i]) +
             (same ? " is at the same place as " : " is almost at the place of ") +
             code_at(areas[q.i]) + " (" + number_text(q.x) + ", " + number_text(q.y) +
             (same ? ""
                   : "; " + number_text(std::hypot(p.x - q.x, p.y - q.y)) +
                         " apart, where neighbours are about " + number_text(spacing) + " apart") +
             "): the map draws them on top of each other; move one of them"});
  }
}

std::vector<ScenarioError> as_errors(const Findings& findings) {
  std::vector<ScenarioError> out;
  for (const ScenarioFinding& f : findings)
    if (f.severity == Severity::kError) out.push_back({f.path, f.message});
  return out;
}

}  // namespace lint_local
}  // namespace

const char* to_string(ScenarioFinding::Severity severity) {
  return severity == ScenarioFinding::Severity::kError ? "error" : "warning";
}

std::vector<ScenarioFinding> lint_scenario(const Json& scenario) {
  using namespace lint_local;
  Findings out;
  try {
    for (ScenarioError& e : validate_scenario(scenario))
      out.push_back({Severity::kError, std::move(e.path), std::move(e.message)});
    if (!out.empty()) return out;
    word_errors(scenario, out);
    graph_warnings(scenario, out);
    city_warnings(scenario, out);
    layout_warnings(scenario, out);
  } catch (const std::exception& e) {
    out.push_back({Severity::kError, "", std::string("the scenario cannot be read: ") + e.what()});
  }
  std::stable_partition(out.begin(), out.end(),
                        [](const ScenarioFinding& f) { return f.severity == Severity::kError; });
  return out;
}

Result<EngineVocabulary> scenario_vocabulary(const Json& scenario) {
  try {
    if (const std::vector<ScenarioError> errors = validate_scenario(scenario); !errors.empty())
      return Status::InvalidArgument("the scenario is not valid:\n" + format_errors(errors));
    return lint_local::vocabulary_of(scenario);
  } catch (const std::exception& e) {
    return Status::InvalidArgument(std::string("the scenario cannot be read: ") + e.what());
  }
}

std::vector<ScenarioError> scenario_errors(const Json& scenario) {
  using namespace lint_local;
  std::vector<ScenarioError> errors = validate_scenario(scenario);
  if (!errors.empty()) return errors;
  Findings out;
  try {
    word_errors(scenario, out);
  } catch (const std::exception& e) {
    return {{"", std::string("the scenario cannot be read: ") + e.what()}};
  }
  return as_errors(out);
}

}  // namespace adj
