// The SMTP listener of `adjutant serve` (Boost.Asio, C++20 coroutines) driving the pure protocol
// state machine of server/mail/smtp_protocol.h. No Asio types in this header.
//
// Model: one I/O thread accepts connections and reads and writes them; completed messages go to
// one store thread, which hands them to `handler` in batches: every message completed while the
// previous batch was being stored, up to max_batch (group commit: under load many sessions share
// one transaction; alone, a message is a batch of one and waits for nobody). The handler returns
// one final reply per message for its "." (SmtpProtocol::reply_stored etc.) and must have stored
// the messages durably before returning any 250: nothing is acknowledged before then. Replies to
// pipelined commands that follow a message are written after it.
//
// Timeouts: a connection waiting for a command is closed (421) after command_timeout; one in the
// middle of DATA after data_timeout of silence (RFC 5321 4.5.3.2 suggests 5 and 3 minutes).
// Connections beyond max_connections are answered 421 and closed.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "rules/core/status.h"
#include "server/mail/smtp_protocol.h"

namespace adj::http {

struct SmtpServerOptions {
  mail::SmtpLimits limits;
  std::chrono::milliseconds command_timeout{300000};
  std::chrono::milliseconds data_timeout{180000};
  std::size_t max_batch = 256;  // messages per handler call (>= 1)
  int max_connections = 256;
  std::chrono::milliseconds shutdown_grace{10000};
};

class SmtpServer {
 public:
  // Called on the store thread with 1..max_batch completed messages, oldest first; returns one
  // final reply (CRLF ended) per message, in the same order. An exception answers all 451.
  using BatchHandler = std::function<std::vector<std::string>(std::vector<mail::SmtpMessage>&)>;
  // Called on the I/O thread for each RCPT TO; must be cheap and thread-safe. Empty: any.
  using RecipientFilter = std::function<bool(const std::string&)>;

  SmtpServer(BatchHandler handler, RecipientFilter allow, SmtpServerOptions options = {});
  ~SmtpServer();  // calls stop()
  SmtpServer(const SmtpServer&) = delete;
  SmtpServer& operator=(const SmtpServer&) = delete;

  // Binds host:port (0: ephemeral, see port()) and starts the threads. Call once.
  Status start(const std::string& host, int port);
  int port() const;
  // Stops accepting, closes the connections (a message being stored finishes and is answered
  // if the peer is still there, up to shutdown_grace), joins the threads. Idempotent; blocks.
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace adj::http
