// How long a client of the database waits for it: the client-side limits that keep a stalled
// server (stopped, partitioned, swamped) from freezing the threads that talk to it.
//
// A PostgreSQL connection (storage/postgres/pg_database.h) reads these before every connect and
// round trip:
//   connect    establishing a session (TCP or socket connect, authentication, setup);
//   statement  one round trip (sending a statement and reading all of its results);
//   idle       TCP keepalive: an idle connection whose peer vanished is found dead after about
//              this long (keepalives_idle, then 3 probes a third of it apart); also
//              tcp_user_timeout, so data the peer never acknowledges fails the connection.
// A round trip or connect that runs out abandons the session (it is closed, never reused) and
// fails with IOError ("... did not answer within N ms (SQLSTATE 57014)" for a statement); the
// next use reconnects. SQLite ignores them (its busy timeout bounds its waits).
//
// The database is stalled when a connect allowed at least `stalled` got no answer (a slow
// statement or a lock wait never makes a connect wait, so this is the server itself), until a
// round trip or connect completes on any thread. Meanwhile every wait, including those already
// under way, ends `stalled` after it began, so requests fail fast until the server answers.
//
// Thread-safety: all functions may be called from any thread. set_database_wait_limits() is for
// startup, before connections open.
#pragma once

#include <chrono>
#include <optional>

namespace adj {

struct DatabaseWaitLimits {
  std::chrono::milliseconds connect{5000};
  std::chrono::milliseconds statement{30000};
  std::chrono::milliseconds idle{60000};
  std::chrono::milliseconds stalled{2000};  // every wait while the database is stalled
};

// The process-wide limits (defaults as above).
void set_database_wait_limits(const DatabaseWaitLimits& limits);
DatabaseWaitLimits database_wait_limits();

// The limits that apply on the calling thread now: the process-wide ones, each cut to a
// ScopedWaitCap in force on this thread, and to `stalled` while the database is stalled.
DatabaseWaitLimits effective_wait_limits();

// Caps every connect and round-trip wait of the calling thread to `cap` while it lives (the
// health check, the page cache's revision reads). Nests: the smallest cap wins.
class ScopedWaitCap {
 public:
  explicit ScopedWaitCap(std::chrono::milliseconds cap);
  ~ScopedWaitCap();
  ScopedWaitCap(const ScopedWaitCap&) = delete;
  ScopedWaitCap& operator=(const ScopedWaitCap&) = delete;

 private:
  std::optional<std::chrono::milliseconds> previous_;
};

// Whether the database is stalled (see above).
bool database_stalled();
// Called by the backends: a connect allowed at least `stalled` ran out / a round trip or connect
// completed.
void note_database_timeout();
void note_database_answered();

}  // namespace adj
