#include <cstdlib>

#include "storage/game_store.h"

namespace adj {

UnixTime resolving_lease_seconds() {
  static const UnixTime lease = [] {
    const char* env = std::getenv("ADJUTANT_TURN_LEASE_SECONDS");
    if (!env || !*env) return kResolvingLeaseSeconds;
    char* end = nullptr;
    const long long v = std::strtoll(env, &end, 10);
    return (*end == '\0' && v >= 1 && v <= 86400) ? static_cast<UnixTime>(v)
                                                  : kResolvingLeaseSeconds;
  }();
  return lease;
}

}  // namespace adj
