// The command line's parse state and the registration of its commands, one file per group of
// commands (cli.cc: the global options and run(); cli_game.cc: games, players, attendance,
// sign-ups, press; cli_play.cc: orders, turns, reports, battles, engines, the demo; cli_serve.cc:
// the daemon; cli_mail.cc: mail, backup, copy; cli_scenario.cc: scenarios without a database).
// Internal to server/cli: the one place CLI11 is included.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "server/cli/commands.h"

namespace adj::cli {

// What CLI11 writes into while it parses, and the exit code the chosen command returns. Lives in
// run() until the command has run: every option is bound to a member.
struct CliState {
  Common common;
  int code = kExitOk;
  // Values several commands share.
  std::string scenario, game_id, file, player, format = "text", engine;
  std::optional<unsigned long long> seed;
  std::optional<int> turn_opt;
  int turn = 0, trials = 0, turns = 2;
  bool json = false, preview = false;
  std::vector<std::string> replay;
  std::string gm_reason;  // turn rollback, player replace: --reason
  struct {                // cli_game.cc
    bool demo_secrets = false;
    std::string create_id, create_name;
    bool signup = false;
    std::string reset_what = "both";
    std::string att_options;
    std::string standby_address;
    std::string member_email, member_name, member_base_url;
    MailMaps member_maps;  // of the secrets mailed by signup start and player replace
    std::int64_t signup_number = 0;
    std::string press_level, press_gm_reads;
    bool yes = false;  // game delete --yes
  } setup;
  struct {  // cli_play.cc
    std::string enter_player;
    bool timings = false;
    std::optional<int> run_turn_number;
    std::string script;
  } play;
  struct {  // cli_serve.cc
    ServeOptions so;
    std::int64_t press_digest_minutes = 0;
    double session_idle_days = 0, session_max_days = 0;
    std::size_t press_digest_kib = 0;
  } daemon;
  struct {  // cli_scenario.cc: scenario preview's output file (one of them)
    std::string svg, png;
  } preview_out;
  struct {  // cli_mail.cc
    MailOptions mail_opts;
    IngestOptions io;
    std::string inbox_state;
    int inbox_limit = 50;
    bool inbox_json = false;
    int keep_days = 30;
    int outbox_limit = 50;
    OutboxSendOptions oso;
    std::string backup_to;
    std::string copy_from, copy_to;
  } mail;
  struct {  // cli_world.cc
    WorldCommand cmd;
  } world;
};

// Each adds its group's subcommands to `app`, bound to `s` (which must outlive the parse).
// game create | list | show | delete | archive | unarchive, player ..., attendance ..., signup
// ..., press ...
void add_game_commands(CLI::App& app, CliState& s);
// orders ..., turn ..., report, standings, battle, engines ..., demo
void add_play_commands(CLI::App& app, CliState& s);
// serve
void add_serve_command(CLI::App& app, CliState& s);
// ingest, inbox ..., outbox ..., backup, copy
void add_mail_commands(CLI::App& app, CliState& s);
// scenario list | check | preview | words (cli_scenario.cc)
void add_scenario_commands(CLI::App& app, CliState& s);

// world generate
void add_world_commands(CLI::App& app, CliState& s);

// The guessing limiter's flags (server/app/auth_throttle.h), on `serve` and `ingest`.
void add_auth_options(CLI::App* cmd, ThrottleConfig& t);
// --mail-maps and --mail-map-style, as serve's, for the maps of the mail `cmd` queues (`what`).
void add_mail_map_options(CLI::App* cmd, MailMaps& m, const std::string& what);

}  // namespace adj::cli
