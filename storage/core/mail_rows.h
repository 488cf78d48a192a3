// The outbox row as both backends' claim() read it (storage/core/sql_store_mail.cc).
#pragma once

#include <vector>

#include "storage/core/sql_session.h"
#include "storage/mail_store.h"

namespace adj {

// The columns of an outbox row in the order outbox_from_row reads them.
inline constexpr const char* kOutboxColumns =
    "id, kind, game_id, recipient, raw, dedupe_key, state, attempts, next_attempt_at, "
    "last_error, created_at";

// Reads the kOutboxColumns of `row`.
OutboxMessage outbox_from_row(const sql::Rows& r, int row);

// The messages a claim's rows (kOutboxColumns) hold, in the order claim() returns them: mail to
// players first, then by due time, then by id.
std::vector<OutboxMessage> claimed_from_rows(const sql::Rows& r);

}  // namespace adj
