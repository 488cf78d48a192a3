#include "server/mail/notice_mailer.h"

#include <set>

#include "base/ascii.h"
#include "server/app/press.h"
#include "server/mail/gm_contact.h"
#include "server/mail/signature.h"

namespace adj::mail {

Result<int> NoticeMailer::deliver(int limit) {
  auto pending = notices_.pending_notices(limit);
  if (!pending.ok()) return pending.status();
  int queued = 0;
  for (const Notice& n : *pending) {
    auto state = services_.show_game(n.game);
    if (!state.ok()) {
      if (state.status().code() != StatusCode::kNotFound) return state.status();
      if (auto st = notices_.mark_notice_done(n.id); !st.ok()) return st;
      continue;
    }
    const std::string game_name = state->value("name", n.game);
    std::vector<Mailbox> to;
    std::set<std::string> seen;
    for (const std::string& code : n.players)
      for (const Json& p : (*state)["players"])
        if (p.value("code", "") == code && !p.value("email", "").empty() &&
            seen.insert(p.value("email", "")).second)
          to.push_back({p.value("email", ""), p.value("name", code)});
    for (const std::string& a : n.addresses)
      if (seen.insert(a).second) to.push_back({a, ""});

    std::string text = n.text;
    if (!text.empty() && text.back() != '\n') text += '\n';
    text += '\n';
    if (!base_url_.empty()) text += "The game page: " + base_url_ + "/games/" + n.game + "\n\n";
    if (!n.players.empty()) {  // to players: how to reach the GM
      std::string gm = host_gm_address_;
      if (press_) {
        auto opts = press_->press_options(n.game);
        if (!opts.ok()) return opts.status();
        gm = effective_gm_address(*opts, host_gm_address_);
      }
      text += gm_contact_text(n.game, gm) + "\n";
    }
    text += kSignature;
    std::optional<MailAttachment> map;
    if (const auto turn = correction_turn(n); turn && painter_) {
      // The player's own arrows when their report has any (map_arrows_); else the plain map. It is
      // prepared once per game, turn and run (the key without its player: a re-run changes it).
      // The stored report is enough for the arrows: not Services::report, which reads the turn
      // record (the whole summary) for the roundup, once per player.
      auto rep = n.players.size() == 1
                     ? services_.stores().reports.report(n.game, ascii::upper(n.players[0]), *turn)
                     : Result<ReportRecord>(Status::NotFound("no player"));
      const std::string key = n.dedupe_key.substr(0, n.dedupe_key.rfind(':'));
      if (maps_for_ != key) {
        maps_ = std::make_unique<ReportMaps>(painter_, services_, n.game, *turn,
                                             MapMail{map_arrows_, &mail_, now_()});
        maps_for_ = key;
      }
      map = maps_->for_report(rep.ok() ? &rep->json : nullptr);
    }
    const std::string domain = domain_of(from_.address);
    for (const Mailbox& rcpt : to) {
      OutgoingMail m;
      m.from = from_;
      m.to = rcpt;
      // A corrected report says so first, so that it stands out from the one it replaces.
      m.subject = std::string(n.kind == "correction" ? "Correction: " : "") + game_name + " (" +
                  n.game + "): " + n.subject;
      m.date = now_();
      const std::string key = "notice:" + n.dedupe_key + ":" + rcpt.address;
      m.message_id = make_message_id(key, domain);
      if (!n.thread.empty()) {
        const std::string root = make_message_id("thread:" + n.game + ":" + n.thread, domain);
        m.in_reply_to = root;
        m.references = {root};
      }
      m.text = text;
      if (map) m.attachments.push_back(*map);
      m.headers.emplace_back("Auto-Submitted", "auto-generated");
      auto raw = compose(m);
      if (!raw.ok()) return raw.status();
      OutboxMessage o;
      o.kind = n.kind;
      o.game = n.game;
      o.to = rcpt.address;
      o.raw = std::move(raw).value();
      o.part_key = stored_part_key(m);
      o.dedupe_key = key;
      o.next_attempt_at = m.date;
      o.created_at = m.date;
      auto id = mail_.enqueue(o);
      if (id.ok())
        ++queued;
      else if (id.status().code() != StatusCode::kAlreadyExists)
        return id.status();
    }
    if (auto st = notices_.mark_notice_done(n.id); !st.ok()) return st;
  }
  maps_for_.reset();
  maps_.reset();
  return queued;
}

}  // namespace adj::mail
