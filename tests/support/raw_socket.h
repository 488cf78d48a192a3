// Test support: blocking TCP clients on plain POSIX sockets from a chosen loopback source
// address (127.0.0.2, 127.0.0.3 ... all reach lo on Linux), to exercise per-address connection
// caps, and the process's file limit. Not for production code.
#pragma once

#include <chrono>
#include <string>

namespace adj::testing {

// Raises this process's soft RLIMIT_NOFILE to the hard limit; returns the soft limit now.
long long raise_nofile();

// A connected TCP socket to 127.0.0.1:port from `source` (an IPv4 loopback address, port 0),
// or to [::1]:port when `source` is an IPv6 address (one the machine has, see
// Ipv6LocalPrefix).
class RawConn {
 public:
  RawConn(int port, const std::string& source = "127.0.0.1");
  ~RawConn();
  RawConn(RawConn&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  RawConn& operator=(RawConn&&) = delete;
  RawConn(const RawConn&) = delete;
  bool connected() const { return fd_ >= 0; }
  int fd() const { return fd_; }
  bool send(const std::string& data);
  // Everything received until the peer closes or `timeout` passes.
  std::string read_all(std::chrono::milliseconds timeout);
  // Bytes until `stop` (included) appears, the peer closes, or `timeout` passes.
  std::string read_until(const std::string& stop, std::chrono::milliseconds timeout);
  // True while the peer has neither closed nor sent anything (a held idle connection).
  bool idle_open();
  void close();

 private:
  int fd_ = -1;
};

// Makes every address of an IPv6 /64 local to this machine (an "AnyIP" route on lo: `ip -6 route
// replace local PREFIX dev lo`) for its lifetime, so that RawConn can connect from many addresses
// of one /64; removes the route on destruction. ok() is false when the route could not be added
// (not root, no iproute2, IPv6 off): the caller skips.
class Ipv6LocalPrefix {
 public:
  explicit Ipv6LocalPrefix(std::string prefix);  // e.g. "2001:db8:28::/64"
  ~Ipv6LocalPrefix();
  Ipv6LocalPrefix(const Ipv6LocalPrefix&) = delete;
  Ipv6LocalPrefix& operator=(const Ipv6LocalPrefix&) = delete;
  bool ok() const { return ok_; }

 private:
  std::string prefix_;
  bool ok_ = false;
};

// GET `path` over a new connection from `source`; the status (0: no response) and the response.
int http_get(int port, const std::string& path, std::string* response = nullptr,
             const std::string& source = "127.0.0.1",
             std::chrono::milliseconds timeout = std::chrono::seconds(20));

}  // namespace adj::testing
