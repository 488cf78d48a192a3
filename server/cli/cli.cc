#include "server/cli/cli.h"

#include <algorithm>
#include <cmath>

#include "base/client_address.h"
#include "server/app/secrets.h"
#include "server/cli/cli_state.h"
#include "storage/open_database.h"

namespace adj::cli {

void add_mail_map_options(CLI::App* cmd, MailMaps& m, const std::string& what) {
  cmd->add_option("--mail-maps", m.maps,
                  "The map " + what + " attaches, as serve's --mail-maps: game, player or off")
      ->capture_default_str()
      ->check(CLI::IsMember({"game", "player", "off"}));
  cmd->add_option("--mail-map-style", m.style,
                  "How that map looks, as serve's --mail-map-style: flat or full")
      ->capture_default_str()
      ->check(CLI::IsMember({"flat", "full"}));
}

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

int run(int argc, char** argv) {
  CLI::App app{
      "Adjutant: a play-by-mail turn adjudication server.\n"
      "Creates games from scenarios, takes order files, resolves turns and writes reports."};
  app.require_subcommand(1);
  app.fallthrough();  // global options such as --db may also follow the subcommand
  CliState s;
  if (const char* env = std::getenv("ADJUTANT_DB"); env && *env) s.common.db = env;
  app.add_option("--db", s.common.db,
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

  app.parse_complete_callback([&] {  // before any subcommand opens the database
    set_default_durability(sync == "full" ? Durability::kFull : Durability::kNormal);
    cost.memlimit = static_cast<std::size_t>(memlimit_kib) << 10;
    if (Status st = set_secret_hash_cost(cost); !st.ok())
      throw CLI::ValidationError("--argon2-*", st.message());
    // Game ids are compared regardless of case: every GAME argument becomes the stored id.
    s.game_id = stored_game_id(s.common, s.game_id);
    if (s.replay.size() == 3) s.replay[0] = stored_game_id(s.common, s.replay[0]);
  });

  add_game_commands(app, s);
  add_play_commands(app, s);
  add_serve_command(app, s);
  add_mail_commands(app, s);
  add_world_commands(app, s);
  add_scenario_commands(app, s);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitError;
  }
  return s.code;
}

}  // namespace adj::cli
