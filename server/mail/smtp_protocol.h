// The server side of SMTP (RFC 5321) as a pure state machine: bytes in, replies and completed
// messages out. No sockets, no threads, no clocks (timeouts are the listener's).
//
// Use: send greeting() on connect; hand every chunk read from the peer to receive(), which
// appends events in order. A kReply event is written to the peer as is (CRLF included). A
// kMessage event is a completed DATA: the caller stores it, then writes its own final reply
// (250 stored / 451 store error / 550 refused, see reply_*()). The transaction is reset when the
// message event is produced, so pipelined commands after the final "." are answered correctly
// (their replies follow in the event list, and the caller must write them after the message's
// reply, i.e. process events strictly in order). kClose: write what precedes it, then close.
//
// Supported: EHLO (advertises SIZE <max>, 8BITMIME, PIPELINING, ENHANCEDSTATUSCODES), HELO,
// MAIL FROM:<addr> [SIZE=n] [BODY=...] (552 when SIZE exceeds the limit), RCPT TO:<addr>
// (550 unless allow(addr); at most max_recipients), DATA (354; dot-unstuffing; ends at a line
// "."), RSET, NOOP, QUIT (221 then close), VRFY (252). EXPN, HELP, TURN, ETRN, STARTTLS, AUTH,
// BDAT: 502. Unknown verbs: 500. Commands out of order: 503. Syntax errors: 501. A command line
// longer than max_command_line bytes: 500 (the excess is discarded without buffering). After
// max_errors bad commands the connection is closed with 421.
//
// Size: message data (after unstuffing, CRLF line ends) beyond max_message_bytes is not
// buffered: the message event then has oversized = true, data holds the first bytes only (at
// least the header block, up to kOversizedHead), and total_bytes the full size. Memory use per
// connection is therefore bounded by about max_message_bytes + max_command_line.
//
// Thread-safety: none (one object per connection).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace adj::mail {

struct SmtpLimits {
  std::string hostname = "localhost";         // in the greeting and the EHLO reply
  std::size_t max_message_bytes = 10u << 20;  // SIZE advertised and enforced
  std::size_t max_command_line = 512;         // RFC 5321 4.5.3.1.4, CRLF included
  std::size_t max_recipients = 100;
  int max_errors = 20;  // bad commands before the connection is dropped
};

// A message the peer finished sending.
struct SmtpMessage {
  std::string mail_from;  // without <>; "<>" for the null sender
  std::vector<std::string> rcpt_to;
  std::string data;  // the message, dot-unstuffed, lines ended by CRLF
  bool oversized = false;
  std::size_t total_bytes = 0;  // size of the whole message (data.size() unless oversized)
  std::string peer;             // the client's IP address, set by the listener; "" when unknown
};

struct SmtpEvent {
  enum Kind { kReply, kMessage, kClose };
  Kind kind = kReply;
  std::string reply;    // kReply: the reply, CRLF-terminated
  SmtpMessage message;  // kMessage
};

class SmtpProtocol {
 public:
  // Bytes kept of an oversized message (enough for its header block).
  static constexpr std::size_t kOversizedHead = 64 * 1024;

  // `allow` decides RCPT TO (nullptr: any recipient).
  explicit SmtpProtocol(SmtpLimits limits, std::function<bool(const std::string&)> allow = {});

  std::string greeting() const;
  // Consumes `bytes` and appends the resulting events to `out`. After a kClose event, further
  // input is ignored.
  void receive(std::string_view bytes, std::vector<SmtpEvent>& out);
  // Whether the peer is in the middle of sending message data (for the listener's timeouts).
  bool in_data() const { return state_ == State::kData; }
  bool closed() const { return closed_; }

  // The final replies to a message event.
  static std::string reply_stored(const std::string& detail = "");
  static std::string reply_temp_failure(const std::string& detail = "");
  static std::string reply_refused(const std::string& detail = "");
  // What the listener sends when a read times out.
  static std::string reply_timeout();

 private:
  enum class State { kGreeted, kReady, kMail, kRcpt, kData };
  void command(std::string_view l, std::vector<SmtpEvent>& out);
  void data_line(std::string_view l, std::vector<SmtpEvent>& out);
  void append_data(std::string_view bytes);
  void error(std::string reply, std::vector<SmtpEvent>& out);
  void reset_transaction();

  SmtpLimits limits_;
  std::function<bool(const std::string&)> allow_;
  State state_ = State::kGreeted;
  bool closed_ = false;
  int errors_ = 0;
  std::string partial_;         // an incomplete line
  bool discarding_ = false;     // a command line too long: drop until its end
  bool data_line_mid_ = false;  // part of the current data line was already appended
  SmtpMessage msg_;
};

}  // namespace adj::mail
