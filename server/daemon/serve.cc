// `adjutant serve`: the daemon. Opens the database, registers the routes, starts the HTTP server
// (http_server.h: its own I/O thread and handler pool), and runs the main thread's io_context for
// the signals and the scheduler timer. Every --tick seconds GameAdmin::tick() runs on a one-thread
// pool (it may resolve a turn), and the next tick is armed only after it returns, so ticks never
// overlap. SIGINT/SIGTERM: stop accepting, finish the requests and any turn in hand, exit 0.
// All state is in the database: stopping and starting loses nothing.
// The composition root (serve.h): the only place that knows every piece.
#include <spdlog/cfg/env.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <malloc.h>
#include <sys/resource.h>
#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <chrono>

#include <csignal>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include "server/daemon/serve.h"

#include "server/daemon/cache_credentials.h"
#include "server/daemon/revision_reader.h"
#include "server/daemon/serve_jobs.h"

#include "base/client_address.h"
#include "base/log_escape.h"
#include "server/app/gm_token_file.h"
#include "server/app/mail_delivery.h"
#include "server/app/reports_in_flight.h"
#include "server/http/conn_caps.h"
#include "server/http/http_server.h"
#include "server/http/smtp_server.h"
#include "server/http/thread_setup.h"
#include "server/mail/auth_alert.h"
#include "server/mail/mail_ingest.h"
#include "server/mail/mime.h"
#include "server/mail/notice_mailer.h"
#include "server/mail/outbox_worker.h"
#include "server/render/state_map.h"
#include "server/web/web_context.h"
#include "server/web/web_session.h"
#include "storage/open_database.h"
#include "storage/store.h"
#include "storage/wait_limit.h"

namespace adj::daemon {

namespace {

namespace asio = boost::asio;

struct HostPort {
  std::string host;
  int port = 0;
};

// "HOST:PORT" or "[V6]:PORT".
Result<HostPort> parse_host_port(const std::string& s) {
  HostPort hp;
  std::string port;
  if (!s.empty() && s.front() == '[') {
    const std::size_t close = s.find(']');
    if (close == std::string::npos || close + 1 >= s.size() || s[close + 1] != ':')
      return Status::InvalidArgument("--http wants HOST:PORT or [V6]:PORT, not " + s);
    hp.host = s.substr(1, close - 1);
    port = s.substr(close + 2);
  } else {
    const std::size_t colon = s.rfind(':');
    if (colon == std::string::npos || colon == 0)
      return Status::InvalidArgument("--http wants HOST:PORT, not " + s);
    hp.host = s.substr(0, colon);
    port = s.substr(colon + 1);
  }
  try {
    std::size_t used = 0;
    hp.port = std::stoi(port, &used);
    if (used != port.size() || hp.port < 0 || hp.port > 65535) throw std::out_of_range(port);
  } catch (const std::exception&) {
    return Status::InvalidArgument("--http: bad port " + port);
  }
  return hp;
}

std::string random_hex(int bytes) {
  std::random_device rd;
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < bytes; ++i) {
    const unsigned v = rd() & 0xff;
    out += digits[v >> 4];
    out += digits[v & 15];
  }
  return out;
}

// Raises the soft RLIMIT_NOFILE to the hard limit (idle clients cost a descriptor each). Returns
// the soft limit now in force, or -1 for none (RLIM_INFINITY or unknown).
long long raise_file_limit() {
  rlimit rl{};
  if (::getrlimit(RLIMIT_NOFILE, &rl) != 0) return -1;
  if (rl.rlim_cur < rl.rlim_max) {
    const rlim_t before = rl.rlim_cur;
    rl.rlim_cur = rl.rlim_max;
    if (::setrlimit(RLIMIT_NOFILE, &rl) != 0) rl.rlim_cur = before;
  }
  return rl.rlim_cur == RLIM_INFINITY ? -1 : static_cast<long long>(rl.rlim_cur);
}

// Runs `fn` on a pool thread, logging an exception instead of letting it end the process (e.g.
// the database cannot be opened for want of file descriptors; the work is retried later).
template <class F>
void guarded(const char* what, F&& fn) {
  try {
    fn();
  } catch (const std::exception& e) {
    spdlog::error("event={}_exception what=\"{}\"", what, log_escape(e.what()));
  }
}

// logfmt-style lines on stderr: ts=... level=... event=... key=value ...
void setup_logging() {
  auto logger = spdlog::stderr_color_mt("adjutant");
  logger->set_pattern("ts=%Y-%m-%dT%H:%M:%S.%eZ level=%l %v", spdlog::pattern_time_type::utc);
  spdlog::set_default_logger(logger);
  spdlog::set_level(spdlog::level::info);
  spdlog::cfg::load_env_levels();  // SPDLOG_LEVEL=debug shows every request
}

// For the default base URL: a wildcard address is reached through the loopback one.
std::string url_host(const std::string& host) {
  if (host == "0.0.0.0" || host.empty()) return "127.0.0.1";
  if (host == "::") return "[::1]";
  return host.find(':') != std::string::npos ? "[" + host + "]" : host;
}

// Port 0 means "any free port": pick one now, so that the base URL can name it.
Result<int> free_port(const std::string& host) {
  try {
    asio::io_context io;
    asio::ip::tcp::resolver resolver(io);
    const auto ep = resolver.resolve(host, "0").begin()->endpoint();
    asio::ip::tcp::acceptor acceptor(io, ep);
    return static_cast<int>(acceptor.local_endpoint().port());
  } catch (const std::exception& e) {
    return Status::IOError("cannot find a free port on " + host + ": " + e.what());
  }
}

// What to do when a listener cannot start: which address failed, why, and the flag to pass.
std::string listen_hint(const std::string& what, const std::string& addr, const std::string& flag,
                        const std::string& why, const std::string& alternative) {
  return "adjutant serve: cannot listen for " + what + " on " + addr + " (" + why +
         "). Another program (perhaps another adjutant serve) may be using it. Pass " + flag +
         " HOST:PORT with a free port, " + alternative + ".\n";
}

// A player's sign-in link, from the API itself (so the URL format lives in one place).
std::string player_link(const http::Router& router, const std::string& gm_token,
                        const std::string& game, const std::string& player) {
  http::Request req;
  req.method = "POST";  // issues a new link token (only its hash is stored)
  req.path = "/api/games/" + game + "/players/" + player + "/token";
  req.headers["authorization"] = "Bearer " + gm_token;
  const http::Response r = router.route(req);
  if (r.status != 200) return "";
  const Json j = Json::parse(r.body, nullptr, false);
  return j.is_object() ? j.value("url", "") : "";
}

}  // namespace

int serve(const std::string& db, const ServeOptions& o) {
  setup_logging();
  std::signal(SIGPIPE, SIG_IGN);
  // Under glibc's malloc (a build without mimalloc, e.g. the sanitizer build): large buffers (SMTP
  // message data, request bodies) are mmap'ed and go back to the system when freed, so the
  // resident size follows the SMTP buffer budget (by default glibc raises its mmap threshold after
  // the first large free and keeps freed heap memory resident). With mimalloc (CMakeLists.txt
  // ADJUTANT_MIMALLOC) this is glibc's own setting and changes nothing: mimalloc returns freed
  // memory to the system by itself.
  mallopt(M_MMAP_THRESHOLD, 256 * 1024);

  // Connection caps below the file limit, so that a flood of clients meets a polite refusal and
  // the database and mail files can still be opened.
  const long long fd_limit = raise_file_limit();
  const http::FittedCaps caps = http::fit_caps_to_fd_limit(
      o.http_max_conns, o.smtp == "off" ? 0 : o.smtp_max_conns, fd_limit);
  if (caps.lowered)
    spdlog::warn(
        "event=connection_caps_lowered fd_limit={} http_max_conns={} smtp_max_conns={} "
        "reason=\"the caps asked for do not fit the file limit; raise LimitNOFILE / ulimit -n\"",
        fd_limit, caps.http, caps.smtp);

  auto hp = parse_host_port(o.http);
  if (!hp.ok()) {
    spdlog::error("event=bad_option error=\"{}\"", log_escape(hp.status().message()));
    return kServeError;
  }
  TrustedProxies trusted_proxies;
  for (const std::string& cidr : o.trusted_proxies)
    if (!trusted_proxies.add(cidr)) {
      spdlog::error("event=bad_option error=\"--trusted-proxy {}: not an IP address or CIDR\"",
                    log_escape(cidr));
      return kServeError;
    }
  if (hp->port == 0) {
    auto port = free_port(hp->host);
    if (!port.ok()) {
      spdlog::error("event=listen_failed error=\"{}\"", log_escape(port.status().message()));
      return kServeError;
    }
    hp->port = *port;
  }

  DatabaseWaitLimits waits;  // before the first connection opens
  waits.connect = std::chrono::seconds(o.pg_connect_timeout);
  waits.statement = std::chrono::seconds(o.pg_statement_timeout);
  waits.idle = std::chrono::seconds(o.pg_idle_timeout);
  set_database_wait_limits(waits);

  web::WebConfig config;
  config.db_path = db;
  config.throttle = o.auth;
  config.sessions = o.sessions;
  config.base_url = o.base_url.empty()
                        ? "http://" + url_host(hp->host) + ":" + std::to_string(hp->port)
                        : o.base_url;
  while (!config.base_url.empty() && config.base_url.back() == '/') config.base_url.pop_back();
  if (const char* env = std::getenv("ADJUTANT_GM_TOKEN"); env && *env) config.gm_token = env;
  bool generated_gm_token = false, gm_token_kept = false;
  if (config.gm_token.empty() && o.demo) {
    // Made up once and kept beside the database, so every quick start has the same token.
    auto kept = database_file(db).empty()
                    ? Result<std::string>(Status::FailedPrecondition(
                          "the database is not a file: no GM token file beside it"))
                    : load_or_create_gm_token(database_file(db));
    if (kept.ok()) {
      config.gm_token = *kept;
      gm_token_kept = true;
    } else {
      spdlog::warn("event=gm_token_file_failed error=\"{}\"", log_escape(kept.status().message()));
      config.gm_token = random_hex(16);
    }
    generated_gm_token = true;
  }
  if (config.gm_token.empty())
    spdlog::warn("event=gm_disabled reason=\"ADJUTANT_GM_TOKEN is not set: no GM pages or API\"");

  web::WebContext ctx(config, [] { return static_cast<UnixTime>(std::time(nullptr)); });
  if (Status s = ctx.open_check(); !s.ok()) {
    spdlog::error("event=db_open_failed error=\"{}\"", log_escape(s.message()));
    return kServeError;
  }

  // The demo game, when asked for and the database has no game yet.
  std::string demo_id;
  auto games = ctx.services().list_games();
  if (!games.ok()) {
    spdlog::error("event=db_error error=\"{}\"", log_escape(games.status().message()));
    return kServeError;
  }
  if (o.demo) {
    if (games->empty()) {
      if (!o.create_demo || o.create_demo(&demo_id) != kServeOk) {
        spdlog::error("event=demo_failed");
        return kServeError;
      }
      spdlog::info("event=demo_created game={} turns_played=2", log_escape(demo_id));
    } else {
      demo_id = games->front().id;
    }
  }

  // Mail. Answering received mail runs on one mail thread, in order (so no inbox message is
  // processed twice at once); delivering the outbox and queueing reports on one deliver thread
  // (the only user of the outbox sender); storing SMTP messages on the listener's store thread.
  namespace fs = std::filesystem;
  mail::MailConfig mail_config;
  mail_config.from = {o.mail_from, "Adjutant"};
  mail_config.base_url = config.base_url;
  mail_config.allowed_recipients = o.smtp_allow;
  mail_config.max_message_bytes = o.max_message_bytes;
  mail_config.refusals_per_window = o.refusals_per_hour;
  mail_config.refusals_per_window_total = o.refusals_per_hour_total;
  mail_config.max_process_attempts = o.mail_max_tries;
  mail_config.mime.max_parts = o.mail_max_parts;
  mail_config.max_messages_per_sender = o.mail_sender_messages;
  mail_config.max_bytes_per_sender = o.mail_sender_bytes;
  mail_config.max_messages_per_peer = o.mail_peer_messages;
  mail_config.max_bytes_per_peer = o.mail_peer_bytes;
  mail_config.keep_raw_days = o.mail_keep_days;
  mail_config.map_painter = render::map_painter();  // report mails attach the map as a PNG
  mail_config.trusted_peers.clear();
  for (const std::string& p : o.mail_trusted_peers)
    if (p != "none") mail_config.trusted_peers.push_back(p);
  std::string outbox_dir = o.outbox;
  if (outbox_dir.empty()) {
    // Beside a SQLite file; in the working directory for a database that is not a file.
    const fs::path parent = fs::path(database_file(db)).parent_path();
    outbox_dir = parent.empty() ? std::string("outbox") : (parent / "outbox").string();
  }
  std::unique_ptr<mail::MailSender> sender;
  if (!o.relay.empty()) {
    mail::SmtpRelayOptions ro;
    ro.url = o.relay;
    ro.starttls = o.relay_starttls;
    ro.user = o.relay_user;
    ro.password = o.relay_password;
    ro.timeout_seconds = std::min<long>(120, o.outbox_lease_seconds / 3);
    ro.connect_timeout_seconds = std::min<long>(10, ro.timeout_seconds);
    sender = std::make_unique<mail::SmtpRelaySender>(ro);
    mail_delivery().set_mode(MailDeliveryMode::kRelay, o.relay);
  } else {
    sender = std::make_unique<mail::MaildirSender>(outbox_dir);
    mail_delivery().set_mode(MailDeliveryMode::kMaildir, outbox_dir);
  }
  asio::thread_pool mail_pool(1);
  // Answering, delivering and the Maildir scan are background work: at nice 19 the mail thread
  // yields the CPU to the listeners (acknowledging a message is what a client waits for) and
  // catches up as soon as the CPU is free. Its queue is durable (inbox "new", outbox "pending").
  asio::post(mail_pool, [] {
    http::name_this_thread("mail");
    if (!http::lower_this_thread_priority(19)) spdlog::warn("event=mail_thread_nice_refused");
  });
  // Delivery (and queueing the reports after a turn) runs on its own thread, so it never waits
  // behind a backlog of messages to answer (see the delivery timer below).
  asio::thread_pool deliver_pool(1);
  asio::post(deliver_pool, [] { http::name_this_thread("deliver"); });
  std::atomic<bool> mail_stopping{false};
  // Every message answered is logged once, by whichever path answered it (the listener's
  // process() or a pass over the messages left "new").
  const auto log_processed = [](std::int64_t id, const auto& r) {
    spdlog::info("event=mail_processed inbox_id={} action={} queued={}", id, r.action, r.queued);
  };
  const auto process = [&](std::int64_t id) {
    asio::post(mail_pool, [&, id] {
      if (mail_stopping) return;  // still "new": process_pending at the next start
      guarded("mail_process", [&] {
        auto r = thread_ingest(ctx, mail_config).process(id);
        if (!r.ok())
          spdlog::warn("event=mail_process_failed inbox_id={} error=\"{}\"", id,
                       log_escape(r.status().message()));
        else
          log_processed(id, *r);
      });
    });
  };
  ctx.set_on_secrets_issued([&](const std::string& game,
                                const std::map<std::string, std::string>& secrets, bool with_link) {
    asio::post(mail_pool, [&, game, secrets, with_link] {
      guarded("secret_mail", [&] {
        auto n = thread_ingest(ctx, mail_config).queue_new_secrets(game, secrets, with_link);
        if (!n.ok())
          spdlog::warn("event=secret_mail_failed game={} error=\"{}\"", log_escape(game),
                       log_escape(n.status().message()));
        else
          spdlog::info("event=secret_mail_queued game={} count={}", log_escape(game), *n);
      });
    });
  });
  ReportsInFlight reports_in_flight;
  const auto steady_seconds = [] {
    return std::chrono::duration_cast<std::chrono::seconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  };
  ctx.set_on_turn_run([&](const std::string& game, int turn, bool recovery) {
    if (!reports_in_flight.begin(game, turn, recovery, steady_seconds())) {
      spdlog::debug(
          "event=reports_mail_skipped game={} turn={} reason=\"queued or failed just now\"",
          log_escape(game), turn);
      return;
    }
    asio::post(deliver_pool, [&, game, turn] {
      bool ok = false;
      guarded("reports_mail", [&] {
        auto n = thread_ingest(ctx, mail_config).queue_turn_reports(game, turn);
        ok = n.ok();
        if (!n.ok())
          spdlog::warn("event=reports_mail_failed game={} turn={} error=\"{}\"", log_escape(game),
                       turn, log_escape(n.status().message()));
        else
          spdlog::info("event=reports_queued game={} turn={} count={}", log_escape(game), turn, *n);
      });
      reports_in_flight.end(game, turn, ok, steady_seconds());
    });
  });
  // A player's key locked by failed checks on the web: the player hears of it (auth_alert.h).
  ctx.set_on_auth_lockout(
      [&](const std::string& game, const std::string& player, const ThrottleState& account) {
        asio::post(mail_pool, [&, game, player, account] {
          auto q = mail::queue_auth_alert(ctx.services(), web::thread_store(ctx), mail_config, game,
                                          player, account, ctx.clock()());
          if (!q.ok())
            spdlog::warn("event=auth_alert_failed error=\"{}\"", q.status().message());
          else if (*q)
            spdlog::info("event=auth_alert_queued lockouts={}", account.lockouts);
        });
      });
  asio::post(mail_pool, [&] {  // what a previous run stored but did not answer
    guarded("mail_pending", [&] {
      if (auto n = thread_ingest(ctx, mail_config).release_dead_leases(); n.ok() && *n > 0)
        spdlog::info("event=mail_leases_released count={} reason=\"holder process gone\"", *n);
      for (;;) {
        auto n = thread_ingest(ctx, mail_config).process_pending(100, log_processed);
        if (!n.ok()) {
          spdlog::warn("event=mail_pending_failed error=\"{}\"", log_escape(n.status().message()));
          break;
        }
        if (*n > 0) spdlog::info("event=mail_pending_processed count={}", *n);
        if (*n < 100 || mail_stopping) break;
      }
    });
  });
  // recipient_allowed reads only the immutable configuration, so the SMTP I/O thread may call it
  // on this object (owned by the main thread).
  mail::MailIngest& gate = thread_ingest(ctx, mail_config);
  std::unique_ptr<http::SmtpServer> smtp;
  if (o.smtp != "off") {
    auto shp = parse_host_port(o.smtp);
    if (!shp.ok()) {
      spdlog::error("event=bad_option option=--smtp error=\"{}\"",
                    log_escape(shp.status().message()));
      return kServeError;
    }
    if (o.smtp_tls_cert.empty() != o.smtp_tls_key.empty() ||
        (o.smtp_require_tls && o.smtp_tls_cert.empty())) {
      const char* why = o.smtp_tls_cert.empty() != o.smtp_tls_key.empty()
                            ? "--smtp-tls-cert and --smtp-tls-key go together"
                            : "--smtp-require-tls needs --smtp-tls-cert and --smtp-tls-key";
      spdlog::error("event=bad_option option=--smtp-tls error=\"{}\"", why);
      std::fprintf(stderr, "adjutant serve: %s\n", why);
      return kServeError;
    }
    http::SmtpServerOptions so;
    so.limits.hostname = "adjutant";
    so.limits.max_message_bytes = o.max_message_bytes;
    so.max_connections = caps.smtp;
    so.max_connections_per_address = o.smtp_max_conns_per_addr;
    so.idle_timeout = std::chrono::seconds(o.smtp_idle_timeout);
    so.buffer_budget = o.smtp_buffer_budget;
    so.buffer_budget_per_address = o.smtp_buffer_per_addr;
    so.data_total_timeout = std::chrono::seconds(o.smtp_data_total_timeout);
    so.tls_cert_file = o.smtp_tls_cert;
    so.tls_key_file = o.smtp_tls_key;
    so.require_tls = o.smtp_require_tls;
    so.metrics = &ctx.metrics();
    smtp = std::make_unique<http::SmtpServer>(
        [&](std::vector<http::SmtpMessage>& batch) {
          return store_smtp_batch(ctx, mail_config, batch, process);
        },
        [&gate](const std::string& a) { return gate.recipient_allowed(a); }, so);
    if (Status s = smtp->start(shp->host, shp->port); !s.ok()) {
      const bool tls_failed = s.code() == StatusCode::kFailedPrecondition;  // cert or key
      spdlog::error("event={} error=\"{}\"",
                    tls_failed ? "smtp_tls_load_failed" : "smtp_listen_failed",
                    log_escape(s.message()));
      if (tls_failed) {
        std::fprintf(stderr, "adjutant serve: STARTTLS (--smtp-tls-cert, --smtp-tls-key): %s\n",
                     s.message().c_str());
        return kServeError;
      }
      std::fprintf(stderr, "%s",
                   listen_hint("SMTP", o.smtp, "--smtp", s.message(),
                               "or --smtp off to take no mail on this server")
                       .c_str());
      return kServeError;
    }
    spdlog::info(
        "event=smtp_listening addr=\"{}:{}\" max_message_bytes={} max_conns={} "
        "max_conns_per_addr={} idle_timeout_s={} buffer_budget={} starttls={}",
        log_escape(shp->host), smtp->port(), o.max_message_bytes, caps.smtp,
        o.smtp_max_conns_per_addr, o.smtp_idle_timeout, o.smtp_buffer_budget,
        o.smtp_tls_cert.empty() ? "off"
        : o.smtp_require_tls    ? "required"
                                : "offered");
  }
  spdlog::info("event=mail_out sender=\"{}\" maildir_in=\"{}\"", log_escape(sender->describe()),
               log_escape(o.maildir));
  if (mail_delivery().mode() == MailDeliveryMode::kMaildir)
    spdlog::warn(
        "event=mail_not_sent outbox=\"{}\" reason=\"no --relay: outgoing mail stays in "
        "the local Maildir\"",
        log_escape(outbox_dir));

  http::Router router;
  web::register_routes(router, ctx);
  http::ServerOptions http_options;
  http_options.max_connections = caps.http;
  http_options.max_connections_per_address = o.http_max_conns_per_addr;
  http_options.io_threads = o.http_io_threads;
  http_options.trusted_proxies = trusted_proxies;
  // Pages made once and served until the data they show changes (response_cache.h). The
  // revisions are read by the I/O threads, each through its own connection (no lock shared
  // between them), within half a second; while the database does not answer, kept pages and
  // static files are served as they are (revision_reader.h).
  RevisionReader revision_reader(config.db_path, std::chrono::milliseconds(500),
                                 std::chrono::milliseconds(250));
  http::RevisionSource revision_source = revision_reader.source();
  http::CacheOptions cache_options;
  cache_options.max_bytes = static_cast<std::size_t>(o.cache_mb) << 20;
  // Only issued credentials are keyed (cache_credentials.h); the CSRF token, which forms embed,
  // only beside one.
  cache_options.credential_cookies = {web::kPlayerCookie, web::kGmCookie};
  cache_options.companion_cookies = {web::kCsrfCookie};
  cache_options.check = issued_credential_check(ctx);
  http::ResponseCache cache(std::move(revision_source), cache_options);
  http::HttpServer server(router, ctx.metrics(), http_options, o.cache_mb > 0 ? &cache : nullptr);
  if (o.cache_mb > 0)
    ctx.metrics().set_collector([&cache](std::string& out) {
      const auto st = cache.stats();
      out +=
          "# HELP adjutant_http_cache Answers served from the page cache, made, kept.\n"
          "# TYPE adjutant_http_cache counter\n";
      out += "adjutant_http_cache{what=\"hits\"} " + std::to_string(st.hits) + "\n";
      out += "adjutant_http_cache{what=\"misses\"} " + std::to_string(st.misses) + "\n";
      out += "adjutant_http_cache{what=\"kept\"} " + std::to_string(st.kept) + "\n";
      out += "adjutant_http_cache{what=\"evicted\"} " + std::to_string(st.evicted) + "\n";
      out += "adjutant_http_cache{what=\"bytes\"} " + std::to_string(st.bytes) + "\n";
    });
  // The collector reads `cache`, which goes before `ctx`: taken off when this scope ends.
  struct CollectorOff {
    http::Metrics& metrics;
    ~CollectorOff() { metrics.set_collector(nullptr); }
  } collector_off{ctx.metrics()};

  // Signals first, so that a SIGTERM during startup is a clean stop too.
  asio::io_context io;
  asio::signal_set signals(io, SIGINT, SIGTERM);
  asio::signal_set hangup(io, SIGHUP);
  asio::steady_timer timer(io);
  asio::steady_timer mail_timer(io);
  asio::thread_pool tick_pool(1);
  asio::post(tick_pool, [] { http::name_this_thread("tick"); });
  bool stopping = false;  // main thread only

  if (Status s = server.start(hp->host, hp->port); !s.ok()) {
    spdlog::error("event=listen_failed error=\"{}\"", log_escape(s.message()));
    std::fprintf(
        stderr, "%s",
        listen_hint("HTTP", o.http, "--http", s.message(), "or port 0 to pick a free one").c_str());
    return kServeError;
  }
  const std::string& base = config.base_url;
  spdlog::info(
      "event=listening addr=\"{}:{}\" db=\"{}\" base_url=\"{}\" tick_seconds={} gm={} "
      "max_conns={} max_conns_per_addr={} trusted_proxies={}",
      log_escape(hp->host), server.port(), log_escape(describe_database(db)), log_escape(base),
      o.tick_seconds, config.gm_token.empty() ? "off" : "on", caps.http, o.http_max_conns_per_addr,
      o.trusted_proxies.size());

  std::string lines = "\nAdjutant is serving " + base + "  (Ctrl-C stops it)\n";
  lines += "  Games:            " + base + "/\n";
  if (!demo_id.empty()) {
    lines += "  Demo game:        " + base + "/games/" + http::url_encode(demo_id) + "\n";
    auto shown = ctx.services().show_game(demo_id);
    if (shown.ok() && !(*shown)["players"].empty()) {
      const std::string player = (*shown)["players"][0].value("code", "");
      const std::string link = player_link(router, config.gm_token, demo_id, player);
      if (!link.empty()) lines += "  Player " + player + " link:  " + link + "\n";
      spdlog::info("event=open game_page=\"{}/games/{}\" player=\"{}\"", log_escape(base),
                   log_escape(demo_id), log_escape(player));
    }
  }
  if (!config.gm_token.empty()) {
    lines += "  GM desk:          " + base + "/gm";
    lines += !generated_gm_token ? "  (sign in with ADJUTANT_GM_TOKEN)\n"
             : gm_token_kept     ? "  (GM token: " + config.gm_token + ", kept in " +
                                   gm_token_path(database_file(db)) + " for the next start)\n"
                             : "  (GM token for this run: " + config.gm_token + ")\n";
  }
  lines += "  Health, metrics:  " + base + "/healthz  " + base + "/metrics\n";
  if (mail_delivery().mode() == MailDeliveryMode::kMaildir)
    lines +=
        "\n  MAIL IS NOT SENT. Outgoing mail (players' secrets, sign-in links, reports) is\n"
        "  written to the local Maildir " +
        outbox_dir +
        "\n"
        "  and stays on this machine. To send it, start with --relay smtp://HOST:PORT\n"
        "  (or set ADJUTANT_RELAY; --relay-user, --relay-password for AUTH).\n";
  else
    lines += "  Mail out:         through " + mail_delivery().snapshot().target + "\n";
  std::fputs(lines.c_str(), stdout);
  std::fflush(stdout);

  // The scheduler: a tick now (it also notices downtime), then every tick_seconds after the
  // previous one finished.
  std::function<void(std::chrono::seconds)> arm = [&](std::chrono::seconds delay) {
    timer.expires_after(delay);
    timer.async_wait([&](const boost::system::error_code& ec) {
      if (ec || stopping) return;
      asio::post(tick_pool, [&] {
        try {
          queue_press_digests(ctx, o.press_digest, true);  // press before the turns run
          run_tick(ctx);
          queue_due_reminders(ctx, mail_config, o.reminder_hours);
        } catch (const std::exception& e) {
          spdlog::error("event=tick_exception what=\"{}\"", log_escape(e.what()));
        }
        asio::post(io, [&] {
          if (!stopping) arm(std::chrono::seconds(o.tick_seconds));
        });
      });
    });
  };
  if (o.tick_seconds > 0) arm(std::chrono::seconds(0));

  // The delivery timer: delivers the outbox on its own thread, so delivery never waits behind
  // answering (a slow or stuck message on the mail thread) and answering never waits behind a
  // slow relay. A pass that filled its batch runs again at once, so a backlog drains at the
  // relay's pace.
  asio::steady_timer deliver_timer(io);
  std::unique_ptr<mail::OutboxWorker> outbox_worker;  // deliver thread only
  std::unique_ptr<mail::NoticeMailer> notice_mailer;  // deliver thread only
  UnixTime last_digest_pass = 0;                      // deliver thread only
  std::function<void(bool)> arm_deliver = [&](bool at_once) {
    deliver_timer.expires_after(at_once ? std::chrono::seconds(0)
                                        : std::chrono::seconds(std::max(1, o.mail_seconds)));
    deliver_timer.async_wait([&](const boost::system::error_code& ec) {
      if (ec || stopping) return;
      asio::post(deliver_pool, [&] {
        bool more = false;
        try {
          Store& store = web::thread_store(ctx);
          // Press digests, then notices (press, sign-ups, corrections...), so their mail goes
          // out this pass.
          if (const UnixTime now = ctx.clock()(); now - last_digest_pass >= 10) {
            queue_press_digests(ctx, o.press_digest, false);
            last_digest_pass = now;
          }
          if (!notice_mailer) {
            notice_mailer = std::make_unique<mail::NoticeMailer>(
                ctx.services(), store, store, mail_config.from, mail_config.base_url, ctx.clock());
            notice_mailer->set_map_painter(mail_config.map_painter);
          }
          if (auto n = notice_mailer->deliver(); !n.ok())
            spdlog::warn("event=notices_failed error=\"{}\"", log_escape(n.status().message()));
          else if (*n > 0)
            spdlog::info("event=notices queued={}", *n);
          if (!outbox_worker)
            outbox_worker = std::make_unique<mail::OutboxWorker>(
                store, *sender, mail::BackoffPolicy{}, 50, o.outbox_lease_seconds,
                std::min<std::int64_t>(120, o.outbox_lease_seconds / 3));
          auto st = outbox_worker->run_once(ctx.clock()());
          if (!st.ok())
            spdlog::warn("event=outbox_failed error=\"{}\"", log_escape(st.status().message()));
          else if (st->claimed > 0)
            spdlog::info("event=outbox sent={} retried={} failed={}", st->sent, st->retried,
                         st->failed);
          more = st.ok() && st->claimed >= outbox_worker->batch() && st->sent > 0;
        } catch (const std::exception& e) {
          spdlog::error("event=deliver_timer_exception what=\"{}\"", e.what());
        }
        asio::post(io, [&, more] {
          if (!stopping) arm_deliver(more);
        });
      });
    });
  };
  arm_deliver(false);

  // The mail timer: read the watched Maildir, answer what is left "new", prune old raw mail.
  UnixTime last_prune = 0;  // mail thread only
  std::function<void(bool)> arm_mail = [&](bool at_once) {
    mail_timer.expires_after(at_once ? std::chrono::seconds(0)
                                     : std::chrono::seconds(std::max(1, o.mail_seconds)));
    mail_timer.async_wait([&](const boost::system::error_code& ec) {
      if (ec || stopping) return;
      asio::post(mail_pool, [&] {
        bool more = false;
        try {
          Store& store = web::thread_store(ctx);
          if (!o.maildir.empty()) scan_maildir(ctx, mail_config, o.maildir);
          // Messages left "new": a process died answering (its lease is given back here when it
          // ran on this host, else it runs out), a failed pass.
          (void)thread_ingest(ctx, mail_config).release_dead_leases();
          if (auto n = thread_ingest(ctx, mail_config).process_pending(100, log_processed); !n.ok())
            spdlog::warn("event=mail_pending_failed error=\"{}\"",
                         log_escape(n.status().message()));
          else
            more = *n >= 100;
          if (const UnixTime now = ctx.clock()(); now - last_prune >= 3600) {
            last_prune = now;
            if (auto n = thread_ingest(ctx, mail_config).prune(); !n.ok())
              spdlog::warn("event=mail_prune_failed error=\"{}\"",
                           log_escape(n.status().message()));
            else if (*n > 0)
              spdlog::info("event=mail_pruned count={} keep_days={}", *n,
                           mail_config.keep_raw_days);
          }
          if (auto n = store.inbox_list("failed", 1000, true); n.ok())
            ctx.metrics().set_gauge("adjutant_mail_inbox_failed", static_cast<double>(n->size()));
        } catch (const std::exception& e) {
          spdlog::error("event=mail_timer_exception what=\"{}\"", log_escape(e.what()));
        }
        asio::post(io, [&, more] {
          if (!stopping) arm_mail(more);
        });
      });
    });
  };
  arm_mail(false);

  // SIGHUP: the SMTP listener re-reads its certificate and key (a renewed certificate needs no
  // restart); files that do not load are logged and the previous ones stay in use.
  std::function<void()> arm_hangup = [&] {
    hangup.async_wait([&](const boost::system::error_code& ec, int) {
      if (ec || stopping) return;
      if (smtp && !o.smtp_tls_cert.empty()) {
        if (Status s = smtp->reload_tls(); !s.ok())
          spdlog::error("event=smtp_tls_reload_failed kept=previous error=\"{}\"",
                        log_escape(s.message()));
      } else {
        spdlog::info("event=sighup reloaded=nothing");
      }
      arm_hangup();
    });
  };
  arm_hangup();

  signals.async_wait([&](const boost::system::error_code& ec, int signo) {
    if (ec) return;
    spdlog::info("event=stopping signal={}", signo == SIGINT ? "SIGINT" : "SIGTERM");
    stopping = true;
    hangup.cancel();
    timer.cancel();
    mail_timer.cancel();
    deliver_timer.cancel();
    server.stop();           // no new connections; requests in hand finish
    if (smtp) smtp->stop();  // messages being stored finish (and are answered 250)
    tick_pool.join();        // a turn the scheduler is running finishes
    mail_stopping = true;    // unprocessed messages stay "new" for the next start
    mail_pool.join();
    deliver_pool.join();  // a message being delivered finishes (and is marked)
    io.stop();
  });
  io.run();
  spdlog::info("event=stopped");
  return kServeOk;
}

}  // namespace adj::daemon
