// SqlStore: reports and battle records of resolved turns (ReportStore).
#include "storage/core/codec.h"
#include "storage/core/sql_store.h"

namespace adj {
namespace {

constexpr const char* kBattleSelect =
    "SELECT battle_id, seed, engine, input_json, outcome_json FROM battles ";

Result<BattleRecord> battle_from_row(const sql::Rows& r, int i, const std::string& game, int turn) {
  BattleRecord b;
  r.read(i, b.id, sql::Skip{}, b.engine);
  const std::string where = "battle " + b.id + " of game " + game + " turn " + std::to_string(turn);
  ADJ_TRY(b.seed, seed_from_text(r.text(i, 1), where));
  ADJ_TRY(b.input, json_from_text(r.text(i, 3), "input of " + where));
  ADJ_TRY(b.outcome, json_from_text(r.text(i, 4), "outcome of " + where));
  return b;
}

}  // namespace

Result<ReportRecord> SqlStore::report(const std::string& game, const std::string& player,
                                      int turn) {
  ADJ_RETURN_IF_ERROR(require_game_row(game));
  ADJ_TRY(const sql::Rows r, session().query("SELECT text, json FROM reports "
                                             "WHERE game_id = ? AND turn = ? AND player = ?",
                                             {game, turn, player}));
  const std::string where =
      "report of " + player + " for game " + game + " turn " + std::to_string(turn);
  if (r.empty()) return Status::NotFound(where);
  ReportRecord rec;
  rec.player = player;
  rec.turn = turn;
  rec.text = r.text(0, 0);
  ADJ_TRY(rec.json, json_from_text(r.text(0, 1), where));
  return rec;
}

Result<std::vector<int>> SqlStore::report_turns(const std::string& game) {
  ADJ_RETURN_IF_ERROR(require_game_row(game));
  ADJ_TRY(const sql::Rows r, session().query("SELECT DISTINCT turn FROM reports WHERE game_id = ? "
                                             "ORDER BY turn",
                                             {game}));
  return sql::map_rows(r, [](const sql::Rows& r, int i) { return r.int32(i, 0); });
}

Result<BattleRecord> SqlStore::battle(const std::string& game, int turn, const std::string& id) {
  ADJ_RETURN_IF_ERROR(require_game_row(game));
  ADJ_TRY(const sql::Rows r, session().query(std::string(kBattleSelect) +
                                                 "WHERE game_id = ? AND turn = ? AND battle_id = ?",
                                             {game, turn, id}));
  if (r.empty())
    return Status::NotFound("battle " + id + " of game " + game + " turn " + std::to_string(turn));
  return battle_from_row(r, 0, game, turn);
}

Result<std::vector<BattleRecord>> SqlStore::battles(const std::string& game, int turn) {
  ADJ_RETURN_IF_ERROR(require_game_row(game));
  ADJ_TRY(const sql::Rows r,
          session().query(std::string(kBattleSelect) + "WHERE game_id = ? AND turn = ? " +
                              "ORDER BY battle_id" + std::string(session().bytewise()),
                          {game, turn}));
  return sql::map_rows(
      r, [&](const sql::Rows& r, int i) { return battle_from_row(r, i, game, turn); });
}

}  // namespace adj
