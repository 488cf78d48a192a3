#include "server/daemon/tick_loop.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <chrono>
#include <functional>

#include "base/log_escape.h"
#include "server/daemon/serve_jobs.h"
#include "server/http/thread_setup.h"
#include "storage/open_database.h"

namespace adj::daemon {

namespace asio = boost::asio;

struct TickLoop::Impl {
  Impl(AppRuntime& a, http::Metrics& m, const mail::MailConfig& mc, const ServeOptions& opt)
      : app(a), metrics(m), config(mc), o(opt) {}

  AppRuntime& app;
  http::Metrics& metrics;
  const mail::MailConfig& config;
  const ServeOptions& o;
  const int threads = std::max(1, o.turn_threads);
  asio::thread_pool pool{1};
  // The other shards of a pass (--turn-threads - 1 threads), each keeping its store.
  std::unique_ptr<asio::thread_pool> shard_pool;
  std::unique_ptr<asio::steady_timer> timer;
  bool stopping = false;  // the io_context's thread only
  bool joined = false;

  void tick() {
    try {
      queue_press_digests(app, o.press_digest, true);  // press before the turns run
      run_tick(app, metrics, threads, [this](std::function<void()> f) {
        asio::post(*shard_pool, [f = std::move(f)] {
          // A pool's threads cannot be addressed one by one: each sets itself up on its first job.
          thread_local const bool set_up =
              (http::name_this_thread("tick"), set_background_writer_thread(), true);
          (void)set_up;
          f();
        });
      });
      queue_due_reminders(app, config, o.reminder_hours);
    } catch (const std::exception& e) {
      spdlog::error("event=tick_exception what=\"{}\"", log_escape(e.what()));
    }
  }

  void arm(std::chrono::seconds delay) {
    timer->expires_after(delay);
    timer->async_wait([this](const boost::system::error_code& ec) {
      if (ec || stopping) return;
      asio::post(pool, [this] {
        tick();
        asio::post(timer->get_executor(), [this] {
          if (!stopping) arm(std::chrono::seconds(o.tick_seconds));
        });
      });
    });
  }
};

TickLoop::TickLoop(AppRuntime& app, http::Metrics& metrics, const mail::MailConfig& config,
                   const ServeOptions& o)
    : impl_(std::make_unique<Impl>(app, metrics, config, o)) {
  asio::post(impl_->pool, [] {
    http::name_this_thread("tick");
    set_background_writer_thread();
  });
  const int others = std::max(0, impl_->threads - 1);
  if (others > 0) impl_->shard_pool = std::make_unique<asio::thread_pool>(others);
}

TickLoop::~TickLoop() { join(); }

void TickLoop::start(asio::io_context& io) {
  impl_->timer = std::make_unique<asio::steady_timer>(io);
  if (impl_->o.tick_seconds <= 0) return;
  spdlog::info("event=scheduler tick_seconds={} turn_threads={}", impl_->o.tick_seconds,
               impl_->threads);
  impl_->arm(std::chrono::seconds(0));
}

void TickLoop::cancel() {
  impl_->stopping = true;
  if (impl_->timer) impl_->timer->cancel();
}

void TickLoop::join() {
  if (impl_->joined) return;
  impl_->joined = true;
  impl_->pool.join();
  if (impl_->shard_pool) impl_->shard_pool->join();
}

}  // namespace adj::daemon
