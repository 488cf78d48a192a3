// The audit log in words, for people (the GM desk and the public audit page): who did it and
// what was done, built from an entry's actor, action and detail (server/app/admin.h lists them).
// Pure; tolerant of missing or odd detail fields (an unknown action falls back to its name).
#pragma once

#include <string>

#include "storage/admin_store.h"

namespace adj {

// "the GM", "the GM (command line)", "the scheduler", "player WSX", "the mail robot"; an
// unknown actor as given.
std::string audit_actor_text(const std::string& actor);

// What was done, in one sentence without a final full stop, e.g. "ran turn 3; no orders from
// MRC, NUM" or "moved the deadline from 2026-11-22 18:00 UTC to 2026-11-23 18:00 UTC".
std::string audit_action_text(const AuditEntry& e);

// The entry as the public sees it (the public audit page and API): every word holding an '@' in
// the actor and in every string of the detail, at any depth, replaced by kAddressWithheld, so
// that no e-mail address is shown. The GM's views show entries as stored.
AuditEntry public_audit_entry(AuditEntry e);
inline constexpr const char* kAddressWithheld = "(address withheld)";

}  // namespace adj
