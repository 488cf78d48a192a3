#include "server/mail/gm_contact.h"

#include "server/mail/signature.h"

namespace adj::mail {

std::string gm_contact_text(const std::string& game, const std::string& gm_address) {
  const std::string press = "send a message with your GAME " + game +
                            " and PLAYER lines and the lines PRESS TO GM, your text, ENDPRESS";
  return gm_address.empty()
             ? "To reach the game master: " + press + ".\n"
             : "To reach the game master: write to " + gm_address + ", or " + press + ".\n";
}

std::string before_signature(std::string text, const std::string& paragraph) {
  const std::size_t at = text.rfind(kSignature);
  if (at == std::string::npos) {
    if (!text.empty() && text.back() != '\n') text += '\n';
    return text + "\n" + paragraph;
  }
  text.insert(at, paragraph + "\n");
  return text;
}

}  // namespace adj::mail
