// Delivering the persistent outbox (storage/mail_store.h).
//
// OutboxWorker::run_once(now) claims the messages that are due (MailStore::claim, with a lease),
// hands each to a MailSender and marks it: sent on success; on failure back to pending with an
// exponential backoff (BackoffPolicy), or failed for good on a permanent refusal (an SMTP 5xx to
// the message) or after max_attempts claims that the receiver answered with a temporary refusal
// (4xx to the message). A failure of the way out (SendResult::delivery_path: relay down or
// misconfigured, Maildir unwritable) never ends a message: mail is kept and retried, at most
// every max_delay_seconds, until it goes through. Each outcome is noted in mail_delivery()
// (server/app/mail_delivery.h) for the GM desk and /healthz.
//
// Delivery guarantees: a message is marked only after its sender returned, so a crash loses
// nothing (the lease expires and the message is claimed again). The window for a duplicate is
// a crash between the relay's 250 and mark_sent (one store write: milliseconds); receivers can
// recognise such a duplicate by its Message-ID, which is fixed when the message is queued. No
// other duplicate arises with several processes: see run_once. MaildirSender closes that window
// too: its file name is fixed per outbox message, and a message whose file is already in the
// Maildir is not written again.
//
// Thread-safety: one worker per thread; senders are used from the worker's thread only.
// Ownership: the store and the sender are borrowed and must outlive the worker.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "rules/core/status.h"
#include "storage/mail_store.h"

namespace adj::mail {

struct SendResult {
  bool ok = false;
  bool permanent = false;  // the receiver refused the message for good (no retry)
  // The way out failed, not this message: the relay could not be reached, refused the
  // connection, the TLS or the AUTH, or the Maildir could not be written. Such a failure never
  // uses up a message's attempts: it is retried until the way is fixed.
  bool delivery_path = false;
  std::string error;  // what went wrong, for last_error and the GM
};

// Delivers one complete message (OutboxMessage::raw) to OutboxMessage::to.
class MailSender {
 public:
  virtual ~MailSender() = default;
  virtual SendResult send(const OutboxMessage& m) = 0;
  // "smtp://host:port" or "maildir:/path", for logs.
  virtual std::string describe() const = 0;
};

struct SmtpRelayOptions {
  std::string url;        // smtp://HOST:PORT (STARTTLS optional) or smtps://HOST:PORT (TLS)
  bool starttls = false;  // require STARTTLS on smtp:// (CURLUSESSL_ALL); fails if not offered
  std::string user;       // AUTH; both empty: no AUTH
  std::string password;
  // MAIL FROM. Empty: the address of the message's From header.
  std::string envelope_from;
  bool verify_tls = true;  // verify the relay's certificate and host name
  long connect_timeout_seconds = 10;
  long timeout_seconds = 120;  // whole transaction; keep below the worker's lease
};

// SMTP client over libcurl: EHLO, (STARTTLS), (AUTH), MAIL FROM, RCPT TO, DATA with the raw
// message (curl dot-stuffs it). A 5xx reply is permanent, except 530/534/535/538
// (authentication or STARTTLS required or refused: the relay configuration); those, connection
// failures, TLS failures, timeouts and 4xx replies are temporary.
//
// The connection of a message that went through is kept for the next one (which starts at MAIL
// FROM): a backlog goes out over as many connections as threads send at once, not one per
// message. One idle for kKeepSeconds or longer, or one the relay has closed, is not used again
// (libcurl checks before each message); after a failed message its connection is closed.
//
// Thread-safety: send() may be called from several threads at once; each call has a connection
// of its own. The destructor closes the kept connections (QUIT); no send() may be running.
class SmtpRelaySender : public MailSender {
 public:
  static constexpr long kKeepSeconds = 30;

  explicit SmtpRelaySender(SmtpRelayOptions options);
  ~SmtpRelaySender() override;
  SmtpRelaySender(const SmtpRelaySender&) = delete;
  SmtpRelaySender& operator=(const SmtpRelaySender&) = delete;
  SendResult send(const OutboxMessage& m) override;
  std::string describe() const override { return options_.url; }

 private:
  SmtpRelayOptions options_;
  std::mutex mu_;
  std::vector<void*> kept_;  // libcurl easy handles with their open connections; guarded by mu_
};

// Writes each message into a Maildir (the embedded default when no relay is configured, e.g.
// <database dir>/outbox): DIR/tmp/NAME, fsync, rename to DIR/new/NAME. Creates DIR, cur, new and
// tmp when missing. NAME = "<created_at>.A<id>_<16 hex of the dedupe key's SHA-256>.<host>", the
// same for every attempt at one message; a message already in new/ or cur/ is not written twice.
// Line endings are written as LF (the Maildir convention). Failures (disk full, permissions) are
// temporary.
class MaildirSender : public MailSender {
 public:
  explicit MaildirSender(std::string dir);
  SendResult send(const OutboxMessage& m) override;
  std::string describe() const override { return "maildir:" + dir_; }
  // The file name a message gets (without directory).
  std::string file_name(const OutboxMessage& m) const;

 private:
  std::string dir_;
  std::string host_;
};

struct BackoffPolicy {
  std::int64_t first_delay_seconds = 30;  // after the first failed attempt
  std::int64_t max_delay_seconds = 3600;  // the delay doubles per attempt up to this
  int max_attempts = 30;  // then a message its receiver refuses for now fails for good (~a day)
};
// The wait after the `attempts`-th failed attempt (attempts >= 1): first * 2^(attempts-1),
// capped at max_delay_seconds. 30 s, 1 min, 2 min, 4 min, ... 1 h, 1 h, ...
std::int64_t backoff_delay(int attempts, const BackoffPolicy& policy);

struct WorkerStats {
  int claimed = 0;
  int sent = 0;
  int retried = 0;       // back to pending with a later next_attempt_at
  int failed = 0;        // failed for good
  int left_claimed = 0;  // not tried: too little of the lease was left (see run_once)
};

class OutboxWorker {
 public:
  // max_send_seconds: the longest one send may take (SmtpRelayOptions::timeout_seconds).
  OutboxWorker(MailStore& store, MailSender& sender, BackoffPolicy backoff = {}, int batch = 50,
               std::int64_t lease_seconds = 300, std::int64_t max_send_seconds = 120);
  // One pass: claims up to `batch` due messages and delivers each once. Errors from the store
  // are returned (messages not yet marked stay claimed until their lease expires).
  // Several workers (threads or processes) on one database: a message is claimed by one of them
  // (MailStore::claim), and a send is started only while it can end within the claim's lease
  // (1 + elapsed since run_once began + max_send_seconds + margin < lease_seconds, on a steady
  // clock; margin: see kMinLeaseMarginSeconds), so no other worker can claim a message while it
  // is being sent or marked; the messages left over stay claimed until their lease runs out
  // (WorkerStats::left_claimed).
  Result<WorkerStats> run_once(UnixTime now);
  // The most messages one pass claims: a pass that claimed this many may have left more due.
  int batch() const { return batch_; }

 private:
  MailStore& store_;
  MailSender& sender_;
  BackoffPolicy backoff_;
  int batch_;
  std::int64_t lease_seconds_;
  std::int64_t max_send_seconds_;
  // Room for marking the message (which may wait for the database's write lock: SQLite's busy
  // timeout is 5 s) and for clock differences between processes: a tenth of the lease, within
  // these bounds.
  static constexpr std::int64_t kMinLeaseMarginSeconds = 6;
  static constexpr std::int64_t kLeaseMarginSeconds = 30;
};

}  // namespace adj::mail
