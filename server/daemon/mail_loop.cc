#include "server/daemon/mail_loop.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <chrono>
#include <functional>
#include <latch>
#include <map>
#include <utility>
#include <vector>

#include "base/log_escape.h"
#include "server/app/reports_in_flight.h"
#include "server/daemon/serve_jobs.h"
#include "server/http/thread_setup.h"
#include "server/mail/auth_alert.h"
#include "server/mail/notice_mailer.h"
#include "server/mail/outbox_worker.h"
#include "storage/open_database.h"
#include "storage/store.h"

namespace adj::daemon {

namespace asio = boost::asio;

namespace {

// The mail thread's nice value: a third of a normal thread's share under contention.
constexpr int kMailThreadNice = 5;
// The threads that make turn reports: two games' maps drawn at once, at the scheduler's and the
// web's priority (their nice is not raised). At kMailThreadNice, under a busiest minute's readers,
// they had about a third of a core and the last report reached the relay 288 s after the deadline
// instead of 195 s, while pages stayed at 0.8x nginx or more either way (docs/performance.md).
constexpr int kReportThreads = 2;
// Messages one outbox worker claims per pass.
constexpr int kOutboxBatch = 50;

// Runs `fn` on a pool thread, logging an exception instead of letting it end the process (e.g.
// the database cannot be opened for want of file descriptors; the work is retried later).
template <class F>
void guarded(const char* what, F&& fn) {
  try {
    fn();
  } catch (const std::exception& e) {
    spdlog::error("event={}_exception what=\"{}\"", what, log_escape(e.what()));
  }
}

std::int64_t steady_seconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Every message answered is logged once, by whichever path answered it (process() or a pass over
// the messages left "new").
void log_processed(std::int64_t id, const mail::ProcessResult& r) {
  spdlog::info("event=mail_processed inbox_id={} action={} queued={}", id, r.action, r.queued);
}

}  // namespace

struct MailLoop::Impl {
  Impl(AppRuntime& a, http::Metrics& m, const mail::MailConfig& mc, mail::MailSender& s,
       const ServeOptions& opt)
      : app(a), metrics(m), config(mc), sender(s), o(opt), gate(thread_ingest(a, mc)) {}

  AppRuntime& app;
  http::Metrics& metrics;
  const mail::MailConfig& config;
  mail::MailSender& sender;
  const ServeOptions& o;
  mail::MailIngest& gate;  // the main thread's; recipient_allowed only

  asio::thread_pool mail_pool{1};
  asio::thread_pool deliver_pool{1};
  // The further connections of a pass with a backlog (relay_connections - 1 threads).
  asio::thread_pool send_pool{static_cast<std::size_t>(std::max(1, o.relay_connections - 1))};
  // Queues the reports of turns that ran (each with its map: the CPU-heavy part of the mail), on
  // threads of their own so that delivery goes on while the next games' reports are made.
  asio::thread_pool reports_pool{kReportThreads};
  std::atomic<bool> mail_stopping{false};
  bool stopping = false;  // the io_context's thread only
  bool finished = false;
  std::unique_ptr<asio::steady_timer> mail_timer, deliver_timer;
  std::atomic<bool> timers_made{false};  // both timers exist (start() ran)
  ReportsInFlight reports_in_flight;
  bool outbox_backlog = false;                        // deliver thread only: the last pass was full
  std::unique_ptr<mail::NoticeMailer> notice_mailer;  // deliver thread only
  UnixTime last_digest_pass = 0;                      // deliver thread only
  UnixTime last_prune = 0;                            // mail thread only
  // The deliver timer's state (io thread only): its wait is pending; that wait was cancelled by
  // deliver_soon(); a pass is running and another is due right after it; when the last pass ended.
  bool deliver_waiting = false;
  bool deliver_kicked = false;
  bool deliver_again = false;
  std::chrono::steady_clock::time_point last_deliver_end{};
  // The least time between the end of a pass and one that deliver_soon() asks for, so a flood of
  // events costs at most a few passes a second.
  static constexpr std::chrono::milliseconds kKickGap{200};

  std::chrono::seconds period(bool at_once) const {
    return at_once ? std::chrono::seconds(0) : std::chrono::seconds(std::max(1, o.mail_seconds));
  }

  void install_hooks();
  void process_pending_at_start();
  void arm_mail(bool at_once);
  bool mail_pass();
  // Arms the deliver timer for `delay`.
  void arm_deliver(std::chrono::milliseconds delay);
  // What is left of kKickGap since the last pass ended (io thread only).
  std::chrono::milliseconds kick_delay() const {
    const auto left = last_deliver_end + kKickGap - std::chrono::steady_clock::now();
    return std::max(std::chrono::milliseconds(0),
                    std::chrono::duration_cast<std::chrono::milliseconds>(left));
  }
  // One pass; returns when the next one is due (0: a full batch was sent, more may wait).
  std::chrono::milliseconds deliver_pass();
  // One batch of the outbox on the calling thread, with its store.
  Result<mail::WorkerStats> send_batch();
  // The outbox part of a pass: one batch, or with a backlog one per relay connection at once;
  // sets outbox_backlog.
  Result<mail::WorkerStats> send_outbox();
  // Any thread: mail was queued, so the deliver thread runs a pass now instead of at its next
  // period (a player's answer leaves within moments, not --mail-seconds later). Kicks coalesce.
  void deliver_soon();
};

void MailLoop::Impl::deliver_soon() {
  if (!timers_made.load(std::memory_order_acquire)) return;  // the first pass comes anyway
  asio::post(deliver_timer->get_executor(), [this] {
    if (stopping) return;
    if (deliver_waiting) {
      deliver_kicked = true;
      deliver_timer->cancel();
    } else {
      deliver_again = true;
    }
  });
}

void MailLoop::Impl::install_hooks() {
  app.set_on_secrets_issued([this](const std::string& game,
                                   const std::map<std::string, std::string>& secrets,
                                   bool with_link) {
    asio::post(mail_pool, [this, game, secrets, with_link] {
      guarded("secret_mail", [&] {
        auto n = thread_ingest(app, config).queue_new_secrets(game, secrets, with_link);
        if (!n.ok())
          spdlog::warn("event=secret_mail_failed game={} error=\"{}\"", log_escape(game),
                       log_escape(n.status().message()));
        else
          spdlog::info("event=secret_mail_queued game={} count={}", log_escape(game), *n);
        if (n.ok() && *n > 0) deliver_soon();
      });
    });
  });
  app.set_on_turn_run([this](const std::string& game, int turn, bool recovery) {
    if (!reports_in_flight.begin(game, turn, recovery, steady_seconds())) {
      spdlog::debug(
          "event=reports_mail_skipped game={} turn={} reason=\"queued or failed just now\"",
          log_escape(game), turn);
      return;
    }
    asio::post(reports_pool, [this, game, turn] {
      bool ok = false;
      // Stopping: the games still waiting are queued after the next start (the tick's
      // recovery: their reports are not recorded as queued), so a stop does not wait for them.
      if (mail_stopping) return reports_in_flight.end(game, turn, ok, steady_seconds());
      // A pool's threads cannot be addressed one by one: each sets itself up on its first job.
      thread_local const bool set_up = [] {
        http::name_this_thread("reports");
        set_background_writer_thread();
        return true;
      }();
      (void)set_up;
      guarded("reports_mail", [&] {
        auto n = thread_ingest(app, config).queue_turn_reports(game, turn);
        ok = n.ok();
        if (!n.ok())
          spdlog::warn("event=reports_mail_failed game={} turn={} error=\"{}\"", log_escape(game),
                       turn, log_escape(n.status().message()));
        else
          spdlog::info("event=reports_queued game={} turn={} count={}", log_escape(game), turn, *n);
        if (ok && *n > 0) deliver_soon();
      });
      reports_in_flight.end(game, turn, ok, steady_seconds());
    });
  });
  app.set_on_mail_queued([this] { deliver_soon(); });
  // A player's key locked by failed checks on the web: the player hears of it (auth_alert.h).
  app.set_on_auth_lockout(
      [this](const std::string& game, const std::string& player, const ThrottleState& account) {
        asio::post(mail_pool, [this, game, player, account] {
          auto q = mail::queue_auth_alert(app.services(), app.store(), config, game, player,
                                          account, app.clock()());
          if (!q.ok())
            spdlog::warn("event=auth_alert_failed error=\"{}\"", q.status().message());
          else if (*q) {
            spdlog::info("event=auth_alert_queued lockouts={}", account.lockouts);
            deliver_soon();
          }
        });
      });
}

void MailLoop::Impl::process_pending_at_start() {
  asio::post(mail_pool, [this] {
    guarded("mail_pending", [&] {
      if (auto n = thread_ingest(app, config).release_dead_leases(); n.ok() && *n > 0)
        spdlog::info("event=mail_leases_released count={} reason=\"holder process gone\"", *n);
      for (;;) {
        auto n = thread_ingest(app, config).process_pending(100, log_processed);
        if (!n.ok()) {
          spdlog::warn("event=mail_pending_failed error=\"{}\"", log_escape(n.status().message()));
          break;
        }
        if (*n > 0) {
          spdlog::info("event=mail_pending_processed count={}", *n);
          deliver_soon();
        }
        if (*n < 100 || mail_stopping) break;
      }
    });
  });
}

// Reads the watched Maildir, answers what is left "new", prunes old raw mail. True when a full
// batch was answered (more may wait).
bool MailLoop::Impl::mail_pass() {
  bool more = false;
  Store& store = app.store();
  if (!o.maildir.empty()) scan_maildir(app, config, o.maildir);
  // Messages left "new": a process died answering (its lease is given back here when it ran on
  // this host, else it runs out), a failed pass.
  (void)thread_ingest(app, config).release_dead_leases();
  if (auto n = thread_ingest(app, config).process_pending(100, log_processed); !n.ok())
    spdlog::warn("event=mail_pending_failed error=\"{}\"", log_escape(n.status().message()));
  else {
    more = *n >= 100;
    if (*n > 0) deliver_soon();
  }
  if (const UnixTime now = app.clock()(); now - last_prune >= 3600) {
    last_prune = now;
    if (auto n = thread_ingest(app, config).prune(); !n.ok())
      spdlog::warn("event=mail_prune_failed error=\"{}\"", log_escape(n.status().message()));
    else if (*n > 0)
      spdlog::info("event=mail_pruned count={} keep_days={}", *n, config.keep_raw_days);
  }
  if (auto n = store.inbox_list("failed", 1000, true); n.ok())
    metrics.set_gauge("adjutant_mail_inbox_failed", static_cast<double>(n->size()));
  return more;
}

void MailLoop::Impl::arm_mail(bool at_once) {
  mail_timer->expires_after(period(at_once));
  mail_timer->async_wait([this](const boost::system::error_code& ec) {
    if (ec || stopping) return;
    asio::post(mail_pool, [this] {
      bool more = false;
      try {
        more = mail_pass();
      } catch (const std::exception& e) {
        spdlog::error("event=mail_timer_exception what=\"{}\"", log_escape(e.what()));
      }
      asio::post(mail_timer->get_executor(), [this, more] {
        if (!stopping) arm_mail(more);
      });
    });
  });
}

// Press digests, then notices (press, sign-ups, corrections...), so their mail goes out this
// pass, then one batch of the outbox.
std::chrono::milliseconds MailLoop::Impl::deliver_pass() {
  Store& store = app.store();
  // Digests every 10 s, not on every pass: press sent in quick succession is gathered into one
  // mail (a player's next digest waits an interval, press_digest.h).
  if (const UnixTime now = app.clock()(); now - last_digest_pass >= 10) {
    queue_press_digests(app, o.press_digest, false);
    last_digest_pass = now;
  }
  if (!notice_mailer) {
    notice_mailer = std::make_unique<mail::NoticeMailer>(app.services(), store, store, config.from,
                                                         config.base_url, app.clock());
    notice_mailer->set_map_painter(config.map_painter, config.map_arrows);
    notice_mailer->set_gm_contact(store, app.config().gm_address);
  }
  if (auto n = notice_mailer->deliver(); !n.ok())
    spdlog::warn("event=notices_failed error=\"{}\"", log_escape(n.status().message()));
  else if (*n > 0)
    spdlog::info("event=notices queued={}", *n);
  auto st = send_outbox();
  if (!st.ok())
    spdlog::warn("event=outbox_failed error=\"{}\"", log_escape(st.status().message()));
  else if (st->claimed > 0)
    spdlog::info("event=outbox sent={} retried={} failed={}", st->sent, st->retried, st->failed);
  if (outbox_backlog) return std::chrono::milliseconds(0);
  return period(false);
}

Result<mail::WorkerStats> MailLoop::Impl::send_batch() {
  mail::OutboxWorker worker(app.store(), sender, mail::BackoffPolicy{}, kOutboxBatch,
                            o.outbox_lease_seconds,
                            std::min<std::int64_t>(120, o.outbox_lease_seconds / 3));
  return worker.run_once(app.clock()());
}

Result<mail::WorkerStats> MailLoop::Impl::send_outbox() {
  const int extra = outbox_backlog ? std::max(0, o.relay_connections - 1) : 0;
  std::vector<Result<mail::WorkerStats>> more(extra, Status::Internal("not run"));
  std::latch done(extra);
  for (int i = 0; i < extra; ++i)
    asio::post(send_pool, [this, &more, &done, i] {
      thread_local const bool named =
          (http::name_this_thread("send"), set_background_writer_thread(), true);
      (void)named;
      try {
        more[i] = send_batch();
      } catch (const std::exception& e) {  // e.g. this thread could not open the database
        more[i] = Status::Internal(e.what());
      }
      done.count_down();
    });
  Result<mail::WorkerStats> total = Status::Internal("not run");
  try {
    total = send_batch();
  } catch (const std::exception& e) {
    total = Status::Internal(e.what());
  }
  done.wait();  // the other batches borrow `more` and `done`
  // A backlog: some batch was full and sent, so more may be due.
  const auto full = [](const Result<mail::WorkerStats>& r) {
    return r.ok() && r->claimed >= kOutboxBatch && r->sent > 0;
  };
  outbox_backlog = full(total) || std::any_of(more.begin(), more.end(), full);
  for (const Result<mail::WorkerStats>& r : more) {
    if (!r.ok()) {
      if (total.ok()) total = r.status();
      continue;
    }
    if (!total.ok()) continue;
    total->claimed += r->claimed;
    total->sent += r->sent;
    total->retried += r->retried;
    total->failed += r->failed;
    total->left_claimed += r->left_claimed;
  }
  return total;
}

void MailLoop::Impl::arm_deliver(std::chrono::milliseconds delay) {
  deliver_timer->expires_after(delay);
  deliver_waiting = true;
  deliver_timer->async_wait([this](const boost::system::error_code& ec) {
    deliver_waiting = false;
    if (stopping) return;
    if (ec) {  // cancelled: by cancel() (stopping), or by deliver_soon() for a pass sooner
      if (std::exchange(deliver_kicked, false)) arm_deliver(kick_delay());
      return;
    }
    deliver_kicked = false;
    asio::post(deliver_pool, [this] {
      std::chrono::milliseconds next = period(false);
      try {
        next = deliver_pass();
      } catch (const std::exception& e) {
        spdlog::error("event=deliver_timer_exception what=\"{}\"", e.what());
      }
      asio::post(deliver_timer->get_executor(), [this, next] {
        last_deliver_end = std::chrono::steady_clock::now();
        if (!stopping)
          arm_deliver(std::exchange(deliver_again, false) ? std::min(next, kKickGap) : next);
      });
    });
  });
}

MailLoop::MailLoop(AppRuntime& app, http::Metrics& metrics, const mail::MailConfig& config,
                   mail::MailSender& sender, const ServeOptions& o)
    : impl_(std::make_unique<Impl>(app, metrics, config, sender, o)) {
  // Answering, delivering and the Maildir scan are background work: at kMailThreadNice the mail
  // thread yields the CPU to the listeners (acknowledging a message is what a client waits for).
  // Not 19: nice is weighed against every process on the host, and at 19 (a 70th of a normal
  // share) a busy neighbour, a compile or a backup, held a player's answer for over a minute.
  asio::post(impl_->mail_pool, [] {
    http::name_this_thread("mail");
    set_background_writer_thread();
    if (!http::lower_this_thread_priority(kMailThreadNice))
      spdlog::warn("event=mail_thread_nice_refused");
  });
  asio::post(impl_->deliver_pool, [] {
    http::name_this_thread("deliver");
    set_background_writer_thread();
  });
  impl_->install_hooks();
}

MailLoop::~MailLoop() { finish(); }

void MailLoop::process(std::int64_t id) {
  Impl* d = impl_.get();
  asio::post(d->mail_pool, [d, id] {
    if (d->mail_stopping) return;  // still "new": process_pending at the next start
    guarded("mail_process", [&] {
      auto r = thread_ingest(d->app, d->config).process(id);
      if (!r.ok())
        spdlog::warn("event=mail_process_failed inbox_id={} error=\"{}\"", id,
                     log_escape(r.status().message()));
      else
        log_processed(id, *r);
      if (r.ok() && r->queued > 0) d->deliver_soon();
    });
  });
}

bool MailLoop::recipient_allowed(const std::string& address) const {
  return impl_->gate.recipient_allowed(address);
}

void MailLoop::start(asio::io_context& io) {
  impl_->mail_timer = std::make_unique<asio::steady_timer>(io);
  impl_->deliver_timer = std::make_unique<asio::steady_timer>(io);
  impl_->timers_made.store(true, std::memory_order_release);
  impl_->process_pending_at_start();
  impl_->arm_deliver(impl_->period(false));
  impl_->arm_mail(false);
}

void MailLoop::cancel() {
  impl_->stopping = true;
  if (impl_->mail_timer) impl_->mail_timer->cancel();
  if (impl_->deliver_timer) impl_->deliver_timer->cancel();
}

void MailLoop::finish() {
  if (impl_->finished) return;
  impl_->finished = true;
  impl_->mail_stopping = true;  // unprocessed messages stay "new" for the next start
  impl_->mail_pool.join();
  impl_->reports_pool.join();  // the games in hand are queued; the others are skipped
  impl_->deliver_pool.join();  // a message being delivered finishes (and is marked)
  impl_->send_pool.join();
}

}  // namespace adj::daemon
