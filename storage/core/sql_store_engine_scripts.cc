// SqlStore: EngineScriptStore (SQLite migrations 0015 and 0017; PostgreSQL 0006 and 0007).
//
// add_engine_script numbers the version under a lock on the game's row, so concurrent uploads,
// in any number of daemons, get distinct versions.
#include "storage/core/sql_store.h"
#include "storage/engine_script_limits.h"

namespace adj {
namespace {

constexpr const char* kScriptMeta =
    "s.game_id, s.version, s.sha256, s.created_at, s.created_by, s.conformance, s.from_turn";

// Columns 0..6 as kScriptMeta.
EngineScript read_script_row(const sql::Rows& r, int i) {
  EngineScript s;
  r.read(i, s.game, s.version, s.sha256, s.created_at, s.created_by, s.conformance, s.from_turn);
  return s;
}

// EngineScriptStore::add_engine_script: Ok, or InvalidArgument naming what is wrong (an empty
// source, a sha256 that is not 64 lowercase hex digits, a first turn below 1).
Status check_engine_script(const std::string& source, const std::string& sha256, int from_turn) {
  if (source.empty()) return Status::InvalidArgument("an engine script cannot be empty");
  if (sha256.size() != 64 || sha256.find_first_not_of("0123456789abcdef") != std::string::npos)
    return Status::InvalidArgument("an engine script's sha256 must be 64 lowercase hex digits");
  if (from_turn < 1)
    return Status::InvalidArgument("an engine script's first turn must be 1 or later, not " +
                                   std::to_string(from_turn));
  return Status::Ok();
}

}  // namespace

Result<int> SqlStore::add_engine_script(const EngineScript& s) {
  ADJ_RETURN_IF_ERROR(check_engine_script(s.source, s.sha256, s.from_turn));
  ADJ_TRY(auto tx, sql::WriteTx::begin(session()));
  ADJ_RETURN_IF_ERROR(require_game_row(s.game, /*lock=*/true));
  ADJ_TRY(const sql::Rows n, session().query("SELECT coalesce(max(version), 0) + 1 "
                                             "FROM engine_scripts WHERE game_id = ?",
                                             {s.game}));
  const int version = n.int32(0, 0);
  if (version > kMaxEngineScriptVersions)
    return Status::FailedPrecondition(too_many_script_versions(s.game));
  ADJ_RETURN_IF_ERROR(
      session().write("INSERT INTO engine_scripts(game_id, version, source, sha256, "
                      "created_at, created_by, conformance, from_turn) "
                      "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                      {s.game, version, s.source, s.sha256, std::int64_t{s.created_at},
                       s.created_by, s.conformance, s.from_turn}));
  ADJ_RETURN_IF_ERROR(tx.commit());
  return version;
}

Result<EngineScript> SqlStore::engine_script(const std::string& game, int version) {
  ADJ_TRY(const sql::Rows r, game_rows(game,
                                       std::string("SELECT ") + kScriptMeta +
                                           ", s.source FROM games g LEFT JOIN engine_scripts s "
                                           "ON s.game_id = g.id AND s.version = ? WHERE g.id = ?",
                                       {version, game}));
  if (r.is_null(0, 0))
    return Status::NotFound("game " + game + " has no engine script version " +
                            std::to_string(version));
  EngineScript s = read_script_row(r, 0);
  s.source = r.text(0, 7);
  return s;
}

Result<std::optional<EngineScript>> SqlStore::engine_script_for_turn(const std::string& game,
                                                                     int turn) {
  ADJ_RETURN_IF_ERROR(require_game_row(game));
  ADJ_TRY(const sql::Rows r,
          session().query(std::string("SELECT ") + kScriptMeta +
                              " FROM engine_scripts s WHERE s.game_id = ? AND s.from_turn <= ? "
                              "ORDER BY s.version DESC LIMIT 1",
                          {game, turn}));
  if (r.empty()) return std::optional<EngineScript>();
  return std::optional<EngineScript>(read_script_row(r, 0));
}

Result<std::vector<EngineScript>> SqlStore::engine_script_versions(const std::string& game) {
  ADJ_TRY(const sql::Rows r,
          game_rows(game,
                    std::string("SELECT ") + kScriptMeta +
                        " FROM games g LEFT JOIN engine_scripts s ON s.game_id = g.id "
                        "WHERE g.id = ? ORDER BY s.version",
                    {game}));
  std::vector<EngineScript> out;
  for (int i = 0; i < r.size(); ++i)
    if (!r.is_null(i, 0)) out.push_back(read_script_row(r, i));
  return out;
}

}  // namespace adj
