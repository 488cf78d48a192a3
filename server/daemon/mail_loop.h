// The mail work of `adjutant serve`, on threads of its own.
//
// The mail thread answers received mail one message at a time, in order (so no message is
// answered twice at once), queues new players' secrets and lockout alerts, reads the watched
// Maildir and prunes old raw mail. Two report threads queue the reports of the turns that ran,
// each with its map. The deliver thread queues press digests and notices and delivers the outbox
// (it is the sender's only user), so delivery never waits behind answering or behind the next
// games' reports, and answering never waits behind a slow relay. Both queues are durable
// (inbox "new", outbox "pending"): stopping loses nothing.
//
// Thread-safety: construct, start(), cancel() and finish() on the thread that runs the
// io_context; process() and recipient_allowed() from any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "server/app/app_runtime.h"
#include "server/daemon/serve.h"
#include "server/http/metrics.h"
#include "server/mail/mail_ingest.h"

namespace boost::asio {
class io_context;
}
namespace adj::mail {
class MailSender;
}

namespace adj::daemon {

class MailLoop {
 public:
  // Installs app's hooks (secrets issued, turn run, web lockout) that hand work to the two
  // threads. `app`, `metrics`, `config`, `sender` and `o` must outlive this object.
  MailLoop(AppRuntime& app, http::Metrics& metrics, const mail::MailConfig& config,
           mail::MailSender& sender, const ServeOptions& o);
  ~MailLoop();  // finish(), when not done yet
  MailLoop(const MailLoop&) = delete;
  MailLoop& operator=(const MailLoop&) = delete;

  // Answers inbox message `inbox_id` on the mail thread; after finish() began it stays "new" for
  // the next start.
  void process(std::int64_t inbox_id);

  // The SMTP listener's recipient check (MailIngest::recipient_allowed: it reads only the
  // configuration).
  bool recipient_allowed(const std::string& address) const;

  // Answers what a previous run stored but did not answer, then arms the mail timer (Maildir,
  // messages left "new", pruning) and the delivery timer on `io`, each every --mail-seconds, at
  // once again after a full batch.
  void start(boost::asio::io_context& io);

  // Cancels both timers (the io_context's thread).
  void cancel();

  // Lets the mail thread finish the message in hand (the others stay "new"), the report threads
  // the games in hand and the deliver thread its delivery, then joins them. Reports still
  // waiting to be queued are not: they are not recorded as queued, so the scheduler queues them
  // after the next start (GameAdmin::tick, "reports"), and a stop after a busy minute does not
  // wait for a thousand games' maps. Call after the listeners and the scheduler stopped.
  void finish();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace adj::daemon
