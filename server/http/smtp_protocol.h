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
// kStartTls: write what precedes it (the 220), run the TLS handshake, then call tls_started()
// (on failure close). It is always the last event of its receive().
//
// Supported: EHLO (advertises SIZE <max>, 8BITMIME, PIPELINING, STARTTLS when offered and not
// yet in TLS, ENHANCEDSTATUSCODES), HELO, MAIL FROM:<addr> [SIZE=n] [BODY=...] (552 when SIZE
// exceeds the limit), RCPT TO:<addr> (550 unless allow(addr); at most max_recipients), DATA
// (354; dot-unstuffing; ends at a line "."), RSET, NOOP, QUIT (221 then close), VRFY (252).
// EXPN, HELP, TURN, ETRN, AUTH, BDAT, and STARTTLS when not offered: 502. Unknown verbs: 500.
// Commands out of order: 503. Syntax errors: 501. A command line longer than max_command_line
// bytes: 500 (the excess is discarded without buffering). After max_errors bad commands the
// connection is closed with 421.
//
// STARTTLS (RFC 3207), when limits.starttls: 220 then kStartTls. Refused with arguments (501),
// once in TLS (503) and inside a transaction (503). Every byte received after the STARTTLS line
// and before tls_started() is discarded, the rest of the same chunk included: plaintext
// pipelined behind STARTTLS must never be taken as commands sent under TLS (CVE-2011-0411).
// tls_started() forgets EHLO and any transaction: the client must EHLO again. With
// limits.require_tls, MAIL, RCPT and DATA before TLS get "530 5.7.0".
//
// Size: message data (after unstuffing, CRLF line ends) beyond max_message_bytes is not
// buffered: the message event then has oversized = true, data holds the first bytes only (at
// least the header block, up to kOversizedHead), and total_bytes the full size. Memory use per
// connection is therefore bounded by about max_message_bytes + max_command_line.
//
// Memory across sessions: every session of one listener shares an SmtpDataBudget (when given).
// Message data is buffered only as far as the budget allows, counted by the bytes reserved. DATA
// is answered "452 4.3.1 Insufficient system storage" when less than kDataStartFree is left (of
// the whole, or of the client's share: SmtpDataBudget::per_client); a
// message that runs out of budget on the way is not buffered further and its final "." is
// answered with the same 452 (the sender keeps it and retries later; nothing is acknowledged).
// The budget a completed message still holds travels in its event (budget_charge) and is given
// back by the listener once the message is stored.
//
// Thread-safety: none (one object per connection; the budget is shared by objects used from one
// thread).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace adj::http {

struct SmtpLimits {
  std::string hostname = "localhost";         // in the greeting and the EHLO reply
  std::size_t max_message_bytes = 10u << 20;  // SIZE advertised and enforced
  std::size_t max_command_line = 512;         // RFC 5321 4.5.3.1.4, CRLF included
  std::size_t max_recipients = 100;
  int max_errors = 20;       // bad commands before the connection is dropped
  bool starttls = false;     // STARTTLS offered (the listener has a certificate)
  bool require_tls = false;  // MAIL, RCPT and DATA refused (530) before STARTTLS
};

// Bytes of message data buffered by all the sessions of one listener, at most limit(); and by the
// sessions of one client (its address key, "" for none) at most per_client() of it, so one client
// holding connections open cannot take the budget from every other.
// Thread-safety: none (shared by the sessions of one I/O thread).
class SmtpDataBudget {
 public:
  // `per_client` 0: a quarter of `limit`.
  explicit SmtpDataBudget(std::size_t limit, std::size_t per_client = 0)
      : limit_(limit), per_client_(per_client ? per_client : limit / 4) {}
  SmtpDataBudget(const SmtpDataBudget&) = delete;
  SmtpDataBudget& operator=(const SmtpDataBudget&) = delete;
  // Takes n bytes if they fit under the limit and the client's share.
  bool try_take(std::size_t n, const std::string& client = "") {
    if (n > free(client)) return false;
    take_anyway(n, client);
    return true;
  }
  // Takes n bytes even past the limit (memory already allocated, e.g. an allocator's rounding).
  void take_anyway(std::size_t n, const std::string& client = "") {
    used_ += n;
    if (!client.empty()) by_client_[client] += n;
  }
  void give_back(std::size_t n, const std::string& client = "");
  std::size_t used() const { return used_; }
  // What is left for `client`: of the whole budget, and of its share ("" : the whole only).
  std::size_t free(const std::string& client = "") const;
  std::size_t limit() const { return limit_; }
  std::size_t per_client() const { return per_client_; }

 private:
  std::size_t limit_, per_client_;
  std::size_t used_ = 0;
  std::unordered_map<std::string, std::size_t> by_client_;  // clients holding some, only
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
  enum Kind { kReply, kMessage, kClose, kStartTls };
  Kind kind = kReply;
  std::string reply;    // kReply: the reply, CRLF-terminated
  SmtpMessage message;  // kMessage
  // kMessage: bytes of the SmtpDataBudget this message still holds; the listener gives them
  // back when the message is stored (0 without a budget).
  std::size_t budget_charge = 0;
};

class SmtpProtocol {
 public:
  // Bytes kept of an oversized message (enough for its header block).
  static constexpr std::size_t kOversizedHead = 64 * 1024;

  // DATA is refused (452) when the shared budget has less than this left.
  static constexpr std::size_t kDataStartFree = 256 * 1024;

  // `allow` decides RCPT TO (nullptr: any recipient). `budget` (nullable, borrowed, must outlive
  // this object) bounds the message data buffered across sessions.
  explicit SmtpProtocol(SmtpLimits limits, std::function<bool(const std::string&)> allow = {},
                        SmtpDataBudget* budget = nullptr);
  // Gives back the budget held by a message in progress.
  ~SmtpProtocol();
  SmtpProtocol(const SmtpProtocol&) = delete;
  SmtpProtocol& operator=(const SmtpProtocol&) = delete;

  // The client's key in the budget (its address; set by the listener before any data).
  void set_client(std::string key) { client_ = std::move(key); }

  std::string greeting() const;
  // Consumes `bytes` and appends the resulting events to `out`. After a kClose event, further
  // input is ignored.
  void receive(std::string_view bytes, std::vector<SmtpEvent>& out);
  // Whether the peer is in the middle of sending message data (for the listener's timeouts).
  bool in_data() const { return state_ == State::kData; }
  // Whether a transaction has begun (MAIL accepted): the listener's idle timeout applies before.
  bool in_transaction() const {
    return state_ == State::kMail || state_ == State::kRcpt || state_ == State::kData;
  }
  bool closed() const { return closed_; }
  // The listener completed the TLS handshake that a kStartTls event asked for: the session
  // starts afresh (state as after the greeting) and input is taken again.
  void tls_started();
  // Whether the session is in TLS (tls_started() was called).
  bool tls() const { return tls_; }

  // The final replies to a message event.
  static std::string reply_stored(const std::string& detail = "");
  static std::string reply_temp_failure(const std::string& detail = "");
  static std::string reply_refused(const std::string& detail = "");
  // What the listener sends when a read times out.
  static std::string reply_timeout();
  // "452 4.3.1": the shared buffer budget is spent.
  static std::string reply_no_storage();

 private:
  enum class State { kGreeted, kReady, kMail, kRcpt, kData };
  void command(std::string_view l, std::vector<SmtpEvent>& out);
  void data_line(std::string_view l, std::vector<SmtpEvent>& out);
  void append_data(std::string_view bytes);
  void error(std::string reply, std::vector<SmtpEvent>& out);
  void reset_transaction();
  // Makes room for `need` bytes of message data within the budget; false when it has none.
  bool reserve_data(std::size_t need);
  void release_budget();

  SmtpLimits limits_;
  std::function<bool(const std::string&)> allow_;
  State state_ = State::kGreeted;
  bool closed_ = false;
  int errors_ = 0;
  std::string partial_;         // an incomplete line
  bool discarding_ = false;     // a command line too long: drop until its end
  bool data_line_mid_ = false;  // part of the current data line was already appended
  SmtpMessage msg_;
  SmtpDataBudget* budget_ = nullptr;
  std::string client_;        // the key of the budget's per-client share
  std::size_t charged_ = 0;   // budget bytes held for msg_.data
  bool over_budget_ = false;  // the current message ran out of budget: dropped, answered 452
  bool tls_ = false;
  bool awaiting_tls_ = false;  // STARTTLS accepted, handshake not done: input is discarded
};

}  // namespace adj::http
