#include "server/cli/cli_state.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "base/client_address.h"
#include "server/app/membership.h"
#include "server/app/secrets.h"

namespace adj::cli {

namespace {

// The bounds on received mail (server/mail/mail_ingest.h MailConfig).
void add_mail_bounds(CLI::App* srv, ServeOptions& so) {
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
  srv->add_option("--mail-maps", so.mail_maps,
                  "game: report mails attach the map after the turn, painted and stored once per "
                  "game and turn; player: a map per player, with that player's moves and "
                  "battles; off: no map (the mail links the web report)")
      ->capture_default_str()
      ->check(CLI::IsMember({"game", "player", "off"}));
  srv->add_option("--mail-map-style", so.mail_map_style,
                  "flat: the mail's map in flat colours, cheap to draw and to mail; full: the web "
                  "map's look (waves, hatches, halos), about 4-5x the CPU and 4x the bytes")
      ->capture_default_str()
      ->check(CLI::IsMember({"flat", "full"}));
}

// Connection caps, the page cache, STARTTLS, proxies, sessions and the PostgreSQL waits.
void add_limits(CLI::App* srv, CliState& s) {
  srv->add_option("--http-max-conns", s.daemon.so.http_max_conns,
                  "Open HTTP connections at most (more: 503 with Retry-After)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000));
  srv->add_option("--http-io-threads", s.daemon.so.http_io_threads,
                  "Threads reading and writing HTTP connections (pages kept ready are served "
                  "by these alone)")
      ->capture_default_str()
      ->check(CLI::Range(1, 64));
  srv->add_option("--http-stale-wait", s.daemon.so.http_stale_wait_ms,
                  "Milliseconds a reader without credentials waits for a kept page that a write "
                  "made out of date to be made again; past it the page kept before is served, "
                  "and the next reader gets the new one")
      ->capture_default_str()
      ->check(CLI::Range(0, 600000));
  srv->add_option("--cache-mb", s.daemon.so.cache_mb,
                  "Memory for pages kept ready to serve, in MiB (0: make every page afresh)")
      ->capture_default_str()
      ->check(CLI::Range(0, 65536));
  srv->add_option("--http-max-conns-per-addr", s.daemon.so.http_max_conns_per_addr,
                  "Open HTTP connections at most from one client address (more: 503)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000));
  srv->add_option("--smtp-max-conns", s.daemon.so.smtp_max_conns,
                  "Open SMTP connections at most (more: 421)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000));
  srv->add_option("--smtp-max-conns-per-addr", s.daemon.so.smtp_max_conns_per_addr,
                  "Open SMTP connections at most from one client address (more: 421)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000));
  srv->add_option("--smtp-idle-timeout", s.daemon.so.smtp_idle_timeout,
                  "Seconds an SMTP client may stay silent before MAIL (then 421 and closed)")
      ->capture_default_str()
      ->check(CLI::Range(1, 3600));
  srv->add_option("--smtp-buffer-budget", s.daemon.so.smtp_buffer_budget,
                  "Bytes of message data buffered by all SMTP sessions together (DATA beyond: 452)")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1} << 20, std::size_t{1} << 40));
  srv->add_option("--smtp-buffer-per-addr", s.daemon.so.smtp_buffer_per_addr,
                  "Bytes of that budget one client address (an IPv6 client's /64) may hold (DATA "
                  "beyond: 452; default 0: a quarter of the budget)")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{0}, std::size_t{1} << 40));
  srv->add_option("--smtp-data-total-timeout", s.daemon.so.smtp_data_total_timeout,
                  "Seconds one DATA phase may last in all, however steadily it trickles (then 421)")
      ->capture_default_str()
      ->check(CLI::Range(10, 86400));
  srv->add_option("--smtp-tls-cert", s.daemon.so.smtp_tls_cert,
                  "PEM certificate chain for STARTTLS on the SMTP listener (with --smtp-tls-key; "
                  "re-read on SIGHUP; default: no STARTTLS)")
      ->envname("ADJUTANT_SMTP_TLS_CERT");
  srv->add_option("--smtp-tls-key", s.daemon.so.smtp_tls_key,
                  "PEM private key (unencrypted) of --smtp-tls-cert (re-read on SIGHUP)")
      ->envname("ADJUTANT_SMTP_TLS_KEY");
  srv->add_flag("--smtp-require-tls", s.daemon.so.smtp_require_tls,
                "Refuse mail (530) from SMTP clients that have not issued STARTTLS");
  srv->add_option("--trusted-proxy", s.daemon.so.trusted_proxies,
                  "Reverse proxy (CIDR or address; repeatable) whose X-Forwarded-For or Forwarded "
                  "header names the HTTP client; from any other peer they are ignored (default: "
                  "none)")
      ->check([](const std::string& v) -> std::string {
        return parse_ip_net(v) ? std::string() : "not an IP address or CIDR: " + v;
      });
  srv->add_option("--session-idle-days", s.daemon.session_idle_days,
                  "Days a player's sign-in session may go unused before the server ends it "
                  "(fractions allowed)")
      ->capture_default_str()
      ->check(CLI::Range(0.00001, 3650.0));
  srv->add_option("--session-max-days", s.daemon.session_max_days,
                  "Days after sign-in when the server ends a session however much it is used "
                  "(fractions allowed)")
      ->capture_default_str()
      ->check(CLI::Range(0.00001, 3650.0));
  srv->add_option("--pg-connect-timeout", s.daemon.so.pg_connect_timeout,
                  "Seconds to wait for PostgreSQL to accept a connection (then 503)")
      ->capture_default_str()
      ->check(CLI::Range(1, 600));
  srv->add_option("--pg-statement-timeout", s.daemon.so.pg_statement_timeout,
                  "Seconds to wait for PostgreSQL to answer one statement (then the connection "
                  "is dropped and the request gets 503)")
      ->capture_default_str()
      ->check(CLI::Range(1, 3600));
  srv->add_option("--pg-idle-timeout", s.daemon.so.pg_idle_timeout,
                  "Seconds a PostgreSQL connection may be idle before TCP keepalives check the "
                  "server is there")
      ->capture_default_str()
      ->check(CLI::Range(1, 86400));
}

}  // namespace

void add_serve_command(CLI::App& app, CliState& s) {
  s.daemon.press_digest_minutes = s.daemon.so.press_digest.interval_seconds / 60;
  s.daemon.session_idle_days = static_cast<double>(s.daemon.so.sessions.idle_seconds) / 86400;
  s.daemon.session_max_days = static_cast<double>(s.daemon.so.sessions.absolute_seconds) / 86400;
  s.daemon.press_digest_kib = s.daemon.so.press_digest.max_bytes / 1024;
  // serve: the daemon (HTTP pages and API, deadline scheduler)
  if (const char* env = std::getenv("ADJUTANT_BASE_URL"); env && *env) s.daemon.so.base_url = env;
  auto* srv = app.add_subcommand(
      "serve",
      "Run the daemon: web pages, JSON API, deadline scheduler (GM token from env "
      "ADJUTANT_GM_TOKEN)");
  srv->add_option("--http", s.daemon.so.http, "HOST:PORT to listen on")->capture_default_str();
  srv->add_option("--base-url", s.daemon.so.base_url,
                  "Public base URL for links (env ADJUTANT_BASE_URL; default http://HOST:PORT)");
  srv->add_option("--tick", s.daemon.so.tick_seconds, "Scheduler period in seconds (0: off)")
      ->check(CLI::Range(0, 86400))
      ->capture_default_str();
  srv->add_option("--turn-threads", s.daemon.so.turn_threads,
                  "Due turns run at once by the scheduler, each game on one thread (a turn is "
                  "computed while another is written): more may help when the database server has "
                  "cores of its own")
      ->capture_default_str()
      ->check(CLI::Range(1, 16));
  srv->add_flag("--demo", s.daemon.so.demo,
                "Create the demo game (two turns played) if there is no game");
  if (const char* env = std::getenv("ADJUTANT_MAIL_FROM"); env && *env) s.daemon.so.mail_from = env;
  if (const char* env = std::getenv("ADJUTANT_RELAY"); env && *env) s.daemon.so.relay = env;
  if (const char* env = std::getenv("ADJUTANT_GM_ADDRESS"); env && *env)
    s.daemon.so.gm_address = env;
  if (const char* env = std::getenv("ADJUTANT_RELAY_USER"); env && *env)
    s.daemon.so.relay_user = env;
  if (const char* env = std::getenv("ADJUTANT_RELAY_PASSWORD"); env && *env)
    s.daemon.so.relay_password = env;
  srv->add_option("--smtp", s.daemon.so.smtp, "HOST:PORT of the SMTP listener for orders, or off")
      ->capture_default_str();
  srv->add_option("--smtp-allow", s.daemon.so.smtp_allow,
                  "Accepted recipient address (repeatable; default: any)");
  srv->add_option("--max-message-bytes", s.daemon.so.max_message_bytes,
                  "Largest message kept whole (larger: headers kept, answered with a refusal)")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1024}, std::size_t{1} << 30));
  srv->add_option("--maildir", s.daemon.so.maildir,
                  "Maildir to watch for orders (DIR/new, moved to DIR/cur)");
  srv->add_option("--relay", s.daemon.so.relay,
                  "smtp://HOST:PORT or smtps://HOST:PORT relay for outgoing mail (env "
                  "ADJUTANT_RELAY; default: none, mail stays in the local outbox Maildir)");
  srv->add_flag("--relay-starttls", s.daemon.so.relay_starttls,
                "Require STARTTLS on the relay (env ADJUTANT_RELAY_STARTTLS=1)")
      ->envname("ADJUTANT_RELAY_STARTTLS");
  srv->add_option("--relay-user", s.daemon.so.relay_user,
                  "Relay AUTH user (env ADJUTANT_RELAY_USER)");
  srv->add_option("--relay-password", s.daemon.so.relay_password,
                  "Relay AUTH password (env ADJUTANT_RELAY_PASSWORD)");
  srv->add_option("--outbox", s.daemon.so.outbox,
                  "Maildir for outgoing mail when there is no relay (default: <db dir>/outbox)");
  srv->add_option("--mail-from", s.daemon.so.mail_from,
                  "From address of the mail sent (env ADJUTANT_MAIL_FROM)")
      ->capture_default_str();
  srv->add_option("--gm-address", s.daemon.so.gm_address,
                  "The GM's address for games that set none: messages to the GM are forwarded "
                  "there and mail names it (env ADJUTANT_GM_ADDRESS)")
      ->check([](const std::string& a) {
        const Status s = Membership::check_address(a);
        return s.ok() ? std::string() : "--gm-address: " + s.message();
      });
  srv->add_option("--outbox-lease", s.daemon.so.outbox_lease_seconds,
                  "Seconds a claim on outbox messages holds before another daemon may take "
                  "them over")
      ->capture_default_str()
      ->check(CLI::Range(20, 3600));
  srv->add_option("--relay-connections", s.daemon.so.relay_connections,
                  "Messages handed to the relay (or Maildir) at once while the outbox has a "
                  "backlog, each on a connection of its own")
      ->capture_default_str()
      ->check(CLI::Range(1, 32));
  srv->add_option("--reminder-hours", s.daemon.so.reminder_hours,
                  "Remind players without orders this long before a deadline")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 24.0 * 30));
  srv->add_option("--press-digest-minutes", s.daemon.press_digest_minutes,
                  "Press is mailed to each player gathered, at most one mail this often")
      ->capture_default_str()
      ->check(CLI::Range(1, 24 * 60));
  srv->add_option("--press-digest-kib", s.daemon.press_digest_kib,
                  "Press text in one digest mail (KiB); the rest is on the web")
      ->capture_default_str()
      ->check(CLI::Range(8, 4096));
  add_mail_bounds(srv, s.daemon.so);
  add_limits(srv, s);
  add_auth_options(srv, s.daemon.so.auth);
  srv->callback([&s] {
    s.daemon.so.sessions.idle_seconds =
        std::max<std::int64_t>(1, std::llround(s.daemon.session_idle_days * 86400));
    s.daemon.so.sessions.absolute_seconds =
        std::max<std::int64_t>(1, std::llround(s.daemon.session_max_days * 86400));
    s.daemon.so.sessions.touch_seconds =
        std::clamp<std::int64_t>(s.daemon.so.sessions.idle_seconds / 4, 1, 60);
    s.daemon.so.create_demo = [&s](std::string* id) { return demo_game(s.common, 2, false, id); };
    s.daemon.so.press_digest.interval_seconds = s.daemon.press_digest_minutes * 60;
    s.daemon.so.press_digest.max_bytes = s.daemon.press_digest_kib * 1024;
    // The daemon keeps an Argon2id slot for sign-ins while a big game's secrets are hashed.
    SecretHashCost cost = secret_hash_cost();
    cost.reserved_for_checks = 1;
    if (Status st = set_secret_hash_cost(cost); !st.ok()) {
      s.code = fail(st);
      return;
    }
    s.code = serve(s.common, s.daemon.so);
  });
}

}  // namespace adj::cli
