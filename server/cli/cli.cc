#include "server/cli/cli.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>

#include "base/client_address.h"
#include "server/app/secrets.h"
#include "server/cli/commands.h"
#include "storage/open_database.h"

namespace adj::cli {

namespace {

// The guessing limiter's flags (server/app/auth_throttle.h), on `serve` and `ingest`.
void add_auth_options(CLI::App* cmd, ThrottleConfig& t) {
  cmd->add_option("--auth-max-failures", t.max_failures,
                  "Failed secret or token checks (per client address, per player, for the GM "
                  "token) within --auth-window before a lockout")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--auth-window", t.window_seconds,
                  "Seconds in which --auth-max-failures failures lock a key")
      ->capture_default_str()
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{86400} * 365));
  cmd->add_option("--auth-first-lock", t.first_lock_seconds,
                  "Seconds of the first lockout; each further one doubles")
      ->capture_default_str()
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{86400} * 365));
  cmd->add_option("--auth-max-lock", t.max_lock_seconds, "Longest lockout, seconds")
      ->capture_default_str()
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{86400} * 365));
  cmd->add_option("--auth-quiet", t.quiet_seconds,
                  "Seconds without a failure after which a key starts afresh")
      ->capture_default_str()
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{86400} * 365));
  cmd->add_option("--auth-max-keys", t.max_keys,
                  "Keys tracked per class (client addresses; accounts); the least recently "
                  "failed unlocked key is dropped beyond it")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{16}, std::size_t{100000000}));
  cmd->add_flag("--auth-off{false}", t.enabled,
                "No guessing limits (testing only; every failed check still counts in /metrics)");
}

}  // namespace

int run(int argc, char** argv) {
  CLI::App app{
      "Adjutant: a play-by-mail turn adjudication server.\n"
      "Creates games from scenarios, takes order files, resolves turns and writes reports."};
  app.require_subcommand(1);
  app.fallthrough();  // global options such as --db may also follow the subcommand
  Common common;
  if (const char* env = std::getenv("ADJUTANT_DB"); env && *env) common.db = env;
  app.add_option("--db", common.db,
                 "Database: a SQLite file PATH (or sqlite:PATH; the default, created when "
                 "missing) or a PostgreSQL URL postgresql://USER@HOST:PORT/DBNAME (password "
                 "best in PGPASSWORD or ~/.pgpass). Default: env ADJUTANT_DB when set")
      ->capture_default_str();
  std::string sync = "normal";
  app.add_option("--sync", sync,
                 "SQLite durability (PostgreSQL commits are always durable): normal keeps every "
                 "commit across a crash of the process, "
                 "full also across power loss (an fsync per commit)")
      ->check(CLI::IsMember({"normal", "full"}))
      ->envname("ADJUTANT_SYNC")
      ->capture_default_str();
  // Argon2id cost of player secrets (server/app/secrets.h); the env defaults are read there too.
  SecretHashCost cost = secret_hash_cost();
  unsigned long long memlimit_kib = cost.memlimit >> 10;
  app.add_option("--argon2-opslimit", cost.opslimit,
                 "Argon2id passes for new player-secret hashes (env ADJUTANT_ARGON2_OPSLIMIT)")
      ->capture_default_str();
  app.add_option("--argon2-memlimit-kib", memlimit_kib,
                 "Argon2id memory per hash in KiB (env ADJUTANT_ARGON2_MEMLIMIT_KIB)")
      ->capture_default_str();
  app.add_option("--argon2-threads", cost.max_concurrent,
                 "Argon2id hashes computed at once; more callers wait (env "
                 "ADJUTANT_ARGON2_THREADS)")
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
  app.parse_complete_callback([&] {  // before any subcommand opens the database
    set_default_durability(sync == "full" ? Durability::kFull : Durability::kNormal);
    cost.memlimit = static_cast<std::size_t>(memlimit_kib) << 10;
    if (Status st = set_secret_hash_cost(cost); !st.ok())
      throw CLI::ValidationError("--argon2-*", st.message());
    // Game ids are compared regardless of case: every GAME argument becomes the stored id.
    game_id = stored_game_id(common, game_id);
    if (replay.size() == 3) replay[0] = stored_game_id(common, replay[0]);
  });

  auto* create = game->add_subcommand("create", "Create a game from a scenario JSON file");
  create
      ->add_option("SCENARIO", scenario,
                   "Scenario file, '-' for stdin, or bundled:NAME (see `adjutant scenarios`)")
      ->required();
  create->add_option("--seed", seed, "Game seed (default: the scenario's, else random)");
  bool demo_secrets = false;
  create->add_flag(
      "--demo-secrets", demo_secrets,
      "bundled: keep the published secrets of docs/scenarios.md (demos and tests only) instead "
      "of fresh random ones");
  std::string create_id, create_name;
  create->add_option("--id", create_id,
                     "Game id (default: the scenario's; another id makes a "
                     "second copy of a scenario)");
  create->add_option("--name", create_name, "Game name (default: the scenario's)");
  bool signup = false;
  create->add_flag("--signup", signup,
                   "Open the game for sign-ups (players JOIN; `adjutant signup start` assigns "
                   "kingdoms and mails the secrets)");
  create->callback([&] {
    code = signup ? game_create_signup(common, scenario, seed, create_id, create_name)
                  : game_create(common, scenario, seed, demo_secrets, create_id, create_name);
  });

  game->add_subcommand("list", "List the games")->callback([&] { code = game_list(common); });

  auto* show = game->add_subcommand("show", "Show a game's open turn");
  show->add_option("GAME", game_id, "Game id")->required();
  show->add_flag("--json", json, "Machine-readable JSON");
  show->callback([&] { code = game_show(common, game_id, json); });

  // player reset
  auto* player_cmd =
      app.add_subcommand("player", "Manage a player's credentials")->require_subcommand(1);
  auto* reset = player_cmd->add_subcommand(
      "reset", "Give a player a new random secret and/or link token (printed once, audited)");
  std::string reset_what = "both";
  reset->add_option("GAME", game_id, "Game id")->required();
  reset->add_option("PLAYER", player, "Player code")->required();
  reset->add_option("--what", reset_what, "secret, token or both")
      ->check(CLI::IsMember({"secret", "token", "both"}))
      ->capture_default_str();
  reset->callback([&] { code = player_reset(common, game_id, player, reset_what); });

  // attendance show | set | code (attendance_commands.cc)
  auto* att = app.add_subcommand("attendance", "Missed turns, civil disorder, absences, standby")
                  ->require_subcommand(1);
  std::string att_options;
  auto* att_show = att->add_subcommand("show", "Missed turns, disorder, absences and standby");
  att_show->add_option("GAME", game_id, "Game id")->required();
  att_show->add_flag("--json", json, "Machine-readable JSON");
  att_show->callback([&] { code = attendance_show(common, game_id, json); });
  auto* att_set = att->add_subcommand(
      "set", "Change the attendance options, e.g. '{\"civil_disorder_after\": 3}' (audited)");
  att_set->add_option("GAME", game_id, "Game id")->required();
  att_set->add_option("OPTIONS", att_options, "JSON object of the options to change")->required();
  att_set->callback([&] { code = attendance_set(common, game_id, att_options); });
  auto* att_code = att->add_subcommand(
      "code", "A takeover code for a position (printed once, single use, audited)");
  att_code->add_option("GAME", game_id, "Game id")->required();
  att_code->add_option("PLAYER", player, "Player code")->required();
  att_code->callback([&] { code = attendance_code(common, game_id, player); });
  std::string standby_address;
  auto* att_unstand =
      att->add_subcommand("standby-remove", "Remove an address from the standby list (audited)");
  att_unstand->add_option("GAME", game_id, "Game id")->required();
  att_unstand->add_option("ADDRESS", standby_address, "The address to remove")->required();
  att_unstand->callback(
      [&] { code = attendance_standby_remove(common, game_id, standby_address); });
  // player address | replace; signup open | list | approve | start | invite (membership)
  std::string member_email, member_name, member_base_url;
  std::int64_t signup_number = 0;
  auto* paddr = player_cmd->add_subcommand("address",
                                           "Change a player's address (audited; "
                                           "the old and new address are told)");
  paddr->add_option("GAME", game_id, "Game id")->required();
  paddr->add_option("PLAYER", player, "Player code")->required();
  paddr->add_option("EMAIL", member_email, "New address")->required();
  paddr->callback([&] { code = player_address(common, game_id, player, member_email); });
  auto* prepl = player_cmd->add_subcommand(
      "replace",
      "Give a position to a new player: new address and secret (mailed), old "
      "tokens revoked, audited");
  prepl->add_option("GAME", game_id, "Game id")->required();
  prepl->add_option("PLAYER", player, "Player code")->required();
  prepl->add_option("EMAIL", member_email, "The new player's address")->required();
  prepl->add_option("--name", member_name, "The new player's name");
  prepl->add_option("--base-url", member_base_url, "Public base URL for the sign-in link");
  prepl->callback([&] {
    code = player_replace(common, game_id, player, member_email, member_name, member_base_url);
  });
  auto* signup_cmd =
      app.add_subcommand("signup", "Sign-ups of a game open for sign-ups")->require_subcommand(1);
  auto* sopen = signup_cmd->add_subcommand("open", "Open a game that has not started for sign-ups");
  sopen->add_option("GAME", game_id, "Game id")->required();
  sopen->callback([&] { code = signup_open(common, game_id); });
  auto* slist = signup_cmd->add_subcommand("list", "List a game's sign-ups");
  slist->add_option("GAME", game_id, "Game id")->required();
  slist->callback([&] { code = signup_list(common, game_id); });
  auto* sappr = signup_cmd->add_subcommand("approve", "Approve a sign-up (by its number)");
  sappr->add_option("GAME", game_id, "Game id")->required();
  sappr->add_option("ID", signup_number, "Sign-up number (signup list)")->required();
  sappr->callback([&] { code = signup_approve(common, game_id, signup_number); });
  auto* sremove = signup_cmd->add_subcommand("remove", "Remove a sign-up (by its number; audited)");
  sremove->add_option("GAME", game_id, "Game id")->required();
  sremove->add_option("ID", signup_number, "Sign-up number (signup list)")->required();
  sremove->callback([&] { code = signup_remove(common, game_id, signup_number); });
  auto* sstart = signup_cmd->add_subcommand(
      "start", "Assign kingdoms to the sign-ups and start the game (secrets are mailed)");
  sstart->add_option("GAME", game_id, "Game id")->required();
  sstart->add_option("--base-url", member_base_url, "Public base URL for the sign-in links");
  sstart->callback([&] { code = signup_start(common, game_id, member_base_url); });
  auto* sinv = signup_cmd->add_subcommand("invite", "Mail an address how to join the game");
  sinv->add_option("GAME", game_id, "Game id")->required();
  sinv->add_option("EMAIL", member_email, "Address to invite")->required();
  sinv->add_option("--base-url", member_base_url, "Public base URL for the join page link");
  sinv->callback([&] { code = signup_invite(common, game_id, member_email, member_base_url); });
  // press options | list
  auto* press_cmd = app.add_subcommand("press", "Press between players: options and messages")
                        ->require_subcommand(1);
  std::string press_level, press_gm_reads;
  auto* popt = press_cmd->add_subcommand("options", "Show or set a game's press options (audited)");
  popt->add_option("GAME", game_id, "Game id")->required();
  popt->add_option("--press", press_level, "none, public, private or anonymous")
      ->check(CLI::IsMember({"none", "public", "private", "anonymous"}));
  popt->add_option("--gm-reads-private", press_gm_reads, "yes or no")
      ->check(CLI::IsMember({"yes", "no"}));
  popt->callback([&] { code = press_options(common, game_id, press_level, press_gm_reads); });
  auto* plist = press_cmd->add_subcommand("list", "Print the press the GM may read");
  plist->add_option("GAME", game_id, "Game id")->required();
  plist->callback([&] { code = press_list(common, game_id); });

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
  std::string enter_player;
  auto* enter = orders->add_subcommand(
      "enter", "The GM enters or replaces a player's orders (audited; the player is told)");
  enter->add_option("GAME", game_id, "Game id")->required();
  enter->add_option("PLAYER", enter_player, "Player code")->required();
  enter->add_option("FILE", file, "Order lines without a PLAYER line, or '-' for stdin")
      ->required();
  enter->add_flag("--json", json, "Machine-readable acknowledgement");
  enter->callback([&] { code = orders_enter(common, game_id, enter_player, file, json); });

  // turn run | rollback
  auto* turn_cmd =
      app.add_subcommand("turn", "Run, preview or roll back turns")->require_subcommand(1);
  auto* run_cmd = turn_cmd->add_subcommand("run", "Resolve the open turn and write the reports");
  run_cmd->add_option("GAME", game_id, "Game id")->required();
  run_cmd->add_flag("--preview", preview, "Resolve and print, commit nothing");
  bool timings = false;
  run_cmd->add_flag("--timings", timings,
                    "Print the wall time of each phase (load, orders, resolve, reports, commit)");
  std::optional<int> run_turn_number;
  run_cmd
      ->add_option("--turn", run_turn_number,
                   "The turn you mean to run: refused unless it is the open turn (as the API's "
                   "expected turn), so a repeated command never runs the next one")
      ->check(CLI::PositiveNumber);
  run_cmd->callback([&] { code = turn_run(common, game_id, preview, timings, run_turn_number); });
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

  auto* stand = app.add_subcommand("standings", "Print a game's standings (final when it is over)");
  stand->add_option("GAME", game_id, "Game id")->required();
  stand->add_flag("--json", json, "JSON instead of text");
  stand->callback([&] { code = standings(common, game_id, json); });

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

  auto* eng = app.add_subcommand("engines", "List the combat engines (and check Lua scripts)");
  eng->require_subcommand(0, 1);
  std::string script;
  auto* eng_check = eng->add_subcommand(
      "check", "Run the conformance suite on a Lua engine script (exit 0 when it passes)");
  eng_check->add_option("SCRIPT", script, "Lua file, '-' for stdin, or example:NAME")->required();
  eng_check->callback([&] { code = engines_check(script); });
  auto* eng_up = eng->add_subcommand(
      "upload", "Store a Lua file as the next version of a Lua game's engine script");
  eng_up->add_option("GAME", game_id, "Game id")->required();
  eng_up->add_option("SCRIPT", script, "Lua file, '-' for stdin, or example:NAME")->required();
  eng_up->callback([&] { code = engines_upload(common, game_id, script); });
  auto* eng_versions =
      eng->add_subcommand("versions", "List the stored versions of a Lua game's engine script");
  eng_versions->add_option("GAME", game_id, "Game id")->required();
  eng_versions->callback([&] { code = engines_versions(common, game_id); });
  eng->callback([&] {
    if (eng->get_subcommands().empty()) code = engines();
  });

  auto* dem = app.add_subcommand(
      "demo",
      "Play the bundled demo game (Dark Age Britain) for a few turns and print the reports");
  dem->add_option("--turns", turns, "Turns to play (1 or 2 have bundled orders)")
      ->check(CLI::Range(1, 20))
      ->capture_default_str();
  dem->callback([&] { code = demo(common, turns); });

  // serve: the daemon (HTTP pages and API, deadline scheduler)
  ServeOptions so;
  std::int64_t press_digest_minutes = so.press_digest.interval_seconds / 60;
  double session_idle_days = static_cast<double>(so.sessions.idle_seconds) / 86400;
  double session_max_days = static_cast<double>(so.sessions.absolute_seconds) / 86400;
  std::size_t press_digest_kib = so.press_digest.max_bytes / 1024;
  if (const char* env = std::getenv("ADJUTANT_BASE_URL"); env && *env) so.base_url = env;
  auto* srv = app.add_subcommand(
      "serve",
      "Run the daemon: web pages, JSON API, deadline scheduler (GM token from env "
      "ADJUTANT_GM_TOKEN)");
  srv->add_option("--http", so.http, "HOST:PORT to listen on")->capture_default_str();
  srv->add_option("--base-url", so.base_url,
                  "Public base URL for links (env ADJUTANT_BASE_URL; default http://HOST:PORT)");
  srv->add_option("--tick", so.tick_seconds, "Scheduler period in seconds (0: off)")
      ->check(CLI::Range(0, 86400))
      ->capture_default_str();
  srv->add_flag("--demo", so.demo, "Create the demo game (two turns played) if there is no game");
  if (const char* env = std::getenv("ADJUTANT_MAIL_FROM"); env && *env) so.mail_from = env;
  if (const char* env = std::getenv("ADJUTANT_RELAY"); env && *env) so.relay = env;
  if (const char* env = std::getenv("ADJUTANT_RELAY_USER"); env && *env) so.relay_user = env;
  if (const char* env = std::getenv("ADJUTANT_RELAY_PASSWORD"); env && *env)
    so.relay_password = env;
  srv->add_option("--smtp", so.smtp, "HOST:PORT of the SMTP listener for orders, or off")
      ->capture_default_str();
  srv->add_option("--smtp-allow", so.smtp_allow,
                  "Accepted recipient address (repeatable; default: any)");
  srv->add_option("--max-message-bytes", so.max_message_bytes,
                  "Largest message kept whole (larger: headers kept, answered with a refusal)")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1024}, std::size_t{1} << 30));
  srv->add_option("--maildir", so.maildir,
                  "Maildir to watch for orders (DIR/new, moved to DIR/cur)");
  srv->add_option("--relay", so.relay,
                  "smtp://HOST:PORT or smtps://HOST:PORT relay for outgoing mail (env "
                  "ADJUTANT_RELAY; default: none, mail stays in the local outbox Maildir)");
  srv->add_flag("--relay-starttls", so.relay_starttls,
                "Require STARTTLS on the relay (env ADJUTANT_RELAY_STARTTLS=1)")
      ->envname("ADJUTANT_RELAY_STARTTLS");
  srv->add_option("--relay-user", so.relay_user, "Relay AUTH user (env ADJUTANT_RELAY_USER)");
  srv->add_option("--relay-password", so.relay_password,
                  "Relay AUTH password (env ADJUTANT_RELAY_PASSWORD)");
  srv->add_option("--outbox", so.outbox,
                  "Maildir for outgoing mail when there is no relay (default: <db dir>/outbox)");
  srv->add_option("--mail-from", so.mail_from,
                  "From address of the mail sent (env ADJUTANT_MAIL_FROM)")
      ->capture_default_str();
  srv->add_option("--outbox-lease", so.outbox_lease_seconds,
                  "Seconds a claim on outbox messages holds before another daemon may take "
                  "them over")
      ->capture_default_str()
      ->check(CLI::Range(20, 3600));
  srv->add_option("--reminder-hours", so.reminder_hours,
                  "Remind players without orders this long before a deadline")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 24.0 * 30));
  srv->add_option("--press-digest-minutes", press_digest_minutes,
                  "Press is mailed to each player gathered, at most one mail this often")
      ->capture_default_str()
      ->check(CLI::Range(1, 24 * 60));
  srv->add_option("--press-digest-kib", press_digest_kib,
                  "Press text in one digest mail (KiB); the rest is on the web")
      ->capture_default_str()
      ->check(CLI::Range(8, 4096));
  srv->add_option("--mail-refusals-per-hour", so.refusals_per_hour,
                  "Refusal and HELP answers per address per hour")
      ->capture_default_str()
      ->check(CLI::Range(0, 1000));
  srv->add_option("--mail-refusals-total", so.refusals_per_hour_total,
                  "Refusal and HELP answers to all addresses together per hour")
      ->capture_default_str()
      ->check(CLI::Range(0, 1000000));
  srv->add_option("--mail-max-tries", so.mail_max_tries,
                  "Tries to answer one received message before it is marked failed")
      ->capture_default_str()
      ->check(CLI::Range(1, 100));
  srv->add_option("--mail-max-parts", so.mail_max_parts,
                  "MIME parts read in one message (more: refused with a note to the sender)")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1}, std::size_t{100000}));
  srv->add_option("--mail-sender-messages", so.mail_sender_messages,
                  "Messages stored per envelope sender per hour (more: 452; 0: no bound)")
      ->capture_default_str()
      ->check(CLI::Range(0, 1000000));
  srv->add_option("--mail-sender-bytes", so.mail_sender_bytes,
                  "Bytes stored per envelope sender per hour (more: 452; 0: no bound)")
      ->capture_default_str()
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 40));
  srv->add_option("--mail-peer-messages", so.mail_peer_messages,
                  "Messages stored per SMTP client address per hour (more: 452; 0: no bound)")
      ->capture_default_str()
      ->check(CLI::Range(0, 1000000));
  srv->add_option("--mail-peer-bytes", so.mail_peer_bytes,
                  "Bytes stored per SMTP client address per hour (more: 452; 0: no bound)")
      ->capture_default_str()
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 40));
  srv->add_option("--mail-trusted-peer", so.mail_trusted_peers,
                  "SMTP client address without a per-address budget, e.g. a front MTA "
                  "(repeatable; default 127.0.0.1 and ::1; \"none\" for none)")
      ->capture_default_str();
  srv->add_option("--mail-keep-days", so.mail_keep_days,
                  "Days the raw bytes of processed mail are kept (0: for ever)")
      ->capture_default_str()
      ->check(CLI::Range(0, 36500));
  srv->add_option("--http-max-conns", so.http_max_conns,
                  "Open HTTP connections at most (more: 503 with Retry-After)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000));
  srv->add_option("--http-io-threads", so.http_io_threads,
                  "Threads reading and writing HTTP connections (pages kept ready are served "
                  "by these alone)")
      ->capture_default_str()
      ->check(CLI::Range(1, 64));
  srv->add_option("--cache-mb", so.cache_mb,
                  "Memory for pages kept ready to serve, in MiB (0: make every page afresh)")
      ->capture_default_str()
      ->check(CLI::Range(0, 65536));
  srv->add_option("--http-max-conns-per-addr", so.http_max_conns_per_addr,
                  "Open HTTP connections at most from one client address (more: 503)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000));
  srv->add_option("--smtp-max-conns", so.smtp_max_conns,
                  "Open SMTP connections at most (more: 421)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000));
  srv->add_option("--smtp-max-conns-per-addr", so.smtp_max_conns_per_addr,
                  "Open SMTP connections at most from one client address (more: 421)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000));
  srv->add_option("--smtp-idle-timeout", so.smtp_idle_timeout,
                  "Seconds an SMTP client may stay silent before MAIL (then 421 and closed)")
      ->capture_default_str()
      ->check(CLI::Range(1, 3600));
  srv->add_option("--smtp-buffer-budget", so.smtp_buffer_budget,
                  "Bytes of message data buffered by all SMTP sessions together (DATA beyond: 452)")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1} << 20, std::size_t{1} << 40));
  srv->add_option("--smtp-buffer-per-addr", so.smtp_buffer_per_addr,
                  "Bytes of that budget one client address (an IPv6 client's /64) may hold (DATA "
                  "beyond: 452; default 0: a quarter of the budget)")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{0}, std::size_t{1} << 40));
  srv->add_option("--smtp-data-total-timeout", so.smtp_data_total_timeout,
                  "Seconds one DATA phase may last in all, however steadily it trickles (then 421)")
      ->capture_default_str()
      ->check(CLI::Range(10, 86400));
  srv->add_option("--smtp-tls-cert", so.smtp_tls_cert,
                  "PEM certificate chain for STARTTLS on the SMTP listener (with --smtp-tls-key; "
                  "re-read on SIGHUP; default: no STARTTLS)")
      ->envname("ADJUTANT_SMTP_TLS_CERT");
  srv->add_option("--smtp-tls-key", so.smtp_tls_key,
                  "PEM private key (unencrypted) of --smtp-tls-cert (re-read on SIGHUP)")
      ->envname("ADJUTANT_SMTP_TLS_KEY");
  srv->add_flag("--smtp-require-tls", so.smtp_require_tls,
                "Refuse mail (530) from SMTP clients that have not issued STARTTLS");
  srv->add_option("--trusted-proxy", so.trusted_proxies,
                  "Reverse proxy (CIDR or address; repeatable) whose X-Forwarded-For or Forwarded "
                  "header names the HTTP client; from any other peer they are ignored (default: "
                  "none)")
      ->check([](const std::string& v) -> std::string {
        return parse_ip_net(v) ? std::string() : "not an IP address or CIDR: " + v;
      });
  srv->add_option("--session-idle-days", session_idle_days,
                  "Days a player's sign-in session may go unused before the server ends it "
                  "(fractions allowed)")
      ->capture_default_str()
      ->check(CLI::Range(0.00001, 3650.0));
  srv->add_option("--session-max-days", session_max_days,
                  "Days after sign-in when the server ends a session however much it is used "
                  "(fractions allowed)")
      ->capture_default_str()
      ->check(CLI::Range(0.00001, 3650.0));
  srv->add_option("--pg-connect-timeout", so.pg_connect_timeout,
                  "Seconds to wait for PostgreSQL to accept a connection (then 503)")
      ->capture_default_str()
      ->check(CLI::Range(1, 600));
  srv->add_option("--pg-statement-timeout", so.pg_statement_timeout,
                  "Seconds to wait for PostgreSQL to answer one statement (then the connection "
                  "is dropped and the request gets 503)")
      ->capture_default_str()
      ->check(CLI::Range(1, 3600));
  srv->add_option("--pg-idle-timeout", so.pg_idle_timeout,
                  "Seconds a PostgreSQL connection may be idle before TCP keepalives check the "
                  "server is there")
      ->capture_default_str()
      ->check(CLI::Range(1, 86400));
  add_auth_options(srv, so.auth);
  srv->callback([&] {
    so.sessions.idle_seconds = std::max<std::int64_t>(1, std::llround(session_idle_days * 86400));
    so.sessions.absolute_seconds =
        std::max<std::int64_t>(1, std::llround(session_max_days * 86400));
    so.sessions.touch_seconds = std::clamp<std::int64_t>(so.sessions.idle_seconds / 4, 1, 60);
    so.create_demo = [&](std::string* id) { return demo_game(common, 2, false, id); };
    so.press_digest.interval_seconds = press_digest_minutes * 60;
    so.press_digest.max_bytes = press_digest_kib * 1024;
    code = serve(common, so);
  });

  // ingest | outbox list | outbox send: mail (server/mail)
  MailOptions mail_opts;
  if (const char* env = std::getenv("ADJUTANT_MAIL_FROM"); env && *env) mail_opts.from = env;
  if (const char* env = std::getenv("ADJUTANT_BASE_URL"); env && *env) mail_opts.base_url = env;
  const auto add_mail_options = [&mail_opts](CLI::App* cmd) {
    cmd->add_option("--mail-from", mail_opts.from,
                    "From address of the mail Adjutant sends (env ADJUTANT_MAIL_FROM)")
        ->capture_default_str();
    cmd->add_option("--base-url", mail_opts.base_url,
                    "Public base URL for links in mail (env ADJUTANT_BASE_URL)");
  };
  IngestOptions io;
  auto* ing = app.add_subcommand(
      "ingest",
      "Read one mail message on stdin (an MTA pipe), store it and answer it through the outbox. "
      "Exit 0 once stored; 75 (try again later) when it could not be stored");
  add_mail_options(ing);
  ing->add_option("--sender", io.envelope_from, "Envelope sender (e.g. Postfix ${sender})");
  ing->add_option("--recipient", io.rcpt_to, "Envelope recipient (e.g. Postfix ${recipient})");
  ing->add_option("--max-bytes", io.max_bytes,
                  "Larger messages are kept as their headers only and answered with a refusal")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1024}, std::size_t{1} << 30));
  add_auth_options(ing, io.auth);
  ing->callback([&] {
    io.mail = mail_opts;
    code = mail_ingest(common, io);
  });

  auto* inbox =
      app.add_subcommand("inbox", "List or prune the received mail")->require_subcommand(1);
  std::string inbox_state;
  int inbox_limit = 50;
  bool inbox_json = false;
  auto* ilist =
      inbox->add_subcommand("list", "List received mail (without its bytes), newest first");
  ilist->add_option("--state", inbox_state, "Only this state: new, processed or failed")
      ->check(CLI::IsMember({"new", "processed", "failed"}));
  ilist->add_option("--limit", inbox_limit, "At most this many")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  ilist->add_flag("--json", inbox_json, "JSON output");
  ilist->callback([&] { code = inbox_list(common, inbox_state, inbox_limit, inbox_json); });
  int keep_days = 30;
  auto* iprune = inbox->add_subcommand(
      "prune", "Drop the raw bytes of processed mail older than --keep-days (rows stay)");
  iprune->add_option("--keep-days", keep_days, "Days to keep")
      ->capture_default_str()
      ->check(CLI::Range(0, 36500));
  iprune->callback([&] { code = inbox_prune(common, keep_days); });

  auto* outbox =
      app.add_subcommand("outbox", "List or deliver the outgoing mail")->require_subcommand(1);
  int outbox_limit = 50;
  auto* olist = outbox->add_subcommand("list", "List the outbox, newest first");
  olist->add_option("--game", game_id, "Only this game's messages");
  olist->add_option("--limit", outbox_limit, "At most this many")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  olist->add_flag("--json", json, "Machine-readable JSON");
  olist->callback([&] { code = outbox_list(common, game_id, outbox_limit, json); });
  OutboxSendOptions oso;
  if (const char* env = std::getenv("ADJUTANT_RELAY"); env && *env) oso.relay = env;
  if (const char* env = std::getenv("ADJUTANT_RELAY_USER"); env && *env) oso.user = env;
  if (const char* env = std::getenv("ADJUTANT_RELAY_PASSWORD"); env && *env) oso.password = env;
  auto* osend = outbox->add_subcommand(
      "send", "Deliver what is due once: to the relay, or without one into the outbox Maildir");
  osend->add_option("--relay", oso.relay,
                    "smtp://HOST:PORT or smtps://HOST:PORT (env ADJUTANT_RELAY)");
  osend->add_flag("--starttls", oso.starttls, "Require STARTTLS on an smtp:// relay");
  osend->add_option("--user", oso.user,
                    "Relay AUTH user (env ADJUTANT_RELAY_USER; password from env "
                    "ADJUTANT_RELAY_PASSWORD)");
  osend->add_flag("--insecure", oso.insecure, "Do not verify the relay's TLS certificate");
  osend->add_option("--outbox", oso.outbox_dir,
                    "Maildir for the mail when there is no relay (default: <db dir>/outbox)");
  add_mail_options(osend);
  osend->callback([&] {
    oso.mail = mail_opts;
    code = outbox_send(common, oso);
  });

  // backup FILE
  std::string backup_to;
  auto* bk = app.add_subcommand(
      "backup",
      "Copy the SQLite database to FILE, consistently, even while the daemon runs (for "
      "PostgreSQL use pg_dump)");
  bk->add_option("FILE", backup_to, "Where to write the copy (must not exist)")->required();
  bk->callback([&] { code = backup(common, backup_to); });

  // copy --from DB --to DB
  std::string copy_from, copy_to;
  auto* cp = app.add_subcommand(
      "copy",
      "Copy every game (and everything else the host keeps) into an empty database, SQLite to "
      "PostgreSQL or back, then compare every table row by row");
  cp->add_option("--from", copy_from,
                 "Source database (sqlite:PATH, a path, or postgresql://...; default: --db)");
  cp->add_option("--to", copy_to, "Destination database, empty (created when a missing file)")
      ->required();
  cp->callback([&] { code = copy_database(copy_from.empty() ? common.db : copy_from, copy_to); });

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitError;
  }
  return code;
}

}  // namespace adj::cli
