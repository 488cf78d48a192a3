#include "server/mail/mail_ingest.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <ctime>

#include "base/client_address.h"
#include "base/escape.h"
#include "rules/combat/engine_registry.h"
#include "rules/orders/parser.h"
#include "server/app/audit_log.h"
#include "server/app/confirmations.h"
#include "server/app/secrets.h"
#include "server/app/source_text.h"
#include "server/app/time_text.h"
#include "server/app/turn_runs.h"
#include "server/mail/attendance_mail.h"
#include "server/mail/auth_alert.h"
#include "server/mail/detail.h"
#include "server/mail/mailflows_help.h"
#include "server/mail/membership_mail.h"
#include "server/mail/mime.h"
#include "server/mail/press_mail.h"
#include "server/mail/signature.h"
#include "storage/store.h"

namespace adj::mail {

using detail::lower;
using detail::sha256_hex;
using detail::trim;
using detail::upper;
using detail::words;

namespace {

constexpr std::size_t kMaxHeadBytes = 64 * 1024;
constexpr std::string_view kTruncated = "X-Adjutant-Truncated:";

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// Replaces every occurrence of `secret` in `s` that is not part of a longer word by asterisks
// (as the validator masks acknowledgements). Nothing when secret is empty.
std::string mask(std::string s, const std::string& secret) {
  if (secret.empty()) return s;
  const auto alnum = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  for (std::size_t at = s.find(secret); at != std::string::npos; at = s.find(secret, at)) {
    const std::size_t end = at + secret.size();
    if ((at == 0 || !alnum(s[at - 1])) && (end == s.size() || !alnum(s[end]))) {
      s.replace(at, secret.size(), "********");
      at += 8;
    } else {
      ++at;
    }
  }
  return s;
}

// `text` with the secret field of each PLAYER line that carries `secret` masked; nothing else
// (a template line "PLAYER WSX <your secret>", or the same word elsewhere, stays as written).
std::string mask_player_lines(const std::string& text, const std::string& secret) {
  if (secret.empty()) return text;
  std::string out;
  out.reserve(text.size());
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    out += line.find(secret) == std::string::npos ? line : mask_player_secret(line);
    if (end == text.size()) break;
    out.push_back('\n');
    start = end + 1;
  }
  return out;
}

// A subject with the secret of a PLAYER line in it masked ("Re: PLAYER WSX ********"); the
// same word elsewhere stays as written.
std::string mask_subject(const std::string& s) {
  const std::string up = upper(s);
  for (std::size_t at = up.find("PLAYER "); at != std::string::npos;
       at = up.find("PLAYER ", at + 1))
    if (at == 0 || !std::isalnum(static_cast<unsigned char>(s[at - 1])))
      return s.substr(0, at) + mask_player_secret(s.substr(at));
  return s;
}

// Prose for a plain-text mail body: each line longer than `width` is broken at spaces (a word
// longer than the width stays whole). Lines that begin with a space (tables, quoted orders) are
// kept as they are.
std::string wrap(std::string_view text, std::size_t width = 76) {
  std::string out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    const bool last = end == std::string_view::npos;
    if (last) end = text.size();
    std::string_view line = text.substr(start, end - start);
    while (line.size() > width && !line.starts_with(" ")) {
      std::size_t cut = line.rfind(' ', width);
      if (cut == std::string_view::npos || cut == 0) cut = line.find(' ', width);
      if (cut == std::string_view::npos) break;
      out.append(line.substr(0, cut));
      out.push_back('\n');
      line.remove_prefix(cut + 1);
    }
    out.append(line);
    if (!last) out.push_back('\n');
    start = end + 1;
  }
  return out;
}

// The local part's +tag of an address ("britain-1" for "orders+britain-1@host"); "" if none.
std::string plus_tag(const std::string& address) {
  const std::size_t at = address.rfind('@');
  const std::string local = address.substr(0, at);
  const std::size_t plus = local.find('+');
  return plus == std::string::npos ? std::string() : local.substr(plus + 1);
}

// The address without its +tag, lower-case.
std::string without_tag(const std::string& address) {
  const std::size_t at = address.rfind('@');
  std::string local = address.substr(0, at);
  const std::size_t plus = local.find('+');
  if (plus != std::string::npos) local.resize(plus);
  return lower(at == std::string::npos ? local : local + address.substr(at));
}

// The subject without any "Re:", "Fwd:", "Fw:", "AW:", "WG:" prefixes.
std::string bare_subject(std::string s) {
  for (;;) {
    s = trim(s);
    const std::size_t colon = s.find(':');
    if (colon == std::string::npos || colon > 3) return s;
    const std::string prefix = lower(s.substr(0, colon));
    if (prefix != "re" && prefix != "fwd" && prefix != "fw" && prefix != "aw" && prefix != "wg")
      return s;
    s = s.substr(colon + 1);
  }
}

// `raw` with the secret of every PLAYER line, the word after every line-leading SECRET and every
// whole-word occurrence of `known` (the secrets the message was read to carry, e.g. in an HTML
// alternative) masked, as written: plain and quoted-printable bodies; base64 is not decoded.
std::string mask_mail_secrets(const std::string& raw, const std::vector<std::string>& known) {
  std::string out = mask_player_secret(raw);
  for (const std::string& secret : known)
    if (secret.size() >= 3 && secret != "********") out = mask(std::move(out), secret);
  std::size_t start = 0;
  while (start < out.size()) {
    std::size_t end = out.find('\n', start);
    if (end == std::string::npos) end = out.size();
    std::size_t i = start;
    while (i < end && (out[i] == ' ' || out[i] == '\t' || out[i] == '>')) ++i;
    if (end - i > 7 && (out.compare(i, 7, "SECRET ") == 0 || out.compare(i, 7, "secret ") == 0 ||
                        out.compare(i, 7, "Secret ") == 0)) {
      std::size_t w = i + 7;
      while (w < end && out[w] == ' ') ++w;
      std::size_t e = w;
      while (e < end && out[e] != ' ' && out[e] != '\t' && out[e] != '\r') ++e;
      if (e > w) {
        out.replace(w, e - w, "********");
        end = out.find('\n', start);
        if (end == std::string::npos) end = out.size();
      }
    }
    start = end + 1;
  }
  return out;
}

// True when `raw` has a part whose body is base64, where a secret cannot be masked as written.
bool has_base64_part(const std::string& raw) {
  std::string lower(raw.size(), '\0');
  for (std::size_t i = 0; i < raw.size(); ++i)
    lower[i] = static_cast<char>(std::tolower(static_cast<unsigned char>(raw[i])));
  for (std::size_t at = lower.find("content-transfer-encoding:"); at != std::string::npos;
       at = lower.find("content-transfer-encoding:", at + 1)) {
    std::size_t v = at + 26;
    while (v < lower.size() && (lower[v] == ' ' || lower[v] == '\t')) ++v;
    if (lower.compare(v, 6, "base64") == 0) return true;
  }
  return false;
}

// `raw`'s header block with its body replaced by a note: what is kept of a processed message
// that carried a secret in a part that cannot be masked as written.
std::string header_only(const std::string& raw) {
  std::size_t end = raw.find("\r\n\r\n");
  std::size_t cut = end == std::string::npos ? std::string::npos : end + 4;
  if (const std::size_t lf = raw.find("\n\n"); lf != std::string::npos && lf + 2 < cut)
    cut = lf + 2;
  std::string out = cut == std::string::npos ? std::string() : raw.substr(0, cut);
  return out +
         "[The body of this message carried a secret in an encoded part and was removed once "
         "the message was processed; its orders are kept with their answer.]\r\n";
}

struct MailCommand {
  std::string name;  // "HELP", "RESEND", "STATUS", "SECRET"
  std::string arg;   // an optional game id; SECRET: the new secret
};

// "SECRET <new-secret>" on a line of its own in the first text (after the GAME and PLAYER lines).
std::optional<MailCommand> secret_command_in(std::string_view text) {
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::vector<std::string> w = words(text.substr(start, end - start));
    if (w.size() == 2 && upper(w[0]) == "SECRET") return MailCommand{"SECRET", w[1]};
    start = end + 1;
  }
  return std::nullopt;
}

// RESEND's turn: "RESEND <turn>" names a turn by its number (a game id is never all digits in
// practice; the GAME line names the game). nullopt for RESEND alone or with a game id.
std::optional<int> resend_turn(const MailCommand& c) {
  if (c.name != "RESEND" || c.arg.empty() || c.arg.size() > 6) return std::nullopt;
  for (char ch : c.arg)
    if (ch < '0' || ch > '9') return std::nullopt;
  const int turn = std::stoi(c.arg);
  return turn >= 1 ? std::optional<int>(turn) : std::nullopt;
}

// A line that is a command: the command word alone, or followed by one game id.
std::optional<MailCommand> command_in(std::string_view line) {
  const std::vector<std::string> w = words(line);
  if (w.empty() || w.size() > 2) return std::nullopt;
  const std::string name = upper(w[0]);
  if (name != "HELP" && name != "RESEND" && name != "STATUS") return std::nullopt;
  return MailCommand{name, w.size() == 2 ? w[1] : ""};
}

std::string first_nonblank_line(std::string_view text) {
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string line = trim(text.substr(start, end - start));
    if (!line.empty()) return line;
    start = end + 1;
  }
  return {};
}

constexpr const char* kCommandsHelp =
    "Commands by email (the first line of a message, or its subject):\n"
    "  HELP [<game-id>]   this text, with the rules of a game when it is named\n"
    "  RESEND [<turn>]    your latest report, or that turn's (add the GAME and PLAYER\n"
    "                     <code> <secret> lines)\n"
    "  STATUS             the orders on file for this turn (same lines)\n"
    "  SECRET <new>       after the GAME and PLAYER lines: change your secret (8 to 64\n"
    "                     characters, one word)\n"
    "  ADDRESS <new>      after the GAME and PLAYER lines: change your address\n"
    "  JOIN <game-id> [kingdoms]  sign up for a game open for sign-ups, from the address\n"
    "                     you will play from\n"
    "  STANDBY <game-id>  stand by to take over a position whose player stopped sending\n"
    "                     orders (offers come with a takeover code)\n"
    "  CONFIRM <code>     confirm a JOIN or STANDBY: the answer to either carries the code,\n"
    "                     and nothing is recorded until it is confirmed\n"
    "  TAKEOVER <game-id> <kingdom> <code>  take a position over with its takeover code\n"
    "  ABSENCE <from> <to>  after the GAME and PLAYER lines: declare an absence (days as\n"
    "                     YYYY-MM-DD, UTC)\n";

bool automatic(const ParsedMail& m, const std::string& envelope_from) {
  if (!m.auto_submitted.empty() && m.auto_submitted != "no") return true;
  if (m.precedence == "bulk" || m.precedence == "junk" || m.precedence == "list") return true;
  if (envelope_from == "<>") return true;
  const std::string local = lower(m.from_address.substr(0, m.from_address.find('@')));
  return local == "mailer-daemon" || local == "postmaster";
}

// When the stored raw message is a truncated oversized one, its original size.
std::optional<std::size_t> truncated_size(std::string_view raw) {
  if (!raw.starts_with(kTruncated)) return std::nullopt;
  std::size_t n = 0;
  for (std::size_t i = kTruncated.size(); i < raw.size() && raw[i] != '\r' && raw[i] != '\n'; ++i)
    if (std::isdigit(static_cast<unsigned char>(raw[i]))) n = n * 10 + (raw[i] - '0');
  return n;
}

std::string bytes_text(std::size_t n) {
  if (n >= (1u << 20)) return std::to_string(n >> 20) + " MiB (" + std::to_string(n) + " bytes)";
  return std::to_string(n) + " bytes";
}

std::string report_html(const std::string& intro, const std::string& text,
                        const std::vector<std::pair<std::string, std::string>>& links) {
  std::string h =
      "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"></head>\n"
      "<body style=\"font-family:sans-serif\">\n<p>" +
      html_escape(intro) + "</p>\n";
  if (!links.empty()) {
    h += "<ul>\n";
    for (const auto& [label, url] : links)
      h += "<li><a href=\"" + html_escape(url) + "\">" + html_escape(label) + "</a></li>\n";
    h += "</ul>\n";
  }
  h += "<pre style=\"font-family:monospace;font-size:13px\">" + html_escape(text) +
       "</pre>\n</body></html>\n";
  return h;
}

// Where answers to an unauthenticated sender go: MAIL FROM, else the Return-Path an MTA wrote
// (pipes and Maildirs without an envelope); "" when neither names an address.
std::string envelope_sender(const std::string& mail_from, const std::string& return_path) {
  for (const std::string* a : {&mail_from, &return_path})
    if (!a->empty() && *a != "<>" && a->find('@') != std::string::npos) return *a;
  return "";
}

}  // namespace

struct MailIngest::Context {
  InboxMessage in;
  ParsedMail mail;
  std::string sender;  // where answers to an authenticated sender go: the From address
  // Where refusals and HELP answers go: the envelope sender (or the Return-Path an MTA wrote);
  // "" when unknown, and then nothing is answered.
  std::string refusal_to;
  std::string source;  // "email:<message-id>"
  std::string secret;  // a secret seen in the message, masked out of anything sent back
  std::optional<MailCommand> command;
};

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

MailIngest::MailIngest(Services& services, SubmissionStore& submissions, MailStore& mail,
                       MailConfig config, Clock clock, AdminStore* admin)
    : services_(services),
      submissions_(submissions),
      mail_(mail),
      config_(std::move(config)),
      now_(std::move(clock)),
      admin_(admin),
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
  return mail_.prune_inbox(now - static_cast<UnixTime>(config_.keep_raw_days) * 86400, now);
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

Result<int> MailIngest::process_pending(int limit) {
  auto pending = mail_.inbox_list("new", limit, false);  // ids only: raw is read one at a time
  if (!pending.ok()) return pending.status();
  int n = 0;
  for (const InboxMessage& m : *pending) {
    auto r = process(m.id);
    if (r.ok() && !r->already_done) ++n;
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

Result<ProcessResult> MailIngest::process_leased(InboxMessage in) {
  const std::int64_t id = in.id;
  Context c;
  c.in = std::move(in);

  const auto finish = [&](ProcessResult r) -> Result<ProcessResult> {
    ADJ_RETURN_IF_ERROR(mail_.set_inbox_state(id, r.state, r.outcome));
    // Processed: the stored message keeps no secret (PLAYER and SECRET lines masked where they
    // are written plainly or quoted-printable; a message that carried a secret and has a base64
    // part keeps its header only). After the state, so a crash in between loses nothing.
    std::vector<std::string> known = {c.secret};
    if (c.command && c.command->name == "SECRET") known.push_back(c.command->arg);
    std::string masked = mask_mail_secrets(c.in.raw, known);
    if (!c.secret.empty() && has_base64_part(masked)) masked = header_only(masked);
    if (masked != c.in.raw) ADJ_RETURN_IF_ERROR(mail_.mask_inbox_raw(id, masked));
    return r;
  };
  const auto failed = [&](const std::string& why) {
    ProcessResult r;
    r.state = "failed";
    r.outcome = why;
    r.action = "error";
    return finish(std::move(r));
  };

  const std::optional<std::size_t> oversized = truncated_size(c.in.raw);
  // An oversized message is only its header block (after the marker line).
  std::string_view raw = c.in.raw;
  if (oversized) raw.remove_prefix(std::min(raw.size(), raw.find('\n') + 1));
  auto parsed = parse_mail(oversized ? std::string(raw) + "\r\n" : std::string(raw), config_.mime);
  // Past a MIME bound: the header block alone says whom to answer.
  std::string too_complex;
  if (!parsed.ok() && parsed.status().code() == StatusCode::kFailedPrecondition) {
    too_complex = parsed.status().message();
    parsed = parse_mail(std::string(header_block(raw)) + "\r\n", config_.mime);
  }
  if (!parsed.ok()) return failed("unreadable: " + parsed.status().message());
  c.mail = std::move(parsed).value();
  c.sender = c.mail.from_address;
  c.refusal_to = envelope_sender(c.in.envelope_from, c.mail.return_path);
  c.source = "email:" + (c.mail.message_id.empty() ? c.in.message_id : c.mail.message_id);
  if (c.sender.empty() || c.sender.find('@') == std::string::npos)
    return failed("no From address: nothing to answer");
  if (automatic(c.mail, c.in.envelope_from)) {
    ProcessResult r;
    r.state = "processed";
    r.outcome = "ignored: automatic mail from " + c.sender + " (never answered)";
    r.action = "ignored";
    return finish(std::move(r));
  }
  if (iequals(c.sender, config_.from.address)) {
    ProcessResult r;
    r.state = "processed";
    r.outcome = "ignored: mail from this server's own address";
    r.action = "ignored";
    return finish(std::move(r));
  }

  Result<ProcessResult> r = Status::Internal("unset");
  if (!too_complex.empty()) {
    r = refuse(c, "too complex: " + too_complex,
               "Your message was not read: " + too_complex +
                   ". Send your orders as plain text in the body of a simple message.");
  } else if (oversized) {
    r = refuse(c, "too large",
               "Your message was " + bytes_text(*oversized) +
                   "; this server takes messages up to " + bytes_text(config_.max_message_bytes) +
                   ". It was not read. Send your orders as plain text in the body of a message.");
  } else {
    r = answer(c);
  }
  if (!r.ok()) return r.status();
  r->outcome = "from " + c.sender + ": " + r->outcome;
  return finish(std::move(r).value());
}

Result<ProcessResult> MailIngest::answer(Context& c) {
  // JOIN (first line or subject) and ADDRESS (a line of its own): membership_mail.cc.
  for (const std::string& line :
       {c.mail.texts.empty() ? std::string() : first_nonblank_line(c.mail.texts.front().text),
        bare_subject(c.mail.subject)})
    if (auto join = join_command_in(line)) return handle_join(c, c.refusal_to, *join);
  for (const std::string& line :
       {c.mail.texts.empty() ? std::string() : first_nonblank_line(c.mail.texts.front().text),
        bare_subject(c.mail.subject)})
    if (auto code = confirm_command_in(line)) {
      c.secret = *code;  // never echoed
      return handle_confirm(c, c.refusal_to, *code);
    }
  // Lines of the text outside PRESS blocks: a press message's own lines are never a command
  // (ADDRESS, SECRET, ABSENCE are found on a line of their own anywhere in the text).
  const std::string outside_press =
      c.mail.texts.empty() ? std::string() : extract_press_blocks(c.mail.texts.front().text).rest;
  if (!c.mail.texts.empty())
    if (auto address = address_command_in(outside_press)) {
      c.command = MailCommand{"ADDRESS", *address};
      return handle_address(c, *address);
    }
  if (auto cmd = command_in(bare_subject(c.mail.subject))) c.command = cmd;
  if (!c.mail.texts.empty())
    if (auto cmd = command_in(first_nonblank_line(c.mail.texts.front().text))) c.command = cmd;
  if (!c.command && !c.mail.texts.empty())
    if (auto cmd = secret_command_in(outside_press)) c.command = cmd;
  if (!c.command) {  // attendance (attendance_mail.h)
    std::optional<AttendanceCommand> a;
    if (!c.mail.texts.empty())
      a = attendance_command_in(first_nonblank_line(c.mail.texts.front().text));
    if (!a) a = attendance_command_in(bare_subject(c.mail.subject));
    if (!a && !c.mail.texts.empty()) a = absence_command_in(outside_press);
    if (a) return handle_attendance(c, *a);
  }
  if (c.command) {
    if (c.command->name == "SECRET") return handle_secret(c);
    if (c.command->name == "HELP") return handle_help(c);
    if (c.command->name == "RESEND") return handle_resend(c);
    return handle_status(c);
  }
  return handle_orders(c);
}

// ---- helpers -----------------------------------------------------------------------------------

std::optional<std::string> MailIngest::find_game(const Context& c,
                                                 const std::optional<std::string>& named) {
  auto games = services_.list_games();
  std::vector<std::string> ids;
  if (games.ok())
    for (const auto& g : *games) ids.push_back(g.id);
  if (named && !named->empty()) {
    for (const auto& id : ids)
      if (iequals(id, *named)) return id;
    return *named;  // unknown: the caller says so
  }
  // A game id in the subject, as a whole word; the longest wins (britain-10 over britain-1).
  std::sort(ids.begin(), ids.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  const std::string subject = lower(c.mail.subject);
  const auto word_char = [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_' || ch == '.';
  };
  for (const auto& id : ids) {
    const std::string needle = lower(id);
    for (std::size_t at = subject.find(needle); at != std::string::npos;
         at = subject.find(needle, at + 1)) {
      const std::size_t end = at + needle.size();
      const bool left = at == 0 || !word_char(subject[at - 1]);
      const bool right =
          end == subject.size() || !word_char(subject[end]) ||
          (subject[end] == '.' && (end + 1 == subject.size() || !word_char(subject[end + 1])));
      if (left && right) return id;
    }
  }
  // The recipient's +tag.
  std::vector<std::string> rcpts = c.in.envelope_to;
  rcpts.insert(rcpts.end(), c.mail.to.begin(), c.mail.to.end());
  for (const auto& r : rcpts) {
    const std::string tag = plus_tag(r);
    if (tag.empty()) continue;
    for (const auto& id : ids)
      if (iequals(id, tag)) return id;
  }
  return std::nullopt;
}

std::string MailIngest::game_link(const std::string& game) const {
  return config_.base_url.empty() ? std::string() : config_.base_url + "/games/" + game;
}

Result<bool> MailIngest::authenticated(const std::string& game, const std::string& player,
                                       const std::string& secret) {
  const Status s = services_.authenticate_player(game, player, secret);
  if (s.ok()) return true;
  if (s.code() == StatusCode::kPermissionDenied) return false;
  return s;
}

// ---- guessing limiter (set_throttle) ------------------------------------------------------------

ThrottleKeys MailIngest::throttle_keys(const Context& c, const std::string& game,
                                       const std::string& player) const {
  const std::string& env = c.in.envelope_from;
  const std::string client = !env.empty() && env != "<>" ? env : c.sender;
  return ThrottleKeys{client.empty() ? std::string() : throttle_key_sender(client),
                      player.empty() ? std::string() : throttle_key_player(game, player)};
}

Result<std::optional<ProcessResult>> MailIngest::throttled(Context& c, const ThrottleKeys& keys) {
  if (!throttle_) return std::optional<ProcessResult>();
  const UnixTime now = now_();
  const ThrottleVerdict v = throttle_->check(keys, now);
  if (v.allowed) return std::optional<ProcessResult>();
  const std::string until = utc_minutes(now + v.retry_after + 59);  // rounded up to the minute
  auto r = refuse(c, "too many failed attempts (locked until " + until + ")",
                  "There were too many failed attempts to use this secret; try again after " +
                      until + ". Nothing in this message was read or stored as orders.");
  if (!r.ok()) return r.status();
  return std::optional<ProcessResult>(std::move(r).value());
}

Status MailIngest::throttle_record(const ThrottleKeys& keys, bool ok, const std::string& game,
                                   const std::string& player) {
  if (!throttle_) return Status::Ok();
  ThrottleKeys k = keys;
  if (!ok && !k.account.empty()) {
    // Only players that exist get a key (a spray of made-up codes must not fill the table).
    auto state = services_.show_game(game);
    if (!state.ok()) return state.status();
    bool exists = false;
    for (const Json& p : (*state)["players"])
      exists = exists || iequals(p.value("code", ""), player);
    if (!exists) k.account.clear();
  }
  const UnixTime now = now_();
  const ThrottleEvent e = throttle_->record(k, ok, now);
  if (e.account_locked) {
    auto q = queue_auth_alert(services_, mail_, config_, game, player, e.account, now);
    if (!q.ok()) return q.status();
  }
  return Status::Ok();
}

Result<bool> MailIngest::queue(const std::string& kind, const std::string& game, const Mailbox& to,
                               const std::string& dedupe_key, OutgoingMail mail) {
  const UnixTime now = now_();
  mail.from = config_.from;
  mail.to = to;
  mail.date = now;
  mail.message_id = make_message_id(dedupe_key, domain_of(config_.from.address));
  auto raw = compose(mail);
  if (!raw.ok()) return raw.status();
  OutboxMessage m;
  m.kind = kind;
  m.game = game;
  m.to = to.address;
  m.raw = std::move(raw).value();
  m.dedupe_key = dedupe_key;
  m.next_attempt_at = now;
  m.created_at = now;
  auto id = mail_.enqueue(m);
  if (id.ok()) return true;
  if (id.status().code() == StatusCode::kAlreadyExists) return false;
  return id.status();
}

Result<bool> MailIngest::reply(Context& c, const std::string& kind, const std::string& game,
                               const std::string& suffix, std::string text,
                               std::optional<std::string> html,
                               std::vector<MailAttachment> attachments) {
  OutgoingMail m;
  // Only the PLAYER line's secret field is masked: the same word elsewhere ("is wrong" with the
  // secret "wrong") is the sender's own text and stays as written.
  m.subject = mask_subject(reply_subject(c.mail.subject));
  if (!c.mail.message_id.empty()) {
    m.in_reply_to = c.mail.message_id;
    m.references = c.mail.references;
  }
  m.text = mask_player_lines(text, c.secret);
  if (html) m.html = mask_player_lines(*html, c.secret);
  m.attachments = std::move(attachments);
  m.headers.emplace_back("Auto-Submitted", "auto-replied");
  return queue(kind, game, Mailbox{c.sender, c.mail.from_name},
               "inbox:" + std::to_string(c.in.id) + ":" + suffix, std::move(m));
}

Result<std::string> MailIngest::refusal_budget_spent(const std::string& address) {
  const UnixTime since = now_() - config_.rate_window_seconds;
  int to_address = 0, to_anyone = 0;
  for (const char* kind : {"refusal", "help", "join"}) {
    auto n = mail_.outbox_count(address, kind, since);
    if (!n.ok()) return n.status();
    to_address += *n;
    auto all = mail_.outbox_count("", kind, since);
    if (!all.ok()) return all.status();
    to_anyone += *all;
  }
  if (to_address >= config_.refusals_per_window) return std::string("rate limit for this sender");
  if (to_anyone >= config_.refusals_per_window_total)
    return std::string("rate limit for all refusals together");
  return std::string();
}

Result<bool> MailIngest::reply_anonymous(Context& c, const std::string& kind,
                                         const std::string& game, const std::string& subject,
                                         std::string text) {
  OutgoingMail m;
  m.subject = subject;
  m.text = mask_player_lines(text, c.secret);
  m.headers.emplace_back("Auto-Submitted", "auto-replied");
  return queue(kind, game, Mailbox{c.refusal_to, ""},
               "inbox:" + std::to_string(c.in.id) + ":" + kind, std::move(m));
}

Result<ProcessResult> MailIngest::refuse(Context& c, const std::string& why,
                                         const std::string& text) {
  ProcessResult r;
  r.state = "processed";
  r.action = "refusal";
  if (c.refusal_to.empty()) {
    r.outcome = "refused (" + why + "); not answered: no envelope sender";
    return r;
  }
  auto spent = refusal_budget_spent(c.refusal_to);
  if (!spent.ok()) return spent.status();
  if (!spent->empty()) {
    r.outcome = "refused (" + why + "); not answered: " + *spent;
    return r;
  }
  auto queued =
      reply_anonymous(c, "refusal", "", "Your message to Adjutant was not read",
                      wrap(text) + "\n\nSend HELP for the order syntax.\n\n" + kSignature);
  if (!queued.ok()) return queued.status();
  r.queued = *queued ? 1 : 0;
  r.outcome = "refused (" + why + ")" + (c.refusal_to != c.sender ? " to " + c.refusal_to : "");
  return r;
}

// ---- orders ------------------------------------------------------------------------------------

Result<ProcessResult> MailIngest::handle_orders(Context& c) {
  // The text with orders: the first candidate with a GAME or PLAYER line, else the first text.
  // Each is read without what it quotes and without the signature (a reply to a report with the
  // report quoted below and no END must not become dozens of rejected lines).
  const MailText* chosen = nullptr;
  std::string orders_text;
  int dropped = 0;
  ParsedOrderFile parsed;
  for (const MailText& t : c.mail.texts) {
    int n = 0;
    std::string own = without_quotes_and_signature(t.text, &n);
    ParsedOrderFile p = parse_order_file(own);
    if (p.game || p.player) {
      chosen = &t;
      orders_text = std::move(own);
      dropped = n;
      parsed = std::move(p);
      break;
    }
  }
  if (!chosen) {
    const bool blank = std::all_of(c.mail.texts.begin(), c.mail.texts.end(),
                                   [](const MailText& t) { return trim(t.text).empty(); });
    if (c.mail.text_source == TextSource::kHtml)
      return refuse(c, "HTML only, no orders in it",
                    "Your message had only an HTML version and no orders could be read from it. "
                    "Please send your orders as plain text (in most mail programs: Format > "
                    "Plain Text), starting with the GAME and PLAYER lines.");
    if (blank)
      return refuse(c, "no text",
                    "Your message had no text this server could read (no text/plain part, no "
                    "text attachment). Send your orders as plain text in the body of a message.");
    if (c.mail.text.size() > kMaxOrderFileBytes)
      return refuse(c, "text too large",
                    "The text of your message is " + bytes_text(c.mail.text.size()) +
                        "; order files are limited to " + bytes_text(kMaxOrderFileBytes) + ".");
    chosen = &c.mail.texts.front();
    orders_text = without_quotes_and_signature(chosen->text, &dropped);
    parsed = parse_order_file(orders_text);
  }
  // PRESS blocks (press_mail.h) are taken out before the orders are read.
  PressExtract press = extract_press_blocks(orders_text);
  if (!press.blocks.empty()) {
    orders_text = std::move(press.rest);
    parsed = parse_order_file(orders_text);
  }
  if (parsed.secret) c.secret = *parsed.secret;

  const std::optional<std::string> game = find_game(c, parsed.game);
  if (!game)
    return refuse(c, "no game named",
                  "Your message did not say which game it is for, so it was not read as orders. "
                  "Orders start with the lines\n\n  GAME <game-id>\n  PLAYER <player-code> "
                  "<secret>\n\nfollowed by one order per line, and END.");

  // Idempotence: a submission from this message already stored (a crash after submitting).
  OrderAck ack;
  std::optional<std::int64_t> submission_id;
  bool known_game = true;
  if (auto all = submissions_.all_submissions(*game); all.ok()) {
    for (const auto& s : *all)
      if (s.source == c.source) {
        auto a = ack_from_json(s.ack);
        if (!a.ok()) return a.status();
        ack = std::move(a).value();
        submission_id = s.id;
      }
  } else if (all.status().code() == StatusCode::kNotFound) {
    known_game = false;
  } else {
    return all.status();
  }
  if (!known_game)
    return refuse(c, "unknown game " + *game,
                  "There is no game \"" + *game +
                      "\" on this server, so your message was not "
                      "read as orders. Check the GAME line.");
  if (!press.blocks.empty() && parsed.lines.empty() && !submission_id)
    return handle_press(c, press.blocks);  // press alone: no orders to store
  std::string turn_note;                   // the open turn changed while the file arrived
  // Guessing limit on the PLAYER line's secret (set_throttle); not again for a message whose
  // submission was stored before a crash.
  const bool guarded = !submission_id && parsed.player && parsed.secret;
  const ThrottleKeys keys = throttle_keys(c, *game, parsed.player.value_or(""));
  if (guarded) {
    auto locked = throttled(c, keys);
    if (!locked.ok()) return locked.status();
    if (*locked) return std::move(**locked);
  }
  if (!submission_id) {
    auto out = services_.submit_orders(*game, orders_text, c.source);
    if (!out.ok()) return out.status();  // e.g. the turn is being resolved: answered on a retry
    ack = std::move(out->ack);
    submission_id = out->submission_id;
    turn_note = std::move(out->note);
  }
  if (guarded) {
    const SecretVerdict sc = secret_check_of(ack);
    if (sc != SecretVerdict::kNotChecked)
      ADJ_RETURN_IF_ERROR(throttle_record(
          sc == SecretVerdict::kUnknownPlayer ? ThrottleKeys{keys.client, ""} : keys,
          sc == SecretVerdict::kRight, *game, *parsed.player));
  }

  bool auth = !ack.refused;
  if (!auth && parsed.player && parsed.secret) {
    auto a = authenticated(*game, *parsed.player, *parsed.secret);
    if (!a.ok()) return a.status();
    auth = *a;
  }
  ProcessResult r;
  r.action = "orders";
  r.state = "processed";
  r.submission_id = submission_id;
  const std::string who = *game + "/" + (ack.player.empty() ? "?" : ack.player);
  const std::string sub =
      submission_id ? " (submission " + std::to_string(*submission_id) + ")" : std::string();
  if (!auth) {
    auto rr = refuse(c, "orders for " + who + " refused: " + ack.refusal,
                     "Your orders for game " + *game + " were refused: " + ack.refusal + ".");
    if (!rr.ok()) return rr;
    rr->action = "orders";
    rr->submission_id = submission_id;
    rr->outcome += sub;
    return rr;
  }

  std::string body = render_ack_text(ack);
  if (!press.blocks.empty()) {
    const std::string from = !ack.player.empty() ? ack.player : upper(parsed.player.value_or(""));
    auto sent = press_answer(c, *game, from, press.blocks);
    if (!sent.ok()) return sent.status();
    body += "\n" + *sent;
  }
  std::string notes = turn_note.empty() ? "" : turn_note + "\n";
  if (chosen->source == TextSource::kHtml)
    notes +=
        "Note: your message had no plain-text version, so the orders were read from its "
        "HTML after removing the formatting. Please send plain text if you can.\n";
  if (chosen->source == TextSource::kAttachment)
    notes += "The orders were read from the attachment " +
             (chosen->filename.empty() ? std::string("(unnamed)") : chosen->filename) + ".\n";
  if (dropped > 0)
    notes += std::to_string(dropped) + (dropped == 1 ? " line" : " lines") +
             " of quoted text (starting with >) or signature " + (dropped == 1 ? "was" : "were") +
             " not read as orders.\n";
  if (!ack.refused && counts_as_orders(ack))
    notes += "Your orders for turn " + std::to_string(ack.turn) + " are on file (received " +
             utc_minutes(c.in.received_at) +
             ") and replace any you sent before; send a new file to replace them, or STATUS to "
             "see what is on file.\n";
  else if (!ack.refused)
    notes += "No line of this file can be carried out, so it does not count as orders for turn " +
             std::to_string(ack.turn) +
             ": you will be counted as missing them. Fix the rejected lines and send the whole "
             "file again.\n";
  body += "\n" + wrap(notes);
  if (const std::string link = game_link(*game); !link.empty()) body += "Game page: " + link + "\n";
  body += "\n";
  body += kSignature;
  auto queued = reply(c, "ack", *game, "ack", body);
  if (!queued.ok()) return queued.status();
  r.queued += *queued ? 1 : 0;
  r.outcome = "orders for " + who + ": " +
              (ack.refused ? "refused: " + ack.refusal
                           : std::to_string(ack.accepted_count()) + " accepted, " +
                                 std::to_string(ack.rejected_count()) + " rejected") +
              sub;

  // The player's address on file is warned when the orders came from elsewhere.
  if (!ack.player.empty()) {
    auto state = services_.show_game(*game);
    if (!state.ok()) return state.status();
    std::string on_file, name;
    for (const Json& p : (*state)["players"])
      if (p.value("code", "") == ack.player) {
        on_file = p.value("email", "");
        name = p.value("name", "");
      }
    if (!on_file.empty() && !iequals(on_file, c.sender)) {
      OutgoingMail w;
      w.subject = "Orders for " + ack.player + " in " + *game + " came from another address";
      w.text = wrap("Orders for player " + ack.player + " in game " + *game + " (turn " +
                    std::to_string(ack.turn) + ") arrived on " + utc_minutes(c.in.received_at) +
                    " from " + c.sender + ", not from your address on file (" + on_file +
                    ").\nThey carried your secret and were " +
                    (ack.refused ? "refused: " + ack.refusal
                                 : "accepted: " + std::to_string(ack.accepted_count()) +
                                       " orders accepted, " + std::to_string(ack.rejected_count()) +
                                       " rejected") +
                    ".\n\nIf this was not you, tell the game master at once and ask for a new "
                    "secret.\n\n") +
               kSignature;
      w.headers.emplace_back("Auto-Submitted", "auto-generated");
      auto warned = queue("warning", *game, Mailbox{on_file, name},
                          "inbox:" + std::to_string(c.in.id) + ":warning", std::move(w));
      if (!warned.ok()) return warned.status();
      r.queued += *warned ? 1 : 0;
      r.outcome += "; warned " + on_file;
    }
  }
  return r;
}

// ---- commands ----------------------------------------------------------------------------------

namespace {

// The order file of a command message: the first text with a GAME or PLAYER line, else the first.
ParsedOrderFile command_lines(const ParsedMail& m) {
  for (const MailText& t : m.texts) {
    ParsedOrderFile p = parse_order_file(t.text);
    if (p.game || p.player) return p;
  }
  return m.texts.empty() ? ParsedOrderFile{} : parse_order_file(m.texts.front().text);
}

}  // namespace

Result<ProcessResult> MailIngest::handle_help(Context& c) {
  const ParsedOrderFile lines = command_lines(c.mail);
  if (lines.secret) c.secret = *lines.secret;
  std::optional<std::string> named = lines.game;
  if (!c.command->arg.empty()) named = c.command->arg;
  const std::optional<std::string> game = find_game(c, named);

  ProcessResult r;
  r.state = "processed";
  r.action = "help";
  if (c.refusal_to.empty()) {
    r.outcome = "HELP; not answered: no envelope sender";
    return r;
  }
  auto spent = refusal_budget_spent(c.refusal_to);
  if (!spent.ok()) return spent.status();
  if (!spent->empty()) {
    r.outcome = "HELP; not answered: " + *spent;
    return r;
  }

  // With GAME and PLAYER lines whose secret is right, the answer has the player's own areas;
  // anything else gets the public part only (a wrong secret is counted like any other).
  std::string player;
  if (game && lines.player && lines.secret) {
    const ThrottleKeys keys = throttle_keys(c, *game, *lines.player);
    const bool locked = throttle_ && !throttle_->check(keys, now_()).allowed;
    if (!locked) {
      auto auth = authenticated(*game, *lines.player, *lines.secret);
      if (auth.ok()) {
        ADJ_RETURN_IF_ERROR(throttle_record(keys, *auth, *game, *lines.player));
        if (*auth) player = upper(*lines.player);
      } else if (auth.status().code() != StatusCode::kNotFound) {
        return auth.status();
      }
    }
  }

  std::string body;
  std::string game_part;
  if (game) {
    auto state = services_.show_game(*game);
    if (state.ok()) {
      auto st = state_from_json(*state);
      if (!st.ok()) return st.status();
      Result<EngineHandle> e = services_.engine_of(*game);
      game_part = help_for_game(*st, player, e.ok() ? (*e)->order_help() : std::string_view());
      if (const std::string link = game_link(*game); !link.empty())
        game_part += "\nGame page: " + link + (player.empty() ? "" : "/me") + "\n";
    } else if (state.status().code() == StatusCode::kNotFound) {
      game_part = "There is no game \"" + *game +
                  "\" on this server. Check the game id on the game list, or send HELP alone "
                  "for the order syntax.\n";
    } else {
      return state.status();
    }
  }
  if (!game_part.empty()) body += game_part + "\n";
  body += help_syntax();
  body += "\n";
  body += kCommandsHelp;
  if (!game) body += "\nSend HELP <game-id> for the rules and map of your game.\n";
  body += "\n";
  body += kSignature;
  auto queued = player.empty() ? reply_anonymous(c, "help", game.value_or(""),
                                                 "Adjutant: how to send orders (HELP)", body)
                               : reply(c, "help", *game, "help", body);
  if (!queued.ok()) return queued.status();
  r.queued = *queued ? 1 : 0;
  r.outcome = "HELP answered" + (game ? " for " + *game : std::string()) +
              (player.empty() ? std::string() : " (player " + player + ")");
  return r;
}

Result<std::optional<MailIngest::Signed>> MailIngest::signed_command(Context& c,
                                                                     ProcessResult* refusal) {
  const ParsedOrderFile lines = command_lines(c.mail);
  if (lines.secret) c.secret = *lines.secret;
  std::optional<std::string> named = lines.game;
  if (!named && !c.command->arg.empty() && c.command->name != "SECRET" &&
      c.command->name != "ADDRESS" && !resend_turn(*c.command))
    named = c.command->arg;
  const std::optional<std::string> game = find_game(c, named);
  const std::string what = c.command->name;
  Result<ProcessResult> refused = Status::Internal("unset");
  if (!game || !lines.player || !lines.secret) {
    refused = refuse(c, what + " without GAME and PLAYER lines",
                     what +
                         " needs the lines\n\n  GAME <game-id>\n  PLAYER <player-code> "
                         "<secret>\n\nin the message, so that only you can ask for it.");
  } else {
    // Guessing limit on the PLAYER line's secret (set_throttle).
    const ThrottleKeys keys = throttle_keys(c, *game, *lines.player);
    auto locked = throttled(c, keys);
    if (!locked.ok()) return locked.status();
    if (*locked) {
      *refusal = std::move(**locked);
      return std::optional<Signed>();
    }
    auto auth = authenticated(*game, *lines.player, *lines.secret);
    if (auth.ok()) ADJ_RETURN_IF_ERROR(throttle_record(keys, *auth, *game, *lines.player));
    if (auth.ok() && *auth) return std::optional<Signed>(Signed{*game, *lines.player});
    if (!auth.ok() && auth.status().code() != StatusCode::kNotFound) return auth.status();
    refused =
        !auth.ok()
            ? refuse(c, what + " for unknown game " + *game,
                     "There is no game \"" + *game + "\" on this server.")
            : refuse(c, what + " for " + *game + "/" + *lines.player + ": wrong code or secret",
                     "The PLAYER line's code or secret is not right for game " + *game + ".");
  }
  if (!refused.ok()) return refused.status();
  *refusal = std::move(refused).value();
  return std::optional<Signed>();
}

Result<ProcessResult> MailIngest::handle_secret(Context& c) {
  ProcessResult refusal;
  auto who = signed_command(c, &refusal);
  if (!who.ok()) return who.status();
  if (!*who) return refusal;
  const std::string& game = (*who)->game;
  const std::string player = upper((*who)->player);
  ProcessResult r;
  r.state = "processed";
  r.action = "secret";
  std::string text;
  const Status changed = services_.change_secret(game, player, c.command->arg);
  if (changed.ok()) {
    if (admin_) {
      if (Status a = record_audit(*admin_, game, now_(), "player:" + player, "secret",
                                  {{"player", player}, {"what", "secret"}, {"channel", "mail"}});
          !a.ok())
        return a;
    }
    text = "The secret of " + player + " in game " + game +
           " is changed. Use the new one on your PLAYER line from now on; the old one no "
           "longer works.\n\n";
    r.outcome = "SECRET: changed for " + game + "/" + player;
  } else if (changed.code() == StatusCode::kInvalidArgument) {
    text = "The secret was not changed: " + changed.message() + ".\n\n";
    r.outcome = "SECRET: refused for " + game + "/" + player + ": " + changed.message();
  } else {
    return changed;
  }
  text += kSignature;
  auto queued = reply(c, "secret", game, "secret", std::move(text));
  if (!queued.ok()) return queued.status();
  r.queued = *queued ? 1 : 0;
  return r;
}

// ---- attendance (attendance_mail.h) ------------------------------------------------------------

Result<ProcessResult> MailIngest::handle_attendance(Context& c, const AttendanceCommand& cmd) {
  AttendanceAccess acc = attendance_access(services_, admin_, now_, config_.base_url);
  if (!acc.attendance) return Status::Internal("attendance needs the daemon's store");
  Attendance& att = *acc.attendance;
  const auto client_error = [](const Status& s) {
    return s.code() == StatusCode::kInvalidArgument || s.code() == StatusCode::kNotFound ||
           s.code() == StatusCode::kFailedPrecondition ||
           s.code() == StatusCode::kPermissionDenied || s.code() == StatusCode::kAlreadyExists;
  };
  ProcessResult r;
  r.state = "processed";
  r.action = lower(cmd.name);
  if (cmd.name == "ABSENCE") {
    c.command = MailCommand{"ABSENCE", ""};
    ProcessResult refusal;
    auto who = signed_command(c, &refusal);
    if (!who.ok()) return who.status();
    if (!*who) return refusal;
    const std::string game = (*who)->game, player = upper((*who)->player);
    std::string text;
    if (cmd.args.size() != 2) {
      text = "The absence was not noted: ABSENCE needs the first and the last day.\n\n" +
             absence_usage();
      r.outcome = "ABSENCE: refused for " + game + "/" + player + ": not two dates";
    } else {
      auto a = att.declare_absence(game, player, cmd.args[0], cmd.args[1], "player:" + player);
      if (a.ok()) {
        auto opts = att.options(game);
        text = "Your absence from " + a->from + " to " + a->to + " is noted for " + player +
               " in game " + game + ". " +
               (opts.ok() && opts->absence_extends
                    ? "A deadline that falls in it while you have no orders in is extended by "
                      "at most " +
                          std::to_string(opts->absence_max_days) + " days."
                    : "This game does not extend deadlines for absences; send orders ahead.") +
               " Turns you miss while away do not count toward civil disorder.\n";
        r.outcome = "ABSENCE: " + game + "/" + player + " " + a->from + " to " + a->to;
      } else if (client_error(a.status())) {
        text = "The absence was not noted: " + a.status().message() + ".\n";
        r.outcome = "ABSENCE: refused for " + game + "/" + player + ": " + a.status().message();
      } else {
        return a.status();
      }
    }
    auto queued = reply(c, "absence", game, "absence", wrap(text) + "\n" + kSignature);
    if (!queued.ok()) return queued.status();
    r.queued = *queued ? 1 : 0;
    return r;
  }

  // STANDBY and TAKEOVER come from anyone: answers go to the envelope sender only.
  if (c.refusal_to.empty()) {
    r.outcome = cmd.name + "; not answered: no envelope sender";
    return r;
  }
  const std::optional<std::string> game =
      cmd.args.empty() ? std::nullopt : find_game(c, cmd.args[0]);
  if (cmd.name == "STANDBY") {
    auto spent = refusal_budget_spent(c.refusal_to);
    if (!spent.ok()) return spent.status();
    if (!spent->empty()) {
      r.outcome = "STANDBY; not answered and not kept: " + *spent;
      return r;
    }
    std::string text;
    if (!game || cmd.args.size() != 1) {
      text = standby_usage();
      r.outcome = "STANDBY without a game";
    } else {
      auto* store = dynamic_cast<Store*>(admin_);
      auto s = store == nullptr ? Result<ConfirmationAsked>(Status::FailedPrecondition(
                                      "standby by mail is not available on this server"))
                                : Confirmations(services_, *store, now_, config_.base_url)
                                      .ask_standby(*game, c.refusal_to, "mail", "");
      if (s.ok()) {
        text = s->text;
        r.outcome =
            "STANDBY: " +
            std::string(s->limited ? "refused (request limit) for " : "confirmation asked for ") +
            c.refusal_to + " for " + *game;
      } else if (s.status().code() == StatusCode::kNotFound) {
        text = "There is no game \"" + *game + "\" on this server.\n";
        r.outcome = "STANDBY for unknown game " + *game;
      } else if (client_error(s.status())) {
        text = "You were not put on the standby list: " + s.status().message() + ".\n";
        r.outcome = "STANDBY refused: " + s.status().message();
      } else {
        return s.status();
      }
    }
    auto queued = reply_anonymous(c, "help", game.value_or(""), "Adjutant: standby (STANDBY)",
                                  wrap(text) + "\n" + kSignature);
    if (!queued.ok()) return queued.status();
    r.queued = *queued ? 1 : 0;
    return r;
  }

  // TAKEOVER <game> <KINGDOM> <code>
  if (!game || cmd.args.size() != 3)
    return refuse(c, "TAKEOVER without game, kingdom and code", takeover_usage());
  const std::string kingdom = upper(cmd.args[1]);
  c.secret = cmd.args[2];  // never echoed
  const ThrottleKeys keys{throttle_key_sender(c.refusal_to), takeover_throttle_key(*game, kingdom)};
  auto locked = throttled(c, keys);
  if (!locked.ok()) return locked.status();
  if (*locked) return std::move(**locked);
  auto t = att.takeover(*game, kingdom, cmd.args[2], c.refusal_to, acc.replace, "mail");
  if (!t.ok()) {
    if (!client_error(t.status())) return t.status();
    if (throttle_ && t.status().code() == StatusCode::kPermissionDenied)
      throttle_->record(keys, false, now_());
    return refuse(c, "TAKEOVER " + *game + "/" + kingdom + ": " + t.status().message(),
                  "The position was not taken over: " + t.status().message() + ".");
  }
  if (throttle_) throttle_->record(keys, true, now_());
  auto secret = queue_new_secrets(t->game, {{t->player, t->secret}}, true);
  if (!secret.ok()) return secret.status();
  std::string text = "You now play " + t->player + " in game " + t->game +
                     ", from this address. Your secret comes in a separate mail; use it on the "
                     "PLAYER line of your orders. Orders you send count from this turn on.\n";
  if (const std::string link = game_link(t->game); !link.empty())
    text += "\nThe game page: " + link + "\n";
  auto queued = reply_anonymous(c, "takeover", t->game, "Adjutant: takeover of " + t->player,
                                wrap(text) + "\n" + kSignature);
  if (!queued.ok()) return queued.status();
  r.queued = (*queued ? 1 : 0) + *secret;
  r.outcome = "TAKEOVER: " + t->game + "/" + t->player + " by " + t->email;
  return r;
}

Result<ProcessResult> MailIngest::handle_resend(Context& c) {
  ProcessResult refusal;
  auto who = signed_command(c, &refusal);
  if (!who.ok()) return who.status();
  if (!*who) return refusal;
  const std::string& game = (*who)->game;
  const std::string& player = (*who)->player;

  ProcessResult r;
  r.state = "processed";
  r.action = "resend";
  const std::optional<int> turn = resend_turn(*c.command);
  auto rep = services_.report(game, player, turn);
  std::string text;
  std::optional<std::string> html;
  std::vector<MailAttachment> attachments;
  if (!rep.ok() && turn && rep.status().code() == StatusCode::kNotFound) {
    auto latest = services_.report(game, player, std::nullopt);
    text = "There is no report of turn " + std::to_string(*turn) + " for " + player + " in game " +
           game + ": " +
           (latest.ok() ? "turns 1 to " + std::to_string(latest->turn) + " have run"
                        : std::string("no turn has run yet")) +
           ". Send RESEND <turn> with one of them, or RESEND alone for the latest.\n\n" +
           kSignature;
    r.outcome =
        "RESEND: no report of turn " + std::to_string(*turn) + " for " + game + "/" + player;
  } else if (rep.ok()) {
    const std::string intro = "Turn " + std::to_string(rep->turn) + " report for " + player +
                              " in game " + game + ", sent again as you asked.";
    std::vector<std::pair<std::string, std::string>> links;
    if (const std::string link = game_link(game); !link.empty())
      links.emplace_back("Your report on the web",
                         link + "/me/reports/" + std::to_string(rep->turn));
    text = intro + "\n\n" + rep->text + "\n";
    for (const auto& [label, url] : links) text += label + ": " + url + "\n";
    text += "\n";
    text += kSignature;
    html = report_html(intro, rep->text, links);
    if (auto map = report_map(config_.map_painter, services_, game, rep->turn))
      attachments.push_back(std::move(*map));
    r.outcome = "RESEND: turn " + std::to_string(rep->turn) + " report of " + game + "/" + player;
  } else if (rep.status().code() == StatusCode::kNotFound) {
    text = "There is no report for " + player + " in game " + game + " yet: no turn has run.\n\n" +
           kSignature;
    r.outcome = "RESEND: no report yet for " + game + "/" + player;
  } else {
    return rep.status();
  }
  auto queued =
      reply(c, "resend", game, "resend", std::move(text), std::move(html), std::move(attachments));
  if (!queued.ok()) return queued.status();
  r.queued = *queued ? 1 : 0;
  return r;
}

// ---- press (press_mail.h) ----------------------------------------------------------------------

Result<std::string> MailIngest::press_answer(Context& c, const std::string& game,
                                             const std::string& player,
                                             const std::vector<PressBlock>& blocks, int* sent) {
  // Press needs the press tables, which the SQLite store (the one MailStore there is) holds.
  auto* store = dynamic_cast<PressStore*>(&mail_);
  if (!store || player.empty())
    return std::string("Press: nothing was sent (press is not available here).\n");
  Press press(services_, *store, now_, admin_);
  return send_press_blocks(press, game, player, blocks, c.source, sent);
}

Result<ProcessResult> MailIngest::handle_press(Context& c, const std::vector<PressBlock>& blocks) {
  c.command = MailCommand{"PRESS", ""};
  ProcessResult refusal;
  auto who = signed_command(c, &refusal);
  if (!who.ok()) return who.status();
  if (!*who) return refusal;
  const std::string& game = (*who)->game;
  const std::string player = upper((*who)->player);
  int sent = 0;
  auto text = press_answer(c, game, player, blocks, &sent);
  if (!text.ok()) return text.status();
  std::string body = "Your press as " + player + " in game " + game +
                     " (no orders were in the "
                     "message, so your orders on file are unchanged).\n\n" +
                     *text + "\n";
  if (const std::string link = game_link(game); !link.empty())
    body += "Your press on the web: " + link + "/me/press\n\n";
  body += kSignature;
  auto queued = reply(c, "press-ack", game, "press", std::move(body));
  if (!queued.ok()) return queued.status();
  ProcessResult r;
  r.state = "processed";
  r.action = "press";
  r.queued = *queued ? 1 : 0;
  r.outcome = "press from " + game + "/" + player + ": " + std::to_string(sent) + " of " +
              std::to_string(blocks.size()) + " sent";
  return r;
}

Result<ProcessResult> MailIngest::handle_status(Context& c) {
  ProcessResult refusal;
  auto who = signed_command(c, &refusal);
  if (!who.ok()) return who.status();
  if (!*who) return refusal;
  const std::string& game = (*who)->game;
  const std::string& player = (*who)->player;

  auto state = services_.show_game(game);
  if (!state.ok()) return state.status();
  const int turn = state->value("turn", 0);
  auto subs = submissions_.current_submissions(game, turn);
  if (!subs.ok()) return subs.status();
  ProcessResult r;
  r.state = "processed";
  r.action = "status";
  std::string text;
  const auto it = std::find_if(subs->begin(), subs->end(),
                               [&](const SubmissionRecord& s) { return s.player == player; });
  if (it == subs->end()) {
    text = "No orders are on file for " + player + " in game " + game + ", turn " +
           std::to_string(turn) + ".\n";
    r.outcome = "STATUS: no orders on file for " + game + "/" + player;
  } else {
    auto ack = ack_from_json(it->ack);
    if (!ack.ok()) return ack.status();
    text = "The orders on file for " + player + " in game " + game + ", turn " +
           std::to_string(turn) + " (received " + utc_minutes(it->received_at) + ", " +
           source_in_words(it->source) + "):\n\n" + render_ack_text(*ack);
    if (!counts_as_orders(*it))
      text +=
          "\nNo line of this file can be carried out, so it does not count as orders: send "
          "a corrected file before the deadline.\n";
    r.outcome = "STATUS: submission " + std::to_string(it->id) + " of " + game + "/" + player;
  }
  if (const std::string link = game_link(game); !link.empty())
    text += "\nGame page: " + link + "\n";
  text += "\n";
  text += kSignature;
  auto queued = reply(c, "status", game, "status", std::move(text));
  if (!queued.ok()) return queued.status();
  r.queued = *queued ? 1 : 0;
  return r;
}

// ---- mail the game sends on its own ------------------------------------------------------------

Result<int> MailIngest::queue_turn_reports(const std::string& game, int turn) {
  auto state = services_.show_game(game);
  if (!state.ok()) return state.status();
  const std::string game_name = state->value("name", game);
  // A turn that ran before (then was rolled back) is mailed again as a correction.
  int runs = 1;
  if (admin_) {
    auto log = admin_->audit_log(game);
    if (!log.ok()) return log.status();
    runs = std::max(1, turn_runs(*log, turn).runs);
  }
  if (runs > 1) {
    auto n = queue_corrections(game, turn, runs);
    if (n.ok()) ADJ_RETURN_IF_ERROR(record_reports_queued(game, turn, *n));
    return n;
  }
  const std::optional<MailAttachment> map = report_map(config_.map_painter, services_, game, turn);
  int queued = 0;
  for (const Json& p : (*state)["players"]) {
    const std::string code = p.value("code", "");
    const std::string email = p.value("email", "");
    if (code.empty() || email.empty()) continue;
    auto rep = services_.report(game, code, turn);
    if (!rep.ok()) return rep.status();
    const std::string name = p.value("name", code);
    const std::string intro = "Turn " + std::to_string(turn) + " report for " + name + " (" + code +
                              ") in " + game_name + " (" + game + ").";
    std::vector<std::pair<std::string, std::string>> links;
    if (const std::string link = game_link(game); !link.empty()) {
      links.emplace_back("Your report on the web", link + "/me/reports/" + std::to_string(turn));
      // No sign-in link: link tokens exist in clear only when issued (stored hashed), and a
      // mail waits in the outbox.
      links.emplace_back("The game page", link);
    }
    std::string text = intro + "\n\n" + rep->text + "\n";
    for (const auto& [label, url] : links) text += label + ": " + url + "\n";
    text +=
        "\nReply to this message with your orders for turn " + std::to_string(turn + 1) + ".\n\n";
    text += kSignature;
    OutgoingMail m;
    m.subject = game_name + " (" + game + "): turn " + std::to_string(turn) + " report for " + code;
    m.text = std::move(text);
    m.html = report_html(intro, rep->text, links);
    if (map) m.attachments.push_back(*map);
    m.headers.emplace_back("Auto-Submitted", "auto-generated");
    auto q = queue("report", game, Mailbox{email, name},
                   "report:" + game + ":" + std::to_string(turn) + ":" + code, std::move(m));
    if (!q.ok()) return q.status();
    queued += *q ? 1 : 0;
  }
  ADJ_RETURN_IF_ERROR(record_reports_queued(game, turn, queued));
  return queued;
}

Status MailIngest::record_reports_queued(const std::string& game, int turn, int queued) {
  if (!admin_) return Status::Ok();
  return record_audit(
      *admin_, game, now_(), "mail", "reports",
      {{"turn", turn},
       {"queued", queued},
       {"message", "the reports of turn " + std::to_string(turn) + " are in the outbox (" +
                       std::to_string(queued) + " queued now)"}});
}

Result<int> MailIngest::queue_corrections(const std::string& game, int turn, int run) {
  auto state = services_.show_game(game);
  if (!state.ok()) return state.status();
  const std::string t = std::to_string(turn);
  int queued = 0;
  for (const Json& p : (*state)["players"]) {
    const std::string code = p.value("code", "");
    if (code.empty()) continue;
    auto rep = services_.report(game, code, turn);
    if (!rep.ok()) return rep.status();
    Notice n;
    n.game = game;
    n.kind = "correction";
    n.players = {code};
    // The mailer puts "Correction: <game name> (<game>): " before it.
    n.subject = "turn " + t + " report for " + code;
    std::string text = "This report replaces the turn " + t +
                       " report mailed to you before: the game master reopened turn " + t +
                       " and it ran again. Disregard the earlier one.\n\n" + rep->text + "\n";
    if (const std::string link = game_link(game); !link.empty())
      text += "Your report on the web: " + link + "/me/reports/" + t + "\n";
    text += "\nReply to this message with your orders for turn " + std::to_string(turn + 1) + ".\n";
    n.text = std::move(text);
    n.dedupe_key = correction_key(game, turn, run, code);  // NoticeMailer attaches the map
    n.thread = "turns:" + game;
    ADJ_RETURN_IF_ERROR(services_.notify(std::move(n)));
    ++queued;
  }
  return queued;
}

Result<int> MailIngest::queue_new_secrets(const std::string& game,
                                          const std::map<std::string, std::string>& secrets,
                                          bool with_link) {
  auto state = services_.show_game(game);
  if (!state.ok()) return state.status();
  const std::string game_name = state->value("name", game);
  int queued = 0;
  for (const Json& p : (*state)["players"]) {
    const std::string code = p.value("code", "");
    const std::string email = p.value("email", "");
    const auto it = secrets.find(code);
    if (code.empty() || email.empty() || it == secrets.end()) continue;
    const std::string name = p.value("name", code);
    std::string text = "You play " + name + " (" + code + ") in " + game_name + " (" + game +
                       ").\n\nYour secret is: " + it->second +
                       "\n\nPut it on the PLAYER line of your orders:\n\n  GAME " + game +
                       "\n  PLAYER " + code + " " + it->second +
                       "\n\nIt replaces any secret you had before in this game. Keep it to "
                       "yourself. To choose your own, send a message with the GAME and PLAYER "
                       "lines and a line\n\n  SECRET <your new secret>\n\n";
    if (const std::string link = game_link(game); !link.empty()) {
      text += "The game page: " + link + "\n\n";
      if (with_link) {
        auto token = services_.issue_link_token(game, code);
        if (!token.ok()) return token.status();
        text += "Your sign-in link (it signs you in without the secret; keep it to yourself):\n" +
                link + "/p/" + *token + "\n\n";
      }
    }
    text += kSignature;
    OutgoingMail m;
    m.subject = game_name + " (" + game + "): your secret for " + code;
    m.text = std::move(text);
    m.headers.emplace_back("Auto-Submitted", "auto-generated");
    // A fresh key each time: a second reset must be mailed too; it never contains the secret.
    auto q = queue("secret", game, Mailbox{email, name},
                   "secret:" + game + ":" + code + ":" + new_token(), std::move(m));
    if (!q.ok()) return q.status();
    queued += *q ? 1 : 0;
  }
  return queued;
}

Result<int> MailIngest::queue_reminders(const std::string& game, const std::string& tag) {
  auto state = services_.show_game(game);
  if (!state.ok()) return state.status();
  const int turn = state->value("turn", 0);
  const std::string game_name = state->value("name", game);
  auto subs = services_.orders_on_file(game, turn);  // every line rejected: reminded too
  if (!subs.ok()) return subs.status();
  auto files = submissions_.current_submissions(game, turn);  // to say which case it is
  if (!files.ok()) return files.status();
  std::string deadline;
  if (admin_) {
    auto sched = admin_->schedule(game);
    if (!sched.ok()) return sched.status();
    if (sched->deadline) deadline = utc_minutes(*sched->deadline);
  }
  int queued = 0;
  for (const Json& p : (*state)["players"]) {
    const std::string code = p.value("code", "");
    const std::string email = p.value("email", "");
    if (code.empty() || email.empty()) continue;
    if (std::any_of(subs->begin(), subs->end(),
                    [&](const SubmissionRecord& s) { return s.player == code; }))
      continue;
    const std::string name = p.value("name", code);
    const bool unusable = std::any_of(files->begin(), files->end(),
                                      [&](const SubmissionRecord& s) { return s.player == code; });
    std::string text =
        unusable ? "The file on record for " + name + " (" + code + ") for turn " +
                       std::to_string(turn) + " of " + game_name + " (" + game +
                       ") has no line that can be carried out, so it does not count as "
                       "orders. Send STATUS to see why each line was rejected.\n"
                 : "No orders from " + name + " (" + code + ") are on file yet for turn " +
                       std::to_string(turn) + " of " + game_name + " (" + game + ").\n";
    if (!deadline.empty()) text += "The deadline is " + deadline + ".\n";
    text += "\nReply to this message with your orders:\n\n  GAME " + game + "\n  PLAYER " + code +
            " <your secret>\n  TURN " + std::to_string(turn) +
            "\n  ...one order per line...\n  END\n\nSend HELP for the order syntax.\n";
    if (const std::string link = game_link(game); !link.empty())
      text += "Or enter them on the web: " + link + "/me\n";
    text += "\n";
    text += kSignature;
    OutgoingMail m;
    m.subject =
        game_name + " (" + game + "): reminder, no orders yet for turn " + std::to_string(turn);
    m.text = std::move(text);
    m.headers.emplace_back("Auto-Submitted", "auto-generated");
    std::string key = "reminder:" + game + ":" + std::to_string(turn) + ":" + code;
    if (!tag.empty()) key += ":" + tag;
    auto q = queue("reminder", game, Mailbox{email, name}, key, std::move(m));
    if (!q.ok()) return q.status();
    queued += *q ? 1 : 0;
  }
  return queued;
}

}  // namespace adj::mail
