// Test support for end-to-end tests that drive real processes and sockets: free loopback ports,
// shell commands (curl, sqlite3, python3) and their quoting. Not for production code.
#pragma once

#include <string>

namespace adj::testing {

// A TCP port on 127.0.0.1 that was free a moment ago (bound to port 0, then released); 0 if none.
int free_port();
// A free loopback port kept bound, not listening (a connection to it is refused), until release()
// or destruction: no other test's free_port() can take it meanwhile. For a test that needs a
// server's port before starting the server.
class HeldPort {
 public:
  HeldPort();
  ~HeldPort() { release(); }
  HeldPort(const HeldPort&) = delete;
  HeldPort& operator=(const HeldPort&) = delete;
  int port() const { return port_; }  // 0 when no port could be bound
  void release();                     // the port is free: start the server that takes it now

 private:
  int fd_ = -1;
  int port_ = 0;
};

// Whether something accepts connections on 127.0.0.1:port.
bool port_open(int port);

// One shell word: `s` in single quotes, inner quotes escaped.
std::string shell_quote(const std::string& s);
// Runs `cmd` with /bin/sh; its standard output ("" when it could not start).
std::string run_shell(const std::string& cmd);

// What `curl -s -m 20 ARGS` answered: the HTTP status (0 when there was no answer) and the body.
// curl's standard error is discarded.
struct CurlAnswer {
  int status = 0;
  std::string body;
};
CurlAnswer curl(const std::string& args);

}  // namespace adj::testing
