#include "server/app/stored_text.h"

#include "base/sha256.h"

namespace adj {

std::string refused_excerpt(std::string_view text) {
  if (text.size() <= kRefusedExcerptBytes) return std::string(text);
  std::string_view head = text.substr(0, kRefusedExcerptBytes);
  if (const std::size_t nl = head.rfind('\n'); nl != std::string_view::npos) {
    head = head.substr(0, nl + 1);
  } else {
    // No line end: do not cut a UTF-8 character in two (continuation bytes are 10xxxxxx).
    std::size_t cut = head.size();
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
    head = head.substr(0, cut);
  }
  std::string out(head);
  if (!out.empty() && out.back() != '\n') out.push_back('\n');
  out += "[refused file of " + std::to_string(text.size()) + " bytes, SHA-256 " +
         sha256_hex_of(text) + ": only the first " + std::to_string(head.size()) +
         " bytes are kept]\n";
  return out;
}

OrderAck bounded_refused_ack(OrderAck ack) {
  if (ack.lines.size() > kRefusedAckLines) ack.lines.resize(kRefusedAckLines);
  ack.orders.clear();
  return ack;
}

}  // namespace adj
