// SqliteStore: reports and battle records of resolved turns.
#include "storage/core/codec.h"
#include "storage/sqlite/sqlite_store.h"

namespace adj {

using sqlite::Statement;

namespace {

constexpr const char* kBattleColumns =
    "SELECT battle_id, seed, engine, input_json, outcome_json FROM battles ";

Result<BattleRecord> battle_from_row(const Statement& st, const std::string& game, int turn) {
  BattleRecord b;
  b.id = st.column_text(0);
  const std::string where = "battle " + b.id + " of game " + game + " turn " + std::to_string(turn);
  ADJ_TRY(b.seed, seed_from_text(st.column_text(1), where));
  b.engine = st.column_text(2);
  ADJ_TRY(b.input, json_from_text(st.column_text(3), "input of " + where));
  ADJ_TRY(b.outcome, json_from_text(st.column_text(4), "outcome of " + where));
  return b;
}

}  // namespace

Result<ReportRecord> SqliteStore::report(const std::string& game, const std::string& player,
                                         int turn) {
  ADJ_RETURN_IF_ERROR(require_game(game));
  ADJ_TRY(auto st, db_.prepare("SELECT text, json FROM reports "
                               "WHERE game_id = ? AND turn = ? AND player = ?"));
  st.bind_text(1, game).bind_int(2, turn).bind_text(3, player);
  ADJ_TRY(bool row, st.step());
  const std::string where =
      "report of " + player + " for game " + game + " turn " + std::to_string(turn);
  if (!row) return Status::NotFound(where);
  ReportRecord r;
  r.player = player;
  r.turn = turn;
  r.text = st.column_text(0);
  ADJ_TRY(r.json, json_from_text(st.column_text(1), where));
  return r;
}

Result<std::vector<int>> SqliteStore::report_turns(const std::string& game) {
  ADJ_RETURN_IF_ERROR(require_game(game));
  ADJ_TRY(auto st,
          db_.prepare("SELECT DISTINCT turn FROM reports WHERE game_id = ? ORDER BY turn"));
  st.bind_text(1, game);
  std::vector<int> out;
  for (;;) {
    ADJ_TRY(bool row, st.step());
    if (!row) return out;
    out.push_back(st.column_int(0));
  }
}

Result<BattleRecord> SqliteStore::battle(const std::string& game, int turn, const std::string& id) {
  ADJ_RETURN_IF_ERROR(require_game(game));
  ADJ_TRY(auto st, db_.prepare(std::string(kBattleColumns) +
                               "WHERE game_id = ? AND turn = ? AND battle_id = ?"));
  st.bind_text(1, game).bind_int(2, turn).bind_text(3, id);
  ADJ_TRY(bool row, st.step());
  if (!row)
    return Status::NotFound("battle " + id + " of game " + game + " turn " + std::to_string(turn));
  return battle_from_row(st, game, turn);
}

Result<std::vector<BattleRecord>> SqliteStore::battles(const std::string& game, int turn) {
  ADJ_RETURN_IF_ERROR(require_game(game));
  ADJ_TRY(auto st, db_.prepare(std::string(kBattleColumns) +
                               "WHERE game_id = ? AND turn = ? ORDER BY battle_id"));
  st.bind_text(1, game).bind_int(2, turn);
  std::vector<BattleRecord> out;
  for (;;) {
    ADJ_TRY(bool row, st.step());
    if (!row) return out;
    ADJ_TRY(BattleRecord b, battle_from_row(st, game, turn));
    out.push_back(std::move(b));
  }
}

}  // namespace adj
