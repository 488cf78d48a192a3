// PgStore: EngineScriptStore over schemas/pg/0006_engine_scripts.sql and 0007. Behaviour, error
// codes and texts are SqliteStore's (storage/sqlite/sqlite_store_engine_scripts.cc).
//
// add_engine_script numbers the version under a lock on the game's row (FOR NO KEY UPDATE), so
// concurrent uploads, in any number of daemons, get distinct versions.
#include <cstdint>

#include "storage/core/messages.h"
#include "storage/core/record_checks.h"
#include "storage/engine_script_limits.h"
#include "storage/postgres/pg_store.h"

namespace adj {

using pg::Param;

namespace {

// Columns 0..6: game_id, version, sha256, created_at, created_by, conformance, from_turn.

EngineScript pg_read_script_row(const pg::Rows& r, int i) {
  EngineScript s;
  s.game = r.text(i, 0);
  s.version = r.int32(i, 1);
  s.sha256 = r.text(i, 2);
  s.created_at = r.int64(i, 3);
  s.created_by = r.text(i, 4);
  s.conformance = r.text(i, 5);
  s.from_turn = static_cast<int>(r.int64(i, 6));
  return s;
}

}  // namespace

Result<int> PgStore::add_engine_script(const EngineScript& s) {
  ADJ_RETURN_IF_ERROR(store_checks::check_engine_script(s.source, s.sha256, s.from_turn));
  ADJ_TRY(auto tx, pg::Transaction::begin(conn_));
  {
    ADJ_TRY(const pg::Rows game,
            conn_.query("SELECT 1 FROM games WHERE id = $1 FOR NO KEY UPDATE", {Param(s.game)}));
    if (game.empty()) return Status::NotFound(no_such_game(s.game));
  }
  {
    ADJ_TRY(const pg::Rows n, conn_.query("SELECT coalesce(max(version), 0) FROM engine_scripts "
                                          "WHERE game_id = $1",
                                          {Param(s.game)}));
    if (n.int32(0, 0) >= kMaxEngineScriptVersions)
      return Status::FailedPrecondition(too_many_script_versions(s.game));
  }
  ADJ_TRY(
      const pg::Rows v,
      conn_.query("INSERT INTO engine_scripts(game_id, version, source, sha256, "
                  "created_at, created_by, conformance, from_turn) "
                  "SELECT $1, coalesce(max(version), 0) + 1, $2, $3, $4, $5, $6, $7 "
                  "FROM engine_scripts WHERE game_id = $1 RETURNING version",
                  {Param(s.game), Param(s.source), Param(s.sha256), Param(s.created_at),
                   Param(s.created_by), Param(s.conformance), Param(std::int64_t{s.from_turn})}));
  ADJ_RETURN_IF_ERROR(tx.commit());
  return v.int32(0, 0);
}

Result<EngineScript> PgStore::engine_script(const std::string& game, int version) {
  ADJ_TRY(const pg::Rows r,
          conn_.query("SELECT s.game_id, s.version, s.sha256, s.created_at, s.created_by, "
                      "s.conformance, s.from_turn, s.source FROM games g "
                      "LEFT JOIN engine_scripts s "
                      "ON s.game_id = g.id AND s.version = $2::bigint WHERE g.id = $1",
                      {Param(game), Param(std::int64_t{version})}));
  if (r.empty()) return Status::NotFound(no_such_game(game));
  if (r.is_null(0, 0))
    return Status::NotFound("game " + game + " has no engine script version " +
                            std::to_string(version));
  EngineScript s = pg_read_script_row(r, 0);
  s.source = r.text(0, 7);
  return s;
}

Result<std::optional<EngineScript>> PgStore::engine_script_for_turn(const std::string& game,
                                                                    int turn) {
  ADJ_TRY(const pg::Rows r,
          conn_.query("SELECT s.game_id, s.version, s.sha256, s.created_at, s.created_by, "
                      "s.conformance, s.from_turn FROM games g LEFT JOIN LATERAL "
                      "(SELECT * FROM engine_scripts e WHERE e.game_id = g.id AND "
                      "e.from_turn <= $2::bigint ORDER BY e.version DESC LIMIT 1) s ON true "
                      "WHERE g.id = $1",
                      {Param(game), Param(std::int64_t{turn})}));
  if (r.empty()) return Status::NotFound(no_such_game(game));
  if (r.is_null(0, 0)) return std::optional<EngineScript>();
  return std::optional<EngineScript>(pg_read_script_row(r, 0));
}

Result<std::vector<EngineScript>> PgStore::engine_script_versions(const std::string& game) {
  ADJ_TRY(const pg::Rows r,
          conn_.query("SELECT s.game_id, s.version, s.sha256, s.created_at, s.created_by, "
                      "s.conformance, s.from_turn FROM games g LEFT JOIN engine_scripts s "
                      "ON s.game_id = g.id WHERE g.id = $1 ORDER BY s.version",
                      {Param(game)}));
  if (r.empty()) return Status::NotFound(no_such_game(game));
  std::vector<EngineScript> out;
  for (int i = 0; i < r.size(); ++i)
    if (!r.is_null(i, 0)) out.push_back(pg_read_script_row(r, i));
  return out;
}

}  // namespace adj
