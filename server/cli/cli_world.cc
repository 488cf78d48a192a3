#include "rules/world/world_generator.h"
#include "server/cli/cli_state.h"

namespace adj::cli {

void add_world_commands(CLI::App& app, CliState& s) {
  auto* world = app.add_subcommand("world", "Generate worlds for any number of players")
                    ->require_subcommand(1);
  auto* gen = world->add_subcommand(
      "generate",
      "Print a generated scenario for `game create` (fair starts; the same seed gives the same "
      "world); its fairness figures go to standard error");
  WorldCommand& w = s.world.cmd;
  gen->add_option("--engine", w.engine,
                  "dark-age, path-of-war, crt, virtuti-militari or exalted-mass-combat")
      ->capture_default_str();
  gen->add_option("--players", w.players, "Number of players, 2 to 500")->capture_default_str();
  gen->add_option("--areas-per-player", w.areas_per_player, "Home land areas per player, 2 to 12")
      ->capture_default_str();
  gen->add_option("--seed", w.seed,
                  "Seed (default: random, printed so the world can be made again)");
  gen->add_flag("--seas", w.seas,
                "A ring of seas around the land (default for dark-age and "
                "virtuti-militari)");
  gen->add_flag("--no-seas", w.no_seas, "No seas, whatever the engine's default");
  gen->add_option("--name", w.name, "The game's name (default: \"<engine> world for N players\")");
  gen->add_option("--id", w.id, "The game id (default: <engine>-<N>p-<seed>)");
  gen->add_option("-o,--out", w.out, "Write the scenario to this file instead of standard output");
  gen->add_flag("--fairness-json", w.fairness_json,
                "Print the fairness figures as JSON on standard output instead of the scenario");
  gen->callback([&s] { s.code = world_generate(s.world.cmd); });
}

}  // namespace adj::cli
