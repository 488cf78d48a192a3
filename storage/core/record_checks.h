// Checks and texts more than one part of storage shares: argument checks of records (the texts
// are part of the stores' contracts) and SQL text for error messages. Pure functions;
// thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "rules/core/status.h"
#include "storage/admin_store.h"

namespace adj::store_checks {

// InvalidArgument unless an audit entry (AdminStore, the host audit log) names its actor and
// action.
Status check_audit_entry(const AuditEntry& e);

// Notice and press recipients (stored one per line): true when one is empty or holds a line
// break.
bool bad_recipient(const std::vector<std::string>& recipients);

// `sql` with runs of white space folded to one space, cut after 160 characters: the context
// an error message names.
std::string sql_context(std::string_view sql);
// `text` with every occurrence of `secret` replaced by "***" (unchanged for an empty `secret`):
// a driver's message may quote a password.
std::string redacted(std::string text, std::string_view secret);
// `name` as a double-quoted SQL identifier (embedded quotes doubled).
std::string quote_identifier(const std::string& name);

}  // namespace adj::store_checks
