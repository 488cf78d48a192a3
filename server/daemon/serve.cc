// `adjutant serve`: the daemon's wiring (serve.h). What it makes of its options is in
// serve_setup.h, the SMTP listener in smtp_listener.h, the mail threads in mail_loop.h and the
// scheduler in tick_loop.h; here they are put together around the HTTP server (http_server.h: its
// own I/O threads and handler pool) and the main thread's io_context (signals and timers).
// SIGINT/SIGTERM: stop accepting, finish the requests, the turn and the mail in hand, exit 0.
// All state is in the database: stopping and starting loses nothing.
#include "server/daemon/serve.h"

#include <spdlog/spdlog.h>

#include <malloc.h>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <csignal>
#include <cstdio>

#include "base/log_escape.h"
#include "server/app/mail_delivery.h"
#include "server/daemon/mail_loop.h"
#include "server/daemon/revision_reader.h"
#include "server/daemon/serve_setup.h"
#include "server/daemon/smtp_listener.h"
#include "server/daemon/tick_loop.h"
#include "server/http/http_server.h"
#include "server/mail/outbox_worker.h"
#include "server/web/web_context.h"
#include "storage/open_database.h"

namespace adj::daemon {

namespace asio = boost::asio;

namespace {

// SIGHUP, until `stopping`: the SMTP listener (when there is one and `tls` is configured)
// re-reads its certificate and key, so a renewed certificate needs no restart; files that do not
// load are logged and the previous ones stay in use. Main thread only; `hangup`, `stopping` and
// `smtp` must outlive the io_context's run.
void on_hangup(asio::signal_set& hangup, const bool& stopping, http::SmtpServer* smtp, bool tls) {
  hangup.async_wait([&hangup, &stopping, smtp, tls](const boost::system::error_code& ec, int) {
    if (ec || stopping) return;
    if (smtp && tls) {
      if (Status s = smtp->reload_tls(); !s.ok())
        spdlog::error("event=smtp_tls_reload_failed kept=previous error=\"{}\"",
                      log_escape(s.message()));
    } else {
      spdlog::info("event=sighup reloaded=nothing");
    }
    on_hangup(hangup, stopping, smtp, tls);
  });
}

}  // namespace

int serve(const std::string& db, const ServeOptions& o) {
  setup_logging();
  std::signal(SIGPIPE, SIG_IGN);
  // Under glibc's malloc (a build without mimalloc, e.g. the sanitizer build): large buffers (SMTP
  // message data, request bodies) are mmap'ed and go back to the system when freed, so the
  // resident size follows the SMTP buffer budget. With mimalloc (CMakeLists.txt
  // ADJUTANT_MIMALLOC) this is glibc's own setting and changes nothing.
  mallopt(M_MMAP_THRESHOLD, 256 * 1024);
  tune_allocator();

  const http::FittedCaps caps = connection_caps(o);
  auto hp = http_address(o);
  auto proxies = hp.ok() ? trusted_proxies(o) : Result<TrustedProxies>(hp.status());
  if (!proxies.ok()) {
    spdlog::error("event=bad_option error=\"{}\"", log_escape(proxies.status().message()));
    return kServeError;
  }
  set_wait_limits(o);                // before the first connection opens
  set_background_checkpoints(true);  // no turn or mail thread waits to copy the SQLite log

  GmTokenOrigin gm_origin;
  const web::WebConfig config = web_config(db, o, *hp, &gm_origin);
  // The application's runtime, which the web, the mail flows and the scheduler borrow.
  AppRuntime app(AppConfig{config.db_path, config.throttle, config.sessions, config.gm_address},
                 [] { return static_cast<UnixTime>(std::time(nullptr)); });
  http::Metrics metrics;
  web::WebContext ctx(app, metrics, config);
  if (Status s = app.open_check(); !s.ok()) {
    spdlog::error("event=db_open_failed error=\"{}\"", log_escape(s.message()));
    return kServeError;
  }
  auto demo_id = demo_game(ctx, o);
  if (!demo_id.ok()) return kServeError;

  // Mail: received mail answered and the outbox delivered on threads of their own (mail_loop.h).
  asio::io_context io;  // the main thread's: signals and the timers
  const mail::MailConfig mail_config = daemon::mail_config(o, config.base_url, config.gm_token);
  const std::string outbox = outbox_dir(db, o);
  const std::unique_ptr<mail::MailSender> sender = mail_sender(o, outbox);
  MailLoop mail(app, metrics, mail_config, *sender, o);
  auto smtp = start_smtp(o, caps.smtp, app, metrics, mail_config, mail);
  if (!smtp.ok()) return kServeError;
  spdlog::info("event=mail_out sender=\"{}\" maildir_in=\"{}\" maps={}",
               log_escape(sender->describe()), log_escape(o.maildir), o.mail_maps);
  if (mail_delivery().mode() == MailDeliveryMode::kMaildir)
    spdlog::warn(
        "event=mail_not_sent outbox=\"{}\" reason=\"no --relay: outgoing mail stays in "
        "the local Maildir\"",
        log_escape(outbox));

  // HTTP: the routes behind the page cache (response_cache.h), whose revisions each I/O thread
  // reads through its own connection within half a second; while the database does not answer,
  // kept pages and static files are served as they are (revision_reader.h).
  http::Router router;
  web::register_routes(router, ctx);
  const http::ServerOptions http_options = http_server_options(o, caps.http, *proxies);
  RevisionReader revision_reader(config.db_path, std::chrono::milliseconds(500),
                                 std::chrono::milliseconds(250));
  http::ResponseCache cache(revision_reader.source(), cache_options(o, ctx));
  http::HttpServer server(router, ctx.metrics(), http_options, o.cache_mb > 0 ? &cache : nullptr);
  if (o.cache_mb > 0) ctx.metrics().set_collector(cache_collector(cache));
  // The collector reads `cache`, which goes before `ctx`: taken off when this scope ends.
  struct CollectorOff {
    http::Metrics& metrics;
    ~CollectorOff() { metrics.set_collector(nullptr); }
  } collector_off{ctx.metrics()};

  // Signals first, so that a SIGTERM during startup is a clean stop too.
  asio::signal_set signals(io, SIGINT, SIGTERM);
  asio::signal_set hangup(io, SIGHUP);
  TickLoop scheduler(app, metrics, mail_config, o);
  if (Status s = server.start(hp->host, hp->port); !s.ok()) {
    spdlog::error("event=listen_failed error=\"{}\"", log_escape(s.message()));
    std::fprintf(
        stderr, "%s",
        listen_hint("HTTP", o.http, "--http", s.message(), "or port 0 to pick a free one").c_str());
    return kServeError;
  }
  spdlog::info(
      "event=listening addr=\"{}:{}\" db=\"{}\" base_url=\"{}\" tick_seconds={} gm={} "
      "max_conns={} max_conns_per_addr={} trusted_proxies={}",
      log_escape(hp->host), server.port(), log_escape(describe_database(db)),
      log_escape(config.base_url), o.tick_seconds, config.gm_token.empty() ? "off" : "on",
      caps.http, o.http_max_conns_per_addr, o.trusted_proxies.size());
  const std::string lines = startup_lines(
      {db, config.base_url, config.gm_token, gm_origin, *demo_id, outbox}, ctx, router);
  std::fputs(lines.c_str(), stdout);
  std::fflush(stdout);

  scheduler.start(io);
  mail.start(io);
  bool stopping = false;  // main thread only
  on_hangup(hangup, stopping, smtp->get(), !o.smtp_tls_cert.empty());
  signals.async_wait([&](const boost::system::error_code& ec, int signo) {
    if (ec) return;
    spdlog::info("event=stopping signal={}", signo == SIGINT ? "SIGINT" : "SIGTERM");
    stopping = true;
    hangup.cancel();
    scheduler.cancel();
    mail.cancel();
    server.stop();               // no new connections; requests in hand finish
    if (*smtp) (*smtp)->stop();  // messages being stored finish (and are answered 250)
    scheduler.join();            // a turn the scheduler is running finishes
    mail.finish();               // the message being answered and the one being delivered
    io.stop();
  });
  io.run();
  spdlog::info("event=stopped");
  return kServeOk;
}

}  // namespace adj::daemon
