// MailIngest's inbox: accepting and storing messages under the storage budgets, pruning, and
// the processing leases (process, process_pending, release_dead_leases).
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>

#include "base/client_address.h"
#include "server/app/app_runtime.h"
#include "server/mail/detail.h"
#include "server/mail/mail_ingest.h"
#include "server/mail/mail_ingest_internal.h"
#include "storage/store.h"

namespace adj::mail {

using detail::sha256_hex;
using ingest_detail::kMaxHeadBytes;
using ingest_detail::kTruncated;
using ingest_detail::without_tag;

namespace {

std::string this_host() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  return host[0] ? host : "localhost";
}

// "host:pid:n": distinct for every MailIngest of every process on every host.
std::string new_holder() {
  static std::atomic<int> counter{0};
  return this_host() + ":" + std::to_string(::getpid()) + ":" + std::to_string(++counter);
}

// Whether `holder` names a process of this host that no longer exists.
bool holder_is_dead_here(const std::string& holder, const std::string& host) {
  const std::size_t a = holder.rfind(':');
  if (a == std::string::npos || a == 0) return false;
  const std::size_t b = holder.rfind(':', a - 1);
  if (b == std::string::npos || holder.substr(0, b) != host) return false;
  const std::string pid_text = holder.substr(b + 1, a - b - 1);
  if (pid_text.empty() || pid_text.size() > 9 ||
      pid_text.find_first_not_of("0123456789") != std::string::npos)
    return false;
  const pid_t pid = static_cast<pid_t>(std::stol(pid_text));
  if (pid <= 0 || pid == ::getpid()) return false;
  return ::kill(pid, 0) != 0 && errno == ESRCH;
}

}  // namespace

MailIngest::MailIngest(AppRuntime& app, MailConfig config)
    : app_(app),
      services_(app.services()),
      admin_(app.admin()),
      mail_(app.store()),
      config_(std::move(config)),
      now_(app.clock()),
      holder_(new_holder()) {}

bool MailIngest::recipient_allowed(const std::string& address) const {
  if (config_.allowed_recipients.empty()) return true;
  const std::string bare = without_tag(address);
  return std::any_of(config_.allowed_recipients.begin(), config_.allowed_recipients.end(),
                     [&](const std::string& a) { return without_tag(a) == bare; });
}

Result<InboxMessage> MailIngest::row(std::string raw, std::string message_id,
                                     const std::string& channel, const Envelope& envelope) const {
  if (!config_.allowed_recipients.empty() && !envelope.rcpt_to.empty() &&
      std::none_of(envelope.rcpt_to.begin(), envelope.rcpt_to.end(),
                   [&](const std::string& r) { return recipient_allowed(r); }))
    return Status::PermissionDenied("no recipient of this message is accepted here");
  InboxMessage m;
  m.message_id = std::move(message_id);
  m.channel = channel;
  m.envelope_from = envelope.mail_from;
  m.envelope_to = envelope.rcpt_to;
  // Kept as the limits count it (an IPv6 client as its /64), so that the budget per peer below
  // finds every message of one client.
  m.peer = envelope.peer.empty() ? std::string() : client_key(envelope.peer);
  m.raw = std::move(raw);
  m.received_at = now_();
  m.state = "new";
  return m;
}

namespace {

// The Message-ID of a header block, or a content hash of `raw` when it has none.
std::string message_id_for(std::string_view head, std::string_view raw) {
  if (std::string id = header_message_id(head); !id.empty()) return id;
  return "sha256-" + sha256_hex(raw) + "@content.adjutant.invalid";
}

}  // namespace

Result<InboxMessage> MailIngest::prepare(std::string_view raw, const std::string& channel,
                                         const Envelope& envelope) const {
  const std::string_view head = header_block(raw);
  if (raw.size() > config_.max_message_bytes)
    return prepare_oversized(head, raw.size(), channel, envelope);
  return row(std::string(raw), message_id_for(head, raw), channel, envelope);
}

Result<InboxMessage> MailIngest::prepare_oversized(std::string_view head, std::size_t total_bytes,
                                                   const std::string& channel,
                                                   const Envelope& envelope) const {
  if (head.size() > kMaxHeadBytes) {
    head = head.substr(0, kMaxHeadBytes);
    if (const std::size_t nl = head.rfind('\n'); nl != std::string_view::npos)
      head = head.substr(0, nl + 1);
  }
  std::string id = message_id_for(head, head);
  std::string raw = std::string(kTruncated) + " " + std::to_string(total_bytes) + "\r\n";
  raw += head;
  return row(std::move(raw), std::move(id), channel, envelope);
}

Result<std::vector<InboxPut>> MailIngest::store_batch(const std::vector<InboxMessage>& rows) {
  return mail_.put_inbox_batch(rows);
}

Result<std::string> MailIngest::storage_budget_spent(const Envelope& envelope, std::size_t bytes) {
  const UnixTime since = now_() - config_.rate_window_seconds;
  const auto over = [&](const InboxUsage& u, int max_messages, std::int64_t max_bytes) {
    return (max_messages > 0 && u.messages + 1 > max_messages) ||
           (max_bytes > 0 && u.bytes + static_cast<std::int64_t>(bytes) > max_bytes);
  };
  const std::string& from = envelope.mail_from;
  if (!from.empty() && from != "<>") {
    auto u = mail_.inbox_usage_from(from, since);
    if (!u.ok()) return u.status();
    if (over(*u, config_.max_messages_per_sender, config_.max_bytes_per_sender))
      return std::string("too much mail from this sender in the last hour; try again later");
  }
  if (!envelope.peer.empty() &&
      std::find(config_.trusted_peers.begin(), config_.trusted_peers.end(), envelope.peer) ==
          config_.trusted_peers.end()) {
    auto u = mail_.inbox_usage_peer(client_key(envelope.peer), since);
    if (!u.ok()) return u.status();
    if (over(*u, config_.max_messages_per_peer, config_.max_bytes_per_peer))
      return std::string("too much mail from this address in the last hour; try again later");
  }
  return std::string();
}

Result<int> MailIngest::prune() {
  if (config_.keep_raw_days <= 0) return 0;
  const UnixTime now = now_();
  const UnixTime before = now - static_cast<UnixTime>(config_.keep_raw_days) * 86400;
  auto n = mail_.prune_inbox(before, now);
  if (!n.ok()) return n.status();
  // The maps of report mails delivered that long ago.
  if (auto parts = mail_.prune_mail_parts(before); !parts.ok()) return parts.status();
  return n;
}

Result<std::int64_t> MailIngest::accept(std::string_view raw, const std::string& channel,
                                        const Envelope& envelope, bool* duplicate) {
  auto spent = storage_budget_spent(envelope, raw.size());
  if (!spent.ok()) return spent.status();
  if (!spent->empty()) return Status::FailedPrecondition(*spent);
  auto m = prepare(raw, channel, envelope);
  if (!m.ok()) return m.status();
  return mail_.put_inbox(*m, duplicate);
}

Result<std::int64_t> MailIngest::accept_oversized(std::string_view head, std::size_t total_bytes,
                                                  const std::string& channel,
                                                  const Envelope& envelope, bool* duplicate) {
  auto spent = storage_budget_spent(envelope, std::min(head.size(), kMaxHeadBytes));
  if (!spent.ok()) return spent.status();
  if (!spent->empty()) return Status::FailedPrecondition(*spent);
  auto m = prepare_oversized(head, total_bytes, channel, envelope);
  if (!m.ok()) return m.status();
  return mail_.put_inbox(*m, duplicate);
}

Result<int> MailIngest::release_dead_leases() {
  auto leases = mail_.inbox_leases();
  if (!leases.ok()) return leases.status();
  const std::string host = this_host();
  int n = 0;
  for (const InboxLease& l : *leases) {
    if (!holder_is_dead_here(l.holder, host)) continue;
    ADJ_RETURN_IF_ERROR(mail_.release_inbox(l.inbox_id, l.holder));
    ++n;
  }
  return n;
}

Result<int> MailIngest::process_pending(int limit, const Answered& answered) {
  auto pending = mail_.inbox_list("new", limit, false);  // ids only: raw is read one at a time
  if (!pending.ok()) return pending.status();
  int n = 0;
  for (const InboxMessage& m : *pending) {
    auto r = process(m.id);
    if (r.ok() && !r->already_done) {
      ++n;
      if (answered) answered(m.id, *r);
    }
  }
  return n;
}

Result<ProcessResult> MailIngest::process(std::int64_t id) {
  auto in = mail_.inbox_message(id);
  if (!in.ok()) return in.status();
  ProcessResult none;
  none.state = in->state;
  none.outcome = in->outcome;
  none.action = "none";
  none.already_done = true;
  if (in->state != "new") return none;
  auto leased = mail_.lease_inbox(id, holder_, now_(), config_.lease_seconds);
  if (!leased.ok()) return leased.status();
  if (!*leased) {
    auto again = mail_.inbox_message(id);  // answered meanwhile, or still being answered
    if (again.ok() && again->state != "new") {
      none.state = again->state;
      none.outcome = again->outcome;
    } else {
      none.outcome = "being answered by another process";
    }
    return none;
  }
  // This is try in->attempts + 1 (lease_inbox counted it). Past the bound: failed for good.
  const int attempt = in->attempts + 1;
  if (attempt > config_.max_process_attempts) {
    ProcessResult r;
    r.state = "failed";
    r.action = "error";
    r.outcome = "gave up after " + std::to_string(in->attempts) + " tries" +
                (in->outcome.empty() ? std::string() : ": " + in->outcome);
    ADJ_RETURN_IF_ERROR(mail_.set_inbox_state(id, r.state, r.outcome));
    return r;
  }
  auto r = process_leased(std::move(in).value());
  if (!r.ok() && r.status().code() == StatusCode::kUnavailable) {
    // Not the message's fault (the turn is being resolved): retried later, no try used up.
    (void)mail_.set_inbox_state(id, "new", "waiting: " + r.status().message());
    (void)mail_.retry_inbox_later(id, holder_);
  } else if (!r.ok()) {  // still "new": the next pass retries it, up to max_process_attempts
    (void)mail_.set_inbox_state(
        id, "new", "try " + std::to_string(attempt) + " failed: " + r.status().message());
    (void)mail_.release_inbox(id, holder_);
  }
  return r;
}

}  // namespace adj::mail
