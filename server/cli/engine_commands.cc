// `adjutant engines check|upload|versions`: script engines (server/app/engine_catalog.h).
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <sstream>

#include "schemas/embedded.h"
#include "server/app/admin.h"
#include "server/app/app_runtime.h"
#include "server/app/engine_catalog.h"
#include "server/app/time_text.h"
#include "server/cli/commands.h"

namespace adj::cli {

namespace {

constexpr std::string_view kScriptsDir = "rules/combat/scripts/";
constexpr std::string_view kExamplePrefix = "example:";

// A script's text: a file, stdin for "-", or a shipped example ("example:dark_age"). Refuses
// more than the host's source bound (one byte over is enough to tell).
Result<std::string> read_script(const std::string& where) {
  if (where.rfind(kExamplePrefix, 0) == 0) {
    const std::string name = where.substr(kExamplePrefix.size());
    for (const auto& [n, text] : example_scripts())
      if (n == name) return std::string(text);
    return Status::NotFound("no shipped example \"" + name + "\" (`adjutant engines` lists them)");
  }
  return read_input(where, host_script_limits().source_bytes, " a script may have");
}

}  // namespace

std::vector<std::pair<std::string, std::string_view>> example_scripts() {
  std::vector<std::pair<std::string, std::string_view>> out;
  for (const std::string& path : embedded_files(kScriptsDir)) {
    if (!path.ends_with(".lua")) continue;
    std::string name = path.substr(kScriptsDir.size());
    name.resize(name.size() - 4);
    out.emplace_back(std::move(name), *embedded_file(path));
  }
  return out;
}

int engines_check(const std::string& script) {
  Result<std::string> text = read_script(script);
  // A script refused for what it is (too large) exits 2 as a failed check does; a file that
  // cannot be read is an error (1).
  if (!text.ok())
    return fail(text.status(),
                text.status().code() == StatusCode::kInvalidArgument ? kExitRefused : kExitError);
  Result<ScriptCheck> c = check_script(*text);
  if (!c.ok()) {
    std::printf("%s: does not load: %s\n", script.c_str(), c.status().message().c_str());
    return kExitRefused;
  }
  if (!c->report.empty()) std::printf("%s\n", c->report.c_str());
  std::printf("%s (sha256 %s): %s\n", script.c_str(), c->sha256.c_str(),
              c->passed ? "passes the conformance suite" : "FAILS the conformance suite");
  return c->passed ? kExitOk : kExitRefused;
}

int engines_upload(const Common& c, const std::string& game, const std::string& file) {
  Result<std::string> text = read_script(file);
  if (!text.ok()) return fail(text.status());
  auto app = open_runtime(c);
  if (!app.ok()) return fail(app.status());
  auto id = (*app)->services().stored_game_id(game);
  if (!id.ok()) return fail(id.status());
  GameAdmin& admin = (*app)->admin();
  Result<EngineScript> stored = admin.upload_engine_script(*id, *text, "gm:cli");
  if (!stored.ok()) {
    std::fprintf(stderr, "error: %s\n", stored.status().message().c_str());
    return stored.status().code() == StatusCode::kInvalidArgument ? kExitRefused : kExitError;
  }
  std::printf(
      "Stored %s as version %d of the engine script of %s (sha256 %s); the next turn run "
      "uses it.\n",
      file.c_str(), stored->version, id->c_str(), stored->sha256.c_str());
  return kExitOk;
}

int engines_versions(const Common& c, const std::string& game) {
  auto app = open_runtime(c);
  if (!app.ok()) return fail(app.status());
  auto id = (*app)->services().stored_game_id(game);
  if (!id.ok()) return fail(id.status());
  auto versions = (*app)->services().engine_scripts(*id);
  if (!versions.ok()) return fail(versions.status());
  if (versions->empty()) std::printf("%s has no engine script.\n", id->c_str());
  for (const auto& v : *versions)
    std::printf("version %d  sha256 %s  %s  by %s  from turn %d\n", v.version, v.sha256.c_str(),
                utc_minutes(v.created_at).c_str(), v.created_by.c_str(), v.from_turn);
  return kExitOk;
}

}  // namespace adj::cli
