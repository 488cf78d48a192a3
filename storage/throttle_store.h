// Storage for the guessing limiter's counters (server/app/auth_throttle.h), for the processes
// that share one database: the daemon's mail thread and every `adjutant ingest` run by an MTA
// answer mail for the same players, so their counts must add up. Implemented by SqlStore for both
// backends (storage/core/sql_throttle.cc, migration 0008).
// Thread-safety: one object per thread; several processes may share the database.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "rules/core/status.h"

namespace adj {

// One key's counters (plain data; the transitions are in server/app/auth_throttle.h).
struct ThrottleState {
  int failures = 0;  // failures in the current window
  std::int64_t window_start = 0;
  std::int64_t last_failure = 0;
  int lockouts = 0;  // lockouts since the key was last quiet
  std::int64_t locked_until = 0;
  int total_failures = 0;            // failures since the key was last quiet
  std::vector<std::string> trusted;  // account keys: clients that proved the secret, newest first
  std::vector<std::string> recent;   // account keys: clients that failed lately, newest first
};

class ThrottleStore {
 public:
  virtual ~ThrottleStore() = default;
  // The states of `keys`, in order (a key never stored reads as ThrottleState{}).
  virtual Result<std::vector<ThrottleState>> throttle_states(
      const std::vector<std::string>& keys) = 0;
  // Reads `keys`, lets `change` modify the states and writes them back, in one transaction (so
  // concurrent processes do not lose counts). Then forgets keys that are unlocked and whose last
  // failure is before `forget_before`, and beyond `max_rows` rows the least recently failed.
  virtual Status update_throttle(const std::vector<std::string>& keys,
                                 const std::function<void(std::vector<ThrottleState>&)>& change,
                                 std::int64_t now, std::int64_t forget_before,
                                 std::size_t max_rows) = 0;
};

}  // namespace adj
