// PgStore: games and their states.
#include "storage/core/codec.h"
#include "storage/core/messages.h"
#include "storage/postgres/pg_store.h"

namespace adj {

namespace {

constexpr const char* kPgSummaryColumns =
    "SELECT id, name, engine, open_turn, status, created_at FROM games";

GameSummary pg_summary_from_row(const pg::Rows& r, int i) {
  GameSummary g;
  g.id = r.text(i, 0);
  g.name = r.text(i, 1);
  g.engine = r.text(i, 2);
  g.turn = r.int32(i, 3);
  g.status = r.text(i, 4);
  g.created_at = r.int64(i, 5);
  return g;
}

std::string taken_message(const std::string& id, const std::string& existing) {
  if (existing == id) return "A game with id " + id + " already exists; choose another id.";
  return "A game with id " + id +
         " already exists: it differs only by case from the existing game " + existing +
         " (game ids are compared regardless of case); choose another id.";
}

}  // namespace

Status PgStore::create_game(const GameState& initial, const Json& scenario, UnixTime now) {
  const std::string& id = initial.game_id;
  if (id.empty()) return Status::InvalidArgument("create_game: the game id is empty");
  if (initial.turn < 1)
    return Status::InvalidArgument("create_game: game " + id + " starts at turn " +
                                   std::to_string(initial.turn));
  ADJ_TRY(const std::string scenario_text, json_to_text(scenario, "scenario of " + id));
  ADJ_TRY(const std::string state_text, json_to_text(to_json(initial), "state of game " + id));

  ADJ_TRY(auto tx, pg::Transaction::begin(conn_));
  const char* kTaken = "SELECT id FROM games WHERE lower(id) = lower($1)";
  ADJ_TRY(auto taken, conn_.query(kTaken, {id}));
  if (!taken.empty()) return Status::AlreadyExists(taken_message(id, taken.text(0, 0)));
  auto game = conn_.query(
      "INSERT INTO games(id, name, engine, scenario_json, status, open_turn, created_at) "
      "VALUES ($1, $2, $3, $4, 'open', $5, $6)",
      {id, initial.name, initial.engine.name, scenario_text, initial.turn, std::int64_t{now}});
  if (!game.ok() && game.status().code() == StatusCode::kAlreadyExists) {
    // Created by another connection since the check above: name it as the check would.
    (void)tx.rollback();
    auto again = conn_.query(kTaken, {id});
    if (again.ok() && !again->empty())
      return Status::AlreadyExists(taken_message(id, again->text(0, 0)));
    return game.status();
  }
  if (!game.ok()) return game.status();
  ADJ_TRY(auto state,
          conn_.query("INSERT INTO turn_states(game_id, turn, state_json) VALUES ($1, $2, $3)",
                      {id, initial.turn, state_text}));
  ADJ_RETURN_IF_ERROR(index_open_state(id, initial));
  return tx.commit();
}

Result<std::string> PgStore::stored_game_id(const std::string& game) {
  ADJ_TRY(auto r, conn_.query("SELECT id FROM games WHERE lower(id) = lower($1)", {game}));
  if (r.empty()) return Status::NotFound(no_such_game(game));
  return r.text(0, 0);
}

Result<std::vector<GameSummary>> PgStore::list_games() {
  // COLLATE "C": by bytes, as SQLite's BINARY order.
  ADJ_TRY(auto r, conn_.query(std::string(kPgSummaryColumns) + " ORDER BY id COLLATE \"C\""));
  std::vector<GameSummary> out;
  out.reserve(r.size());
  for (int i = 0; i < r.size(); ++i) out.push_back(pg_summary_from_row(r, i));
  return out;
}

Result<GameSummary> PgStore::game_summary(const std::string& game) {
  ADJ_TRY(auto r, conn_.query(std::string(kPgSummaryColumns) + " WHERE id = $1", {game}));
  if (r.empty()) return Status::NotFound(no_such_game(game));
  return pg_summary_from_row(r, 0);
}

Result<Json> PgStore::scenario(const std::string& game) {
  ADJ_TRY(auto r, conn_.query("SELECT scenario_json FROM games WHERE id = $1", {game}));
  if (r.empty()) return Status::NotFound(no_such_game(game));
  return json_from_text(r.text(0, 0), "scenario of game " + game);
}

Result<GameState> PgStore::load_state(const std::string& game, std::optional<int> turn) {
  // One statement, so the open turn and its state are read from the same snapshot.
  pg::Param wanted_turn = turn ? pg::Param(*turn) : pg::Param();
  ADJ_TRY(auto r, conn_.query("SELECT g.open_turn, s.state_json FROM games g "
                              "LEFT JOIN turn_states s ON s.game_id = g.id "
                              "AND s.turn = coalesce($1::bigint, g.open_turn) "
                              "WHERE g.id = $2",
                              {wanted_turn, game}));
  if (r.empty()) return Status::NotFound(no_such_game(game));
  const int wanted = turn.value_or(r.int32(0, 0));
  if (r.is_null(0, 1))
    return Status::NotFound("game " + game + " has no state for turn " + std::to_string(wanted));
  auto state = state_from_text(r.text(0, 1), game, wanted);
  if (state.ok()) ADJ_RETURN_IF_ERROR(apply_contacts(game, *state));
  return state;
}

}  // namespace adj
