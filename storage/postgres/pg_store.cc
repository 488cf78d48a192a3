// PgStore: opening, revision counters and the rows of a turn's commit.
#include "storage/postgres/pg_store.h"

#include <map>
#include <mutex>

#include "storage/postgres/pg_migrator.h"

namespace adj {

namespace {
thread_local bool t_refresher = false;
}  // namespace

struct PgStore::SharedRevisions {
  std::mutex mu;
  std::shared_ptr<const RevisionMap> map;  // the fields guarded by mu
  std::uint64_t epoch = 0;                 // pg::write_epoch() before the read
  std::chrono::steady_clock::time_point read_at{};

  // The one of `conninfo` while a store of it is open.
  static std::shared_ptr<SharedRevisions> of(const std::string& conninfo) {
    static std::mutex all_mu;
    static std::map<std::string, std::weak_ptr<SharedRevisions>> all;
    std::lock_guard lock(all_mu);
    std::erase_if(all, [](const auto& e) { return e.second.expired(); });
    std::weak_ptr<SharedRevisions>& slot = all[conninfo];
    auto shared = slot.lock();
    if (!shared) slot = shared = std::make_shared<SharedRevisions>();
    return shared;
  }
};

PgStore::PgStore(pg::Connection c, std::shared_ptr<SharedRevisions> shared)
    : conn_(std::move(c)), shared_(std::move(shared)) {}

void PgStore::set_refresher_thread(bool on) { t_refresher = on; }

Result<std::unique_ptr<PgStore>> PgStore::open(const std::string& conninfo) {
  ADJ_TRY(auto conn, pg::Connection::open(conninfo));
  ADJ_TRY(auto migrations, bundled_migrations(sql::Dialect::kPostgres));
  ADJ_RETURN_IF_ERROR(pg::migrate(conn, migrations).status());
  return std::unique_ptr<PgStore>(new PgStore(std::move(conn), SharedRevisions::of(conninfo)));
}

Result<std::unique_ptr<TurnRows>> PgStore::begin_turn_rows(const std::string& game) {
  ADJ_RETURN_IF_ERROR(session_.write("SELECT set_config('adj.trusted_json', ?, true)", {game}));
  ADJ_RETURN_IF_ERROR(
      conn_.exec("SET CONSTRAINTS battles_game_id_turn_fkey, reports_game_id_turn_fkey DEFERRED"));
  return std::make_unique<TurnRows>();
}

Result<std::shared_ptr<const RevisionMap>> PgStore::revisions() {
  // The epoch first: a read that follows sees every write this process finished before it.
  const std::uint64_t epoch = pg::write_epoch();
  const auto now = std::chrono::steady_clock::now();
  const auto fresh = t_refresher ? kRevisionsFresh / 2 : kRevisionsFresh;
  if (revisions_ && epoch == revisions_epoch_ && now - revisions_read_at_ < fresh)
    return revisions_;
  {
    std::lock_guard lock(shared_->mu);
    if (shared_->map && shared_->epoch == epoch && now - shared_->read_at < fresh) {
      revisions_ = shared_->map;
      revisions_epoch_ = epoch;
      revisions_read_at_ = shared_->read_at;
      return revisions_;
    }
  }
  // Revisions only grow and rows are never deleted, so their sum (the site's revision) changes
  // with every write: one small aggregate tells whether the kept map is still current.
  ADJ_TRY(auto stamp, conn_.query("SELECT coalesce(sum(rev), 0)::bigint FROM revisions"));
  const std::int64_t site = stamp.int64(0, 0);
  if (!revisions_ || site != revisions_->at("*")) {
    ADJ_TRY(revisions_, read_revisions(session_));
  }
  revisions_epoch_ = epoch;
  revisions_read_at_ = now;
  std::lock_guard lock(shared_->mu);
  if (now > shared_->read_at) {
    shared_->map = revisions_;
    shared_->epoch = epoch;
    shared_->read_at = now;
  }
  return revisions_;
}

}  // namespace adj
