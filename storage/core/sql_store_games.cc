// SqlStore: games and their states (GameStore's reads and create_game).
#include <string_view>
#include <unordered_map>

#include "storage/core/codec.h"
#include "storage/core/sql_store.h"

namespace adj {
namespace {

GameSummary summary_from_row(const sql::Rows& r, int i) {
  GameSummary g;
  r.read(i, g.id, g.name, g.engine, g.turn, g.status, g.created_at, g.archived_at);
  return g;
}

std::string taken_message(const std::string& id, const std::string& existing) {
  if (existing == id) return "A game with id " + id + " already exists; choose another id.";
  return "A game with id " + id +
         " already exists: it differs only by case from the existing game " + existing +
         " (game ids are compared regardless of case); choose another id.";
}

}  // namespace

std::string SqlStore::summary_select() {
  return "SELECT id, name, engine, open_turn, status, created_at, archived_at FROM " +
         games_small_columns();
}

Status SqlStore::create_game(const GameState& initial, const Json& scenario, UnixTime now) {
  const std::string& id = initial.game_id;
  if (id.empty()) return Status::InvalidArgument("create_game: the game id is empty");
  if (initial.turn < 1)
    return Status::InvalidArgument("create_game: game " + id + " starts at turn " +
                                   std::to_string(initial.turn));
  ADJ_TRY(const std::string scenario_text, json_to_text(scenario, "scenario of " + id));
  ADJ_TRY(const std::string state_text, json_to_text(to_json(initial), "state of game " + id));

  sql::Session& s = session();
  const std::string taken_sql = "SELECT id FROM games WHERE " + s.nocase_equals("id", "?1");
  ADJ_TRY(auto tx, sql::WriteTx::begin(s));
  ADJ_TRY(const sql::Rows taken, s.query(taken_sql, {id}));
  if (!taken.empty()) return Status::AlreadyExists(taken_message(id, taken.text(0, 0)));
  auto game = s.run(
      "INSERT INTO games(id, name, engine, scenario_json, status, open_turn, created_at) "
      "VALUES (?, ?, ?, ?, 'open', ?, ?)",
      {id, initial.name, initial.engine.name, scenario_text, initial.turn, std::int64_t{now}});
  if (!game.ok() && game.status().code() == StatusCode::kAlreadyExists) {
    // Created by another connection since the check above (PostgreSQL): name it as the check
    // would.
    (void)tx.rollback();
    auto again = s.query(taken_sql, {id});
    if (again.ok() && !again->empty())
      return Status::AlreadyExists(taken_message(id, again->text(0, 0)));
    return game.status();
  }
  if (!game.ok()) return game.status();
  ADJ_RETURN_IF_ERROR(s.write("INSERT INTO turn_states(game_id, turn, state_json) VALUES (?, ?, ?)",
                              {id, initial.turn, state_text}));
  ADJ_RETURN_IF_ERROR(index_open_state(id, initial));
  return tx.commit();
}

Status SqlStore::replace_opening(const GameState& initial, const Json& scenario) {
  const std::string& id = initial.game_id;
  ADJ_TRY(const std::string scenario_text, json_to_text(scenario, "scenario of " + id));
  ADJ_TRY(const std::string state_text, json_to_text(to_json(initial), "state of game " + id));
  sql::Session& s = session();
  ADJ_TRY(auto tx, sql::WriteTx::begin(s));
  ADJ_RETURN_IF_ERROR(require_game_row(id, /*lock=*/true));
  ADJ_TRY(const sql::Rows turn,
          s.query("SELECT open_turn, resolving_turn FROM games WHERE id = ?", {id}));
  ADJ_TRY(const sql::Rows ran, s.query("SELECT count(*) FROM turns WHERE game_id = ?", {id}));
  if (ran.int64(0, 0) > 0 || turn.int32(0, 0) != initial.turn)
    return Status::FailedPrecondition("game " + id +
                                      " has run a turn: its starting position is kept");
  if (!turn.is_null(0, 1) && turn.int32(0, 1) == turn.int32(0, 0))
    return Status::Unavailable("game " + id +
                               " is resolving a turn; its starting position is kept");
  // Rows of the positions the new opening no longer has: their secrets, tokens and addresses.
  std::string keep;
  std::vector<sql::Param> params = {sql::Param(id)};
  for (const Player& p : initial.players) {
    keep += keep.empty() ? "?" : ", ?";
    params.emplace_back(p.code);
  }
  if (!keep.empty())
    for (const char* table : {"player_secrets", "player_token_hashes", "contacts"})
      ADJ_RETURN_IF_ERROR(s.write(std::string("DELETE FROM ") + table +
                                      " WHERE game_id = ? AND player NOT IN (" + keep + ")",
                                  params));
  ADJ_RETURN_IF_ERROR(
      s.write("UPDATE games SET name = ?, engine = ?, scenario_json = ? WHERE id = ?",
              {initial.name, initial.engine.name, scenario_text, id}));
  ADJ_RETURN_IF_ERROR(
      s.write("UPDATE turn_states SET state_json = ? WHERE game_id = ? AND turn = ?",
              {state_text, id, initial.turn}));
  ADJ_RETURN_IF_ERROR(index_open_state(id, initial));
  return tx.commit();
}

Result<std::string> SqlStore::stored_game_id(const std::string& game) {
  ADJ_TRY(
      const sql::Rows r,
      game_rows(game, "SELECT id FROM games WHERE " + session().nocase_equals("id", "?1"), {game}));
  return r.text(0, 0);
}

Result<std::vector<GameSummary>> SqlStore::list_games() {
  ADJ_TRY(
      const sql::Rows r,
      session().query(summary_select() + " ORDER BY id" + std::string(session().bytewise()), {}));
  return sql::map_rows(r, summary_from_row);
}

Result<GameSummary> SqlStore::game_summary(const std::string& game) {
  ADJ_TRY(const sql::Rows r, game_rows(game, summary_select() + " WHERE id = ?", {game}));
  return summary_from_row(r, 0);
}

Result<Json> SqlStore::scenario(const std::string& game) {
  ADJ_TRY(const sql::Rows r,
          game_rows(game, "SELECT scenario_json FROM games WHERE id = ?", {game}));
  return json_from_text(r.text(0, 0), "scenario of game " + game);
}

Result<GameState> SqlStore::load_state(const std::string& game, std::optional<int> turn) {
  // One statement, so the open turn and its state are read from the same snapshot.
  ADJ_TRY(const sql::Rows r, game_rows(game,
                                       "SELECT g.open_turn, s.state_json FROM games g "
                                       "LEFT JOIN turn_states s ON s.game_id = g.id "
                                       "AND s.turn = coalesce(CAST(?1 AS BIGINT), g.open_turn) "
                                       "WHERE g.id = ?2",
                                       {turn, game}));
  const int wanted = turn.value_or(r.int32(0, 0));
  if (r.is_null(0, 1))
    return Status::NotFound("game " + game + " has no state for turn " + std::to_string(wanted));
  auto state = state_from_text(r.text(0, 1), game, wanted);
  if (state.ok()) ADJ_RETURN_IF_ERROR(apply_contacts(game, *state));
  return state;
}

Status SqlStore::apply_contacts(const std::string& game, GameState& state) {
  ADJ_TRY(const sql::Rows r,
          session().query("SELECT player, email FROM contacts WHERE game_id = ?", {game}));
  // By code, not a scan of the players per row: a 10,000-player game's 10,000 contacts made 10^8
  // comparisons, 0.22 s of every load of its state. Codes are unique in a state (scenario.cc).
  std::unordered_map<std::string_view, Player*> by_code;
  by_code.reserve(state.players.size());
  for (Player& p : state.players) by_code.emplace(p.code, &p);
  for (int i = 0; i < r.size(); ++i)
    if (const auto it = by_code.find(r.text(i, 0)); it != by_code.end())
      it->second->email = r.text(i, 1);
  return Status::Ok();
}

}  // namespace adj
