// The SMTP listener of `adjutant serve` (--smtp and its bounds, STARTTLS), wired to the mail
// flows: each batch of messages is stored through the calling thread's MailIngest and every new
// message is handed to the mail loop to be answered. Main thread only.
#pragma once

#include <memory>

#include "rules/core/status.h"
#include "server/daemon/mail_loop.h"
#include "server/daemon/serve.h"
#include "server/http/smtp_server.h"

namespace adj::daemon {

// The started listener, or nullptr for --smtp off. An error (already logged, with what to do
// printed on stderr) when the options do not go together or the address cannot be listened on.
// `app`, `metrics`, `config` and `mail` must outlive the listener.
Result<std::unique_ptr<http::SmtpServer>> start_smtp(const ServeOptions& o, int max_connections,
                                                     AppRuntime& app, http::Metrics& metrics,
                                                     const mail::MailConfig& config,
                                                     MailLoop& mail);

}  // namespace adj::daemon
