// What `adjutant serve` makes of its options before anything listens: the listening address, the
// file limit and connection caps, the database wait limits, logging, the web and mail
// configurations (with the GM token), the outbox and its sender, the demo game, the page cache's
// options and the lines printed at start. serve.cc wires what these return; nothing here listens
// or starts a thread. Main thread only.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "base/client_address.h"
#include "rules/core/status.h"
#include "server/daemon/serve.h"
#include "server/http/conn_caps.h"
#include "server/http/http_server.h"
#include "server/http/response_cache.h"
#include "server/mail/mail_ingest.h"
#include "server/web/web_context.h"

namespace adj::mail {
class MailSender;
}
namespace adj::http {
class Router;
}

namespace adj::daemon {

struct HostPort {
  std::string host;
  int port = 0;
};

// "HOST:PORT" or "[V6]:PORT" (InvalidArgument naming `flag` otherwise).
Result<HostPort> parse_host_port(const std::string& s, const std::string& flag = "--http");

// --http, with port 0 replaced by a free port of the host (so the base URL can name it).
Result<HostPort> http_address(const ServeOptions& o);

// --trusted-proxy as a set (InvalidArgument naming the entry that is no address or CIDR).
Result<TrustedProxies> trusted_proxies(const ServeOptions& o);

// logfmt-style lines on stderr (ts=... level=... event=...); SPDLOG_LEVEL sets the level.
void setup_logging();

// Raises the soft file limit to the hard one and fits the HTTP and SMTP connection caps below it,
// so a flood of clients meets a polite refusal and files can still be opened (logged when the
// caps asked for had to be lowered).
http::FittedCaps connection_caps(const ServeOptions& o);

// How long the process waits for PostgreSQL (storage/wait_limit.h); before the first connection.
void set_wait_limits(const ServeOptions& o);

// With mimalloc (CMakeLists.txt ADJUTANT_MIMALLOC): memory a thread frees is given back to the
// system after kDecommitDelayMs unused instead of mimalloc's 25 ms, unless MIMALLOC_DECOMMIT_DELAY
// or MIMALLOC_PURGE_DELAY is set. In the busiest minute the scheduler and report threads spent
// 18-20% of their time in madvise and in the page faults that took the same pages back (one turn
// after another). The daemon does not ask for large pages (server/app/allocator.h): it would keep
// its busiest minute's memory for good. Logs the delay in effect (event=allocator); nothing
// without mimalloc.
inline constexpr long kDecommitDelayMs = 1000;
void tune_allocator();

// Where this run's GM token came from: what the start-up lines say of it.
struct GmTokenOrigin {
  bool made_up = false;  // no ADJUTANT_GM_TOKEN: --demo made one
  bool kept = false;     // ... and keeps it beside the database for the next start
};

// The web configuration: the database, the guessing and session limits, the base URL
// (--base-url, or http:// the listening address) and the GM token (ADJUTANT_GM_TOKEN; with
// --demo and none set, one made up and kept beside the database). Logs when the GM is off.
web::WebConfig web_config(const std::string& db, const ServeOptions& o, const HostPort& http,
                          GmTokenOrigin* origin);

// The mail configuration from the options (bounds on received mail, From, the map painter) and
// the GM token, which the GM's own mail must carry.
mail::MailConfig mail_config(const ServeOptions& o, const std::string& base_url,
                             const std::string& gm_token);

// The outbox Maildir: --outbox, else beside a SQLite file, else ./outbox.
std::string outbox_dir(const std::string& db, const ServeOptions& o);

// The outbox's sender: the relay of --relay, else the outbox Maildir. Records the mode in
// mail_delivery() (the health check and the GM pages show it).
std::unique_ptr<mail::MailSender> mail_sender(const ServeOptions& o, const std::string& outbox);

// With --demo: the demo game's id, created when the database has no game (else its first game);
// "" without --demo. An error when the database cannot be read or the game not made (logged).
Result<std::string> demo_game(web::WebContext& ctx, const ServeOptions& o);

// The HTTP server's options: `max_connections` (connection_caps' HTTP share), the per-address
// cap, the I/O threads, the stale wait and the trusted proxies of `o`.
http::ServerOptions http_server_options(const ServeOptions& o, int max_connections,
                                        const TrustedProxies& proxies);

// The page cache's options: the budget of --cache-mb, keyed by issued credentials only.
http::CacheOptions cache_options(const ServeOptions& o, web::WebContext& ctx);

// The page cache's counters in the Prometheus text format, for Metrics::set_collector. `cache`
// must outlive the collector.
std::function<void(std::string&)> cache_collector(const http::ResponseCache& cache);

// What to print when a listener cannot start: which address failed, why, and the flag to pass.
std::string listen_hint(const std::string& what, const std::string& addr, const std::string& flag,
                        const std::string& why, const std::string& alternative);

// The lines printed once the daemon listens: where the games, the demo game and a player's link,
// the GM desk (and where its token is), health and metrics are, and whether mail leaves the host.
struct StartupFacts {
  std::string db;
  std::string base_url;
  std::string gm_token;
  GmTokenOrigin gm_origin;
  std::string demo_game;
  std::string outbox;
};
std::string startup_lines(const StartupFacts& facts, web::WebContext& ctx,
                          const http::Router& router);

}  // namespace adj::daemon
