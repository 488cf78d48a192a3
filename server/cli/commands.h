// The command implementations behind the command line: plain functions over plain options, so
// that CLI11 stays in the files that register the commands (cli_state.h). Each prints to
// stdout/stderr and returns the process exit code (see cli.h).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "server/app/auth_throttle.h"
#include "server/daemon/serve.h"
#include "storage/records.h"  // UnixTime

namespace adj {
class AppRuntime;
}  // namespace adj

namespace adj::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;
inline constexpr int kExitRefused = 2;

// Prints "error: <message>" on standard error; returns `code`.
int fail(const Status& s, int code = kExitError);
// A file's bytes, or stdin's for "-": NotFound when it cannot be opened; InvalidArgument
// ("<path> is larger than the <limit> bytes<what>") past `limit`, having held at most a chunk
// more than that.
inline constexpr std::size_t kMaxInputBytes = 64u << 20;
Result<std::string> read_input(const std::string& path, std::size_t limit,
                               const std::string& what = "");
// Writes `bytes` to `path` (created or truncated); IOError naming the path when it cannot.
Status write_output(const std::string& path, const std::string& bytes);
// The wall clock, in Unix seconds.
UnixTime wall_clock();

struct Common {
  std::string db = "adjutant.db";  // --db or ADJUTANT_DB
};

// The command's application runtime (server/app/app_runtime.h) over the database of `c`, its
// store opened on this thread, on the wall clock; or why the database cannot be opened. Commands
// take their services, admin and the other services from it, as the daemon's front ends do.
Result<std::unique_ptr<AppRuntime>> open_runtime(const Common& c);
// The id of the stored game `game` names regardless of case; `game` itself when the database
// does not exist yet or has no such game (the command then reports it in its own words).
std::string stored_game_id(const Common& c, const std::string& game);

// A bundled scenario's players get fresh random secrets (printed once) unless demo_secrets.
// `id` and `name`, when not empty, replace the scenario's (a second copy of a scenario).
int game_create(const Common& c, const std::string& scenario,
                std::optional<unsigned long long> seed, bool demo_secrets = false,
                const std::string& id = "", const std::string& name = "");
int game_list(const Common& c);
// Scenarios without a database (scenario_commands.cc). A SCENARIO argument is a file, '-' for
// stdin, or bundled:NAME; a Lua engine's "script_file" (beside the scenario) becomes its
// "script". Errors: NotFound (no such file or bundled scenario), InvalidArgument (not JSON).
Result<Json> read_scenario_document(const std::string& scenario);
// `scenario list`: the bundled scenarios with engine, game id, players and areas.
int scenario_list(bool json);
// `scenario check`: rules/game/scenario_lint.h's findings, one a line ("error <path>: <message>",
// then the warnings), and a last line counting them; with `json` {"errors": [{"path",
// "message"}], "warnings": [...]}. kExitOk without errors (warnings or not), kExitError with.
int scenario_check(const std::string& scenario, bool json);
// `scenario words`: the words each engine reads as docs/scenarios.md lists them (Markdown:
// every game's, then each built-in engine's with its default options); with `what` an engine
// name, that engine's; with a scenario (file, '-', bundled:NAME), everything a game made from
// it reads under its own options and rules.
int scenario_words(const std::string& what);
// `scenario preview`: the map of the scenario's first turn as SVG (`svg_out`) or PNG (`png_out`,
// at most 1600 pixels a side), as the game pages draw it; the check's findings on stderr.
// kExitOk when the file is written, kExitError when the scenario cannot be built (its errors
// printed) or the file cannot be written.
int scenario_preview(const std::string& scenario, const std::string& svg_out,
                     const std::string& png_out);
// lifecycle_commands.cc, as the GM ("gm:cli"). `game delete`: a game that has not started, with
// every row of it (GameAdmin::delete_game); without `yes` it asks on a terminal (the game id to
// be typed) and is refused (kExitRefused, nothing deleted) when stdin is not one. kExitRefused
// also for a started game ("... archive it instead"). `game archive` / `game unarchive` (`on`).
// `reason`: the GM's optional why, kept in the audit logs.
int game_delete(const Common& c, const std::string& game, bool yes, const std::string& reason);
int game_archive(const Common& c, const std::string& game, bool on, const std::string& reason);
// The map a command's mail attaches, as `serve --mail-maps` and `--mail-map-style` take it
// (render::mail_map_painter): "game", "player" or "off"; "flat" or "full".
struct MailMaps {
  std::string maps = "game";
  std::string style = "flat";
  bool arrows() const { return maps == "player"; }  // each player's map with its own arrows
};

// Membership (membership_commands.cc): sign-ups, start, invitations, addresses, replacing.
// New secrets are queued for mailing, never printed; base_url adds links to the mail.
int game_create_signup(const Common& c, const std::string& scenario,
                       std::optional<unsigned long long> seed, const std::string& id = "",
                       const std::string& name = "");
int signup_open(const Common& c, const std::string& game);
int signup_list(const Common& c, const std::string& game);
int signup_approve(const Common& c, const std::string& game, std::int64_t id);
// Removes a sign-up (by its number; audited signup-remove).
int signup_remove(const Common& c, const std::string& game, std::int64_t id);
int signup_start(const Common& c, const std::string& game, const std::string& base_url,
                 const MailMaps& maps = {});
int signup_invite(const Common& c, const std::string& game, const std::string& email,
                  const std::string& base_url);
int player_address(const Common& c, const std::string& game, const std::string& player,
                   const std::string& email);
int player_replace(const Common& c, const std::string& game, const std::string& player,
                   const std::string& email, const std::string& name, const std::string& base_url,
                   const std::string& reason, const MailMaps& maps = {});
// The GM's reset of a player's credentials: what is "secret", "token" or "both" (printed once).
int player_reset(const Common& c, const std::string& game, const std::string& player,
                 const std::string& what);
int game_show(const Common& c, const std::string& game, bool json);
// world_commands.cc: `world generate` prints a generated scenario (rules/world/world_generator.h)
// on stdout or into `out`, and its fairness figures on stderr (JSON on stdout with --fairness-json
// instead of the scenario).
struct WorldCommand {
  std::string engine = "dark-age";
  int players = 6;
  int areas_per_player = 5;
  bool seas = false, no_seas = false;
  std::optional<unsigned long long> seed;
  std::string name, id, out;
  bool fairness_json = false;
};
int world_generate(const WorldCommand& w);
// attendance_commands.cc: missed turns, disorder, absences and standby; the options (a JSON
// object of the fields to change); a GM takeover code (printed once).
int attendance_show(const Common& c, const std::string& game, bool json);
int attendance_set(const Common& c, const std::string& game, const std::string& options_json);
int attendance_code(const Common& c, const std::string& game, const std::string& player);
// Removes an address from the standby list (audited standby-remove).
int attendance_standby_remove(const Common& c, const std::string& game, const std::string& address);
int orders_submit(const Common& c, const std::string& game, const std::string& file, bool json,
                  bool check_only);
// The GM enters or replaces PLAYER's orders for the open turn from FILE (gm_orders.h: audited,
// the player told by mail); prints the acknowledgement.
int orders_enter(const Common& c, const std::string& game, const std::string& player,
                 const std::string& file, bool json);
// With `timings`, one more line: "Timings: load N ms, orders N ms, ..., total N ms" (the
// phases of Services::run_turn; total is the whole run through GameAdmin).
// `expected_turn`: when set, the run is refused (nothing run) unless it is the open turn.
int turn_run(const Common& c, const std::string& game, bool preview, bool timings = false,
             std::optional<int> expected_turn = std::nullopt);
int turn_rollback(const Common& c, const std::string& game, int turn, const std::string& reason);
int report(const Common& c, const std::string& game, const std::string& player,
           std::optional<int> turn, const std::string& format);
// A game's standings (final when it is over) and victory conditions (ending_commands.cc).
int standings(const Common& c, const std::string& game, bool json);
int battle(const std::string& engine, const std::string& file, int trials);
int battle_replay(const Common& c, const std::string& game, int turn, const std::string& id);
int engines();
// Script engines (engine_commands.cc). `engines check SCRIPT`: the checks an upload runs (size,
// compilation, the conformance suite) on a Lua file ('-' for stdin, example:NAME for a shipped
// example); prints the report; kExitOk when it passes, kExitRefused naming the failures.
int engines_check(const std::string& script);
// `engines upload GAME FILE`: stores FILE as the next version of a Lua game's script (the
// checks above first; audited as the GM's). `engines versions GAME`: the stored versions.
int engines_upload(const Common& c, const std::string& game, const std::string& file);
int engines_versions(const Common& c, const std::string& game);
// The Lua examples shipped with the binary (rules/combat/scripts/*.lua): name -> text.
std::vector<std::pair<std::string, std::string_view>> example_scripts();
// Press options (press_commands.cc): shows them, after setting `level` (none, public, private,
// anonymous) and `gm_reads_private` ("yes"/"no") when given (audited "press-options").
int press_options(const Common& c, const std::string& game, const std::string& level,
                  const std::string& gm_reads_private);
// Every message the GM may read (all of them unless the game keeps private press from the GM),
// oldest first.
int press_list(const Common& c, const std::string& game);
int demo(const Common& c, int turns);
// The demo game alone: creates the bundled Dark Age Britain game under a fresh id in c.db and
// plays `turns` turns with the bundled orders, printing the reports when `print`. `game_id`
// (optional) receives the new game's id. Returns an exit code.
int demo_game(const Common& c, int turns, bool print, std::string* game_id);

// `adjutant serve`: the daemon (server/daemon/serve.h, the composition root) on c.db.
using daemon::ServeOptions;
int serve(const Common& c, const ServeOptions& o);

// Mail (server/cli/mail_commands.cc).
inline constexpr int kExitTempFail = 75;  // sysexits EX_TEMPFAIL: the MTA keeps and retries

struct MailOptions {
  std::string from = "adjutant@localhost";  // From of every message sent (env ADJUTANT_MAIL_FROM)
  std::string from_name = "Adjutant";
  std::string base_url;  // links in mail (env ADJUTANT_BASE_URL); "" leaves them out
  // The maps of a RESEND's answer and of a game's secrets mailed at its start (ingest), and of
  // corrections (outbox send).
  MailMaps maps;
};

// `adjutant ingest`: one RFC 5322 message on stdin (an MTA pipe). Stores it, then answers it
// (the answer is queued in the outbox; `outbox send` or the daemon delivers it). Exit 0 once
// stored, whatever the content (the answer explains; a processing error leaves the message
// "new" for a later pass); kExitTempFail (75, which Postfix, sendmail and procmail treat as
// "try again later", where 1 would bounce) when it could not be stored. Prints
// "stored as inbox message N: <outcome>".
struct IngestOptions {
  MailOptions mail;
  std::string envelope_from;          // --sender (Postfix ${sender}); "" unknown
  ThrottleConfig auth;                // guessing limits (--auth-*), shared through the database
  std::vector<std::string> rcpt_to;   // --recipient (Postfix ${recipient})
  std::size_t max_bytes = 10u << 20;  // larger messages are stored as headers and refused
};
int mail_ingest(const Common& c, const IngestOptions& o);

// `adjutant inbox list`: received mail without its bytes, newest first: id, state, received,
// channel, envelope sender, bytes, tries, outcome. `state` "" for every state ("failed": the
// messages that could not be answered).
int inbox_list(const Common& c, const std::string& state, int limit, bool json);
// `adjutant inbox prune`: drops the raw bytes of processed mail older than `keep_days` days (the
// rows, Message-IDs and outcomes stay), as the daemon does every hour; for pipe-only setups.
int inbox_prune(const Common& c, int keep_days);

// `adjutant outbox list`: the outbox, newest first (all games when `game` is "").
int outbox_list(const Common& c, const std::string& game, int limit, bool json);

// `adjutant outbox send`: one delivery pass over what is due now: to the SMTP relay when one is
// given, else into the outbox Maildir (default <database dir>/outbox). Exit 0 when the pass ran
// (messages that failed stay queued with a backoff), 1 on a database error.
struct OutboxSendOptions {
  std::string relay;       // smtp://HOST:PORT or smtps://HOST:PORT (env ADJUTANT_RELAY)
  bool starttls = false;   // require STARTTLS on smtp://
  std::string user;        // env ADJUTANT_RELAY_USER
  std::string password;    // env ADJUTANT_RELAY_PASSWORD (not a flag: it would show in ps)
  bool insecure = false;   // do not verify the relay's TLS certificate
  std::string outbox_dir;  // Maildir used without a relay; "" = <database dir>/outbox
  MailOptions mail;        // From and links of the pending notices mailed first
};
int outbox_send(const Common& c, const OutboxSendOptions& o);

// `adjutant backup FILE`: a consistent copy of the database while the daemon may be running
// (SQLite online backup, integrity-checked, never overwriting). Exit 0 when written, 1 otherwise.
int backup(const Common& c, const std::string& to);

// `adjutant copy --from DB --to DB`: every game and everything else the host keeps, from one
// database into another, empty one (SQLite to PostgreSQL or back; storage/table_copy.h), then
// every table compared row by row. Prints per-table row counts. Exit 0 when copied and equal;
// 2 when refused (same database, destination not empty, schemas differ, source has pending
// upgrade steps; nothing written); 1 when the copy failed or the comparison found a difference
// (naming the table and row key).
int copy_database(const std::string& from, const std::string& to);

}  // namespace adj::cli
