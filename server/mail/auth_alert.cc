#include "server/mail/auth_alert.h"

#include <cctype>

#include "server/app/time_text.h"
#include "server/mail/compose.h"

namespace adj::mail {

namespace {

bool same_code(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::toupper(static_cast<unsigned char>(a[i])) !=
        std::toupper(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

// "addr:192.0.2.7" -> "192.0.2.7", "sender:x@example.org" -> "x@example.org".
std::string client_text(const std::string& key) {
  const auto colon = key.find(':');
  return colon == std::string::npos ? key : key.substr(colon + 1);
}

}  // namespace

std::string auth_alert_text(const std::string& game, const std::string& player,
                            const ThrottleState& account) {
  std::string from;
  for (const auto& c : account.recent) from += (from.empty() ? "" : ", ") + client_text(c);
  if (from.empty()) from = "(no address known)";
  return std::to_string(account.total_failures) + " failed attempts to use your secret (player " +
         player + " in game " + game + ") from " + from +
         ".\n\nThe addresses that tried wrong secrets are held back for a while, and until " +
         utc_minutes(account.locked_until) +
         " a single further wrong attempt from any address holds that address back too. Your own "
         "correct secret, your sign-in link and your API token keep working from wherever you "
         "are.\n\nNothing about your secret was revealed. If you think "
         "someone knows it, ask the game master for a new one.\n";
}

Result<bool> queue_auth_alert(Services& services, MailStore& mail, const MailConfig& config,
                              const std::string& game, const std::string& player,
                              const ThrottleState& account, UnixTime now) {
  auto state = services.show_game(game);
  if (!state.ok()) {
    if (state.status().code() == StatusCode::kNotFound) return false;
    return state.status();
  }
  std::string address, name, code;
  for (const Json& p : (*state)["players"])
    if (same_code(p.value("code", ""), player)) {
      code = p.value("code", "");
      address = p.value("email", "");
      name = p.value("name", "");
    }
  if (address.empty()) return false;
  const std::string key = "auth-alert:" + game + ":" + code + ":" + std::to_string(now / 3600);
  OutgoingMail m;
  m.from = config.from;
  m.to = Mailbox{address, name};
  m.date = now;
  m.message_id = make_message_id(key, domain_of(config.from.address));
  m.subject = "Failed attempts to use your secret in " + game;
  m.text = auth_alert_text(game, code, account);
  m.headers.emplace_back("Auto-Submitted", "auto-generated");
  auto raw = compose(m);
  if (!raw.ok()) return raw.status();
  OutboxMessage o;
  o.kind = "auth_alert";
  o.game = game;
  o.to = address;
  o.raw = std::move(raw).value();
  o.dedupe_key = key;
  o.next_attempt_at = now;
  o.created_at = now;
  auto id = mail.enqueue(o);
  if (id.ok()) return true;
  if (id.status().code() == StatusCode::kAlreadyExists) return false;
  return id.status();
}

}  // namespace adj::mail
