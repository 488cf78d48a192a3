#include "server/app/mail_delivery.h"

namespace adj {

const char* mail_delivery_name(MailDeliveryMode mode) {
  switch (mode) {
    case MailDeliveryMode::kMaildir:
      return "maildir";
    case MailDeliveryMode::kRelay:
      return "relay";
    case MailDeliveryMode::kOff:
      break;
  }
  return "off";
}

namespace {

// smtp://user:password@host:port -> smtp://host:port
std::string without_credentials(const std::string& url) {
  const auto scheme = url.find("://");
  const auto at = url.rfind('@');
  if (scheme == std::string::npos || at == std::string::npos || at < scheme) return url;
  return url.substr(0, scheme + 3) + url.substr(at + 1);
}

}  // namespace

void MailDeliveryStatus::set_mode(MailDeliveryMode mode, const std::string& target) {
  std::lock_guard lock(mu_);
  s_.mode = mode;
  s_.target = mode == MailDeliveryMode::kRelay ? without_credentials(target) : target;
}

MailDeliveryMode MailDeliveryStatus::mode() const {
  std::lock_guard lock(mu_);
  return s_.mode;
}

void MailDeliveryStatus::note_sent(UnixTime now) {
  std::lock_guard lock(mu_);
  s_.failures_in_a_row = 0;
  s_.last_sent_at = now;
}

void MailDeliveryStatus::note_failed(UnixTime now, const std::string& error) {
  std::lock_guard lock(mu_);
  ++s_.failures_in_a_row;
  s_.last_error = error.substr(0, 500);
  s_.last_error_at = now;
}

MailDeliveryStatus::Snapshot MailDeliveryStatus::snapshot() const {
  std::lock_guard lock(mu_);
  return s_;
}

MailDeliveryStatus& mail_delivery() {
  static MailDeliveryStatus status;
  return status;
}

std::string mailed_words(MailDeliveryMode mode, const std::string& verb) {
  if (mode == MailDeliveryMode::kMaildir) return verb + " queued in the local Maildir (not sent)";
  return verb + " mailed";
}

std::string mailed_words(const std::string& verb) {
  return mailed_words(mail_delivery().mode(), verb);
}

std::string mail_delivery_warning(const MailDeliveryStatus::Snapshot& s) {
  switch (s.mode) {
    case MailDeliveryMode::kMaildir:
      return "Outgoing mail is not sent: it is written to the local Maildir " + s.target +
             " and stays on this machine. No player gets a secret, a link or a report by mail. "
             "Start the server with --relay smtp://HOST:PORT (or ADJUTANT_RELAY) to send it.";
    case MailDeliveryMode::kRelay:
      if (s.failures_in_a_row == 0) return "";
      return "Outgoing mail is failing: the last " + std::to_string(s.failures_in_a_row) +
             " deliveries through " + s.target + " failed; the last error: " + s.last_error +
             ". The mail is kept and retried with backoff.";
    case MailDeliveryMode::kOff:
      break;
  }
  return "";
}

}  // namespace adj
