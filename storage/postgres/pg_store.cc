// PgStore: opening, revision counters and the rows of a turn's commit.
#include "storage/postgres/pg_store.h"

#include "storage/postgres/pg_migrator.h"

namespace adj {

Result<std::unique_ptr<PgStore>> PgStore::open(const std::string& conninfo) {
  ADJ_TRY(auto conn, pg::Connection::open(conninfo));
  ADJ_TRY(auto migrations, pg::bundled_migrations());
  ADJ_RETURN_IF_ERROR(pg::migrate(conn, migrations).status());
  return std::unique_ptr<PgStore>(new PgStore(std::move(conn)));
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
  if (revisions_ && epoch == revisions_epoch_ && now - revisions_read_at_ < kRevisionsFresh)
    return revisions_;
  // Revisions only grow and rows are never deleted, so their sum (the site's revision) changes
  // with every write: one small aggregate tells whether the kept map is still current.
  ADJ_TRY(auto stamp, conn_.query("SELECT coalesce(sum(rev), 0)::bigint FROM revisions"));
  const std::int64_t site = stamp.int64(0, 0);
  if (!revisions_ || site != revision_stamp_) {
    ADJ_TRY(revisions_, read_revisions(session_));
    revision_stamp_ = revisions_->at("*");
  }
  revisions_epoch_ = epoch;
  revisions_read_at_ = now;
  return revisions_;
}

}  // namespace adj
