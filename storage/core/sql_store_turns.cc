// SqlStore: the resolving mark, rollback and the records of resolved turns. Committing a turn is
// each backend's (SQLite's TurnWriter, PostgreSQL's COPY).
//
// Every write that depends on the game's open turn or resolving mark reads the game's row with
// lock_rows() for its whole transaction, so put_submission, the commit and rollback of one game
// are serialised across connections and processes. begin_resolving is one conditional UPDATE.
#include <algorithm>

#include "storage/core/codec.h"
#include "storage/core/sql_store.h"

namespace adj {

Status SqlStore::check_commit_start(const std::string& game, int turn,
                                    std::vector<std::int64_t> submissions) {
  ADJ_TRY(const sql::Rows g, game_rows(game,
                                       "SELECT open_turn FROM " + games_small_columns() +
                                           " WHERE id = ?" + std::string(session().lock_rows()),
                                       {game}));
  const int current = g.int32(0, 0);
  if (turn != current)
    return Status::FailedPrecondition("commit_turn game " + game + ": turn " +
                                      std::to_string(turn) + " is not the open turn (" +
                                      std::to_string(current) + ")");
  // The files resolved must be exactly the turn's current accepted files: one accepted after the
  // run read them would otherwise be acknowledged and never used.
  ADJ_TRY(const sql::Rows cur, session().query("SELECT id FROM submissions WHERE game_id = ? AND "
                                               "turn = ? AND accepted = 1 AND current = 1 "
                                               "ORDER BY id",
                                               {game, turn}));
  std::sort(submissions.begin(), submissions.end());
  if (submissions != sql::map_rows(cur, [](const sql::Rows& r, int i) { return r.int64(i, 0); }))
    return Status::FailedPrecondition(
        "commit_turn game " + game + " turn " + std::to_string(turn) +
        ": the turn's order files changed while it was being resolved; nothing was written");
  return Status::Ok();
}

Status SqlStore::begin_resolving(const std::string& game, int turn, UnixTime now) {
  // One conditional UPDATE: of two runs starting at once exactly one sets the mark; a mark older
  // than the lease (a run that died) is taken over.
  ADJ_TRY(const std::int64_t n,
          session().run("UPDATE games SET resolving_turn = ?2, resolving_since = ?3 "
                        "WHERE id = ?1 AND open_turn = ?2 AND archived_at IS NULL AND "
                        "(resolving_turn IS NULL OR resolving_turn <> open_turn OR "
                        "resolving_since IS NULL OR resolving_since + ?4 <= ?3)",
                        {game, turn, std::int64_t{now}, std::int64_t{resolving_lease_seconds()}}));
  if (n == 1) return Status::Ok();
  // Why not: read after the fact (the row may have changed since; the answer is still true of
  // the moment the UPDATE ran, or a later one).
  ADJ_TRY(const sql::Rows g,
          game_rows(game, "SELECT open_turn, resolving_since, archived_at FROM games WHERE id = ?",
                    {game}));
  if (!g.is_null(0, 2)) return Status::FailedPrecondition(archived_refusal(game, "turn runs"));
  const int current = g.int32(0, 0);
  if (turn != current)
    return Status::FailedPrecondition("game " + game + ": turn " + std::to_string(turn) +
                                      " is not the open turn (" + std::to_string(current) + ")");
  return Status::Unavailable("game " + game + ": turn " + std::to_string(turn) +
                             " is being resolved by another run (since " +
                             std::to_string(g.int64(0, 1)) + ")");
}

Status SqlStore::end_resolving(const std::string& game, int turn) {
  return session().write(
      "UPDATE games SET resolving_turn = NULL, resolving_since = NULL "
      "WHERE id = ? AND resolving_turn = ?",
      {game, turn});
}

Status SqlStore::rollback(const std::string& game, int turn) {
  ADJ_TRY(auto tx, sql::WriteTx::begin(session()));
  ADJ_TRY(const sql::Rows g,
          game_rows(game,
                    "SELECT open_turn FROM games WHERE id = ?" + std::string(session().lock_rows()),
                    {game}));
  const int current = g.int32(0, 0);
  const std::string where = "rollback game " + game + " to turn " + std::to_string(turn) + ": ";
  if (turn < 1 || turn > current)
    return Status::FailedPrecondition(where + "the open turn is " + std::to_string(current));
  ADJ_TRY(
      const sql::Rows has,
      session().query("SELECT 1 FROM turn_states WHERE game_id = ? AND turn = ?", {game, turn}));
  if (has.empty()) return Status::FailedPrecondition(where + "no state is stored for that turn");
  // Children before parents, although ON DELETE CASCADE would also remove battles and reports.
  // A finished game ended with its last resolved turn: removing that turn reopens it.
  static constexpr const char* kDeletes[] = {
      ("UPDATE games SET status = 'open' WHERE id = ?1 AND status = 'finished' AND "
       "?2 < open_turn"),
      "DELETE FROM battles WHERE game_id = ?1 AND turn >= ?2",
      "DELETE FROM reports WHERE game_id = ?1 AND turn >= ?2",
      "DELETE FROM turn_attendance WHERE game_id = ?1 AND turn >= ?2",
      "DELETE FROM turns WHERE game_id = ?1 AND turn >= ?2",
      "DELETE FROM turn_states WHERE game_id = ?1 AND turn > ?2",
      ("UPDATE games SET open_turn = ?2, resolving_turn = NULL, resolving_since = NULL "
       "WHERE id = ?1"),
  };
  ADJ_RETURN_IF_ERROR(mark_bulk_writes(game, true));
  for (const char* sql : kDeletes) ADJ_RETURN_IF_ERROR(session().write(sql, {game, turn}));
  ADJ_RETURN_IF_ERROR(mark_bulk_writes(game, false));
  ADJ_RETURN_IF_ERROR(reindex_open_state(game));
  return tx.commit();
}

Result<Json> SqlStore::turn_record(const std::string& game, int turn) {
  ADJ_RETURN_IF_ERROR(require_game_row(game));
  ADJ_TRY(const sql::Rows r, session().query("SELECT seed, summary_json, ran_at FROM turns "
                                             "WHERE game_id = ? AND turn = ?",
                                             {game, turn}));
  const std::string where = "game " + game + " turn " + std::to_string(turn);
  if (r.empty()) return Status::NotFound(where + " has not been resolved");
  ADJ_TRY(const std::uint64_t seed, seed_from_text(r.text(0, 0), where));
  ADJ_TRY(Json summary, json_from_text(r.text(0, 1), "summary of " + where));
  return Json{{"game", game},
              {"turn", turn},
              {"seed", std::to_string(seed)},
              {"summary", std::move(summary)},
              {"ran_at", r.int64(0, 2)}};
}

Result<UnixTime> SqlStore::turn_ran_at(const std::string& game, int turn) {
  ADJ_TRY(const sql::Rows r,
          session().query("SELECT ran_at FROM turns WHERE game_id = ? AND turn = ?", {game, turn}));
  if (r.empty())
    return Status::NotFound("game " + game + " turn " + std::to_string(turn) +
                            " has not been resolved");
  return UnixTime{r.int64(0, 0)};
}

}  // namespace adj
