#include "server/daemon/revision_reader.h"

#include <spdlog/spdlog.h>

#include <map>
#include <utility>

#include "server/http/thread_setup.h"
#include "storage/open_database.h"
#include "storage/store.h"
#include "storage/wait_limit.h"

namespace adj::daemon {

RevisionReader::RevisionReader(std::string db, std::chrono::milliseconds wait,
                               std::chrono::milliseconds retry)
    : db_(std::move(db)),
      wait_(wait),
      retry_(retry),
      retrier_([this] { retry_loop(); }),
      refresher_([this] { refresh_loop(); }) {}

RevisionReader::~RevisionReader() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  retrier_.join();
  refresher_.join();
}

std::shared_ptr<const http::Revisions> RevisionReader::read_now(std::chrono::milliseconds cap) {
  // One store per thread and database (a reader per daemon; tests may run
  // several).
  thread_local std::map<std::string, std::unique_ptr<Store>> stores;
  const ScopedWaitCap capped(cap);
  auto& store = stores[db_];
  if (!store) {
    auto opened = open_database(db_);
    if (!opened.ok()) return nullptr;
    store = std::move(opened).value();
  }
  auto now = store->revisions();
  return now.ok() ? std::move(now).value() : nullptr;
}

std::shared_ptr<const http::Revisions> RevisionReader::read() {
  if (!degraded()) {
    if (auto now = read_now(wait_)) {
      std::lock_guard lock(mu_);
      last_ = now;
      return now;
    }
    if (!degraded_.exchange(true, std::memory_order_acq_rel)) {
      spdlog::warn(
          "event=db_not_answering what=revisions reason=\"kept pages "
          "are served as they are "
          "until the database answers again\"");
      wake_.notify_all();
    }
  }
  std::lock_guard lock(mu_);
  return last_;
}

void RevisionReader::refresh_loop() {
  http::name_this_thread("rev-refresh");
  set_revisions_refresher_thread();
  std::unique_lock lock(mu_);
  while (!wake_.wait_for(lock, kRevisionsRefresh, [this] { return stopping_; })) {
    if (degraded()) continue;  // the retrier's
    lock.unlock();
    auto now = read_now(wait_);
    lock.lock();
    if (now) last_ = std::move(now);
  }
}

void RevisionReader::retry_loop() {
  http::name_this_thread("revisions");
  std::unique_lock lock(mu_);
  for (;;) {
    wake_.wait(lock, [this] { return stopping_ || degraded(); });
    if (stopping_) return;
    lock.unlock();
    auto now = read_now(database_wait_limits().stalled);
    lock.lock();
    if (now) {
      last_ = std::move(now);
      degraded_.store(false, std::memory_order_release);
      spdlog::info("event=db_answering what=revisions");
      continue;
    }
    wake_.wait_for(lock, retry_, [this] { return stopping_; });
  }
}

}  // namespace adj::daemon
