// AppRuntime: per-thread Stores (database connections), Services and GameAdmin.
//
// Each (runtime, thread) pair gets its own Store (open_store: the backend the database argument
// names), opened on first use from that thread,
// and the Services and GameAdmin over it. They live in one process-wide registry (guarded by a
// mutex) keyed by context and thread id, and are all closed by ~AppRuntime. A thread that ends
// leaves its entry until then; a new thread that reuses the id takes it over, which is safe
// because the old thread no longer uses it.
#include <spdlog/spdlog.h>

#include <map>
#include <mutex>
#include <thread>

#include "base/log_escape.h"
#include "server/app/app_runtime.h"
#include "server/app/attendance.h"
#include "server/app/confirmations.h"
#include "server/app/host_desk.h"
#include "server/app/membership.h"
#include "server/app/open_store.h"
#include "server/app/press.h"
#include "storage/store.h"

namespace adj {

namespace {

// One thread's connection and the services over it.
struct ThreadState {
  virtual ~ThreadState() = default;
  std::unique_ptr<Store> store;
  std::unique_ptr<Services> services;
  std::unique_ptr<GameAdmin> admin;
};

using ThreadMap = std::map<std::thread::id, std::unique_ptr<ThreadState>>;

std::mutex& registry_mutex() {
  static std::mutex mu;
  return mu;
}

std::map<const AppRuntime*, ThreadMap>& registry() {
  static auto* r = new std::map<const AppRuntime*, ThreadMap>();  // never destroyed: exit-safe
  return *r;
}

ThreadState* find_state(const AppRuntime* ctx) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  auto& threads = registry()[ctx];
  auto it = threads.find(std::this_thread::get_id());
  return it == threads.end() ? nullptr : it->second.get();
}

}  // namespace

struct AppRuntime::PerThread : ThreadState {};

namespace {

// Opens the database and builds the services over it. Outside the registry lock: opening may
// wait for another connection's migration.
// `st` is a fresh, empty state to fill.
Result<std::unique_ptr<ThreadState>> open_state(const std::string& path, const Clock& clock,
                                                std::unique_ptr<ThreadState> st) {
  auto store = open_store(path, clock());  // errors name the database without its password
  if (!store.ok()) return store.status();
  st->store = std::move(store).value();
  Stores stores{*st->store, *st->store, *st->store, *st->store, *st->store, *st->store};
  st->services = std::make_unique<Services>(stores, clock);
  st->admin = std::make_unique<GameAdmin>(*st->services, stores, *st->store, clock);
  return st;
}

ThreadState& install(const AppRuntime* ctx, std::unique_ptr<ThreadState> st) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  auto& slot = registry()[ctx][std::this_thread::get_id()];
  slot = std::move(st);
  return *slot;
}

}  // namespace

AppRuntime::AppRuntime(AppConfig config, Clock clock)
    : config_(std::move(config)), clock_(std::move(clock)), throttle_(config_.throttle) {}

AppRuntime::~AppRuntime() {
  ThreadMap mine;
  {
    std::lock_guard<std::mutex> lock(registry_mutex());
    auto it = registry().find(this);
    if (it == registry().end()) return;
    mine = std::move(it->second);
    registry().erase(it);
  }
  // The connections close here, outside the lock.
}

AppRuntime::PerThread& AppRuntime::local() {
  if (ThreadState* st = find_state(this)) return static_cast<PerThread&>(*st);
  auto st = open_state(config_.db_path, clock_, std::make_unique<PerThread>());
  if (st.ok()) (*st)->services->set_session_limits(config_.sessions);
  if (!st.ok()) {
    // Nothing is cached: the next call from this thread tries again.
    spdlog::error("event=db_open_failed error=\"{}\"", log_escape(st.status().message()));
    throw StoreUnavailable("cannot open the database: " + st.status().message());
  }
  return static_cast<PerThread&>(install(this, std::move(st).value()));
}

Services& AppRuntime::services() { return *local().services; }

GameAdmin& AppRuntime::admin() { return *local().admin; }

Status AppRuntime::open_check() {
  if (find_state(this)) return Status::Ok();
  auto st = open_state(config_.db_path, clock_, std::make_unique<PerThread>());
  if (!st.ok()) return st.status();
  install(this, std::move(st).value());
  return Status::Ok();
}

Store& AppRuntime::store() { return *local().store; }

namespace {
Stores stores_of(Store& s) { return Stores{s, s, s, s, s, s}; }
}  // namespace

Membership AppRuntime::membership(const std::string& base_url) {
  Store& s = store();
  return Membership(services(), stores_of(s), s, s, clock_, base_url);
}

Confirmations AppRuntime::confirmations(const std::string& base_url) {
  return Confirmations(services(), store(), clock_, base_url);
}

Attendance AppRuntime::attendance(const std::string& base_url) {
  Store& s = store();
  return Attendance(services(), stores_of(s), s, s, clock_, base_url);
}

Press AppRuntime::press() {
  Store& s = store();
  return Press(services(), s, clock_, &s, PressLimits{}, config_.gm_address);
}

HostDesk AppRuntime::host_desk() { return HostDesk(store()); }

}  // namespace adj
