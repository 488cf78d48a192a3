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

}  // namespace adj
