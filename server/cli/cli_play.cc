#include "server/cli/cli_state.h"

#include <cstdio>

namespace adj::cli {

void add_play_commands(CLI::App& app, CliState& s) {
  // orders submit | check
  auto* orders =
      app.add_subcommand("orders", "Submit or check an order file")->require_subcommand(1);
  for (bool check : {false, true}) {
    auto* sub = orders->add_subcommand(
        check ? "check" : "submit",
        check ? "Validate an order file and print the acknowledgement; store nothing"
              : "Validate and store an order file; print the acknowledgement");
    sub->add_option("GAME", s.game_id, "Game id")->required();
    sub->add_option("FILE", s.file, "Order file, or '-' for stdin")->required();
    sub->add_flag("--json", s.json, "Machine-readable acknowledgement");
    sub->callback(
        [&s, check] { s.code = orders_submit(s.common, s.game_id, s.file, s.json, check); });
  }
  auto* enter = orders->add_subcommand(
      "enter", "The GM enters or replaces a player's orders (audited; the player is told)");
  enter->add_option("GAME", s.game_id, "Game id")->required();
  enter->add_option("PLAYER", s.play.enter_player, "Player code")->required();
  enter->add_option("FILE", s.file, "Order lines without a PLAYER line, or '-' for stdin")
      ->required();
  enter->add_flag("--json", s.json, "Machine-readable acknowledgement");
  enter->callback(
      [&s] { s.code = orders_enter(s.common, s.game_id, s.play.enter_player, s.file, s.json); });

  // s.turn run | rollback
  auto* turn_cmd =
      app.add_subcommand("turn", "Run, preview or roll back turns")->require_subcommand(1);
  auto* run_cmd = turn_cmd->add_subcommand("run", "Resolve the open turn and write the reports");
  run_cmd->add_option("GAME", s.game_id, "Game id")->required();
  run_cmd->add_flag("--preview", s.preview, "Resolve and print, commit nothing");
  run_cmd->add_flag("--timings", s.play.timings,
                    "Print the wall time of each phase (load, orders, resolve, reports, commit)");
  run_cmd
      ->add_option("--turn", s.play.run_turn_number,
                   "The turn you mean to run: refused unless it is the open turn (as the API's "
                   "expected turn), so a repeated command never runs the next one")
      ->check(CLI::PositiveNumber);
  run_cmd->callback([&s] {
    s.code = turn_run(s.common, s.game_id, s.preview, s.play.timings, s.play.run_turn_number);
  });
  auto* rb = turn_cmd->add_subcommand("rollback",
                                      "Reopen TURN, discarding what it and later turns produced");
  rb->add_option("GAME", s.game_id, "Game id")->required();
  rb->add_option("TURN", s.turn, "Turn to reopen")->required()->check(CLI::PositiveNumber);
  rb->add_option("--reason", s.gm_reason,
                 "Why, quoted in the notice every player gets (one line, at most 500 characters)");
  rb->callback([&s] { s.code = turn_rollback(s.common, s.game_id, s.turn, s.gm_reason); });

  // report
  auto* rep = app.add_subcommand("report", "Print a player's report");
  rep->add_option("GAME", s.game_id, "Game id")->required();
  rep->add_option("PLAYER", s.player, "Player code")->required();
  rep->add_option("--turn", s.turn_opt, "Resolved turn (default: the latest)");
  rep->add_option("--format", s.format, "text or json")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  rep->callback([&s] { s.code = report(s.common, s.game_id, s.player, s.turn_opt, s.format); });

  auto* stand = app.add_subcommand("standings", "Print a game's standings (final when it is over)");
  stand->add_option("GAME", s.game_id, "Game id")->required();
  stand->add_flag("--json", s.json, "JSON instead of text");
  stand->callback([&s] { s.code = standings(s.common, s.game_id, s.json); });

  // battle
  auto* bat = app.add_subcommand(
      "battle", "Battle calculator: one battle as JSON in, the outcome as JSON out");
  bat->add_option("--engine", s.engine, "Combat engine (default: the file's, else dark-age)");
  bat->add_option("FILE", s.file, "Battle JSON (schemas/battle.schema.json), or '-' for stdin");
  bat->add_option("--trials", s.trials, "Run N times from derived seeds and print the odds")
      ->check(CLI::Range(1, 1000000));
  bat->add_option("--replay", s.replay, "Re-run a stored battle: GAME TURN BATTLE")->expected(3);
  bat->callback([&s] {
    if (!s.replay.empty()) {
      try {
        s.code = battle_replay(s.common, s.replay[0], std::stoi(s.replay[1]), s.replay[2]);
      } catch (const std::exception&) {
        std::fprintf(stderr, "error: --replay takes GAME TURN BATTLE (TURN a number)\n");
        s.code = kExitError;
      }
    } else if (s.file.empty()) {
      std::fprintf(stderr, "error: give a battle FILE (or '-'), or --replay GAME TURN BATTLE\n");
      s.code = kExitError;
    } else {
      s.code = battle(s.engine, s.file, s.trials);
    }
  });

  auto* eng = app.add_subcommand("engines", "List the combat engines (and check Lua scripts)");
  eng->require_subcommand(0, 1);
  auto* eng_check = eng->add_subcommand(
      "check", "Run the conformance suite on a Lua engine script (exit 0 when it passes)");
  eng_check->add_option("SCRIPT", s.play.script, "Lua file, '-' for stdin, or example:NAME")
      ->required();
  eng_check->callback([&s] { s.code = engines_check(s.play.script); });
  auto* eng_up = eng->add_subcommand(
      "upload", "Store a Lua file as the next version of a Lua game's engine script");
  eng_up->add_option("GAME", s.game_id, "Game id")->required();
  eng_up->add_option("SCRIPT", s.play.script, "Lua file, '-' for stdin, or example:NAME")
      ->required();
  eng_up->callback([&s] { s.code = engines_upload(s.common, s.game_id, s.play.script); });
  auto* eng_versions =
      eng->add_subcommand("versions", "List the stored versions of a Lua game's engine script");
  eng_versions->add_option("GAME", s.game_id, "Game id")->required();
  eng_versions->callback([&s] { s.code = engines_versions(s.common, s.game_id); });
  eng->callback([&s, eng] {
    if (eng->get_subcommands().empty()) s.code = engines();
  });

  auto* dem = app.add_subcommand(
      "demo",
      "Play the bundled demo game (Dark Age Britain) for a few turns and print the reports");
  dem->add_option("--turns", s.turns, "Turns to play (1 or 2 have bundled orders)")
      ->check(CLI::Range(1, 20))
      ->capture_default_str();
  dem->callback([&s] { s.code = demo(s.common, s.turns); });
}

}  // namespace adj::cli
