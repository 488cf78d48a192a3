#include "server/cli/cli.h"

#include <CLI/CLI.hpp>

#include "server/cli/commands.h"

namespace adj::cli {

int run(int argc, char** argv) {
  CLI::App app{
      "Adjutant: a play-by-mail turn adjudication server.\n"
      "Creates games from scenarios, takes order files, resolves turns and writes reports."};
  app.require_subcommand(1);
  app.fallthrough();  // global options such as --db may also follow the subcommand
  Common common;
  if (const char* env = std::getenv("ADJUTANT_DB"); env && *env) common.db = env;
  app.add_option("--db", common.db, "SQLite database file (env ADJUTANT_DB)")
      ->capture_default_str();
  int code = kExitOk;

  // game create | list | show
  auto* game = app.add_subcommand("game", "Create, list and show games")->require_subcommand(1);
  std::string scenario, game_id, file, player, format = "text", engine;
  std::optional<unsigned long long> seed;
  std::optional<int> turn_opt;
  int turn = 0, trials = 0, turns = 2;
  bool json = false, preview = false;
  std::vector<std::string> replay;

  auto* create = game->add_subcommand("create", "Create a game from a scenario JSON file");
  create
      ->add_option("SCENARIO", scenario,
                   "Scenario file, '-' for stdin, or bundled:NAME (see `adjutant scenarios`)")
      ->required();
  create->add_option("--seed", seed, "Game seed (default: the scenario's, else random)");
  create->callback([&] { code = game_create(common, scenario, seed); });

  game->add_subcommand("list", "List the games")->callback([&] { code = game_list(common); });

  auto* show = game->add_subcommand("show", "Show a game's open turn");
  show->add_option("GAME", game_id, "Game id")->required();
  show->add_flag("--json", json, "Machine-readable JSON");
  show->callback([&] { code = game_show(common, game_id, json); });

  // orders submit | check
  auto* orders =
      app.add_subcommand("orders", "Submit or check an order file")->require_subcommand(1);
  for (bool check : {false, true}) {
    auto* sub = orders->add_subcommand(
        check ? "check" : "submit",
        check ? "Validate an order file and print the acknowledgement; store nothing"
              : "Validate and store an order file; print the acknowledgement");
    sub->add_option("GAME", game_id, "Game id")->required();
    sub->add_option("FILE", file, "Order file, or '-' for stdin")->required();
    sub->add_flag("--json", json, "Machine-readable acknowledgement");
    sub->callback([&, check] { code = orders_submit(common, game_id, file, json, check); });
  }

  // turn run | rollback
  auto* turn_cmd =
      app.add_subcommand("turn", "Run, preview or roll back turns")->require_subcommand(1);
  auto* run_cmd = turn_cmd->add_subcommand("run", "Resolve the open turn and write the reports");
  run_cmd->add_option("GAME", game_id, "Game id")->required();
  run_cmd->add_flag("--preview", preview, "Resolve and print, commit nothing");
  run_cmd->callback([&] { code = turn_run(common, game_id, preview); });
  auto* rb = turn_cmd->add_subcommand("rollback",
                                      "Reopen TURN, discarding what it and later turns produced");
  rb->add_option("GAME", game_id, "Game id")->required();
  rb->add_option("TURN", turn, "Turn to reopen")->required()->check(CLI::PositiveNumber);
  rb->callback([&] { code = turn_rollback(common, game_id, turn); });

  // report
  auto* rep = app.add_subcommand("report", "Print a player's report");
  rep->add_option("GAME", game_id, "Game id")->required();
  rep->add_option("PLAYER", player, "Player code")->required();
  rep->add_option("--turn", turn_opt, "Resolved turn (default: the latest)");
  rep->add_option("--format", format, "text or json")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  rep->callback([&] { code = report(common, game_id, player, turn_opt, format); });

  // battle
  auto* bat = app.add_subcommand(
      "battle", "Battle calculator: one battle as JSON in, the outcome as JSON out");
  bat->add_option("--engine", engine, "Combat engine (default: the file's, else dark-age)");
  bat->add_option("FILE", file, "Battle JSON (schemas/battle.schema.json), or '-' for stdin");
  bat->add_option("--trials", trials, "Run N times from derived seeds and print the odds")
      ->check(CLI::Range(1, 1000000));
  bat->add_option("--replay", replay, "Re-run a stored battle: GAME TURN BATTLE")->expected(3);
  bat->callback([&] {
    if (!replay.empty()) {
      try {
        code = battle_replay(common, replay[0], std::stoi(replay[1]), replay[2]);
      } catch (const std::exception&) {
        std::fprintf(stderr, "error: --replay takes GAME TURN BATTLE (TURN a number)\n");
        code = kExitError;
      }
    } else if (file.empty()) {
      std::fprintf(stderr, "error: give a battle FILE (or '-'), or --replay GAME TURN BATTLE\n");
      code = kExitError;
    } else {
      code = battle(engine, file, trials);
    }
  });

  app.add_subcommand("engines", "List the combat engines")->callback([&] { code = engines(); });

  auto* dem = app.add_subcommand(
      "demo",
      "Play the bundled demo game (Dark Age Britain) for a few turns and print the reports");
  dem->add_option("--turns", turns, "Turns to play (1 or 2 have bundled orders)")
      ->check(CLI::Range(1, 20))
      ->capture_default_str();
  dem->callback([&] { code = demo(common, turns); });

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitError;
  }
  return code;
}

}  // namespace adj::cli
