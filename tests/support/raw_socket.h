// Test support: blocking TCP clients on plain POSIX sockets from a chosen loopback source
// address (127.0.0.2, 127.0.0.3 ... all reach lo on Linux), to exercise per-address connection
// caps, and the process's file limit. Not for production code.
#pragma once

#include <chrono>
#include <string>

namespace adj::testing {

// Raises this process's soft RLIMIT_NOFILE to the hard limit; returns the soft limit now.
long long raise_nofile();

// A connected TCP socket to 127.0.0.1:port from `source` (an IPv4 loopback address, port 0).
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

// GET `path` over a new connection from `source`; the status (0: no response) and the response.
int http_get(int port, const std::string& path, std::string* response = nullptr,
             const std::string& source = "127.0.0.1",
             std::chrono::milliseconds timeout = std::chrono::seconds(20));

}  // namespace adj::testing
