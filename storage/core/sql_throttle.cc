// SqlStore: ThrottleStore (storage/throttle_store.h) on throttle_session(): table auth_throttle
// (SQLite migration 0008, PostgreSQL 0002_admin.sql).
//
// Concurrency: update_throttle runs in one WriteTx that first reads its keys' rows, in key
// order, creating missing ones (an upsert returns the row, locked on PostgreSQL), so concurrent
// updates of one key, from any number of processes, run one after the other and every failure
// counts. The housekeeping that follows (forgetting quiet keys, the row cap) skips rows other
// transactions hold (Session::skip_locked): it never waits, so it cannot deadlock, and what it
// skips a later update removes. Failures Session::retryable names are retried, calling `change`
// again on the states as then read.

#include <algorithm>
#include <limits>
#include <map>

#include "base/ascii.h"
#include "storage/core/codec.h"
#include "storage/core/sql_store.h"

namespace adj {

namespace {

constexpr const char* kThrottleColumns =
    "failures, window_start, last_failure, lockouts, locked_until, total_failures, trusted, "
    "recent";

// Row `i` of a result whose columns are kThrottleColumns.
ThrottleState read_throttle_row(const sql::Rows& r, int i) {
  ThrottleState s;
  r.read(i, s.failures, s.window_start, s.last_failure, s.lockouts, s.locked_until,
         s.total_failures);
  s.trusted = lines_from_text(r.text(i, 6));
  s.recent = lines_from_text(r.text(i, 7));
  return s;
}

// ThrottleStore: a key is one non-empty line.
bool valid_throttle_key(const std::string& k) {
  return !k.empty() && k.find('\n') == std::string::npos;
}

}  // namespace

Result<std::vector<ThrottleState>> SqlStore::throttle_states(const std::vector<std::string>& keys) {
  ADJ_TRY(sql::Session * throttle, throttle_session());
  sql::Session& s = *throttle;
  std::vector<ThrottleState> out;
  out.reserve(keys.size());
  for (const auto& k : keys) {
    ADJ_TRY(const sql::Rows r,
            s.query(std::string("SELECT ") + kThrottleColumns + " FROM auth_throttle WHERE key = ?",
                    {k}));
    out.push_back(r.empty() ? ThrottleState{} : read_throttle_row(r, 0));
  }
  return out;
}

Status SqlStore::update_throttle(const std::vector<std::string>& keys,
                                 const std::function<void(std::vector<ThrottleState>&)>& change,
                                 std::int64_t now, std::int64_t forget_before,
                                 std::size_t max_rows) {
  ADJ_TRY(sql::Session * throttle, throttle_session());
  sql::Session& s = *throttle;
  for (const auto& k : keys)
    if (!valid_throttle_key(k))
      return Status::InvalidArgument("throttle key must be one non-empty line");
  // Keys in lock order (sorted, once each), so two updates never wait on each other in a cycle.
  std::vector<std::string> order(keys);
  std::sort(order.begin(), order.end());
  order.erase(std::unique(order.begin(), order.end()), order.end());
  const auto cap = static_cast<std::int64_t>(
      std::min<std::size_t>(max_rows, std::numeric_limits<std::int64_t>::max()));

  return sql::with_retry(s, [&]() -> Status {
    ADJ_TRY(auto tx, sql::WriteTx::begin(s));
    std::map<std::string, ThrottleState> locked;
    for (const auto& k : order) {
      // A missing row is created with the defaults (ThrottleState{}).
      ADJ_TRY(const sql::Rows r, s.query(std::string("INSERT INTO auth_throttle(key) VALUES (?) "
                                                     "ON CONFLICT (key) DO UPDATE SET "
                                                     "key = excluded.key RETURNING ") +
                                             kThrottleColumns,
                                         {k}));
      locked[k] = read_throttle_row(r, 0);
    }
    std::vector<ThrottleState> states;
    states.reserve(keys.size());
    for (const auto& k : keys) states.push_back(locked[k]);
    change(states);
    for (std::size_t i = 0; i < keys.size(); ++i) {
      const ThrottleState& t = states[i];
      for (const auto* list : {&t.trusted, &t.recent})
        for (const auto& c : *list)
          if (c.find('\n') != std::string::npos)
            return Status::InvalidArgument("throttle client key must be one line");
      ADJ_TRY(const std::int64_t n,
              s.run("UPDATE auth_throttle SET failures = ?, window_start = ?, "
                    "last_failure = ?, lockouts = ?, locked_until = ?, total_failures = ?, "
                    "trusted = ?, recent = ? WHERE key = ?",
                    {t.failures, std::int64_t{t.window_start}, std::int64_t{t.last_failure},
                     t.lockouts, std::int64_t{t.locked_until}, t.total_failures,
                     ascii::joined(t.trusted, '\n'), ascii::joined(t.recent, '\n'), keys[i]}));
      if (n != 1) return Status::Internal("update_throttle: a locked throttle row went missing");
    }
    // Quiet, unlocked keys are forgotten, unless they remember trusted clients.
    ADJ_RETURN_IF_ERROR(
        s.write("DELETE FROM auth_throttle WHERE key IN (SELECT key FROM "
                "auth_throttle WHERE locked_until <= ? AND last_failure < ? AND "
                "trusted = ''" +
                    std::string(s.skip_locked()) + ")",
                {now, forget_before}));
    // The cap: beyond max_rows, the least recently failed unlocked rows go first.
    ADJ_RETURN_IF_ERROR(
        s.write("DELETE FROM auth_throttle WHERE key IN (SELECT key FROM "
                "auth_throttle ORDER BY locked_until > ?1, last_failure "
                "LIMIT (SELECT CASE WHEN count(*) > ?2 THEN count(*) - ?2 ELSE 0 "
                "END FROM auth_throttle)" +
                    std::string(s.skip_locked()) + ")",
                {now, cap}));
    return tx.commit();
  });
}

}  // namespace adj
