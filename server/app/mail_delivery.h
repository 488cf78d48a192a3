// How this process sends mail, and how that is going: the delivery mode (a relay, a local
// Maildir, or none) and the outcome of the latest deliveries, so that the start-up banner, the GM
// desk, every "was mailed" message, /healthz and /metrics can say when mail does not leave the
// machine or the relay fails.
//
// One status per process (mail_delivery()): `adjutant serve` sets its mode at start-up and the
// outbox worker notes each delivery; a process that sets nothing (the command line, tests) is
// "off" and its texts say "mailed".
//
// Thread-safety: every member may be called from any thread.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>

#include "storage/records.h"

namespace adj {

enum class MailDeliveryMode {
  kOff,      // this process sends no mail (no outbox worker)
  kMaildir,  // into a local Maildir: nothing leaves the machine unless something else sends it
  kRelay,    // through an SMTP relay
};

// "off", "maildir", "relay".
const char* mail_delivery_name(MailDeliveryMode mode);

class MailDeliveryStatus {
 public:
  struct Snapshot {
    MailDeliveryMode mode = MailDeliveryMode::kOff;
    std::string target;         // the relay URL without credentials, or the Maildir path
    int failures_in_a_row = 0;  // deliveries failed since the last one that went through
    std::string last_error;     // of the latest failed delivery ("" when none yet)
    UnixTime last_error_at = 0;
    UnixTime last_sent_at = 0;
  };

  // Set once at start-up, before serving (a relay URL's user and password are left out).
  void set_mode(MailDeliveryMode mode, const std::string& target);
  MailDeliveryMode mode() const;
  // A delivery went through / failed with `error` (the sender's words; no secrets).
  void note_sent(UnixTime now);
  void note_failed(UnixTime now, const std::string& error);
  Snapshot snapshot() const;

 private:
  mutable std::mutex mu_;
  Snapshot s_;
};

// This process's status.
MailDeliveryStatus& mail_delivery();

// What a page or an answer says of a message it just queued, after `verb` ("was", "has been",
// "were"): "<verb> mailed", or in Maildir mode "<verb> queued in the local Maildir (not sent)".
std::string mailed_words(MailDeliveryMode mode, const std::string& verb = "was");
// The same for this process's mode.
std::string mailed_words(const std::string& verb = "was");

// The GM's warning about outgoing mail ("" when there is nothing to say): mail staying in a
// local Maildir (and which flag sends it out), or a relay whose latest deliveries failed, with
// the last error.
std::string mail_delivery_warning(const MailDeliveryStatus::Snapshot& s);

}  // namespace adj
