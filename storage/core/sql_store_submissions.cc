// SqlStore: order submissions (SubmissionStore).
#include "storage/core/codec.h"
#include "storage/core/sql_store.h"

namespace adj {
namespace {

constexpr const char* kSubmissionSelect =
    "SELECT id, game_id, player, turn, source, received_at, raw_text, ack_json, accepted, current "
    "FROM submissions ";

Result<SubmissionRecord> submission_from_row(const sql::Rows& rows, int i) {
  SubmissionRecord r;
  rows.read(i, r.id, r.game, r.player, r.turn, r.source, r.received_at, sql::Skip{}, sql::Skip{},
            r.accepted, r.current);
  const std::vector<std::uint8_t> raw = rows.bytes(i, 6);  // Session::raw_text
  r.raw_text.assign(raw.begin(), raw.end());
  ADJ_TRY(r.ack,
          json_from_text(rows.text(i, 7), "acknowledgement of submission " + std::to_string(r.id)));
  return r;
}

}  // namespace

Result<std::int64_t> SqlStore::put_submission(const SubmissionRecord& record) {
  if (record.turn < 1)
    return Status::InvalidArgument("put_submission: turn " + std::to_string(record.turn));
  ADJ_TRY(const std::string ack, json_to_text(record.ack, "submission acknowledgement"));

  ADJ_TRY(auto tx, sql::WriteTx::begin(session()));
  {
    // The turn the file was checked against must still be open, and not being resolved: a run
    // that has read the turn's files would never see this one. The game's row stays locked
    // until commit, so begin_resolving and the turn's commit wait for this file (or it for them).
    ADJ_TRY(
        const sql::Rows g,
        game_rows(record.game,
                  "SELECT open_turn, resolving_turn, resolving_since, archived_at FROM " +
                      games_small_columns() + " WHERE id = ?" + std::string(session().lock_rows()),
                  {record.game}));
    if (!g.is_null(0, 3))
      return Status::FailedPrecondition(archived_refusal(record.game, "orders"));
    const int open = g.int32(0, 0);
    const std::string which = "turn " + std::to_string(record.turn) + " of game " + record.game;
    if (open != record.turn)
      return Status::FailedPrecondition(which + " is not open any more (the open turn is " +
                                        std::to_string(open) + "); nothing was stored");
    if (!g.is_null(0, 1) && g.int32(0, 1) == open &&
        g.int64(0, 2) + resolving_lease_seconds() > record.received_at)
      return Status::Unavailable(
          which +
          " is being resolved right now; nothing was stored. Send the file again in a "
          "few minutes: it will then be checked against the next turn");
  }
  if (record.accepted)
    ADJ_RETURN_IF_ERROR(
        session().write("UPDATE submissions SET current = 0 WHERE game_id = ? "
                        "AND turn = ? AND player = ? AND current = 1",
                        {record.game, record.turn, record.player}));
  ADJ_TRY(const sql::Rows insert,
          session().query("INSERT INTO submissions(game_id, player, turn, source, received_at, "
                          "raw_text, ack_json, accepted, current) "
                          "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                          {record.game, record.player, record.turn, record.source,
                           std::int64_t{record.received_at}, session().raw_text(record.raw_text),
                           ack, sql::flag(record.accepted), sql::flag(record.accepted)}));
  const std::int64_t id = insert.int64(0, 0);
  ADJ_RETURN_IF_ERROR(tx.commit());
  return id;
}

Result<std::vector<SubmissionRecord>> SqlStore::current_submissions(const std::string& game,
                                                                    int turn) {
  ADJ_RETURN_IF_ERROR(require_game_row(game));
  ADJ_TRY(const sql::Rows rows,
          session().query(std::string(kSubmissionSelect) +
                              "WHERE game_id = ? AND turn = ? AND accepted = 1 AND current = 1 "
                              "ORDER BY player" +
                              std::string(session().bytewise()),
                          {game, turn}));
  return sql::map_rows(rows, submission_from_row);
}

Result<std::optional<SubmissionRecord>> SqlStore::current_submission(const std::string& game,
                                                                     int turn,
                                                                     const std::string& player) {
  ADJ_RETURN_IF_ERROR(require_game_row(game));
  ADJ_TRY(const sql::Rows rows,
          session().query(std::string(kSubmissionSelect) +
                              "WHERE game_id = ? AND turn = ? AND player = ? AND accepted = 1 "
                              "AND current = 1",
                          {game, turn, player}));
  if (rows.empty()) return std::optional<SubmissionRecord>();
  ADJ_TRY(SubmissionRecord r, submission_from_row(rows, 0));
  return std::optional<SubmissionRecord>(std::move(r));
}

Result<std::vector<SubmissionRecord>> SqlStore::all_submissions(const std::string& game) {
  ADJ_RETURN_IF_ERROR(require_game_row(game));
  ADJ_TRY(
      const sql::Rows rows,
      session().query(std::string(kSubmissionSelect) + "WHERE game_id = ? ORDER BY id", {game}));
  return sql::map_rows(rows, submission_from_row);
}

}  // namespace adj
