// `adjutant scenario list | check | preview` (commands.h): scenarios without a database.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "rules/combat/engine_registry.h"
#include "rules/combat/engine_resolver.h"
#include "rules/combat/script_engine.h"
#include "rules/game/scenario.h"
#include "rules/game/scenario_lint.h"
#include "rules/game/vocabulary.h"
#include "server/app/engine_catalog.h"
#include "server/cli/commands.h"
#include "server/render/state_map.h"
#include "server/render/svg_map.h"

namespace adj::cli {

namespace {
namespace scenario_cli {

constexpr const char* kBundledPrefix = "bundled:";

std::string plural(std::size_t n, const char* word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

// "FILE: 1 error, 2 warnings" as the check's last line.
std::string summary_line(const std::string& scenario, std::size_t errors, std::size_t warnings) {
  const std::string name = scenario == "-" ? "stdin" : scenario;
  if (errors == 0 && warnings == 0) return name + ": no errors, no warnings";
  return name + ": " + (errors == 0 ? std::string("no errors") : plural(errors, "error")) + ", " +
         (warnings == 0 ? std::string("no warnings") : plural(warnings, "warning")) +
         (errors > 0 ? " (a game is not created with errors)" : "");
}

// Prints the findings, one a line, on `to`; returns how many are errors.
std::size_t print_findings(std::FILE* to, const std::vector<ScenarioFinding>& findings) {
  std::size_t errors = 0;
  for (const ScenarioFinding& f : findings) {
    if (f.severity == ScenarioFinding::Severity::kError) ++errors;
    std::fprintf(to, "%s %s: %s\n", to_string(f.severity), f.path.empty() ? "/" : f.path.c_str(),
                 f.message.c_str());
  }
  return errors;
}

}  // namespace scenario_cli
}  // namespace

Result<Json> read_scenario_document(const std::string& scenario) {
  using namespace scenario_cli;
  if (scenario.rfind(kBundledPrefix, 0) == 0)
    return bundled_scenario(scenario.substr(std::string(kBundledPrefix).size()));
  Result<std::string> text = read_input(scenario, kMaxInputBytes);
  if (!text.ok()) return text.status();
  Json doc;
  try {
    doc = Json::parse(*text);
  } catch (const Json::parse_error& e) {
    return Status::InvalidArgument((scenario == "-" ? std::string("stdin") : scenario) +
                                   " is not valid JSON: " + e.what());
  }
  // A Lua engine's script may be a file named next to the scenario ("script_file"); the
  // scenario stored with the game carries its text ("script").
  if (Json* e = doc.is_object() && doc.contains("engine") ? &doc["engine"] : nullptr;
      e && e->is_object() && e->contains("script_file") && (*e)["script_file"].is_string()) {
    if (e->contains("script"))
      return Status::InvalidArgument("/engine: give script or script_file, not both");
    const std::filesystem::path base =
        scenario == "-" ? std::filesystem::path() : std::filesystem::path(scenario).parent_path();
    const std::filesystem::path file = base / (*e)["script_file"].get<std::string>();
    Result<std::string> source = read_input(file.string(), host_script_limits().source_bytes);
    if (!source.ok()) return source.status();
    (*e)["script"] = *source;
    e->erase("script_file");
  }
  return doc;
}

int scenario_list(bool json) {
  Json out = Json::array();
  for (const std::string& name : bundled_scenarios()) {
    Result<Json> doc = bundled_scenario(name);
    if (!doc.ok()) return fail(doc.status());
    Json players = Json::array();
    for (const Json& p : (*doc)["players"]) players.push_back(p.value("code", ""));
    out.push_back({{"name", name},
                   {"engine", (*doc)["engine"].value("name", "")},
                   {"game", doc->value("id", "")},
                   {"title", doc->value("name", "")},
                   {"players", players},
                   {"areas", (*doc)["areas"].size()}});
  }
  if (json) {
    std::printf("%s\n", out.dump(2).c_str());
    return kExitOk;
  }
  std::printf("%-24s %-20s %-18s %5s  %s\n", "scenario", "engine", "game id", "areas", "players");
  for (const Json& s : out) {
    std::string players;
    for (const Json& p : s["players"])
      players += (players.empty() ? "" : " ") + p.get<std::string>();
    std::printf("%-24s %-20s %-18s %5zu  %s\n", s["name"].get<std::string>().c_str(),
                s["engine"].get<std::string>().c_str(), s["game"].get<std::string>().c_str(),
                s["areas"].get<std::size_t>(), players.c_str());
  }
  std::printf(
      "\nCreate a game from one: adjutant game create bundled:NAME. Check your own scenario: "
      "adjutant scenario check FILE (docs/scenarios.md).\n");
  return kExitOk;
}

int scenario_words(const std::string& what) {
  if (what.empty()) {
    std::printf("### Every game, whatever its engine\n\n%s",
                vocabulary_markdown(common_vocabulary(RulesConfig{}, true)).c_str());
    for (const CombatEngine* e : all_engines())
      std::printf("\n### `%s`\n\n%s", std::string(e->name()).c_str(),
                  vocabulary_markdown(e->vocabulary(Json::object(), RulesConfig{})).c_str());
    EngineVocabulary script;  // a Lua engine that declares no words reads any
    for (VocabularyList* l : {&script.terrain, &script.features, &script.borders,
                              &script.area_state, &script.player_state})
      l->any = true;
    std::printf("\n### `%s` (unless its script declares its words)\n\n%s", kScriptEngineName,
                vocabulary_markdown(script).c_str());
    return kExitOk;
  }
  if (const CombatEngine* e = find_engine(what)) {
    std::printf("%s", vocabulary_markdown(e->vocabulary(Json::object(), RulesConfig{})).c_str());
    return kExitOk;
  }
  Result<Json> doc = read_scenario_document(what);
  if (!doc.ok())
    return fail(
        Status::NotFound(doc.status().message() + " (and no engine is named " + what + ")"));
  Result<EngineVocabulary> words = scenario_vocabulary(*doc);
  if (!words.ok()) return fail(words.status());
  std::printf("%s", vocabulary_markdown(*words).c_str());
  return kExitOk;
}

int scenario_check(const std::string& scenario, bool json) {
  using namespace scenario_cli;
  Result<Json> doc = read_scenario_document(scenario);
  if (!doc.ok()) return fail(doc.status());
  const std::vector<ScenarioFinding> findings = lint_scenario(*doc);
  std::size_t errors = 0;
  if (json) {
    Json out = {{"errors", Json::array()}, {"warnings", Json::array()}};
    for (const ScenarioFinding& f : findings) {
      const bool error = f.severity == ScenarioFinding::Severity::kError;
      errors += error ? 1 : 0;
      out[error ? "errors" : "warnings"].push_back({{"path", f.path}, {"message", f.message}});
    }
    std::printf("%s\n", out.dump(2).c_str());
  } else {
    errors = print_findings(stdout, findings);
    std::printf("%s\n", summary_line(scenario, errors, findings.size() - errors).c_str());
  }
  return errors == 0 ? kExitOk : kExitError;
}

int scenario_preview(const std::string& scenario, const std::string& svg_out,
                     const std::string& png_out) {
  using namespace scenario_cli;
  Result<Json> doc = read_scenario_document(scenario);
  if (!doc.ok()) return fail(doc.status());
  const std::vector<ScenarioFinding> findings = lint_scenario(*doc);
  const std::size_t errors = print_findings(stderr, findings);
  Result<GameState> st = state_from_scenario(*doc, 0);
  if (!st.ok()) {
    std::fprintf(stderr, "%s\n", summary_line(scenario, errors, findings.size() - errors).c_str());
    return fail(Status::InvalidArgument("the map cannot be drawn: the scenario is not valid"));
  }
  const Json state = render::drawable_state(to_json(*st));
  std::string bytes;
  if (!svg_out.empty()) {
    bytes = render::render_svg_map(render::map_model_from_state(state));
  } else {
    Result<std::string> png = render::state_map_png(state, render::PngLimits{}, 0);
    if (!png.ok()) return fail(png.status());
    bytes = std::move(png).value();
  }
  const std::string& out = svg_out.empty() ? png_out : svg_out;
  if (Status w = write_output(out, bytes); !w.ok()) return fail(w);
  if (!findings.empty())
    std::fprintf(stderr, "%s\n", summary_line(scenario, errors, findings.size() - errors).c_str());
  std::printf("Wrote %s (%s, %zu bytes): %zu areas%s.\n", out.c_str(),
              svg_out.empty() ? "PNG" : "SVG", bytes.size(), st->areas.size(),
              std::all_of(st->areas.begin(), st->areas.end(),
                          [](const Area& a) { return (a.x && a.y) || a.outline.is_array(); })
                  ? ""
                  : ", placed automatically (not every area has x and y)");
  return kExitOk;
}

}  // namespace adj::cli
