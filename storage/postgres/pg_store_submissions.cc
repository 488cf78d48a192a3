// PgStore: order submissions.
#include "storage/core/codec.h"
#include "storage/core/messages.h"
#include "storage/postgres/pg_store.h"

namespace adj {

namespace {

constexpr const char* kPgColumns =
    "SELECT id, game_id, player, turn, source, received_at, raw_text, ack_json, accepted, current "
    "FROM submissions ";

Result<std::vector<SubmissionRecord>> pg_collect(const pg::Rows& rows) {
  std::vector<SubmissionRecord> out;
  out.reserve(rows.size());
  for (int i = 0; i < rows.size(); ++i) {
    SubmissionRecord r;
    r.id = rows.int64(i, 0);
    r.game = rows.text(i, 1);
    r.player = rows.text(i, 2);
    r.turn = rows.int32(i, 3);
    r.source = rows.text(i, 4);
    r.received_at = rows.int64(i, 5);
    const std::vector<std::uint8_t> raw = rows.bytes(i, 6);  // BYTEA: byte for byte
    r.raw_text.assign(raw.begin(), raw.end());
    ADJ_TRY(r.ack, json_from_text(rows.text(i, 7),
                                  "acknowledgement of submission " + std::to_string(r.id)));
    r.accepted = rows.int64(i, 8) != 0;
    r.current = rows.int64(i, 9) != 0;
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace

Result<std::int64_t> PgStore::put_submission(const SubmissionRecord& record) {
  if (record.turn < 1)
    return Status::InvalidArgument("put_submission: turn " + std::to_string(record.turn));
  ADJ_TRY(const std::string ack, json_to_text(record.ack, "submission acknowledgement"));

  ADJ_TRY(auto tx, pg::Transaction::begin(conn_));
  {
    // The turn the file was checked against must still be open, and not being resolved: a run
    // that has read the turn's files would never see this one. The game's row stays locked
    // until commit, so begin_resolving and commit_turn wait for this file (or it for them).
    ADJ_TRY(auto g, conn_.query("SELECT open_turn, resolving_turn, resolving_since "
                                "FROM games WHERE id = $1 FOR NO KEY UPDATE",
                                {record.game}));
    if (g.empty()) return Status::NotFound(no_such_game(record.game));
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
  if (record.accepted) {
    ADJ_TRY(auto demote, conn_.query("UPDATE submissions SET current = 0 WHERE game_id = $1 "
                                     "AND turn = $2 AND player = $3 AND current = 1",
                                     {record.game, record.turn, record.player}));
  }
  const int flag = record.accepted ? 1 : 0;
  ADJ_TRY(auto insert,
          conn_.query("INSERT INTO submissions(game_id, player, turn, source, received_at, "
                      "raw_text, ack_json, accepted, current) "
                      "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id",
                      {record.game, record.player, record.turn, record.source,
                       std::int64_t{record.received_at}, pg::Param::bytes(record.raw_text), ack,
                       flag, flag}));
  const std::int64_t id = insert.int64(0, 0);
  ADJ_RETURN_IF_ERROR(tx.commit());
  return id;
}

Result<std::vector<SubmissionRecord>> PgStore::current_submissions(const std::string& game,
                                                                   int turn) {
  ADJ_RETURN_IF_ERROR(require_game(game));
  ADJ_TRY(auto rows,
          conn_.query(std::string(kPgColumns) + "WHERE game_id = $1 AND turn = $2 AND accepted = 1 "
                                                "AND current = 1 ORDER BY player COLLATE \"C\"",
                      {game, turn}));
  return pg_collect(rows);
}

Result<std::vector<SubmissionRecord>> PgStore::all_submissions(const std::string& game) {
  ADJ_RETURN_IF_ERROR(require_game(game));
  ADJ_TRY(auto rows,
          conn_.query(std::string(kPgColumns) + "WHERE game_id = $1 ORDER BY id", {game}));
  return pg_collect(rows);
}

}  // namespace adj
