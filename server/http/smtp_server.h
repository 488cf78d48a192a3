// The SMTP listener of `adjutant serve` (Boost.Asio, C++20 coroutines) driving the pure protocol
// state machine of server/http/smtp_protocol.h. No Asio types in this header.
//
// Model: one I/O thread accepts connections and reads and writes them; completed messages go to
// one store thread, which hands them to `handler` in batches: every message completed while the
// previous batch was being stored, up to max_batch (group commit: under load many sessions share
// one transaction; alone, a message is a batch of one and waits for nobody). The handler returns
// one final reply per message for its "." (SmtpProtocol::reply_stored etc.) and must have stored
// the messages durably before returning any 250: nothing is acknowledged before then. Replies to
// pipelined commands that follow a message are written after it.
//
// Timeouts: a connection that has not begun a transaction (no MAIL yet) is closed (421) after
// idle_timeout of silence; one inside a transaction waiting for a command after command_timeout;
// one in the middle of DATA after data_timeout of silence (RFC 5321 4.5.3.2 suggests 5 and 3
// minutes for the last two).
//
// Caps: connections beyond max_connections in all, or max_connections_per_address from one
// client address, are answered "421 4.3.2" and closed; so is a client accepted while the process
// is out of file descriptors (from a spare descriptor), and the listener keeps accepting. Message
// data buffered by all sessions together stays within buffer_budget bytes (see SmtpDataBudget in
// smtp_protocol.h: DATA gets 452 when it is spent). Refusals are counted in `metrics`.
//
// STARTTLS (RFC 3207; OpenSSL through Asio's SSL stream): offered when tls_cert_file is set. The
// handshake must finish within idle_timeout (else the connection is closed) and the connection
// counts toward the caps like any other. reload_tls() re-reads the files for new handshakes.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "rules/core/status.h"
#include "server/http/metrics.h"
#include "server/http/smtp_protocol.h"

namespace adj::http {

struct SmtpServerOptions {
  http::SmtpLimits limits;
  std::chrono::milliseconds idle_timeout{30000};  // before MAIL
  std::chrono::milliseconds command_timeout{300000};
  std::chrono::milliseconds data_timeout{180000};
  // DATA as a whole, however steadily it trickles: a message not finished within this is
  // answered 421 and the connection closed (its budget given back).
  std::chrono::milliseconds data_total_timeout{600000};
  std::size_t max_batch = 256;  // messages per handler call (>= 1)
  int max_connections = 256;
  int max_connections_per_address = 16;
  std::size_t buffer_budget = 64u << 20;      // message bytes buffered across all sessions
  std::size_t buffer_budget_per_address = 0;  // of it, one client address's (0: a quarter)
  http::Metrics* metrics = nullptr;           // borrowed; refusals are counted here when set
  std::chrono::milliseconds shutdown_grace{10000};
  // PEM certificate chain (leaf first) and private key for STARTTLS; both or neither. start()
  // fails when they cannot be loaded (server/http/tls_context.h), naming the file.
  std::string tls_cert_file;
  std::string tls_key_file;
  bool require_tls = false;  // MAIL, RCPT and DATA refused (530) before STARTTLS; needs a cert
};

class SmtpServer {
 public:
  // Called on the store thread with 1..max_batch completed messages, oldest first; returns one
  // final reply (CRLF ended) per message, in the same order. An exception answers all 451.
  using BatchHandler = std::function<std::vector<std::string>(std::vector<http::SmtpMessage>&)>;
  // Called on the I/O thread for each RCPT TO; must be cheap and thread-safe. Empty: any.
  using RecipientFilter = std::function<bool(const std::string&)>;

  SmtpServer(BatchHandler handler, RecipientFilter allow, SmtpServerOptions options = {});
  ~SmtpServer();  // calls stop()
  SmtpServer(const SmtpServer&) = delete;
  SmtpServer& operator=(const SmtpServer&) = delete;

  // Binds host:port (0: ephemeral, see port()) and starts the threads. Call once. Fails with
  // FailedPrecondition (naming the file) when the TLS certificate or key cannot be loaded.
  Status start(const std::string& host, int port);
  int port() const;
  // Re-reads tls_cert_file and tls_key_file: handshakes that begin afterwards use them, sessions
  // already in TLS keep theirs. On failure the previous ones stay in use and the Status names
  // the file and the reason. Each load (here and in start()) is logged (event=smtp_tls_loaded)
  // with the certificate's subject, expiry and SHA-256 fingerprint. FailedPrecondition without
  // TLS configured. Any thread.
  Status reload_tls();
  // Stops accepting, closes the connections (a message being stored finishes and is answered
  // if the peer is still there, up to shutdown_grace), joins the threads. Idempotent; blocks.
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace adj::http
