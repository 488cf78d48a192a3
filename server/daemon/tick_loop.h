// The scheduler of `adjutant serve`: a tick at start (it also notices downtime), then one every
// --tick seconds after the previous one finished, on a thread of its own since a tick may resolve
// a turn. A tick queues the press digests due at deadlines (before the turns run), runs
// GameAdmin::tick() for every game and queues the reminders due. Ticks never overlap.
//
// Thread-safety: construct, start(), cancel() and join() on the thread that runs the io_context.
#pragma once

#include <memory>

#include "server/app/app_runtime.h"
#include "server/daemon/serve.h"
#include "server/http/metrics.h"
#include "server/mail/mail_ingest.h"

namespace boost::asio {
class io_context;
}

namespace adj::daemon {

class TickLoop {
 public:
  // `app`, `metrics`, `config` and `o` must outlive this object.
  TickLoop(AppRuntime& app, http::Metrics& metrics, const mail::MailConfig& config,
           const ServeOptions& o);
  ~TickLoop();  // join(), when not done yet
  TickLoop(const TickLoop&) = delete;
  TickLoop& operator=(const TickLoop&) = delete;

  // Arms the first tick at once on `io`; nothing when --tick is 0.
  void start(boost::asio::io_context& io);
  // No tick after the one in hand (the io_context's thread).
  void cancel();
  // Waits for the tick in hand (a turn being resolved finishes).
  void join();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace adj::daemon
