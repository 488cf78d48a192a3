// Admission of new connections to a listener: a global cap and a per-client-address cap, so that
// one client (or many idle ones) cannot take every connection or every file descriptor. Pure (no
// Asio); used by http_server.cc and smtp_server.cc on their I/O thread.
// Thread-safety: none (one object per listener, used from its I/O thread only).
#pragma once

#include <algorithm>
#include <string>
#include <unordered_map>

namespace adj::http {

class ConnectionCaps {
 public:
  enum class Verdict { kAdmitted, kGlobalCap, kPerAddressCap };

  // `global` and `per_address` are at least 1.
  ConnectionCaps(int global, int per_address)
      : global_(global < 1 ? 1 : global), per_address_(per_address < 1 ? 1 : per_address) {}

  // Counts a connection from `address` when both caps allow it (kAdmitted); otherwise counts
  // nothing and says which cap is full. Every kAdmitted must be matched by one release().
  Verdict admit(const std::string& address) {
    if (open_ >= global_) return Verdict::kGlobalCap;
    int& n = by_address_[address];
    if (n >= per_address_) return Verdict::kPerAddressCap;
    ++n;
    ++open_;
    return Verdict::kAdmitted;
  }
  void release(const std::string& address) {
    auto it = by_address_.find(address);
    if (it == by_address_.end()) return;
    --open_;
    if (--it->second <= 0) by_address_.erase(it);
  }
  int open() const { return open_; }
  int open_from(const std::string& address) const {
    auto it = by_address_.find(address);
    return it == by_address_.end() ? 0 : it->second;
  }

  // The label of a refusal reason for logs and metrics.
  static const char* reason(Verdict v) {
    switch (v) {
      case Verdict::kGlobalCap:
        return "global_cap";
      case Verdict::kPerAddressCap:
        return "per_address_cap";
      default:
        return "admitted";
    }
  }

 private:
  int global_;
  int per_address_;
  int open_ = 0;
  std::unordered_map<std::string, int> by_address_;
};

}  // namespace adj::http

namespace adj::http {

// File descriptors `adjutant serve` keeps for everything but client connections: SQLite
// connections with their WAL and shm files, Maildir and outbox files, the relay, the logs, the
// listeners' spare descriptors and their refusals in progress (ListenerCore::kMaxRefusing each).
inline constexpr long long kReservedDescriptors = 256;

struct FittedCaps {
  int http = 0;
  int smtp = 0;
  bool lowered = false;  // the caps asked for did not fit and were scaled down
};

// The global connection caps of the two listeners, scaled down (in proportion, each at least 1)
// when together with `reserved` they exceed the file limit `fd_limit` (RLIMIT_NOFILE's soft
// value; a negative or huge value means no limit). `smtp` is 0 when SMTP is off.
inline FittedCaps fit_caps_to_fd_limit(int http, int smtp, long long fd_limit,
                                       long long reserved = kReservedDescriptors) {
  FittedCaps out{http, smtp, false};
  if (fd_limit < 0) return out;
  const long long room = fd_limit - reserved;
  const long long want = static_cast<long long>(http) + smtp;
  if (want <= room) return out;
  out.lowered = true;
  const long long usable = room > 2 ? room : 2;
  out.http = static_cast<int>(std::max<long long>(1, http * usable / want));
  out.smtp = smtp > 0 ? static_cast<int>(std::max<long long>(1, smtp * usable / want)) : 0;
  return out;
}

}  // namespace adj::http
