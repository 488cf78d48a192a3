// PgStore: reports and battle records of resolved turns.
#include "storage/core/codec.h"
#include "storage/postgres/pg_store.h"

namespace adj {

namespace {

constexpr const char* kPgBattleColumns =
    "SELECT battle_id, seed, engine, input_json, outcome_json FROM battles ";

Result<BattleRecord> pg_battle_from_row(const pg::Rows& r, int i, const std::string& game,
                                        int turn) {
  BattleRecord b;
  b.id = r.text(i, 0);
  const std::string where = "battle " + b.id + " of game " + game + " turn " + std::to_string(turn);
  ADJ_TRY(b.seed, seed_from_text(r.text(i, 1), where));
  b.engine = r.text(i, 2);
  ADJ_TRY(b.input, json_from_text(r.text(i, 3), "input of " + where));
  ADJ_TRY(b.outcome, json_from_text(r.text(i, 4), "outcome of " + where));
  return b;
}

}  // namespace

Result<ReportRecord> PgStore::report(const std::string& game, const std::string& player, int turn) {
  ADJ_RETURN_IF_ERROR(require_game(game));
  ADJ_TRY(auto r, conn_.query("SELECT text, json FROM reports "
                              "WHERE game_id = $1 AND turn = $2 AND player = $3",
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

Result<std::vector<int>> PgStore::report_turns(const std::string& game) {
  ADJ_RETURN_IF_ERROR(require_game(game));
  ADJ_TRY(auto r, conn_.query("SELECT DISTINCT turn FROM reports WHERE game_id = $1 "
                              "ORDER BY turn",
                              {game}));
  std::vector<int> out;
  for (int i = 0; i < r.size(); ++i) out.push_back(r.int32(i, 0));
  return out;
}

Result<BattleRecord> PgStore::battle(const std::string& game, int turn, const std::string& id) {
  ADJ_RETURN_IF_ERROR(require_game(game));
  ADJ_TRY(auto r, conn_.query(std::string(kPgBattleColumns) +
                                  "WHERE game_id = $1 AND turn = $2 AND battle_id = $3",
                              {game, turn, id}));
  if (r.empty())
    return Status::NotFound("battle " + id + " of game " + game + " turn " + std::to_string(turn));
  return pg_battle_from_row(r, 0, game, turn);
}

Result<std::vector<BattleRecord>> PgStore::battles(const std::string& game, int turn) {
  ADJ_RETURN_IF_ERROR(require_game(game));
  ADJ_TRY(auto r, conn_.query(std::string(kPgBattleColumns) + "WHERE game_id = $1 AND turn = $2 "
                                                              "ORDER BY battle_id COLLATE \"C\"",
                              {game, turn}));
  std::vector<BattleRecord> out;
  out.reserve(r.size());
  for (int i = 0; i < r.size(); ++i) {
    ADJ_TRY(BattleRecord b, pg_battle_from_row(r, i, game, turn));
    out.push_back(std::move(b));
  }
  return out;
}

}  // namespace adj
