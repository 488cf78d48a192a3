// MailIngest's answers: queueing a message in the outbox, replies to an authenticated sender,
// and refusals and HELP answers to an unauthenticated one under the refusal budget.
#include "server/app/app_runtime.h"
#include "server/app/press.h"
#include "server/mail/compose.h"
#include "server/mail/gm_contact.h"
#include "server/mail/mail_ingest.h"
#include "server/mail/mail_ingest_internal.h"
#include "server/mail/signature.h"

namespace adj::mail {

using ingest_detail::mask_player_lines;
using ingest_detail::mask_subject;
using ingest_detail::wrap;

Result<OutboxMessage> MailIngest::outgoing(const std::string& kind, const std::string& game,
                                           const Mailbox& to, const std::string& dedupe_key,
                                           OutgoingMail mail, const std::string* gm_contact) {
  const UnixTime now = now_();
  if (!game.empty()) {  // mail about a game says how to reach its GM
    if (gm_contact) {
      mail.text = before_signature(std::move(mail.text), *gm_contact);
    } else {
      auto gm = app_.press().gm_address(game);
      if (gm.ok())
        mail.text = before_signature(std::move(mail.text), gm_contact_text(game, *gm));
      else if (gm.status().code() != StatusCode::kNotFound)
        return gm.status();
    }
  }
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
  m.part_key = stored_part_key(mail);
  m.dedupe_key = dedupe_key;
  m.next_attempt_at = now;
  m.created_at = now;
  return m;
}

Result<bool> MailIngest::queue(const std::string& kind, const std::string& game, const Mailbox& to,
                               const std::string& dedupe_key, OutgoingMail mail) {
  auto m = outgoing(kind, game, to, dedupe_key, std::move(mail));
  if (!m.ok()) return m.status();
  auto id = mail_.enqueue(*m);
  if (id.ok()) return true;
  if (id.status().code() == StatusCode::kAlreadyExists) return false;
  return id.status();
}

Result<ProcessResult> MailIngest::answered(Context& c, const std::string& kind,
                                           const std::string& game, const std::string& suffix,
                                           std::string body, const std::string& action,
                                           std::string outcome) {
  auto queued = reply(c, kind, game, suffix, std::move(body));
  if (!queued.ok()) return queued.status();
  ProcessResult r;
  r.state = "processed";
  r.action = action;
  r.queued = *queued ? 1 : 0;
  r.outcome = std::move(outcome);
  return r;
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

}  // namespace adj::mail
