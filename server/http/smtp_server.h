// The SMTP listener of `adjutant serve` (Boost.Asio, C++20 coroutines) driving the pure protocol
// state machine of server/mail/smtp_protocol.h. No Asio types in this header.
//
// Model (like http_server.h): one I/O thread accepts connections and reads and writes them; each
// completed message is handed to `handler` on a pool of `worker_threads` threads, and its return
// value is the final reply to the message's "." (SmtpProtocol::reply_stored etc.). The handler
// must store the message durably before returning a 250 reply: nothing is acknowledged before
// then. Replies to pipelined commands that follow the message are written after it.
//
// Timeouts: a connection waiting for a command is closed (421) after command_timeout; one in the
// middle of DATA after data_timeout of silence (RFC 5321 4.5.3.2 suggests 5 and 3 minutes).
// Connections beyond max_connections are answered 421 and closed.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "rules/core/status.h"
#include "server/mail/smtp_protocol.h"

namespace adj::http {

struct SmtpServerOptions {
  mail::SmtpLimits limits;
  std::chrono::milliseconds command_timeout{300000};
  std::chrono::milliseconds data_timeout{180000};
  int worker_threads = 2;  // handler pool size (>= 1)
  int max_connections = 256;
  std::chrono::milliseconds shutdown_grace{10000};
};

class SmtpServer {
 public:
  // Called on a worker thread for each completed message; returns the final reply (CRLF ended).
  using MessageHandler = std::function<std::string(mail::SmtpMessage&&)>;
  // Called on the I/O thread for each RCPT TO; must be cheap and thread-safe. Empty: any.
  using RecipientFilter = std::function<bool(const std::string&)>;

  SmtpServer(MessageHandler handler, RecipientFilter allow, SmtpServerOptions options = {});
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
