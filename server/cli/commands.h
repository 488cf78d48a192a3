// The command implementations behind the command line: plain functions over plain options, so
// that CLI11 stays in one translation unit (cli.cc). Each prints to stdout/stderr and returns the
// process exit code (see cli.h).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "server/app/auth_throttle.h"

namespace adj::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;
inline constexpr int kExitRefused = 2;

struct Common {
  std::string db = "adjutant.db";  // --db or ADJUTANT_DB
};

// The id of the stored game `game` names regardless of case; `game` itself when the database
// does not exist yet or has no such game (the command then reports it in its own words).
std::string stored_game_id(const Common& c, const std::string& game);

// A bundled scenario's players get fresh random secrets (printed once) unless demo_secrets.
// `id` and `name`, when not empty, replace the scenario's (a second copy of a scenario).
int game_create(const Common& c, const std::string& scenario,
                std::optional<unsigned long long> seed, bool demo_secrets = false,
                const std::string& id = "", const std::string& name = "");
int game_list(const Common& c);
// Membership (membership_commands.cc): sign-ups, start, invitations, addresses, replacing.
// New secrets are queued for mailing, never printed; base_url adds links to the mail.
int game_create_signup(const Common& c, const std::string& scenario,
                       std::optional<unsigned long long> seed, const std::string& id = "",
                       const std::string& name = "");
int signup_open(const Common& c, const std::string& game);
int signup_list(const Common& c, const std::string& game);
int signup_approve(const Common& c, const std::string& game, std::int64_t id);
int signup_start(const Common& c, const std::string& game, const std::string& base_url);
int signup_invite(const Common& c, const std::string& game, const std::string& email,
                  const std::string& base_url);
int player_address(const Common& c, const std::string& game, const std::string& player,
                   const std::string& email);
int player_replace(const Common& c, const std::string& game, const std::string& player,
                   const std::string& email, const std::string& name, const std::string& base_url);
// The GM's reset of a player's credentials: what is "secret", "token" or "both" (printed once).
int player_reset(const Common& c, const std::string& game, const std::string& player,
                 const std::string& what);
int game_show(const Common& c, const std::string& game, bool json);
// attendance_commands.cc: missed turns, disorder, absences and standby; the options (a JSON
// object of the fields to change); a GM takeover code (printed once).
int attendance_show(const Common& c, const std::string& game, bool json);
int attendance_set(const Common& c, const std::string& game, const std::string& options_json);
int attendance_code(const Common& c, const std::string& game, const std::string& player);
int orders_submit(const Common& c, const std::string& game, const std::string& file, bool json,
                  bool check_only);
// The GM enters or replaces PLAYER's orders for the open turn from FILE (gm_orders.h: audited,
// the player told by mail); prints the acknowledgement.
int orders_enter(const Common& c, const std::string& game, const std::string& player,
                 const std::string& file, bool json);
// With `timings`, one more line: "Timings: load N ms, orders N ms, ..., total N ms" (the
// phases of Services::run_turn; total is the whole run through GameAdmin).
int turn_run(const Common& c, const std::string& game, bool preview, bool timings = false);
int turn_rollback(const Common& c, const std::string& game, int turn);
int report(const Common& c, const std::string& game, const std::string& player,
           std::optional<int> turn, const std::string& format);
// A game's standings (final when it is over) and victory conditions (ending_commands.cc).
int standings(const Common& c, const std::string& game, bool json);
int battle(const std::string& engine, const std::string& file, int trials);
int battle_replay(const Common& c, const std::string& game, int turn, const std::string& id);
int engines();
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

// `adjutant serve` (server/http/serve.cc): the daemon. Runs until SIGINT or SIGTERM, then stops
// accepting, finishes the requests and any turn in hand, and returns kExitOk.
struct ServeOptions {
  std::string http = "127.0.0.1:8080";  // HOST:PORT to listen on ([v6]:PORT also)
  std::string base_url;                 // public base URL for links; default http://HOST:PORT
  int tick_seconds = 30;                // scheduler period; 0 turns the scheduler off
  bool demo = false;                    // create the demo game when the database has none
  // Mail (server/mail). smtp: HOST:PORT of the SMTP listener, or "off".
  std::string smtp = "127.0.0.1:2525";
  std::vector<std::string> smtp_allow;        // allowed envelope recipients; empty: any
  std::size_t max_message_bytes = 10u << 20;  // SIZE; larger messages kept as headers, refused
  std::string maildir;                        // watched Maildir (DIR/new -> DIR/cur); "" none
  std::string relay;                          // smtp://HOST:PORT; "" -> outbox Maildir
  bool relay_starttls = false;
  std::string relay_user;
  std::string relay_password;                    // or env ADJUTANT_RELAY_PASSWORD
  std::string outbox;                            // outbox Maildir; default <db dir>/outbox
  std::string mail_from = "adjutant@localhost";  // From of the mail sent
  double reminder_hours = 24;                    // remind players this long before a deadline
  int mail_seconds = 2;                          // outbox and Maildir polling period
  // Bounds on received mail (server/mail/mail_ingest.h MailConfig, mime.h MimeLimits).
  int refusals_per_hour = 3;          // refusal and HELP answers per address
  int refusals_per_hour_total = 100;  // refusal and HELP answers to all addresses together
  int mail_max_tries = 3;             // tries to answer one message before it is marked failed
  std::size_t mail_max_parts = 200;   // MIME parts of one message
  int mail_sender_messages = 60;      // messages stored per envelope sender per hour (0: no bound)
  std::int64_t mail_sender_bytes = 50ll << 20;  // bytes stored per envelope sender per hour
  int mail_peer_messages = 300;                 // messages stored per client address per hour
  std::int64_t mail_peer_bytes = 200ll << 20;   // bytes stored per client address per hour
  std::vector<std::string> mail_trusted_peers = {"127.0.0.1", "::1"};  // no per-address budget
  int mail_keep_days = 30;  // raw bytes of processed mail are dropped after this; 0 keeps them
  // Connection caps (further clients get 503 / 421), scaled down at start if they do not fit
  // the file limit; the SMTP idle timeout before MAIL; message bytes buffered by all SMTP
  // sessions together.
  int http_max_conns = 4096;
  int http_max_conns_per_addr = 64;
  int cache_mb = 64;        // the page cache's budget in MiB; 0 turns it off
  int http_io_threads = 2;  // threads reading and writing HTTP connections
  int smtp_max_conns = 256;
  int smtp_max_conns_per_addr = 16;
  int smtp_idle_timeout = 30;                  // seconds
  std::size_t smtp_buffer_budget = 64u << 20;  // bytes
  ThrottleConfig auth;  // guessing limits (--auth-*; server/app/auth_throttle.h)
  // Creates the demo game (demo_game without printing); set by the command line.
  std::function<int(std::string* game_id)> create_demo;
};
int serve(const Common& c, const ServeOptions& o);

// Mail (server/cli/mail_commands.cc).
inline constexpr int kExitTempFail = 75;  // sysexits EX_TEMPFAIL: the MTA keeps and retries

struct MailOptions {
  std::string from = "adjutant@localhost";  // From of every message sent (env ADJUTANT_MAIL_FROM)
  std::string from_name = "Adjutant";
  std::string base_url;  // links in mail (env ADJUTANT_BASE_URL); "" leaves them out
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

}  // namespace adj::cli
