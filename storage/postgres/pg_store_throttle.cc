// PgStore: ThrottleStore over table auth_throttle (schemas/pg/0002_admin.sql). Behaviour is
// SqliteThrottleStore's (storage/sqlite/sqlite_throttle_store.cc).
//
// Concurrency: update_throttle runs in one transaction that first locks its keys' rows, in key
// order, creating missing ones (an upsert returns the row locked), so concurrent updates of one
// key, from any number of daemons, run one after the other and every failure counts. The
// housekeeping that follows (forgetting quiet keys, the row cap) skips rows other transactions
// hold locked (FOR UPDATE SKIP LOCKED): it never waits, so it cannot deadlock, and what it skips
// a later update removes. Deadlocks and serialization failures are retried (pg::with_retry),
// calling `change` again on the states as then read.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>

#include "storage/core/record_checks.h"
#include "storage/postgres/pg_store.h"

namespace adj {

using store_checks::join_lines;
using store_checks::split_lines;
using store_checks::valid_throttle_key;

using pg::Param;

namespace {

constexpr const char* kThrottleColumns =
    "failures, window_start, last_failure, lockouts, locked_until, total_failures, trusted, "
    "recent";

// Row `i` of a result whose columns are kThrottleColumns.
ThrottleState read_state(const pg::Rows& r, int i) {
  ThrottleState s;
  s.failures = r.int32(i, 0);
  s.window_start = r.int64(i, 1);
  s.last_failure = r.int64(i, 2);
  s.lockouts = r.int32(i, 3);
  s.locked_until = r.int64(i, 4);
  s.total_failures = r.int32(i, 5);
  s.trusted = split_lines(r.text(i, 6));
  s.recent = split_lines(r.text(i, 7));
  return s;
}

}  // namespace

Result<std::vector<ThrottleState>> PgStore::throttle_states(const std::vector<std::string>& keys) {
  std::vector<ThrottleState> out;
  for (const auto& k : keys) {
    ADJ_TRY(const pg::Rows r, conn_.query(std::string("SELECT ") + kThrottleColumns +
                                              " FROM auth_throttle WHERE key = $1",
                                          {Param(k)}));
    out.push_back(r.empty() ? ThrottleState{} : read_state(r, 0));
  }
  return out;
}

Status PgStore::update_throttle(const std::vector<std::string>& keys,
                                const std::function<void(std::vector<ThrottleState>&)>& change,
                                std::int64_t now, std::int64_t forget_before,
                                std::size_t max_rows) {
  for (const auto& k : keys)
    if (!valid_throttle_key(k))
      return Status::InvalidArgument("throttle key must be one non-empty line");
  // Keys in lock order (sorted, once each), so two updates never wait on each other in a cycle.
  std::vector<std::string> order(keys);
  std::sort(order.begin(), order.end());
  order.erase(std::unique(order.begin(), order.end()), order.end());
  const auto cap = static_cast<std::int64_t>(
      std::min<std::size_t>(max_rows, std::numeric_limits<std::int64_t>::max()));

  return pg::with_retry([&]() -> Status {
    ADJ_TRY(auto tx, pg::Transaction::begin(conn_));
    std::map<std::string, ThrottleState> locked;
    for (const auto& k : order) {
      // A missing row is created with the defaults (ThrottleState{}); either way it comes back
      // locked until commit.
      ADJ_TRY(const pg::Rows r,
              conn_.query(std::string("INSERT INTO auth_throttle(key) VALUES ($1) "
                                      "ON CONFLICT (key) DO UPDATE SET key = excluded.key "
                                      "RETURNING ") +
                              kThrottleColumns,
                          {Param(k)}));
      locked[k] = read_state(r, 0);
    }
    std::vector<ThrottleState> states;
    states.reserve(keys.size());
    for (const auto& k : keys) states.push_back(locked[k]);
    change(states);
    for (std::size_t i = 0; i < keys.size(); ++i) {
      const ThrottleState& s = states[i];
      for (const auto* list : {&s.trusted, &s.recent})
        for (const auto& c : *list)
          if (c.find('\n') != std::string::npos)
            return Status::InvalidArgument("throttle client key must be one line");
      ADJ_TRY(const std::int64_t n,
              conn_.run("UPDATE auth_throttle SET failures = $2::bigint, "
                        "window_start = $3::bigint, last_failure = $4::bigint, "
                        "lockouts = $5::bigint, locked_until = $6::bigint, "
                        "total_failures = $7::bigint, trusted = $8, recent = $9 "
                        "WHERE key = $1",
                        {Param(keys[i]), Param(std::int64_t{s.failures}), Param(s.window_start),
                         Param(s.last_failure), Param(std::int64_t{s.lockouts}),
                         Param(s.locked_until), Param(std::int64_t{s.total_failures}),
                         Param(join_lines(s.trusted)), Param(join_lines(s.recent))}));
      if (n != 1) return Status::Internal("update_throttle: a locked throttle row went missing");
    }
    // Quiet, unlocked keys are forgotten, unless they remember trusted clients.
    ADJ_TRY(const std::int64_t forgotten,
            conn_.run("DELETE FROM auth_throttle WHERE key IN (SELECT key FROM auth_throttle "
                      "WHERE locked_until <= $1::bigint AND last_failure < $2::bigint AND "
                      "trusted = '' FOR UPDATE SKIP LOCKED)",
                      {Param(now), Param(forget_before)}));
    // The cap: beyond max_rows, the least recently failed unlocked rows go first.
    ADJ_TRY(const std::int64_t capped,
            conn_.run("DELETE FROM auth_throttle WHERE key IN (SELECT key FROM auth_throttle "
                      "ORDER BY locked_until > $1::bigint, last_failure "
                      "LIMIT greatest(0, (SELECT count(*) FROM auth_throttle) - $2::bigint) "
                      "FOR UPDATE SKIP LOCKED)",
                      {Param(now), Param(cap)}));
    (void)forgotten;
    (void)capped;
    return tx.commit();
  });
}

}  // namespace adj
