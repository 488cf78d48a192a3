#include "storage/sqlite/checkpointer.h"

#include <pthread.h>
#include <sqlite3.h>

#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

#include "storage/sqlite/database.h"

namespace adj::sqlite {

namespace {

std::atomic<bool> g_background{false};

constexpr int kTruncateWaitMs = 100;

// The live Checkpointers by file, for for_file.
std::mutex g_registry_mu;
std::map<std::string, std::weak_ptr<Checkpointer>>& registry() {
  static auto* files = new std::map<std::string, std::weak_ptr<Checkpointer>>;  // never freed
  return *files;
}

}  // namespace

void set_background_checkpoints(bool on) { g_background = on; }
bool background_checkpoints() { return g_background; }

struct Checkpointer::State {
  std::string path;
  std::mutex mu;
  std::condition_variable wake;
  bool due = false;   // guarded by mu
  bool stop = false;  // guarded by mu
  std::atomic<std::int64_t> done{0};
  std::atomic<std::int64_t> truncated{0};
  std::thread thread;

  // PASSIVE first: copies what no reader still needs and waits for no one (a log another
  // connection is checkpointing, SQLITE_BUSY, is left to it). It leaves the log's length as it
  // is: only a writer that finds it all copied starts it over, which writers committing one
  // after another, or a reader of an old snapshot, can put off for as long as they last. So once
  // the log is kRestartPages long, TRUNCATE: waits (up to kTruncateWaitMs) for the writer and the
  // readers of older snapshots, keeps writers out while it copies the rest (most of it is copied
  // already) and empties the file.
  void checkpoint(sqlite3* db) {
    int log = 0;
    // -1: not in WAL mode (yet); see run().
    if (sqlite3_wal_checkpoint_v2(db, nullptr, SQLITE_CHECKPOINT_PASSIVE, &log, nullptr) !=
            SQLITE_OK ||
        log < 0)
      return;
    ++done;
    if (log >= kRestartPages && sqlite3_wal_checkpoint_v2(db, nullptr, SQLITE_CHECKPOINT_TRUNCATE,
                                                          nullptr, nullptr) == SQLITE_OK)
      ++truncated;
  }

  void run() {
    pthread_setname_np(pthread_self(), "checkpoint");  // for top -H and bench-host.sh
    sqlite3* db = nullptr;
    // A connection of its own, without a hook (its checkpoints commit nothing). It waits at most
    // kTruncateWaitMs for the writer and the readers, so that writers are never kept out for
    // long: a TRUNCATE that gives up is tried again at the next full commit. A connection that
    // has read nothing yet does not know the file is in WAL mode, and its checkpoints do
    // nothing: it reads the schema first.
    if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK) {
      set_busy_wait(db, kTruncateWaitMs);
      (void)sqlite3_exec(db, "SELECT count(*) FROM sqlite_schema", nullptr, nullptr, nullptr);
    }
    std::unique_lock lock(mu);
    for (;;) {
      wake.wait(lock, [this] { return due || stop; });
      if (stop) break;
      due = false;
      lock.unlock();
      if (db) checkpoint(db);
      lock.lock();
    }
    lock.unlock();
    sqlite3_close_v2(db);  // the last connection to the file checkpoints and removes the log
  }
};

Checkpointer::Checkpointer(const std::string& path) : state_(std::make_unique<State>()) {
  state_->path = path;
  state_->thread = std::thread([s = state_.get()] { s->run(); });
}

Checkpointer::~Checkpointer() {
  {
    std::lock_guard lock(state_->mu);
    state_->stop = true;
  }
  state_->wake.notify_one();
  state_->thread.join();
}

std::shared_ptr<Checkpointer> Checkpointer::for_file(const std::string& path) {
  std::lock_guard lock(g_registry_mu);
  std::erase_if(registry(), [](const auto& file) { return file.second.expired(); });
  std::weak_ptr<Checkpointer>& slot = registry()[path];
  if (std::shared_ptr<Checkpointer> live = slot.lock()) return live;
  std::shared_ptr<Checkpointer> made(new Checkpointer(path));
  slot = made;
  return made;
}

void Checkpointer::attach(sqlite3* db) {
  sqlite3_wal_hook(
      db,
      [](void* arg, sqlite3*, const char*, int pages) {
        if (pages < kPages) return SQLITE_OK;
        auto* s = static_cast<State*>(arg);
        {
          std::lock_guard lock(s->mu);
          s->due = true;
        }
        s->wake.notify_one();
        return SQLITE_OK;
      },
      state_.get());
}

std::int64_t Checkpointer::checkpoints() const { return state_->done; }
std::int64_t Checkpointer::truncations() const { return state_->truncated; }

}  // namespace adj::sqlite
