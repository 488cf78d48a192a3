// EngineScriptStore over SQLite (migrations 0015 and 0017).
#include "storage/core/record_checks.h"
#include "storage/engine_script_limits.h"
#include "storage/sqlite/sqlite_store.h"

namespace adj {

namespace {

using sqlite::Transaction;

// Columns without the source: game_id, version, sha256, created_at, created_by, conformance,
// from_turn.
EngineScript read_script_row(sqlite::Statement& st) {
  EngineScript s;
  s.game = st.column_text(0);
  s.version = st.column_int(1);
  s.sha256 = st.column_text(2);
  s.created_at = st.column_int64(3);
  s.created_by = st.column_text(4);
  s.conformance = st.column_text(5);
  s.from_turn = st.column_int(6);
  return s;
}

constexpr const char* kMeta =
    "game_id, version, sha256, created_at, created_by, conformance, from_turn";

}  // namespace

Result<int> SqliteStore::add_engine_script(const EngineScript& s) {
  ADJ_RETURN_IF_ERROR(store_checks::check_engine_script(s.source, s.sha256, s.from_turn));
  ADJ_TRY(auto tx, Transaction::begin(db_));  // BEGIN IMMEDIATE: versions stay distinct
  ADJ_RETURN_IF_ERROR(require_game(s.game));
  int version = 1;
  {
    ADJ_TRY(auto st, db_.prepare("SELECT coalesce(max(version), 0) + 1 FROM engine_scripts "
                                 "WHERE game_id = ?"));
    st.bind_text(1, s.game);
    ADJ_TRY(bool row, st.step());
    if (row) version = st.column_int(0);
  }
  if (version > kMaxEngineScriptVersions)
    return Status::FailedPrecondition(too_many_script_versions(s.game));
  ADJ_TRY(auto st, db_.prepare("INSERT INTO engine_scripts(game_id, version, source, sha256, "
                               "created_at, created_by, conformance, from_turn) "
                               "VALUES (?, ?, ?, ?, ?, ?, ?, ?)"));
  st.bind_text(1, s.game)
      .bind_int(2, version)
      .bind_text(3, s.source)
      .bind_text(4, s.sha256)
      .bind_int64(5, s.created_at)
      .bind_text(6, s.created_by)
      .bind_text(7, s.conformance)
      .bind_int(8, s.from_turn);
  ADJ_RETURN_IF_ERROR(st.run());
  ADJ_RETURN_IF_ERROR(tx.commit());
  return version;
}

Result<EngineScript> SqliteStore::engine_script(const std::string& game, int version) {
  ADJ_RETURN_IF_ERROR(require_game(game));
  ADJ_TRY(auto st, db_.prepare(std::string("SELECT ") + kMeta +
                               ", source FROM engine_scripts WHERE game_id = ? AND "
                               "version = ?"));
  st.bind_text(1, game).bind_int(2, version);
  ADJ_TRY(bool row, st.step());
  if (!row)
    return Status::NotFound("game " + game + " has no engine script version " +
                            std::to_string(version));
  EngineScript s = read_script_row(st);
  s.source = st.column_text(7);
  return s;
}

Result<std::optional<EngineScript>> SqliteStore::engine_script_for_turn(const std::string& game,
                                                                        int turn) {
  ADJ_RETURN_IF_ERROR(require_game(game));
  ADJ_TRY(auto st, db_.prepare(std::string("SELECT ") + kMeta +
                               " FROM engine_scripts WHERE game_id = ? AND from_turn <= ? "
                               "ORDER BY version DESC LIMIT 1"));
  st.bind_text(1, game).bind_int(2, turn);
  ADJ_TRY(bool row, st.step());
  if (!row) return std::optional<EngineScript>();
  return std::optional<EngineScript>(read_script_row(st));
}

Result<std::vector<EngineScript>> SqliteStore::engine_script_versions(const std::string& game) {
  ADJ_RETURN_IF_ERROR(require_game(game));
  ADJ_TRY(auto st, db_.prepare(std::string("SELECT ") + kMeta +
                               " FROM engine_scripts WHERE game_id = ? ORDER BY version"));
  st.bind_text(1, game);
  std::vector<EngineScript> out;
  for (;;) {
    ADJ_TRY(bool row, st.step());
    if (!row) break;
    out.push_back(read_script_row(st));
  }
  return out;
}

}  // namespace adj
