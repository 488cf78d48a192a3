// The mail a player gets when failed attempts at their secret lock their key in the guessing
// limiter (server/app/auth_throttle.h): how many attempts failed, from which addresses, that
// the guessing addresses are held back (until when one wrong guess holds any address back),
// and that the player's own correct secret, sign-in link and token keep working. Never says
// anything about the secret itself.
// Thread-safety: as the stores passed in (one per thread).
#pragma once

#include <string>

#include "server/app/auth_throttle.h"
#include "server/app/services.h"
#include "server/mail/mail_ingest.h"

namespace adj::mail {

// Queues the alert to the player's address on file, through the outbox (kind "auth_alert").
// At most one per player per clock hour: the dedupe key is "auth-alert:<game>:<player>:<hour>",
// so processes sharing the database send one between them. False (no error) when the player
// has no address on file, is unknown, or was already alerted this hour.
Result<bool> queue_auth_alert(Services& services, MailStore& mail, const MailConfig& config,
                              const std::string& game, const std::string& player,
                              const ThrottleState& account, UnixTime now);

// The body of that mail (for tests and the log).
std::string auth_alert_text(const std::string& game, const std::string& player,
                            const ThrottleState& account);

}  // namespace adj::mail
