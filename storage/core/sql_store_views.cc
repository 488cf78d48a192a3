// SqlStore: the open-state index of migration 0014 (what checking one order file reads), its
// writes and the views read from it.
#include <algorithm>
#include <set>
#include <tuple>

#include "storage/core/codec.h"
#include "storage/core/sql_store.h"
#include "storage/core/state_text.h"
#include "storage/state_view.h"

namespace adj {

namespace {

// How many codes one `IN (...)` list of a view's reads holds at the most (both dialects bound
// the number of parameters a statement takes).
constexpr std::size_t kInChunk = 500;

// "?2, ?3, ..." for `n` parameters after the game's ?1.
std::string in_list(std::size_t n) {
  std::string out;
  for (std::size_t i = 0; i < n; ++i) out += (i ? ", ?" : "?") + std::to_string(i + 2);
  return out;
}

// `game` and then codes[from, from + n), as a statement with in_list(n) binds them.
std::vector<sql::Param> in_params(const std::string& game, const std::vector<std::string>& codes,
                                  std::size_t from, std::size_t n) {
  std::vector<sql::Param> ps{sql::Param::ref(game)};
  for (std::size_t i = from; i < from + n; ++i) ps.push_back(sql::Param::ref(codes[i]));
  return ps;
}

// The rows a view reads from the open-state index of `game` (which is current): the areas
// `areas` (sorted, each once) with their borders, and the players `players` plus the owners of
// those areas; `where` names the view in errors.
struct ViewRows {
  Json areas = Json::array();
  Json edges = Json::array();
  Json players = Json::array();
};

Result<ViewRows> read_view_rows(sql::Session& s, const std::string& game, const std::string& where,
                                const std::vector<std::string>& areas,
                                std::vector<std::string> players) {
  ViewRows rows;
  for (std::size_t from = 0; from < areas.size(); from += kInChunk) {
    const std::size_t n = std::min(kInChunk, areas.size() - from);
    const std::vector<sql::Param> ps = in_params(game, areas, from, n);
    const std::string list = in_list(n);
    ADJ_TRY(const sql::Rows ar, s.query("SELECT code, area_json FROM open_state_areas "
                                        "WHERE game_id = ?1 AND code IN (" +
                                            list + ")",
                                        ps));
    for (int i = 0; i < ar.size(); ++i) {
      ADJ_TRY(Json a, json_from_text(ar.text(i, 1), "area " + ar.text(i, 0) + " of " + where));
      if (a.is_object() && a.contains("owner") && a["owner"].is_string())
        players.push_back(a["owner"].get<std::string>());
      rows.areas.push_back(std::move(a));
    }
    // A border between two areas of different chunks comes twice; the state keeps it once.
    // SQLite's planner, without statistics, would scan the game's borders by the primary key.
    const std::string edges_by_b =
        s.dialect() == sql::Dialect::kSqlite ? " INDEXED BY open_state_edges_by_b" : "";
    ADJ_TRY(const sql::Rows ed,
            s.query("SELECT edge_json FROM open_state_edges WHERE game_id = ?1 AND a IN (" + list +
                        ") UNION ALL SELECT edge_json FROM open_state_edges" + edges_by_b +
                        " WHERE game_id = ?1 AND b IN (" + list + ") AND a NOT IN (" + list + ")",
                    ps));
    for (int i = 0; i < ed.size(); ++i) {
      ADJ_TRY(Json e, json_from_text(ed.text(i, 0), "border of " + where));
      rows.edges.push_back(std::move(e));
    }
  }
  std::sort(players.begin(), players.end());
  players.erase(std::unique(players.begin(), players.end()), players.end());
  for (std::size_t from = 0; from < players.size(); from += kInChunk) {
    const std::size_t n = std::min(kInChunk, players.size() - from);
    ADJ_TRY(const sql::Rows pl,
            s.query("SELECT code, player_json FROM open_state_players WHERE game_id = ?1 "
                    "AND code IN (" +
                        in_list(n) + ")",
                    in_params(game, players, from, n)));
    for (int i = 0; i < pl.size(); ++i) {
      ADJ_TRY(Json p, json_from_text(pl.text(i, 1), "player " + pl.text(i, 0) + " of " + where));
      rows.players.push_back(std::move(p));
    }
  }
  return rows;
}

// The open-state index's head of a view, parsed (Corruption naming `where` unless an object).
Result<Json> view_head(const std::string& text, const std::string& where) {
  ADJ_TRY(Json doc, json_from_text(text, "state head of " + where));
  if (!doc.is_object()) return Status::Corruption("state head of " + where + " is not an object");
  return doc;
}

// The state a view reads: the index's head with the rows read for it, checked to be `game`'s at
// `turn` (Corruption naming `where` otherwise).
Result<GameState> view_from_rows(Json head, ViewRows rows, const std::string& game, int turn,
                                 const std::string& where) {
  head["players"] = std::move(rows.players);
  head["areas"] = std::move(rows.areas);
  head["adjacency"] = std::move(rows.edges);
  Result<GameState> state = state_from_json(head);
  if (!state.ok()) return Status::Corruption(where + ": " + state.status().message());
  if (state->game_id != game || state->turn != turn)
    return Status::Corruption("the open-state index of " + where + " names game " + state->game_id +
                              " turn " + std::to_string(state->turn));
  return state;
}

// For index_open_state: the codes of `game`'s indexed areas that are not in `state` or whose
// name or text differs from the new one (the rows to delete), and appends to `write` the
// indices into state.areas of the areas to write (new or changed). Precondition: no two of
// state.areas share a code; `texts` are state's.
Result<std::vector<std::string>> changed_areas(sql::Session& session, const std::string& game,
                                               const GameState& state, const OpenStateTexts& texts,
                                               std::vector<std::size_t>* write) {
  std::vector<std::size_t> order(state.areas.size());  // into state.areas, by code bytewise
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&state](std::size_t x, std::size_t y) {
    return state.areas[x].code < state.areas[y].code;
  });
  const std::string bytewise(session.bytewise());
  ADJ_TRY(const sql::Rows old, session.query("SELECT code, name, area_json FROM open_state_areas "
                                             "WHERE game_id = ? ORDER BY code" +
                                                 bytewise,
                                             {game}));
  std::vector<std::string> gone;  // rows to delete: changed, or not in the new state
  std::size_t k = 0;
  for (int r = 0; r < old.size(); ++r) {
    const std::string code = old.text(r, 0);
    for (; k < order.size() && state.areas[order[k]].code < code; ++k) write->push_back(order[k]);
    if (k < order.size() && state.areas[order[k]].code == code) {
      const std::size_t i = order[k++];
      if (old.text(r, 1) == state.areas[i].name && old.text(r, 2) == texts.areas[i]) continue;
      write->push_back(i);
    }
    gone.push_back(code);
  }
  for (; k < order.size(); ++k) write->push_back(order[k]);
  return gone;
}

}  // namespace

Status SqlStore::index_open_state(const std::string& game, const GameState& state,
                                  std::string_view state_text) {
  const std::string where = "open-state index of game " + game;
  // The rows' texts: cut out of the state's text when it is given, else serialised here.
  ADJ_TRY(const OpenStateTexts texts, open_state_texts(state, state_text, where));
  // Borders seldom change from one turn to the next: their rows are rewritten only when they
  // differ from the new state's (compared row by row, in key order; a border given twice keeps
  // its first row).
  const auto key = [&state](std::size_t i) { return std::tie(state.edges[i].a, state.edges[i].b); };
  std::vector<std::size_t> edges(state.edges.size());  // into state.edges
  for (std::size_t i = 0; i < edges.size(); ++i) edges[i] = i;
  bool same_edges = true;  // sorted, each once (as a normalised state's are)
  for (std::size_t i = 1; i < edges.size() && same_edges; ++i) same_edges = key(i - 1) < key(i);
  if (!same_edges) {
    std::set<std::pair<std::string_view, std::string_view>> seen;
    edges.clear();
    for (std::size_t i = 0; i < state.edges.size(); ++i)
      if (seen.emplace(state.edges[i].a, state.edges[i].b).second) edges.push_back(i);
  }
  if (same_edges) {
    // A border's text names its two areas: equal texts in key order are equal rows.
    const std::string bytewise(session().bytewise());
    ADJ_TRY(const sql::Rows old,
            session().query("SELECT edge_json FROM open_state_edges WHERE game_id = ? ORDER BY a" +
                                bytewise + ", b" + bytewise,
                            {game}));
    same_edges = old.size() == static_cast<int>(edges.size());
    for (int i = 0; same_edges && i < old.size(); ++i)
      same_edges = old.text(i, 0) == texts.edges[static_cast<std::size_t>(i)];
  }
  // A state with two players or two areas of one code is left unindexed (read whole).
  const auto code_twice = [](const auto& items) {
    std::vector<std::string_view> codes;
    for (const auto& x : items) codes.push_back(x.code);
    std::sort(codes.begin(), codes.end());
    return std::adjacent_find(codes.begin(), codes.end()) != codes.end();
  };
  const bool indexed = !code_twice(state.players) && !code_twice(state.areas);
  // Most areas are as they were a turn ago (about two in three in a busy turn): only the rows
  // that differ from the new state's, or that it no longer has, are deleted and written again.
  std::vector<std::size_t> areas;  // into state.areas: the rows to write
  bool some_areas = false;         // only those rows are deleted and written
  if (indexed) {
    ADJ_TRY(std::vector<std::string> gone, changed_areas(session(), game, state, texts, &areas));
    // When most rows changed (a big game's busy turn), one DELETE of them all is cheaper than
    // deleting them code by code: a 10,000-player turn's commit took 150-300 ms longer.
    some_areas = gone.size() * 2 <= state.areas.size();
    if (!some_areas) {
      areas.resize(state.areas.size());
      for (std::size_t i = 0; i < areas.size(); ++i) areas[i] = i;
      gone.clear();
    }
    for (std::size_t from = 0; from < gone.size(); from += kInChunk) {
      const std::size_t n = std::min(kInChunk, gone.size() - from);
      ADJ_RETURN_IF_ERROR(session().write(
          "DELETE FROM open_state_areas WHERE game_id = ?1 AND code IN (" + in_list(n) + ")",
          in_params(game, gone, from, n)));
    }
  }
  for (const char* table :
       {"open_states", "open_state_players", "open_state_areas", "open_state_edges"}) {
    if (some_areas && std::string_view(table) == "open_state_areas") continue;
    if (same_edges && std::string_view(table) == "open_state_edges") break;
    ADJ_RETURN_IF_ERROR(
        session().write("DELETE FROM " + std::string(table) + " WHERE game_id = ?", {game}));
  }
  if (!indexed) return Status::Ok();
  ADJ_TRY(auto pl, session().bulk_insert("open_state_players", "game_id, code, player_json"));
  for (std::size_t i = 0; i < state.players.size(); ++i)
    ADJ_RETURN_IF_ERROR(pl->add({sql::Param::ref(game), sql::Param::ref(state.players[i].code),
                                 sql::Param::ref(texts.players[i])}));
  ADJ_RETURN_IF_ERROR(pl->finish());
  if (!areas.empty()) {
    ADJ_TRY(auto ar, session().bulk_insert("open_state_areas", "game_id, code, name, area_json"));
    for (const std::size_t i : areas)
      ADJ_RETURN_IF_ERROR(
          ar->add({sql::Param::ref(game), sql::Param::ref(state.areas[i].code),
                   sql::Param::ref(state.areas[i].name), sql::Param::ref(texts.areas[i])}));
    ADJ_RETURN_IF_ERROR(ar->finish());
  }
  if (!same_edges) {
    ADJ_TRY(auto ed, session().bulk_insert("open_state_edges", "game_id, a, b, edge_json"));
    for (const std::size_t e : edges)
      ADJ_RETURN_IF_ERROR(
          ed->add({sql::Param::ref(game), sql::Param::ref(state.edges[e].a),
                   sql::Param::ref(state.edges[e].b), sql::Param::ref(texts.edges[e])}));
    ADJ_RETURN_IF_ERROR(ed->finish());
  }
  ADJ_TRY(std::string head, json_to_text(head_json(state), where));
  return session().write("INSERT INTO open_states(game_id, turn, head_json) VALUES (?, ?, ?)",
                         {game, state.turn, head});
}

Result<sql::Rows> SqlStore::indexed_head(const std::string& game, std::optional<int> turn) {
  ADJ_TRY(sql::Rows hd,
          game_rows(game,
                    "SELECT g.open_turn, o.turn, o.head_json FROM " + games_small_columns("g") +
                        " LEFT JOIN open_states o ON o.game_id = g.id "
                        "WHERE g.id = ?",
                    {game}));
  const int wanted = turn.value_or(hd.int32(0, 0));
  if (hd.is_null(0, 1) || hd.int32(0, 1) != wanted || hd.int32(0, 0) != wanted) return sql::Rows();
  return hd;
}

Result<GameState> SqlStore::load_view(const std::string& game, std::optional<int> turn,
                                      const std::vector<std::string>& players,
                                      const std::vector<std::string>& areas) {
  ADJ_TRY(const auto snapshot, sql::ReadTx::begin(session()));
  ADJ_TRY(const sql::Rows hd, indexed_head(game, turn));
  if (hd.empty()) return GameStore::load_view(game, turn, players, areas);  // the whole state
  const int wanted = hd.int32(0, 1);
  const std::string where = "game " + game + " turn " + std::to_string(wanted);
  ADJ_TRY(Json head, view_head(hd.text(0, 2), where));
  std::vector<std::string> want_areas = areas;  // each once, as cut_state keeps them
  std::sort(want_areas.begin(), want_areas.end());
  want_areas.erase(std::unique(want_areas.begin(), want_areas.end()), want_areas.end());
  ADJ_TRY(ViewRows rows, read_view_rows(session(), game, where, want_areas, players));
  ADJ_TRY(GameState state, view_from_rows(std::move(head), std::move(rows), game, wanted, where));
  ADJ_RETURN_IF_ERROR(apply_contacts(game, state));
  return state;
}

Result<std::vector<Area>> SqlStore::area_names(const std::string& game, std::optional<int> turn) {
  ADJ_TRY(const auto snapshot, sql::ReadTx::begin(session()));
  ADJ_TRY(const sql::Rows hd, indexed_head(game, turn));
  if (hd.empty()) return GameStore::area_names(game, turn);
  // Bytewise, as area_names_of sorts.
  ADJ_TRY(const sql::Rows r, session().query("SELECT code, name FROM open_state_areas WHERE "
                                             "game_id = ? ORDER BY code" +
                                                 std::string(session().bytewise()),
                                             {game}));
  return sql::map_rows(r, [](const sql::Rows& r, int i) {
    Area a;
    r.read(i, a.code, a.name);
    return a;
  });
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

}  // namespace adj
