// MailIngest's entry to a leased message (process_leased) and its dispatch to the handler of
// what the message is (answer); the lookups the handlers share: the game a message is for, the
// authentication of a PLAYER line, and the guessing limiter (set_throttle).
#include "server/mail/mail_ingest.h"

#include <algorithm>
#include <cctype>

#include "server/app/time_text.h"
#include "server/mail/attendance_mail.h"
#include "server/mail/auth_alert.h"
#include "server/mail/detail.h"
#include "server/mail/mail_ingest_internal.h"
#include "server/mail/membership_mail.h"
#include "server/mail/mime.h"
#include "server/mail/press_mail.h"

namespace adj::mail {

using detail::lower;
using ingest_detail::automatic;
using ingest_detail::bare_subject;
using ingest_detail::bytes_text;
using ingest_detail::command_in;
using ingest_detail::envelope_sender;
using ingest_detail::first_nonblank_line;
using ingest_detail::has_base64_part;
using ingest_detail::header_only;
using ingest_detail::iequals;
using ingest_detail::MailCommand;
using ingest_detail::mask_mail_secrets;
using ingest_detail::plus_tag;
using ingest_detail::secret_command_in;
using ingest_detail::truncated_size;

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
  if (!c.command)
    if (auto token = ingest_detail::gm_token_line(c.mail)) return handle_gm_mail(c, *token);
  if (!c.command) return handle_orders(c);
  // The mail commands (mail_commands.cc) by their word; command_in and secret_command_in find
  // no other.
  using Handler = Result<ProcessResult> (MailIngest::*)(Context&);
  static constexpr std::pair<std::string_view, Handler> kHandlers[] = {
      {"HELP", &MailIngest::handle_help},
      {"RESEND", &MailIngest::handle_resend},
      {"STATUS", &MailIngest::handle_status},
      {"SECRET", &MailIngest::handle_secret},
  };
  for (const auto& [word, handler] : kHandlers)
    if (c.command->name == word) return (this->*handler)(c);
  return Status::Internal("no handler for the mail command " + c.command->name);
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

}  // namespace adj::mail
