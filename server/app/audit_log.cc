#include "server/app/audit_log.h"

namespace adj {

Status record_audit(AdminStore& store, const std::string& game, UnixTime at,
                    const std::string& actor, const std::string& action, Json detail) {
  AuditEntry e;
  e.game = game;
  e.at = at;
  e.actor = actor;
  e.action = action;
  e.detail = std::move(detail);
  return store.append_audit(e);
}

Status check_gm_reason(std::string_view reason) {
  if (reason.size() > kMaxGmReason)
    return Status::InvalidArgument("the reason is longer than " + std::to_string(kMaxGmReason) +
                                   " characters");
  for (char ch : reason)
    if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f)
      return Status::InvalidArgument("the reason holds a line break or a control character");
  return Status::Ok();
}

std::string gm_reason_paragraph(std::string_view reason) {
  if (reason.empty()) return "";
  return "\nThe game master says: " + std::string(reason) + "\n";
}

}  // namespace adj
