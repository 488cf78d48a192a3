// Writing one entry to the audit log (storage/admin_store.h); server/app/admin.h lists the
// actions and their detail fields.
#pragma once

#include <string>

#include "storage/admin_store.h"

namespace adj {

// Appends {game, at, actor, action, detail} to `store`'s audit log; the store's error if it fails.
Status record_audit(AdminStore& store, const std::string& game, UnixTime at,
                    const std::string& actor, const std::string& action, Json detail);

}  // namespace adj
