// Test support: `adjutant serve` as a child process for end-to-end tests of the web and the API.
//
// Every test daemon (here and in the test files that fork their own) runs with
// `--http-stale-wait 600000`: the tests read their own writes as readers without credentials, so
// such a reader waits for each page a write made out of date. The default (serve the page kept
// before once 20 ms have passed) is HttpServerTest's.
// Not for production code.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace adj::testing {

// Forks `adjutant --db DB serve --http 127.0.0.1:PORT --tick TICK --smtp off EXTRA...` with
// ADJUTANT_GM_TOKEN=gm_token (and without ADJUTANT_DB); its standard error is appended to `log`,
// its standard output to `log`.out. The child's pid (-1 when fork failed). The caller reaps it.
pid_t spawn_serve(const std::string& db, int port, const std::string& log,
                  const std::string& gm_token, int tick_seconds,
                  const std::vector<std::string>& extra = {});

// Polls http://127.0.0.1:PORT/healthz every 100 ms until it answers 200 or `timeout` passes.
bool wait_healthy(int port, std::chrono::seconds timeout);

}  // namespace adj::testing
