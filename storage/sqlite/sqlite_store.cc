// SqliteStore: opening, games and their states. Turns, submissions and reports are in the
// sqlite_store_*.cc files next to this one.
#include "storage/sqlite/sqlite_store.h"

#include "storage/core/codec.h"
#include "storage/core/messages.h"
#include "storage/sqlite/migrator.h"
#include "storage/sqlite/revision_watch.h"
#include "storage/sqlite/sqlite_throttle_store.h"

namespace adj {

using sqlite::Statement;
using sqlite::Transaction;

namespace {

constexpr const char* kSummaryColumns =
    "SELECT id, name, engine, open_turn, status, created_at FROM games "
    "INDEXED BY games_small_columns";  // not through the row and its scenario (0014)

GameSummary summary_from_row(const Statement& st) {
  GameSummary g;
  g.id = st.column_text(0);
  g.name = st.column_text(1);
  g.engine = st.column_text(2);
  g.turn = st.column_int(3);
  g.status = st.column_text(4);
  g.created_at = st.column_int64(5);
  return g;
}

}  // namespace

Result<std::unique_ptr<SqliteStore>> SqliteStore::open(const std::string& path) {
  ADJ_TRY(auto db, sqlite::Database::open(path));
  ADJ_TRY(auto migrations, sqlite::bundled_migrations());
  auto version = sqlite::migrate(db, migrations);
  if (!version.ok())
    return Status(version.status().code(), path + ": " + version.status().message());
  return std::unique_ptr<SqliteStore>(new SqliteStore(std::move(db), path));
}

SqliteStore::SqliteStore(sqlite::Database db, std::string path)
    : db_(std::move(db)), path_(std::move(path)) {}

SqliteStore::~SqliteStore() = default;

Result<std::shared_ptr<const RevisionMap>> SqliteStore::revisions() {
  if (!watch_) {
    auto w = sqlite::RevisionWatch::open(path_);
    if (!w.ok()) return w.status();
    watch_ = std::move(w).value();
  }
  return watch_->current();
}

Result<std::vector<ThrottleState>> SqliteStore::throttle_states(
    const std::vector<std::string>& keys) {
  if (!throttle_) {
    auto t = SqliteThrottleStore::open(path_);
    if (!t.ok()) return t.status();
    throttle_ = std::move(t).value();
  }
  return throttle_->throttle_states(keys);
}

Status SqliteStore::update_throttle(const std::vector<std::string>& keys,
                                    const std::function<void(std::vector<ThrottleState>&)>& change,
                                    std::int64_t now, std::int64_t forget_before,
                                    std::size_t max_rows) {
  if (!throttle_) {
    auto t = SqliteThrottleStore::open(path_);
    if (!t.ok()) return t.status();
    throttle_ = std::move(t).value();
  }
  return throttle_->update_throttle(keys, change, now, forget_before, max_rows);
}

Result<int> SqliteStore::schema_version() { return sqlite::schema_version(db_); }

Result<int> SqliteStore::open_turn(const std::string& game) {
  ADJ_TRY(auto st,
          db_.prepare("SELECT open_turn FROM games INDEXED BY games_small_columns WHERE id = ?"));
  st.bind_text(1, game);
  ADJ_TRY(bool row, st.step());
  if (!row) return Status::NotFound(no_such_game(game));
  return st.column_int(0);
}

Status SqliteStore::require_game(const std::string& game) {
  auto turn = open_turn(game);
  return turn.ok() ? Status::Ok() : turn.status();
}

Status SqliteStore::create_game(const GameState& initial, const Json& scenario, UnixTime now) {
  const std::string& id = initial.game_id;
  if (id.empty()) return Status::InvalidArgument("create_game: the game id is empty");
  if (initial.turn < 1)
    return Status::InvalidArgument("create_game: game " + id + " starts at turn " +
                                   std::to_string(initial.turn));
  ADJ_TRY(const std::string scenario_text, json_to_text(scenario, "scenario of " + id));
  ADJ_TRY(const std::string state_text, json_to_text(to_json(initial), "state of game " + id));

  ADJ_TRY(auto tx, Transaction::begin(db_));
  {
    ADJ_TRY(auto taken, db_.prepare("SELECT id FROM games WHERE id = ? COLLATE NOCASE"));
    taken.bind_text(1, id);
    ADJ_TRY(bool exists, taken.step());
    if (exists && taken.column_text(0) == id)
      return Status::AlreadyExists("A game with id " + id + " already exists; choose another id.");
    if (exists)
      return Status::AlreadyExists("A game with id " + id +
                                   " already exists: it differs only by "
                                   "case from the existing game " +
                                   taken.column_text(0) +
                                   " (game ids are compared regardless of case); choose another "
                                   "id.");
  }
  ADJ_TRY(auto game,
          db_.prepare("INSERT INTO games(id, name, engine, scenario_json, status, open_turn, "
                      "created_at) VALUES (?, ?, ?, ?, 'open', ?, ?)"));
  game.bind_text(1, id)
      .bind_text(2, initial.name)
      .bind_text(3, initial.engine.name)
      .bind_text(4, scenario_text)
      .bind_int(5, initial.turn)
      .bind_int64(6, now);
  ADJ_RETURN_IF_ERROR(game.run());
  ADJ_TRY(auto state,
          db_.prepare("INSERT INTO turn_states(game_id, turn, state_json) VALUES (?, ?, ?)"));
  state.bind_text(1, id).bind_int(2, initial.turn).bind_text(3, state_text);
  ADJ_RETURN_IF_ERROR(state.run());
  ADJ_RETURN_IF_ERROR(index_open_state(id, initial));
  return tx.commit();
}

Result<std::string> SqliteStore::stored_game_id(const std::string& game) {
  ADJ_TRY(auto st, db_.prepare("SELECT id FROM games WHERE id = ? COLLATE NOCASE"));
  st.bind_text(1, game);
  ADJ_TRY(bool row, st.step());
  if (!row) return Status::NotFound(no_such_game(game));
  return st.column_text(0);
}

Result<std::vector<GameSummary>> SqliteStore::list_games() {
  ADJ_TRY(auto st, db_.prepare(std::string(kSummaryColumns) + " ORDER BY id"));
  std::vector<GameSummary> out;
  for (;;) {
    ADJ_TRY(bool row, st.step());
    if (!row) break;
    out.push_back(summary_from_row(st));
  }
  return out;
}

Result<GameSummary> SqliteStore::game_summary(const std::string& game) {
  ADJ_TRY(auto st, db_.prepare(std::string(kSummaryColumns) + " WHERE id = ?"));
  st.bind_text(1, game);
  ADJ_TRY(bool row, st.step());
  if (!row) return Status::NotFound(no_such_game(game));
  return summary_from_row(st);
}

Result<Json> SqliteStore::scenario(const std::string& game) {
  ADJ_TRY(auto st, db_.prepare("SELECT scenario_json FROM games WHERE id = ?"));
  st.bind_text(1, game);
  ADJ_TRY(bool row, st.step());
  if (!row) return Status::NotFound(no_such_game(game));
  return json_from_text(st.column_text(0), "scenario of game " + game);
}

Result<GameState> SqliteStore::load_state(const std::string& game, std::optional<int> turn) {
  // One statement, so the open turn and its state are read from the same snapshot.
  ADJ_TRY(auto st, db_.prepare("SELECT g.open_turn, s.state_json FROM games g "
                               "LEFT JOIN turn_states s "
                               "ON s.game_id = g.id AND s.turn = coalesce(?1, g.open_turn) "
                               "WHERE g.id = ?2"));
  if (turn) st.bind_int(1, *turn);
  st.bind_text(2, game);
  ADJ_TRY(bool row, st.step());
  if (!row) return Status::NotFound(no_such_game(game));
  const int wanted = turn.value_or(st.column_int(0));
  if (st.column_is_null(1))
    return Status::NotFound("game " + game + " has no state for turn " + std::to_string(wanted));
  auto state = state_from_text(st.column_text(1), game, wanted);
  if (state.ok()) ADJ_RETURN_IF_ERROR(apply_contacts(game, *state));
  return state;
}

Status SqliteStore::apply_contacts(const std::string& game, GameState& state) {
  ADJ_TRY(auto st, db_.prepare("SELECT player, email FROM contacts WHERE game_id = ?"));
  st.bind_text(1, game);
  for (;;) {
    ADJ_TRY(bool row, st.step());
    if (!row) return Status::Ok();
    const std::string player = st.column_text(0);
    for (Player& p : state.players)
      if (p.code == player) p.email = st.column_text(1);
  }
}

}  // namespace adj
