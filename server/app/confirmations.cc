#include "server/app/confirmations.h"
#include "server/app/mail_delivery.h"

#include "base/ascii.h"
#include "server/app/attendance.h"
#include "server/app/audit_log.h"
#include "server/app/membership.h"
#include "server/app/secrets.h"

namespace adj {

namespace {

// "a sign-up for" / "standby for": what the request asks, for the texts.
std::string confirm_what(const std::string& kind) {
  return kind == "signup" ? "the sign-up list" : "the standby list";
}

// The message a refused request gets; `why` is the store's Unavailable message.
std::string confirm_limited_text(const std::string& why) {
  const auto colon = why.find(':');
  const std::string which = why.substr(0, colon);
  const std::string bound = colon == std::string::npos ? why : why.substr(colon + 2);
  if (which == "client")
    return "Too many sign-up and standby requests came from your network recently (" + bound +
           "). Nothing was recorded or mailed; try again in an hour.\n";
  if (which == "address")
    return "Too many sign-up and standby requests were made for this address recently (" + bound +
           "). Nothing was recorded or mailed; try again in an hour.\n";
  return "This game has too many unconfirmed requests waiting (" + bound +
         "). Nothing was recorded or mailed; try again later or ask the GM.\n";
}

}  // namespace

Result<ConfirmationAsked> Confirmations::ask_signup(const std::string& game,
                                                    const std::string& email,
                                                    std::string_view preferences,
                                                    const std::string& channel,
                                                    const std::string& client) {
  Stores stores{s_, s_, s_, s_, s_, s_};
  Membership m(svc_, stores, s_, s_, now_, base_url_);
  auto checked = m.check_join(game, email, preferences);
  if (!checked.ok()) return checked.status();
  return ask(checked->game, checked->game_name, "signup", email,
             Json{{"preferences", checked->preferences}, {"channel", channel}}, channel, client);
}

Result<ConfirmationAsked> Confirmations::ask_standby(const std::string& game_in,
                                                     const std::string& address,
                                                     const std::string& channel,
                                                     const std::string& client) {
  ADJ_RETURN_IF_ERROR(Membership::check_address(address));
  auto game = s_.stored_game_id(game_in);
  if (!game.ok()) {
    if (game.status().code() == StatusCode::kNotFound)
      return Status::NotFound("there is no game \"" + game_in.substr(0, 64) + "\" on this server");
    return game.status();
  }
  auto g = s_.game_summary(*game);
  if (!g.ok()) return g.status();
  if (g->status == "finished")
    return Status::FailedPrecondition("game " + *game + " is over; it needs no standby players");
  return ask(*game, g->name, "standby", ascii::lower(address), Json{{"channel", channel}}, channel,
             client);
}

Result<ConfirmationAsked> Confirmations::ask(const std::string& game, const std::string& game_name,
                                             const std::string& kind, const std::string& address,
                                             const Json& payload, const std::string& channel,
                                             const std::string& client) {
  const bool by_mail = channel == "mail";
  const std::string code = new_token();
  PendingConfirmation p;
  p.game = game;
  p.kind = kind;
  p.address = address;
  p.client = by_mail ? "mail:" + ascii::lower(address) : (client.empty() ? "unknown" : client);
  p.payload = payload.dump();
  p.code_hash = hash_token(code);
  p.created_at = now_();
  p.expires_at = p.created_at + static_cast<UnixTime>(kValidHours) * 3600;
  ConfirmationAsked out;
  out.game = game;
  auto id = s_.add_confirmation(p, kLimits);
  if (!id.ok()) {
    if (id.status().code() != StatusCode::kUnavailable) return id.status();
    out.limited = true;
    out.text = confirm_limited_text(id.status().message());
    return out;
  }
  const std::string label = game_name + " (" + game + ")";
  const std::string link =
      base_url_.empty() ? "" : base_url_ + "/games/" + game + "/confirm?code=" + code;
  std::string how = "To confirm, ";
  if (!link.empty()) how += "open\n\n  " + link + "\n\nand press the button there, or ";
  how += "send a message whose first line is\n\n  CONFIRM " + code +
         "\n\nThe code works once and is valid for " + std::to_string(kValidHours) +
         " hours. Nothing is recorded until it is confirmed; if you did not ask for this, ignore "
         "this message.\n";
  const std::string asked = "Someone (presumably you) asked to put " + address + " on " +
                            confirm_what(kind) + " of " + label + " (" + channel + ").\n\n";
  if (by_mail) {
    out.text = asked + how;
    return out;
  }
  Notice n;
  n.game = game;
  n.kind = "confirm";
  n.addresses = {address};
  n.subject =
      std::string(kind == "signup" ? "Confirm your sign-up for " : "Confirm standby for ") + label;
  n.text = asked + how;
  n.dedupe_key = "confirm:" + game + ":" + std::to_string(*id);
  n.thread = kind == "signup" ? "join:" + game : "standby:" + game + ":" + ascii::lower(address);
  ADJ_RETURN_IF_ERROR(svc_.notify(std::move(n)));
  out.text = "If " + address + " can be put on " + confirm_what(kind) + " of " + label +
             ", a confirmation " + mailed_words("has been") + " to it. Follow that mail within " +
             std::to_string(kValidHours) + " hours; nothing is recorded until then.\n";
  return out;
}

Result<Confirmed> Confirmations::confirm(std::string_view code_in, const std::string& channel) {
  std::string_view code = code_in;
  while (!code.empty() && (code.front() == ' ' || code.front() == '\t')) code.remove_prefix(1);
  while (!code.empty() && (code.back() == ' ' || code.back() == '\t' || code.back() == '\r'))
    code.remove_suffix(1);
  const Status wrong = Status::PermissionDenied(
      "this confirmation code is wrong, used or expired (codes are valid " +
      std::to_string(kValidHours) + " hours and work once); ask again");
  if (code.empty() || code.size() > kMaxCode) return wrong;
  auto found = s_.use_confirmation(hash_token(code), now_());
  if (!found.ok()) return found.status();
  if (!*found) return wrong;
  const PendingConfirmation& p = **found;
  const Json payload = Json::parse(p.payload, nullptr, false);
  const std::string asked_on = payload.is_object() && payload.value("channel", Json()).is_string()
                                   ? payload["channel"].get<std::string>()
                                   : channel;
  Confirmed out;
  out.game = p.game;
  out.kind = p.kind;
  out.address = p.address;
  Stores stores{s_, s_, s_, s_, s_, s_};
  if (p.kind == "signup") {
    std::string prefs;
    if (payload.is_object() && payload.contains("preferences") && payload["preferences"].is_array())
      for (const Json& x : payload["preferences"])
        if (x.is_string()) prefs += x.get<std::string>() + " ";
    Membership m(svc_, stores, s_, s_, now_, base_url_);
    auto joined = m.join(p.game, p.address, prefs, asked_on);
    if (!joined.ok()) return joined.status();
    out.text = joined->text;
    if (payload.is_object() && payload.value("invited", false)) {  // the GM asked them
      ADJ_RETURN_IF_ERROR(m.approve(p.game, joined->id, "invite:" + p.address));
      out.text += "You accepted the GM's invitation, so your sign-up is approved.\n";
    }
  } else {
    Attendance att(svc_, stores, s_, s_, now_, base_url_);
    auto text = att.standby(p.game, p.address, false);
    if (!text.ok()) return text.status();
    out.text = *text;
  }
  ADJ_RETURN_IF_ERROR(
      record_audit(s_, p.game, now_(), "confirm:" + p.address, "confirm",
                   {{"kind", p.kind}, {"address", p.address}, {"channel", channel}}));
  return out;
}

}  // namespace adj
