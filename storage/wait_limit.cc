#include "storage/wait_limit.h"

#include <algorithm>
#include <atomic>
#include <mutex>

namespace adj {

namespace {

std::mutex& wait_limits_mutex() {
  static std::mutex mu;
  return mu;
}

DatabaseWaitLimits& wait_limits_value() {
  static DatabaseWaitLimits limits;
  return limits;
}

std::atomic<bool> g_database_stalled{false};
thread_local std::optional<std::chrono::milliseconds> t_wait_cap;

}  // namespace

void set_database_wait_limits(const DatabaseWaitLimits& limits) {
  std::lock_guard lock(wait_limits_mutex());
  wait_limits_value() = limits;
}

DatabaseWaitLimits database_wait_limits() {
  std::lock_guard lock(wait_limits_mutex());
  return wait_limits_value();
}

DatabaseWaitLimits effective_wait_limits() {
  DatabaseWaitLimits out = database_wait_limits();
  std::optional<std::chrono::milliseconds> cap = t_wait_cap;
  if (database_stalled()) cap = cap ? std::min(*cap, out.stalled) : out.stalled;
  if (cap) {
    out.connect = std::min(out.connect, *cap);
    out.statement = std::min(out.statement, *cap);
  }
  return out;
}

ScopedWaitCap::ScopedWaitCap(std::chrono::milliseconds cap) : previous_(t_wait_cap) {
  t_wait_cap = previous_ ? std::min(*previous_, cap) : cap;
}

ScopedWaitCap::~ScopedWaitCap() { t_wait_cap = previous_; }

bool database_stalled() { return g_database_stalled.load(std::memory_order_relaxed); }

void note_database_timeout() { g_database_stalled.store(true, std::memory_order_relaxed); }

void note_database_answered() {
  if (g_database_stalled.load(std::memory_order_relaxed))
    g_database_stalled.store(false, std::memory_order_relaxed);
}

}  // namespace adj
