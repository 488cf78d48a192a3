// PgStore: opening, the schema version, revision counters and the helpers every part uses.
#include "storage/postgres/pg_store.h"

#include "storage/core/messages.h"
#include "storage/postgres/pg_migrator.h"

namespace adj {

Result<std::unique_ptr<PgStore>> PgStore::open(const std::string& conninfo) {
  ADJ_TRY(auto conn, pg::Connection::open(conninfo));
  ADJ_TRY(auto migrations, pg::bundled_migrations());
  auto version = pg::migrate(conn, migrations);
  if (!version.ok()) return version.status();
  return std::unique_ptr<PgStore>(new PgStore(std::move(conn)));
}

Result<int> PgStore::schema_version() { return pg::schema_version(conn_); }

Result<std::shared_ptr<const RevisionMap>> PgStore::revisions() {
  // Revisions only grow and rows are never deleted, so their sum (the site's revision) changes
  // with every write: one small aggregate tells whether the kept map is still current.
  ADJ_TRY(auto stamp, conn_.query("SELECT coalesce(sum(rev), 0)::bigint FROM revisions"));
  const std::int64_t site = stamp.int64(0, 0);
  if (revisions_ && site == revision_stamp_) return revisions_;
  ADJ_TRY(auto rows, conn_.query("SELECT scope, rev FROM revisions"));
  auto map = std::make_shared<RevisionMap>();
  std::int64_t sum = 0;
  for (int i = 0; i < rows.size(); ++i) {
    (*map)[rows.text(i, 0)] = rows.int64(i, 1);
    sum += rows.int64(i, 1);
  }
  (*map)["*"] = sum;
  revision_stamp_ = sum;
  revisions_ = std::move(map);
  return revisions_;
}

Result<int> PgStore::open_turn(const std::string& game) {
  ADJ_TRY(auto r, conn_.query("SELECT open_turn FROM games WHERE id = $1", {game}));
  if (r.empty()) return Status::NotFound(no_such_game(game));
  return r.int32(0, 0);
}

Status PgStore::require_game(const std::string& game) {
  auto turn = open_turn(game);
  return turn.ok() ? Status::Ok() : turn.status();
}

Status PgStore::apply_contacts(const std::string& game, GameState& state) {
  auto r = conn_.query("SELECT player, email FROM contacts WHERE game_id = $1", {game});
  // A schema without the contacts table (migration 0003_mail not bundled) has no contacts. Never
  // inside a transaction (load_state reads outside one), so the failed statement aborts nothing.
  if (!r.ok() && r.status().message().find("(SQLSTATE 42P01)") != std::string::npos)
    return Status::Ok();
  if (!r.ok()) return r.status();
  for (int i = 0; i < r->size(); ++i) {
    const std::string player = r->text(i, 0);
    for (Player& p : state.players)
      if (p.code == player) p.email = r->text(i, 1);
  }
  return Status::Ok();
}

}  // namespace adj
