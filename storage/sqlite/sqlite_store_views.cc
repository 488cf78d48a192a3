// SqliteStore: the open-state index of migration 0014 (what checking one order file reads) and
// the rows its views read (SqlStore::load_view and area_names are shared).
#include <algorithm>

#include "storage/core/codec.h"
#include "storage/core/state_text.h"
#include "storage/sqlite/sqlite_store.h"
#include "storage/state_view.h"

namespace adj {

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

Result<SqlStore::ViewRows> SqliteStore::read_view_rows(const std::string& game,
                                                       const std::string& where,
                                                       const std::vector<std::string>& areas,
                                                       std::vector<std::string> players) {
  ViewRows rows;
  {
    ADJ_TRY(auto ar, db_.prepare("SELECT area_json FROM open_state_areas "
                                 "WHERE game_id = ? AND code = ?"));
    ADJ_TRY(auto ea, db_.prepare("SELECT edge_json FROM open_state_edges "
                                 "WHERE game_id = ? AND a = ?"));
    // Without statistics the planner would scan the game's borders by the primary key.
    ADJ_TRY(auto eb, db_.prepare("SELECT edge_json FROM open_state_edges "
                                 "INDEXED BY open_state_edges_by_b WHERE game_id = ? AND b = ?"));
    for (const std::string& code : areas) {
      ar.reset();
      ar.bind_text(1, game).bind_text(2, code);
      ADJ_TRY(bool row, ar.step());
      if (!row) continue;
      ADJ_TRY(Json a, json_from_text(ar.column_text(0), "area " + code + " of " + where));
      if (a.is_object() && a.contains("owner") && a["owner"].is_string())
        players.push_back(a["owner"].get<std::string>());
      rows.areas.push_back(std::move(a));
      for (auto* st : {&ea, &eb}) {
        st->reset();
        st->bind_text(1, game).bind_text(2, code);
        for (;;) {
          ADJ_TRY(bool e, st->step());
          if (!e) break;
          ADJ_TRY(Json ej, json_from_text(st->column_text(0), "border of " + where));
          rows.edges.push_back(std::move(ej));
        }
      }
    }
  }
  std::sort(players.begin(), players.end());
  players.erase(std::unique(players.begin(), players.end()), players.end());
  ADJ_TRY(auto pl, db_.prepare("SELECT player_json FROM open_state_players "
                               "WHERE game_id = ? AND code = ?"));
  for (const std::string& code : players) {
    pl.reset();
    pl.bind_text(1, game).bind_text(2, code);
    ADJ_TRY(bool row, pl.step());
    if (!row) continue;
    ADJ_TRY(Json p, json_from_text(pl.column_text(0), "player " + code + " of " + where));
    rows.players.push_back(std::move(p));
  }
  return rows;
}

}  // namespace adj
