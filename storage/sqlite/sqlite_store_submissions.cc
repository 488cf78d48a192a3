// SqliteStore: order submissions.
#include "storage/core/codec.h"
#include "storage/core/messages.h"
#include "storage/sqlite/sqlite_store.h"

namespace adj {

using sqlite::Statement;
using sqlite::Transaction;

namespace {

constexpr const char* kSubmissionColumns =
    "SELECT id, game_id, player, turn, source, received_at, raw_text, ack_json, accepted, current "
    "FROM submissions ";

Result<SubmissionRecord> submission_from_row(const Statement& st) {
  SubmissionRecord r;
  r.id = st.column_int64(0);
  r.game = st.column_text(1);
  r.player = st.column_text(2);
  r.turn = st.column_int(3);
  r.source = st.column_text(4);
  r.received_at = st.column_int64(5);
  r.raw_text = st.column_text(6);
  ADJ_TRY(r.ack, json_from_text(st.column_text(7),
                                "acknowledgement of submission " + std::to_string(r.id)));
  r.accepted = st.column_int(8) != 0;
  r.current = st.column_int(9) != 0;
  return r;
}

Result<std::vector<SubmissionRecord>> collect(Statement& st) {
  std::vector<SubmissionRecord> out;
  for (;;) {
    ADJ_TRY(bool row, st.step());
    if (!row) return out;
    ADJ_TRY(SubmissionRecord r, submission_from_row(st));
    out.push_back(std::move(r));
  }
}

}  // namespace

Result<std::int64_t> SqliteStore::put_submission(const SubmissionRecord& record) {
  if (record.turn < 1)
    return Status::InvalidArgument("put_submission: turn " + std::to_string(record.turn));
  ADJ_TRY(const std::string ack, json_to_text(record.ack, "submission acknowledgement"));

  ADJ_TRY(auto tx, Transaction::begin(db_));
  {
    // The turn the file was checked against must still be open, and not being resolved: a run
    // that has read the turn's files would never see this one.
    ADJ_TRY(auto turn, db_.prepare("SELECT open_turn, resolving_turn, resolving_since "
                                   "FROM games INDEXED BY games_small_columns WHERE id = ?"));
    turn.bind_text(1, record.game);
    ADJ_TRY(bool row, turn.step());
    if (!row) return Status::NotFound(no_such_game(record.game));
    const int open = turn.column_int(0);
    const std::string which = "turn " + std::to_string(record.turn) + " of game " + record.game;
    if (open != record.turn)
      return Status::FailedPrecondition(which + " is not open any more (the open turn is " +
                                        std::to_string(open) + "); nothing was stored");
    if (!turn.column_is_null(1) && turn.column_int(1) == open &&
        turn.column_int64(2) + resolving_lease_seconds() > record.received_at)
      return Status::Unavailable(
          which +
          " is being resolved right now; nothing was stored. Send the file again in a "
          "few minutes: it will then be checked against the next turn");
  }
  if (record.accepted) {
    ADJ_TRY(auto demote, db_.prepare("UPDATE submissions SET current = 0 WHERE game_id = ? "
                                     "AND turn = ? AND player = ? AND current = 1"));
    demote.bind_text(1, record.game).bind_int(2, record.turn).bind_text(3, record.player);
    ADJ_RETURN_IF_ERROR(demote.run());
  }
  ADJ_TRY(auto insert,
          db_.prepare("INSERT INTO submissions(game_id, player, turn, source, received_at, "
                      "raw_text, ack_json, accepted, current) "
                      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"));
  insert.bind_text(1, record.game)
      .bind_text(2, record.player)
      .bind_int(3, record.turn)
      .bind_text(4, record.source)
      .bind_int64(5, record.received_at)
      .bind_text(6, record.raw_text)
      .bind_text(7, ack)
      .bind_int(8, record.accepted ? 1 : 0)
      .bind_int(9, record.accepted ? 1 : 0);
  ADJ_RETURN_IF_ERROR(insert.run());
  const std::int64_t id = db_.last_insert_rowid();
  ADJ_RETURN_IF_ERROR(tx.commit());
  return id;
}

Result<std::vector<SubmissionRecord>> SqliteStore::current_submissions(const std::string& game,
                                                                       int turn) {
  ADJ_RETURN_IF_ERROR(require_game(game));
  ADJ_TRY(auto st, db_.prepare(std::string(kSubmissionColumns) +
                               "WHERE game_id = ? AND turn = ? AND accepted = 1 AND current = 1 "
                               "ORDER BY player"));
  st.bind_text(1, game).bind_int(2, turn);
  return collect(st);
}

Result<std::vector<SubmissionRecord>> SqliteStore::all_submissions(const std::string& game) {
  ADJ_RETURN_IF_ERROR(require_game(game));
  ADJ_TRY(auto st, db_.prepare(std::string(kSubmissionColumns) + "WHERE game_id = ? ORDER BY id"));
  st.bind_text(1, game);
  return collect(st);
}

}  // namespace adj
