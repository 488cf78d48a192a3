// `adjutant demo`: the README's main job on the embedded default. Creates the bundled Dark Age
// Britain game under the README's id (britain-1), or a fresh one when that is taken, submits the
// bundled orders turn by turn, runs the turns and prints every report.
#include <cstdio>
#include <ctime>

#include "rules/game/scenario.h"
#include "schemas/embedded.h"
#include "server/app/app_runtime.h"
#include "server/app/services.h"
#include "server/cli/commands.h"
#include "storage/open_database.h"

namespace adj::cli {

namespace {

constexpr const char* kScenario = "dark-age-britain";

std::string replace_game(std::string text, const std::string& from, const std::string& to) {
  const std::string needle = "GAME " + from;
  for (std::size_t pos = 0; (pos = text.find(needle, pos)) != std::string::npos;)
    text.replace(pos, needle.size(), "GAME " + to), pos += to.size();
  const std::string lower = "game " + from;
  for (std::size_t pos = 0; (pos = text.find(lower, pos)) != std::string::npos;)
    text.replace(pos, lower.size(), "game " + to), pos += to.size();
  return text;
}

}  // namespace

int demo_game(const Common& c, int turns, bool print, std::string* game_id) {
  auto app = open_runtime(c);
  if (!app.ok()) {
    std::fprintf(stderr, "error: %s\n", app.status().message().c_str());
    return kExitError;
  }
  Services& svc = (*app)->services();
  Json scenario = bundled_scenario_published(kScenario).value();  // the demo's dice are known
  const std::string base = scenario["id"];
  // The README's id (britain-1) when it is free, so the README's commands work on the demo
  // game; otherwise a fresh one, so the demo never disturbs an existing game.
  std::string id = base;
  auto games = svc.list_games();
  if (!games.ok())
    return std::fprintf(stderr, "error: %s\n", games.status().message().c_str()), kExitError;
  for (int n = 2;; ++n) {
    bool taken = false;
    for (const auto& g : *games) taken = taken || g.id == id;
    if (!taken) break;
    id = base + "-demo-" + std::to_string(n);
  }
  scenario["id"] = id;
  auto created = svc.create_game(scenario, 0);
  if (!created.ok())
    return std::fprintf(stderr, "error: %s\n", created.status().message().c_str()), kExitError;
  if (game_id) *game_id = id;
  if (print)
    std::printf(
        "Created game %s (%s) from the bundled scenario %s.\n"
        "It is a demo: its players keep the secrets published in docs/scenarios.md, so its "
        "worked order files work. Never use those for a real game.\n\n",
        id.c_str(), created->name.c_str(), kScenario);

  for (int turn = 1; turn <= turns; ++turn) {
    const std::string prefix =
        "schemas/scenarios/" + std::string(kScenario) + "/turn" + std::to_string(turn) + "-";
    for (const auto& path : embedded_files(prefix)) {
      std::string text = replace_game(std::string(*embedded_file(path)), base, id);
      auto out = svc.submit_orders(id, text, "demo");
      if (!out.ok())
        return std::fprintf(stderr, "error: %s\n", out.status().message().c_str()), kExitError;
      if (print)
        std::printf("---- Orders %s: %d accepted, %d rejected%s\n",
                    path.substr(prefix.size()).c_str(), out->ack.accepted_count(),
                    out->ack.rejected_count(),
                    out->ack.refused ? (" (refused: " + out->ack.refusal + ")").c_str() : "");
    }
    auto run = svc.run_turn(id, false);
    if (!run.ok())
      return std::fprintf(stderr, "error: %s\n", run.status().message().c_str()), kExitError;
    if (!print) continue;
    std::printf("\n#### Turn %d resolved: %zu actions, %zu battles (digest %s)\n", turn,
                run->result.actions.size(), run->result.battles.size(), run->digest.c_str());
    for (const auto& r : run->reports)
      std::printf("\n==================== %s, turn %d ====================\n%s", r.player.c_str(),
                  turn, run->full_text(r).c_str());
  }
  return kExitOk;
}

int demo(const Common& c, int turns) {
  std::string id;
  if (const int rc = demo_game(c, turns, true, &id); rc != kExitOk) return rc;
  const std::string db = describe_database(c.db);  // never a password
  std::printf("\nDatabase: %s (game %s)\n", db.c_str(), id.c_str());
  std::printf("Try: build/adjutant --db %s game show %s\n", db.c_str(), id.c_str());
  std::printf("     build/adjutant --db %s report %s WSX --turn 1\n", db.c_str(), id.c_str());
  return kExitOk;
}

}  // namespace adj::cli
