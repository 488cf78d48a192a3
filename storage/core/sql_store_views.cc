// SqlStore: what both backends' open-state indexes share (the index and its readers are each
// backend's own: storage/sqlite/sqlite_store_views.cc, storage/postgres/pg_store_views.cc).
#include <algorithm>

#include "storage/core/codec.h"
#include "storage/core/messages.h"
#include "storage/core/sql_store.h"

namespace adj {

Result<GameState> SqlStore::load_view(const std::string& game, std::optional<int> turn,
                                      const std::vector<std::string>& players,
                                      const std::vector<std::string>& areas) {
  ADJ_TRY(const auto snapshot, sql::ReadTx::begin(session()));
  ADJ_TRY(const sql::Rows hd, session().query("SELECT g.open_turn, o.turn, o.head_json FROM " +
                                                  games_small_columns("g") +
                                                  " LEFT JOIN open_states o ON o.game_id = g.id "
                                                  "WHERE g.id = ?",
                                              {game}));
  if (hd.empty()) return Status::NotFound(no_such_game(game));
  const int wanted = turn.value_or(hd.int32(0, 0));
  if (hd.is_null(0, 1) || hd.int32(0, 1) != wanted || hd.int32(0, 0) != wanted)
    return GameStore::load_view(game, turn, players, areas);  // not indexed: the whole state
  const std::string where = "game " + game + " turn " + std::to_string(wanted);
  ADJ_TRY(Json head, view_head(hd.text(0, 2), where));
  std::vector<std::string> want_areas = areas;  // each once, as cut_state keeps them
  std::sort(want_areas.begin(), want_areas.end());
  want_areas.erase(std::unique(want_areas.begin(), want_areas.end()), want_areas.end());
  ADJ_TRY(ViewRows rows, read_view_rows(game, where, want_areas, players));
  return view_from_rows(std::move(head), std::move(rows.players), std::move(rows.areas),
                        std::move(rows.edges), game, wanted, where);
}

Result<std::vector<Area>> SqlStore::area_names(const std::string& game, std::optional<int> turn) {
  ADJ_TRY(const auto snapshot, sql::ReadTx::begin(session()));
  ADJ_TRY(const sql::Rows hd,
          session().query("SELECT g.open_turn, o.turn FROM " + games_small_columns("g") +
                              " LEFT JOIN open_states o ON o.game_id = g.id "
                              "WHERE g.id = ?",
                          {game}));
  if (hd.empty()) return Status::NotFound(no_such_game(game));
  const int wanted = turn.value_or(hd.int32(0, 0));
  if (hd.is_null(0, 1) || hd.int32(0, 1) != wanted || hd.int32(0, 0) != wanted)
    return GameStore::area_names(game, turn);
  // Bytewise, as area_names_of sorts.
  ADJ_TRY(const sql::Rows r, session().query("SELECT code, name FROM open_state_areas WHERE "
                                             "game_id = ? ORDER BY code" +
                                                 std::string(session().bytewise()),
                                             {game}));
  std::vector<Area> out;
  out.reserve(static_cast<std::size_t>(r.size()));
  for (int i = 0; i < r.size(); ++i) {
    Area a;
    a.code = r.text(i, 0);
    a.name = r.text(i, 1);
    out.push_back(std::move(a));
  }
  return out;
}

Status SqlStore::reindex_open_state(const std::string& game) {
  ADJ_TRY(const sql::Rows r,
          session().query("SELECT g.open_turn, s.state_json FROM games g "
                          "JOIN turn_states s ON s.game_id = g.id AND s.turn = g.open_turn "
                          "WHERE g.id = ?",
                          {game}));
  if (r.empty()) return Status::Ok();  // no state for the open turn: nothing to index
  auto state = state_from_text(r.text(0, 1), game, r.int32(0, 0));
  if (!state.ok()) return Status::Ok();  // left unindexed; load_state reports it to readers
  return index_open_state(game, *state);
}

Status SqlStore::rebuild_open_state_index(const std::string& game) {
  ADJ_TRY(auto tx, sql::WriteTx::begin(session()));
  ADJ_RETURN_IF_ERROR(require_game_row(game, /*lock=*/true));
  ADJ_RETURN_IF_ERROR(reindex_open_state(game));
  return tx.commit();
}

Status SqlStore::rebuild_open_state_indexes(const std::vector<std::string>& games) {
  for (const auto& g : games) {
    Status s = rebuild_open_state_index(g);
    if (!s.ok()) return Status(s.code(), "game " + g + ": " + s.message());
  }
  return Status::Ok();
}

Result<Json> SqlStore::view_head(const std::string& text, const std::string& where) {
  ADJ_TRY(Json doc, json_from_text(text, "state head of " + where));
  if (!doc.is_object()) return Status::Corruption("state head of " + where + " is not an object");
  return doc;
}

Result<GameState> SqlStore::view_from_rows(Json head, Json players, Json areas, Json edges,
                                           const std::string& game, int turn,
                                           const std::string& where) {
  head["players"] = std::move(players);
  head["areas"] = std::move(areas);
  head["adjacency"] = std::move(edges);
  Result<GameState> state = state_from_json(head);
  if (!state.ok()) return Status::Corruption(where + ": " + state.status().message());
  if (state->game_id != game || state->turn != turn)
    return Status::Corruption("the open-state index of " + where + " names game " + state->game_id +
                              " turn " + std::to_string(state->turn));
  ADJ_RETURN_IF_ERROR(apply_contacts(game, *state));
  return state;
}

}  // namespace adj
