// Writing one entry to the audit log (storage/admin_store.h); server/app/admin.h lists the
// actions and their detail fields.
#pragma once

#include <string>
#include <string_view>

#include "storage/admin_store.h"

namespace adj {

// Appends {game, at, actor, action, detail} to `store`'s audit log; the store's error if it fails.
Status record_audit(AdminStore& store, const std::string& game, UnixTime at,
                    const std::string& actor, const std::string& action, Json detail);

// The GM's optional reason for an action that players are told about (a rollback, a
// replacement): kept in the audit entry's "why" and quoted in their notices.
// InvalidArgument unless at most kMaxGmReason bytes on one line without control characters.
inline constexpr std::size_t kMaxGmReason = 500;
Status check_gm_reason(std::string_view reason);
// A notice's paragraph quoting the reason ("\nThe game master says: <reason>\n"), or "".
std::string gm_reason_paragraph(std::string_view reason);

}  // namespace adj
