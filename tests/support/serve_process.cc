#include "tests/support/serve_process.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "tests/support/process.h"

namespace adj::testing {

pid_t spawn_serve(const std::string& db, int port, const std::string& log,
                  const std::string& gm_token, int tick_seconds,
                  const std::vector<std::string>& extra) {
  // Everything the child needs is made before fork(): it only calls async-signal-safe functions
  // and those that touch no lock of the parent's threads.
  const std::string http = "127.0.0.1:" + std::to_string(port);
  const std::string tick = std::to_string(tick_seconds);
  const std::string out = log + ".out";
  std::vector<std::string> args = {
      ADJ_BINARY,          "--db",  db, "serve", "--http", http, "--tick", tick, "--smtp", "off",
      "--http-stale-wait", "600000"};
  args.insert(args.end(), extra.begin(), extra.end());
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    std::freopen(log.c_str(), "a", stderr);
    std::freopen(out.c_str(), "a", stdout);
    ::setenv("ADJUTANT_GM_TOKEN", gm_token.c_str(), 1);
    ::unsetenv("ADJUTANT_DB");
    ::execv(ADJ_BINARY, argv.data());
    std::_Exit(127);
  }
  return pid;
}

bool wait_healthy(int port, std::chrono::seconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  const std::string url = "http://127.0.0.1:" + std::to_string(port) + "/healthz";
  while (std::chrono::steady_clock::now() < deadline) {
    if (curl(shell_quote(url)).status == 200) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

}  // namespace adj::testing
