// PgStore: the open-state index of migration 0014 (what checking one order file reads) and its
// the rows its views read (SqlStore::load_view and area_names are shared). Same rows as
// SqliteStore's (storage/sqlite/ sqlite_store_views.cc), so `adjutant copy` moves them either way.
#include <algorithm>
#include <set>
#include <tuple>

#include "storage/core/codec.h"
#include "storage/core/state_text.h"
#include "storage/postgres/pg_copy_in.h"
#include "storage/postgres/pg_store.h"
#include "storage/state_view.h"

namespace adj {

namespace {

// A PostgreSQL text[] literal of `items`, each quoted.
std::string text_array(const std::vector<std::string>& items) {
  std::string out = "{";
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out += ',';
    out += '"';
    for (char ch : items[i]) {
      if (ch == '"' || ch == '\\') out += '\\';
      out += ch;
    }
    out += '"';
  }
  out += '}';
  return out;
}

std::vector<std::string> sorted_unique(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

}  // namespace

Status PgStore::index_open_state(const std::string& game, const GameState& state,
                                 std::string_view state_text) {
  const std::string where = "open-state index of game " + game;
  // The rows' texts: cut out of the state's text when it is given, else serialised here.
  ADJ_TRY(const OpenStateTexts texts, open_state_texts(state, state_text, where));
  // Borders seldom change from one turn to the next: their rows are rewritten only when they
  // differ from the new state's (compared row by row, in key order; a border given twice keeps
  // its first row, as SQLite's INSERT OR IGNORE).
  std::vector<const Edge*> edges;
  std::vector<std::string_view> edge_texts;
  {
    std::set<std::pair<std::string_view, std::string_view>> seen;
    for (std::size_t i = 0; i < state.edges.size(); ++i) {
      const Edge& e = state.edges[i];
      if (!seen.emplace(e.a, e.b).second) continue;
      edges.push_back(&e);
      edge_texts.push_back(texts.edges[i]);
    }
  }
  bool same_edges = std::is_sorted(edges.begin(), edges.end(), [](const Edge* x, const Edge* y) {
    return std::tie(x->a, x->b) < std::tie(y->a, y->b);
  });
  if (same_edges) {
    ADJ_TRY(auto old, conn_.query("SELECT a, b, edge_json FROM open_state_edges "
                                  "WHERE game_id = $1 ORDER BY a COLLATE \"C\", b COLLATE \"C\"",
                                  {game}));
    same_edges = old.size() == static_cast<int>(edges.size());
    for (int i = 0; same_edges && i < old.size(); ++i)
      same_edges = old.text(i, 0) == edges[i]->a && old.text(i, 1) == edges[i]->b &&
                   old.text(i, 2) == edge_texts[i];
  }
  static constexpr const char* kClear[] = {
      "DELETE FROM open_states WHERE game_id = $1",
      "DELETE FROM open_state_players WHERE game_id = $1",
      "DELETE FROM open_state_areas WHERE game_id = $1",
      "DELETE FROM open_state_edges WHERE game_id = $1",
  };
  for (const char* sql : kClear) {
    if (same_edges && sql == kClear[3]) break;
    ADJ_TRY(auto r, conn_.query(sql, {game}));
  }
  // A state with two players or two areas of one code is left unindexed (read whole), as on
  // SQLite; checked here because a duplicate key would abort the COPY and the transaction.
  {
    std::set<std::string_view> seen;
    for (const Player& p : state.players)
      if (!seen.insert(p.code).second) return Status::Ok();
    seen.clear();
    for (const Area& a : state.areas)
      if (!seen.insert(a.code).second) return Status::Ok();
  }
  pg::CopyIn pl(conn_, "COPY open_state_players(game_id, code, player_json) FROM STDIN");
  ADJ_RETURN_IF_ERROR(pl.start());
  for (std::size_t i = 0; i < state.players.size(); ++i) {
    pl.field(game);
    pl.field(state.players[i].code);
    pl.field(texts.players[i]);
    ADJ_RETURN_IF_ERROR(pl.end_row());
  }
  ADJ_RETURN_IF_ERROR(pl.finish());
  pg::CopyIn ar(conn_, "COPY open_state_areas(game_id, code, name, area_json) FROM STDIN");
  ADJ_RETURN_IF_ERROR(ar.start());
  for (std::size_t i = 0; i < state.areas.size(); ++i) {
    ar.field(game);
    ar.field(state.areas[i].code);
    ar.field(state.areas[i].name);
    ar.field(texts.areas[i]);
    ADJ_RETURN_IF_ERROR(ar.end_row());
  }
  ADJ_RETURN_IF_ERROR(ar.finish());
  if (!same_edges) {
    pg::CopyIn ed(conn_, "COPY open_state_edges(game_id, a, b, edge_json) FROM STDIN");
    ADJ_RETURN_IF_ERROR(ed.start());
    for (std::size_t i = 0; i < edges.size(); ++i) {
      ed.field(game);
      ed.field(edges[i]->a);
      ed.field(edges[i]->b);
      ed.field(edge_texts[i]);
      ADJ_RETURN_IF_ERROR(ed.end_row());
    }
    ADJ_RETURN_IF_ERROR(ed.finish());
  }
  ADJ_TRY(std::string head, json_to_text(head_json(state), where));
  ADJ_TRY(auto hd, conn_.query("INSERT INTO open_states(game_id, turn, head_json) "
                               "VALUES ($1, $2, $3)",
                               {game, state.turn, head}));
  return Status::Ok();
}

Result<SqlStore::ViewRows> PgStore::read_view_rows(const std::string& game,
                                                   const std::string& where,
                                                   const std::vector<std::string>& areas,
                                                   std::vector<std::string> players) {
  ViewRows rows;
  if (!areas.empty()) {
    const std::string codes = text_array(areas);
    ADJ_TRY(auto ar, conn_.query("SELECT code, area_json FROM open_state_areas "
                                 "WHERE game_id = $1 AND code = ANY($2::text[])",
                                 {game, codes}));
    for (int i = 0; i < ar.size(); ++i) {
      ADJ_TRY(Json a, json_from_text(ar.text(i, 1), "area " + ar.text(i, 0) + " of " + where));
      if (a.is_object() && a.contains("owner") && a["owner"].is_string())
        players.push_back(a["owner"].get<std::string>());
      rows.areas.push_back(std::move(a));
    }
    ADJ_TRY(auto ed, conn_.query("SELECT edge_json FROM open_state_edges "
                                 "WHERE game_id = $1 AND a = ANY($2::text[]) "
                                 "UNION ALL SELECT edge_json FROM open_state_edges "
                                 "WHERE game_id = $1 AND b = ANY($2::text[]) "
                                 "AND NOT a = ANY($2::text[])",
                                 {game, codes}));
    for (int i = 0; i < ed.size(); ++i) {
      ADJ_TRY(Json e, json_from_text(ed.text(i, 0), "border of " + where));
      rows.edges.push_back(std::move(e));
    }
  }
  players = sorted_unique(std::move(players));
  if (!players.empty()) {
    ADJ_TRY(auto pl, conn_.query("SELECT code, player_json FROM open_state_players "
                                 "WHERE game_id = $1 AND code = ANY($2::text[])",
                                 {game, text_array(players)}));
    for (int i = 0; i < pl.size(); ++i) {
      ADJ_TRY(Json p, json_from_text(pl.text(i, 1), "player " + pl.text(i, 0) + " of " + where));
      rows.players.push_back(std::move(p));
    }
  }
  return rows;
}

}  // namespace adj
