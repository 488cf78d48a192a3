// How a game's mail tells a player to reach the game master: the GM's address when there is one
// (the game's, else the host's: server/app/press.h), and PRESS TO GM, which always works. Pure.
#pragma once

#include <string>

namespace adj::mail {

// The paragraph put before the signature of every mail about a game to its players, ending in
// a newline: "To reach the game master: write to gm@example.org, or send ..."
std::string gm_contact_text(const std::string& game, const std::string& gm_address);

// `text` with `paragraph` and a blank line put before its signature (kSignature), or at its end
// when it has none.
std::string before_signature(std::string text, const std::string& paragraph);

}  // namespace adj::mail
