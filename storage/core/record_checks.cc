#include "storage/core/record_checks.h"

#include <cctype>

namespace adj::store_checks {

Status check_audit_entry(const AuditEntry& e) {
  if (!e.actor.empty() && !e.action.empty()) return Status::Ok();
  return Status::InvalidArgument("audit entry needs an actor and an action");
}

bool bad_recipient(const std::vector<std::string>& recipients) {
  for (const auto& r : recipients)
    if (r.empty() || r.find_first_of("\r\n") != std::string::npos) return true;
  return false;
}

std::string sql_context(std::string_view sql) {
  constexpr std::size_t kMax = 160;
  std::string out;
  bool space = false;
  for (char c : sql) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
    if (out.size() >= kMax) {
      out += "...";
      break;
    }
  }
  return out;
}

std::string redacted(std::string text, std::string_view secret) {
  if (secret.empty()) return text;
  constexpr std::string_view kMask = "***";
  for (auto p = text.find(secret); p != std::string::npos; p = text.find(secret, p + kMask.size()))
    text.replace(p, secret.size(), kMask);
  return text;
}

std::string quote_identifier(const std::string& name) {
  std::string out = "\"";
  for (char c : name) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace adj::store_checks
