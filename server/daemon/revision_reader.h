// The page cache's revision source for `adjutant serve` (http::RevisionSource,
// server/http/response_cache.h), which keeps kept pages and static files served
// while the database does not answer.
//
// read() is called on the HTTP I/O threads before every cache lookup. Normally
// it reads the revisions through the calling thread's own Store, each wait
// capped at `wait` (storage/wait_limit.h ScopedWaitCap). When a read fails (the
// database stalled, stopped or unreachable), the reader turns degraded: read()
// then returns the last revisions it read without touching the database, so
// kept answers (and the static files, scope "static") are served as they are,
// and a background thread tries the database every `retry` (each wait up to the
// stalled limit of storage/wait_limit.h, so that a server that does not answer
// is found stalled) until a read succeeds, which ends the degraded mode. While
// the database does not answer nothing can be written to it, so the last
// revisions read are still the current ones (up to writes of the last moments,
// or of another daemon that still reaches it). Before any read succeeded there
// is nothing to fall back on: read() returns null (every page is made afresh,
// and fails).
//
// A thread of the reader's own reads the revisions every kRevisionsRefresh
// (storage/open_database.h set_revisions_refresher_thread), so that on
// PostgreSQL the I/O threads' reads take its read instead of waiting for the
// server, unless this process wrote since.
//
// Thread-safety: read() may be called from any thread; each thread keeps its
// own Store.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "server/http/response_cache.h"

namespace adj::daemon {

class RevisionReader {
 public:
  // `db`: the database argument (storage/open_database.h).
  RevisionReader(std::string db, std::chrono::milliseconds wait, std::chrono::milliseconds retry);
  // Stops the background thread.
  ~RevisionReader();
  RevisionReader(const RevisionReader&) = delete;
  RevisionReader& operator=(const RevisionReader&) = delete;

  std::shared_ptr<const http::Revisions> read();
  // read() as an http::RevisionSource; the reader must outlive it.
  http::RevisionSource source() {
    return [this] { return read(); };
  }
  bool degraded() const { return degraded_.load(std::memory_order_acquire); }

 private:
  // Reads through the calling thread's store, each wait within `cap`; null when
  // it cannot.
  std::shared_ptr<const http::Revisions> read_now(std::chrono::milliseconds cap);
  void retry_loop();
  void refresh_loop();

  const std::string db_;
  const std::chrono::milliseconds wait_, retry_;
  std::atomic<bool> degraded_{false};
  std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;                        // guarded by mu_
  std::shared_ptr<const http::Revisions> last_;  // guarded by mu_
  std::thread retrier_;
  std::thread refresher_;
};

}  // namespace adj::daemon
