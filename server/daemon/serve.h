// `adjutant serve`: the daemon's composition root. The only code that wires the pieces together:
// it opens the database through the store factory (one Store per thread, storage/open_database.h),
// builds the services, the web routes (server/web), the mail flows (server/mail), and hands them
// to the listeners of server/http (HTTP, SMTP, page cache), which know none of them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "server/app/auth_throttle.h"
#include "server/app/press_digest.h"
#include "server/app/services.h"

namespace adj::daemon {

struct ServeOptions {
  std::string http = "127.0.0.1:8080";  // HOST:PORT to listen on ([v6]:PORT also)
  std::string base_url;                 // public base URL for links; default http://HOST:PORT
  int tick_seconds = 30;                // scheduler period; 0 turns the scheduler off
  // Threads the scheduler's pass runs due turns on (--turn-threads), each a share of the games
  // (GameAdmin::tick_shard): one game's turn is computed while another's is written. One by
  // default: on one machine a second thread ran a busy minute's turns sooner but its last report
  // no sooner, while pages waited longer (docs/performance.md). More may help when the database
  // server has cores of its own (PostgreSQL on another machine; not measured).
  int turn_threads = 1;
  bool demo = false;  // create the demo game when the database has none
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
  // The GM's address of games that set none (env ADJUTANT_GM_ADDRESS): messages to the GM are
  // forwarded there, mail and pages name it. "" for none.
  std::string gm_address;
  double reminder_hours = 24;      // remind players this long before a deadline
  PressDigestConfig press_digest;  // --press-digest-minutes, --press-digest-kib
  int mail_seconds = 2;            // outbox and Maildir polling period
  // How long a daemon's claim on outbox messages holds (MailStore::claim): a daemon that died
  // holding messages leaves them to another after this long. The relay's whole-transaction
  // timeout is a third of it (at most 120 s), so a send always ends within the claim.
  int outbox_lease_seconds = 300;
  // Messages delivered at once while the outbox has a backlog (--relay-connections): each on a
  // thread and connection of its own, claiming its own batch. A pass that finds less than a
  // batch due delivers on one.
  int relay_connections = 4;
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
  // "game": report mails attach the map after the turn, painted once per game and turn and
  // stored once for all its mails; "player": each player's map adds that player's own moves and
  // battles (a PNG painted and stored per player); "off": no map (the mail links the web report,
  // which draws it), for a host whose relay cannot take a map per report at its busiest minute
  // (docs/performance.md).
  std::string mail_maps = "game";
  // How those maps look: "flat" (render::kMailMapLimits: flat colours, no anti-aliased
  // territories, no halos; about a quarter of the CPU and a third of the bytes of "full"), or
  // "full" (render::kFullMailMapLimits: the web map's look, waves and hatches).
  std::string mail_map_style = "flat";
  // Connection caps (further clients get 503 / 421), scaled down at start if they do not fit
  // the file limit; the SMTP idle timeout before MAIL; message bytes buffered by all SMTP
  // sessions together.
  int http_max_conns = 4096;
  int http_max_conns_per_addr = 64;
  int cache_mb = 64;        // the page cache's budget in MiB; 0 turns it off
  int http_io_threads = 2;  // threads reading and writing HTTP connections
  // Milliseconds an anonymous request waits for its out-of-date kept page to be made again
  // before it is served the page kept before (http::ServerOptions::stale_wait).
  int http_stale_wait_ms = 20;
  int smtp_max_conns = 256;
  int smtp_max_conns_per_addr = 16;
  int smtp_idle_timeout = 30;                  // seconds
  std::size_t smtp_buffer_budget = 64u << 20;  // bytes
  std::size_t smtp_buffer_per_addr = 0;        // bytes one client may hold of it; 0: a quarter
  int smtp_data_total_timeout = 600;           // seconds one DATA phase may last in all
  // STARTTLS on the SMTP listener: PEM certificate chain and key (both or neither; re-read on
  // SIGHUP), and whether MAIL is refused (530) before STARTTLS.
  std::string smtp_tls_cert;
  std::string smtp_tls_key;
  bool smtp_require_tls = false;
  ThrottleConfig auth;  // guessing limits (--auth-*; server/app/auth_throttle.h)
  // Server-side expiry of sign-in sessions (--session-idle-days, --session-max-days).
  SessionLimits sessions;
  // --trusted-proxy: CIDRs (or bare addresses) of reverse proxies whose X-Forwarded-For /
  // Forwarded name the HTTP client (base/client_address.h); empty: none is believed.
  std::vector<std::string> trusted_proxies;
  // How long the daemon waits for PostgreSQL (storage/wait_limit.h), in seconds: to connect,
  // for one statement's answer, and idle before TCP keepalives probe a silent server.
  int pg_connect_timeout = 5;
  int pg_statement_timeout = 30;
  int pg_idle_timeout = 60;
  // Creates the demo game (demo_game without printing); set by the command line.
  std::function<int(std::string* game_id)> create_demo;
};
// Runs the daemon on the database `db` (storage/open_database.h: a SQLite path or a
// postgresql:// URL) until SIGINT or SIGTERM, then stops accepting, finishes the requests and
// any turn in hand, and returns kServeOk; kServeError when it cannot start (the log says why).
// SIGHUP re-reads the SMTP listener's TLS certificate and key (a file that does not load is
// logged and the previous ones kept).
inline constexpr int kServeOk = 0;
inline constexpr int kServeError = 1;
int serve(const std::string& db, const ServeOptions& o);

}  // namespace adj::daemon
