#include "server/daemon/smtp_listener.h"

#include <spdlog/spdlog.h>

#include <cstdio>

#include "base/log_escape.h"
#include "server/daemon/serve_jobs.h"
#include "server/daemon/serve_setup.h"

namespace adj::daemon {

Result<std::unique_ptr<http::SmtpServer>> start_smtp(const ServeOptions& o, int max_connections,
                                                     AppRuntime& app, http::Metrics& metrics,
                                                     const mail::MailConfig& config,
                                                     MailLoop& mail) {
  if (o.smtp == "off") return std::unique_ptr<http::SmtpServer>();
  auto shp = parse_host_port(o.smtp, "--smtp");
  if (!shp.ok()) {
    spdlog::error("event=bad_option option=--smtp error=\"{}\"",
                  log_escape(shp.status().message()));
    return shp.status();
  }
  if (o.smtp_tls_cert.empty() != o.smtp_tls_key.empty() ||
      (o.smtp_require_tls && o.smtp_tls_cert.empty())) {
    const char* why = o.smtp_tls_cert.empty() != o.smtp_tls_key.empty()
                          ? "--smtp-tls-cert and --smtp-tls-key go together"
                          : "--smtp-require-tls needs --smtp-tls-cert and --smtp-tls-key";
    spdlog::error("event=bad_option option=--smtp-tls error=\"{}\"", why);
    std::fprintf(stderr, "adjutant serve: %s\n", why);
    return Status::InvalidArgument(why);
  }
  http::SmtpServerOptions so;
  so.limits.hostname = "adjutant";
  so.limits.max_message_bytes = o.max_message_bytes;
  so.max_connections = max_connections;
  so.max_connections_per_address = o.smtp_max_conns_per_addr;
  so.idle_timeout = std::chrono::seconds(o.smtp_idle_timeout);
  so.buffer_budget = o.smtp_buffer_budget;
  so.buffer_budget_per_address = o.smtp_buffer_per_addr;
  so.data_total_timeout = std::chrono::seconds(o.smtp_data_total_timeout);
  so.tls_cert_file = o.smtp_tls_cert;
  so.tls_key_file = o.smtp_tls_key;
  so.require_tls = o.smtp_require_tls;
  so.metrics = &metrics;
  auto smtp = std::make_unique<http::SmtpServer>(
      [&app, &config, &mail](std::vector<http::SmtpMessage>& batch) {
        return store_smtp_batch(app, config, batch, [&mail](std::int64_t id) { mail.process(id); });
      },
      [&mail](const std::string& a) { return mail.recipient_allowed(a); }, so);
  if (Status s = smtp->start(shp->host, shp->port); !s.ok()) {
    const bool tls_failed = s.code() == StatusCode::kFailedPrecondition;  // cert or key
    spdlog::error("event={} error=\"{}\"",
                  tls_failed ? "smtp_tls_load_failed" : "smtp_listen_failed",
                  log_escape(s.message()));
    if (tls_failed)
      std::fprintf(stderr, "adjutant serve: STARTTLS (--smtp-tls-cert, --smtp-tls-key): %s\n",
                   s.message().c_str());
    else
      std::fprintf(stderr, "%s",
                   listen_hint("SMTP", o.smtp, "--smtp", s.message(),
                               "or --smtp off to take no mail on this server")
                       .c_str());
    return s;
  }
  spdlog::info(
      "event=smtp_listening addr=\"{}:{}\" max_message_bytes={} max_conns={} "
      "max_conns_per_addr={} idle_timeout_s={} buffer_budget={} starttls={}",
      log_escape(shp->host), smtp->port(), o.max_message_bytes, max_connections,
      o.smtp_max_conns_per_addr, o.smtp_idle_timeout, o.smtp_buffer_budget,
      o.smtp_tls_cert.empty() ? "off"
      : o.smtp_require_tls    ? "required"
                              : "offered");
  return smtp;
}

}  // namespace adj::daemon
