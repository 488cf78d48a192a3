// The GM token that `serve --demo` makes up when ADJUTANT_GM_TOKEN is not set: generated once,
// kept in a file beside the database (mode 0600), and reused by every later quick start on the
// same database, so the GM's bookmarks and scripts keep working.
#pragma once

#include <string>

#include "rules/core/status.h"

namespace adj {

// "<db>.gm-token": the file beside the database `db_path` that keeps the token.
std::string gm_token_path(const std::string& db_path);

// The token in gm_token_path(db_path), or a new random one (32 hex digits) written there with
// mode 0600 when the file does not exist or holds no token. `created` (when not null) says
// which. An error when the file cannot be read or written, or is readable by others.
Result<std::string> load_or_create_gm_token(const std::string& db_path, bool* created = nullptr);

}  // namespace adj
