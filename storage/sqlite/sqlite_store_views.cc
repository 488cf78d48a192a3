// SqliteStore: the open-state index of migration 0014 (what checking one order file reads) and
// its readers load_view and area_names.
#include <algorithm>

#include "storage/core/codec.h"
#include "storage/core/messages.h"
#include "storage/core/state_text.h"
#include "storage/sqlite/sqlite_store.h"
#include "storage/state_view.h"

namespace adj {

namespace {

// A read transaction, so that the rows of one view come from one snapshot. Does nothing inside a
// transaction already open on the connection.
class ReadSnapshot {
 public:
  explicit ReadSnapshot(sqlite::Database& db) : db_(db) {}
  Status begin() {
    if (db_.in_transaction()) return Status::Ok();
    ADJ_RETURN_IF_ERROR(db_.exec("BEGIN"));
    open_ = true;
    return Status::Ok();
  }
  ~ReadSnapshot() {
    if (open_) (void)db_.exec("ROLLBACK");  // read only: nothing to keep
  }

 private:
  sqlite::Database& db_;
  bool open_ = false;
};

}  // namespace

Status SqliteStore::index_open_state(const std::string& game, const GameState& state,
                                     std::string_view state_text) {
  const std::string where = "open-state index of game " + game;
  // The rows' texts: cut out of the state's text when it is given, else serialised here.
  ADJ_TRY(const OpenStateTexts texts, open_state_texts(state, state_text, where));
  const std::vector<std::string_view>& edge_texts = texts.edges;
  bool same_edges = true;
  {
    ADJ_TRY(auto st, db_.prepare("SELECT a, b, edge_json FROM open_state_edges "
                                 "WHERE game_id = ? ORDER BY a, b"));
    st.bind_text(1, game);
    std::size_t i = 0;
    for (;; ++i) {
      ADJ_TRY(bool row, st.step());
      if (!row) break;
      if (i >= state.edges.size() || st.column_text(0) != state.edges[i].a ||
          st.column_text(1) != state.edges[i].b || st.column_text(2) != edge_texts[i]) {
        same_edges = false;
        break;
      }
    }
    same_edges = same_edges && i == state.edges.size();
  }
  static constexpr const char* kClear[] = {
      "DELETE FROM open_states WHERE game_id = ?",
      "DELETE FROM open_state_players WHERE game_id = ?",
      "DELETE FROM open_state_areas WHERE game_id = ?",
      "DELETE FROM open_state_edges WHERE game_id = ?",
  };
  for (const char* sql : kClear) {
    if (same_edges && sql == kClear[3]) break;
    ADJ_TRY(auto st, db_.prepare(sql));
    st.bind_text(1, game);
    ADJ_RETURN_IF_ERROR(st.run());
  }
  bool repeated = false;
  const auto unless_repeated = [&repeated](Status s) {
    if (s.code() != StatusCode::kAlreadyExists) return s;
    repeated = true;
    return Status::Ok();
  };
  ADJ_TRY(auto pl,
          db_.prepare("INSERT OR ABORT INTO open_state_players(game_id, code, player_json) "
                      "VALUES (?, ?, ?)"));
  for (std::size_t i = 0; i < state.players.size(); ++i) {
    pl.reset();
    pl.bind_text(1, game).bind_text(2, state.players[i].code).bind_text(3, texts.players[i]);
    ADJ_RETURN_IF_ERROR(unless_repeated(pl.run()));
  }
  ADJ_TRY(auto ar,
          db_.prepare("INSERT OR ABORT INTO open_state_areas(game_id, code, name, area_json) "
                      "VALUES (?, ?, ?, ?)"));
  for (std::size_t i = 0; i < state.areas.size(); ++i) {
    const Area& a = state.areas[i];
    ar.reset();
    ar.bind_text(1, game).bind_text(2, a.code).bind_text(3, a.name).bind_text(4, texts.areas[i]);
    ADJ_RETURN_IF_ERROR(unless_repeated(ar.run()));
  }
  // A state with two players or two areas of one code is left unindexed (read whole).
  if (repeated) return Status::Ok();
  ADJ_TRY(auto ed, db_.prepare("INSERT OR IGNORE INTO open_state_edges(game_id, a, b, "
                               "edge_json) VALUES (?, ?, ?, ?)"));
  for (std::size_t i = 0; i < state.edges.size() && !same_edges; ++i) {
    const Edge& e = state.edges[i];
    ed.reset();
    ed.bind_text(1, game).bind_text(2, e.a).bind_text(3, e.b).bind_text(4, edge_texts[i]);
    ADJ_RETURN_IF_ERROR(ed.run());
  }
  ADJ_TRY(std::string head, json_to_text(head_json(state), where));
  ADJ_TRY(auto hd,
          db_.prepare("INSERT INTO open_states(game_id, turn, head_json) VALUES (?, ?, ?)"));
  hd.bind_text(1, game).bind_int(2, state.turn).bind_text(3, head);
  return hd.run();
}

Result<GameState> SqliteStore::load_view(const std::string& game, std::optional<int> turn,
                                         const std::vector<std::string>& players,
                                         const std::vector<std::string>& areas) {
  ReadSnapshot snapshot(db_);
  ADJ_RETURN_IF_ERROR(snapshot.begin());
  ADJ_TRY(auto hd,
          db_.prepare(
              "SELECT g.open_turn, o.turn, o.head_json FROM games g INDEXED BY games_small_columns "
              "LEFT JOIN open_states o ON o.game_id = g.id WHERE g.id = ?"));
  hd.bind_text(1, game);
  ADJ_TRY(bool found, hd.step());
  if (!found) return Status::NotFound(no_such_game(game));
  const int wanted = turn.value_or(hd.column_int(0));
  if (hd.column_is_null(1) || hd.column_int(1) != wanted || hd.column_int(0) != wanted)
    return GameStore::load_view(game, turn, players, areas);  // not indexed: the whole state
  const std::string where = "game " + game + " turn " + std::to_string(wanted);
  ADJ_TRY(Json doc, view_head(hd.column_text(2), where));

  Json area_rows = Json::array(), edge_rows = Json::array(), player_rows = Json::array();
  std::vector<std::string> want_players = players;
  {
    ADJ_TRY(auto ar, db_.prepare("SELECT area_json FROM open_state_areas "
                                 "WHERE game_id = ? AND code = ?"));
    ADJ_TRY(auto ea, db_.prepare("SELECT edge_json FROM open_state_edges "
                                 "WHERE game_id = ? AND a = ?"));
    // Without statistics the planner would scan the game's borders by the primary key.
    ADJ_TRY(auto eb, db_.prepare("SELECT edge_json FROM open_state_edges "
                                 "INDEXED BY open_state_edges_by_b WHERE game_id = ? AND b = ?"));
    std::vector<std::string> want_areas = areas;  // each once, as cut_state keeps them
    std::sort(want_areas.begin(), want_areas.end());
    want_areas.erase(std::unique(want_areas.begin(), want_areas.end()), want_areas.end());
    for (const std::string& code : want_areas) {
      ar.reset();
      ar.bind_text(1, game).bind_text(2, code);
      ADJ_TRY(bool row, ar.step());
      if (!row) continue;
      ADJ_TRY(Json a, json_from_text(ar.column_text(0), "area " + code + " of " + where));
      if (a.is_object() && a.contains("owner") && a["owner"].is_string())
        want_players.push_back(a["owner"].get<std::string>());
      area_rows.push_back(std::move(a));
      for (auto* st : {&ea, &eb}) {
        st->reset();
        st->bind_text(1, game).bind_text(2, code);
        for (;;) {
          ADJ_TRY(bool e, st->step());
          if (!e) break;
          ADJ_TRY(Json ej, json_from_text(st->column_text(0), "border of " + where));
          edge_rows.push_back(std::move(ej));
        }
      }
    }
  }
  std::sort(want_players.begin(), want_players.end());
  want_players.erase(std::unique(want_players.begin(), want_players.end()), want_players.end());
  {
    ADJ_TRY(auto pl, db_.prepare("SELECT player_json FROM open_state_players "
                                 "WHERE game_id = ? AND code = ?"));
    for (const std::string& code : want_players) {
      pl.reset();
      pl.bind_text(1, game).bind_text(2, code);
      ADJ_TRY(bool row, pl.step());
      if (!row) continue;
      ADJ_TRY(Json p, json_from_text(pl.column_text(0), "player " + code + " of " + where));
      player_rows.push_back(std::move(p));
    }
  }
  ADJ_TRY(GameState state,
          view_from_rows(std::move(doc), std::move(player_rows), std::move(area_rows),
                         std::move(edge_rows), game, wanted, where));
  return state;
}

Result<std::vector<Area>> SqliteStore::area_names(const std::string& game,
                                                  std::optional<int> turn) {
  ReadSnapshot snapshot(db_);
  ADJ_RETURN_IF_ERROR(snapshot.begin());
  ADJ_TRY(auto hd,
          db_.prepare("SELECT g.open_turn, o.turn FROM games g INDEXED BY games_small_columns "
                      "LEFT JOIN open_states o ON o.game_id = g.id WHERE g.id = ?"));
  hd.bind_text(1, game);
  ADJ_TRY(bool found, hd.step());
  if (!found) return Status::NotFound(no_such_game(game));
  const int wanted = turn.value_or(hd.column_int(0));
  if (hd.column_is_null(1) || hd.column_int(1) != wanted || hd.column_int(0) != wanted)
    return GameStore::area_names(game, turn);
  ADJ_TRY(auto st, db_.prepare("SELECT code, name FROM open_state_areas WHERE game_id = ? "
                               "ORDER BY code"));
  st.bind_text(1, game);
  std::vector<Area> out;
  for (;;) {
    ADJ_TRY(bool row, st.step());
    if (!row) break;
    Area a;
    a.code = st.column_text(0);
    a.name = st.column_text(1);
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace adj
