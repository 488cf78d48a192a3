// ThrottleStore (storage/throttle_store.h) over a sql::Session, for both backends: table
// auth_throttle (SQLite migration 0008, PostgreSQL 0002_admin.sql).
//
// Concurrency: update_throttle runs in one WriteTx that first reads its keys' rows, in key
// order, creating missing ones (an upsert returns the row, locked on PostgreSQL), so concurrent
// updates of one key, from any number of processes, run one after the other and every failure
// counts. The housekeeping that follows (forgetting quiet keys, the row cap) skips rows other
// transactions hold (Session::skip_locked): it never waits, so it cannot deadlock, and what it
// skips a later update removes. Failures Session::retryable names are retried, calling `change`
// again on the states as then read.
//
// Thread-safety: as the Session.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "storage/core/sql_session.h"
#include "storage/throttle_store.h"

namespace adj {

Result<std::vector<ThrottleState>> sql_throttle_states(sql::Session& s,
                                                       const std::vector<std::string>& keys);

// InvalidArgument (nothing written) for an empty key or one holding a newline, or when `change`
// leaves a client key holding a newline.
Status sql_update_throttle(sql::Session& s, const std::vector<std::string>& keys,
                           const std::function<void(std::vector<ThrottleState>&)>& change,
                           std::int64_t now, std::int64_t forget_before, std::size_t max_rows);

}  // namespace adj
