// The membership mail commands (server/app/membership.h), answered by MailIngest:
//   JOIN <game> [KINGDOM ...]   anyone: asks to put the envelope sender's address on the
//                               sign-up list; the answer carries a confirmation code
//                               (server/app/confirmations.h), since a sender can be forged, and
//                               nothing is recorded until it is confirmed. Answered to the
//                               envelope sender only, within the refusal/HELP rate limits
//                               (MailConfig::refusals_per_window, ..._total); over them nothing
//                               is recorded and nothing answered.
//   CONFIRM <code>              anyone: confirms a sign-up or standby request with the code
//                               mailed for it (also CONFIRM <game> <code>); answered likewise.
//   ADDRESS <new address>       signed (GAME and PLAYER <code> <secret> lines): the player's new
//                               address; answered to the sender, the old and new address told.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace adj::mail {

// The words of a line that is a JOIN command ("JOIN", any case, then at least nothing): nullopt
// for any other line. words[0] is "JOIN".
std::optional<std::vector<std::string>> join_command_in(std::string_view line);
// The new address of an "ADDRESS <new address>" line of its own in `text`, the address being one
// word with an '@'; nullopt when none ("Address London" in a signature is no command).
std::optional<std::string> address_command_in(std::string_view text);
// The code of a line that is a CONFIRM command ("CONFIRM [<game>] <code>", any case): the last
// word; "" when the line is CONFIRM without a code; nullopt for any other line.
std::optional<std::string> confirm_command_in(std::string_view line);

}  // namespace adj::mail
