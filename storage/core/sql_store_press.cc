// SqlStore: PressStore (migrations 0012, 0019, 0022, 0023; PostgreSQL's first tables in
// 0002_admin.sql).
//
// append_press checks its bounds and the mail block's source under a lock on the game's row, so
// concurrent senders, in any number of daemons, cannot pass a bound or store one mail block
// twice.
#include "base/ascii.h"
#include "storage/core/codec.h"
#include "storage/core/messages.h"
#include "storage/core/record_checks.h"
#include "storage/core/sql_store.h"

namespace adj {

Result<PressOptions> SqlStore::press_options(const std::string& game) {
  ADJ_TRY(const sql::Rows r,
          game_rows(game,
                    "SELECT o.press, o.gm_reads_private, o.new_holder_reads_earlier, "
                    "o.gm_address "
                    "FROM games g LEFT JOIN press_options o ON o.game_id = g.id "
                    "WHERE g.id = ?",
                    {game}));
  PressOptions o;
  if (!r.is_null(0, 0))
    r.read(0, o.press, o.gm_reads_private, o.new_holder_reads_earlier, o.gm_address);
  return o;
}

Status SqlStore::set_press_options(const std::string& game, const PressOptions& o) {
  if (o.press != "none" && o.press != "public" && o.press != "private" && o.press != "anonymous")
    return Status::InvalidArgument("press must be none, public, private or anonymous, not \"" +
                                   o.press + "\"");
  return sql::changed_or(
      session().run("INSERT INTO press_options(game_id, press, gm_reads_private, "
                    "new_holder_reads_earlier, gm_address) "
                    "SELECT id, CAST(? AS TEXT), CAST(? AS BIGINT), CAST(? AS BIGINT), "
                    "CAST(? AS TEXT) FROM games WHERE id = ? "
                    "ON CONFLICT (game_id) DO UPDATE SET press = excluded.press, "
                    "gm_reads_private = excluded.gm_reads_private, "
                    "new_holder_reads_earlier = excluded.new_holder_reads_earlier, "
                    "gm_address = excluded.gm_address",
                    {o.press, sql::flag(o.gm_reads_private), sql::flag(o.new_holder_reads_earlier),
                     o.gm_address, game}),
      Status::NotFound(no_such_game(game)));
}

Result<std::int64_t> SqlStore::append_press(const PressMessage& m, const PressBounds& bounds) {
  if (m.sender.empty() || m.body.empty())
    return Status::InvalidArgument("a press message needs a sender and a text");
  if (!m.to_all && m.recipients.empty())
    return Status::InvalidArgument("a press message needs a recipient");
  if (store_checks::bad_recipient(m.recipients))
    return Status::InvalidArgument("a press recipient is empty or holds a line break");
  ADJ_TRY(auto tx, sql::WriteTx::begin(session()));
  ADJ_RETURN_IF_ERROR(require_game_row(m.game, /*lock=*/true));
  if (m.source.starts_with("email:")) {
    ADJ_TRY(const sql::Rows seen,
            session().query("SELECT id FROM press WHERE game_id = ? AND source = ?",
                            {m.game, m.source}));
    if (!seen.empty()) return seen.int64(0, 0);  // the destructor ends the transaction
  }
  ADJ_TRY(const sql::Rows counts,
          session().query("SELECT count(*) FILTER (WHERE sender = ? AND turn = CAST(? AS BIGINT)), "
                          "count(*) FROM press WHERE game_id = ?",
                          {m.sender, m.turn, m.game}));
  if (counts.int64(0, 0) >= bounds.per_player_turn)
    return Status::FailedPrecondition(
        "you have sent " + std::to_string(bounds.per_player_turn) +
        " press messages this turn, the most a player may send in one turn; send more after "
        "the turn has run");
  if (counts.int64(0, 1) >= bounds.per_game)
    return Status::FailedPrecondition("this game holds " + std::to_string(bounds.per_game) +
                                      " press messages, the most one game may keep; no more "
                                      "press can be sent in it (ask the GM)");
  ADJ_TRY(const sql::Rows id,
          session().query("INSERT INTO press(game_id, turn, sent_at, sender, recipients, to_all, "
                          "anonymous, body, source) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
                          "RETURNING id",
                          {m.game, m.turn, std::int64_t{m.sent_at}, m.sender,
                           m.to_all ? std::string() : ascii::joined(m.recipients, '\n'),
                           sql::flag(m.to_all), sql::flag(m.anonymous), m.body, m.source}));
  ADJ_RETURN_IF_ERROR(tx.commit());
  return id.int64(0, 0);
}

Result<std::vector<PressMessage>> SqlStore::press_messages_after(const std::string& game,
                                                                 std::int64_t after_id) {
  // The game's row joined to its messages: none when the game does not exist, one with NULL
  // message columns when it has no press (after `after_id`).
  ADJ_TRY(const sql::Rows r,
          game_rows(game,
                    "SELECT p.id, p.turn, p.sent_at, p.sender, p.recipients, p.to_all, "
                    "p.anonymous, p.body, p.source FROM games g "
                    "LEFT JOIN press p ON p.game_id = g.id AND p.id > ? WHERE g.id = ? "
                    "ORDER BY p.id",
                    {after_id, game}));
  std::vector<PressMessage> out;
  for (int i = 0; i < r.size(); ++i) {
    if (r.is_null(i, 0)) continue;
    PressMessage m;
    m.game = game;
    r.read(i, m.id, m.turn, m.sent_at, m.sender, sql::Skip{}, m.to_all, m.anonymous, m.body,
           m.source);
    m.recipients = lines_from_text(r.text(i, 4));
    out.push_back(std::move(m));
  }
  return out;
}

Result<PressDigestState> SqlStore::press_digest_state(const std::string& game) {
  ADJ_TRY(const sql::Rows head,
          game_rows(game,
                    "SELECT (SELECT coalesce(max(id), 0) FROM press WHERE game_id = g.id) "
                    "FROM games g WHERE g.id = ?",
                    {game}));
  PressDigestState out;
  out.last_press_id = head.int64(0, 0);
  ADJ_TRY(const sql::Rows r, session().query("SELECT player, last_id, sent_at FROM press_digests "
                                             "WHERE game_id = ? ORDER BY player",
                                             {game}));
  for (int i = 0; i < r.size(); ++i)
    out.marks.push_back({r.text(i, 0), r.int64(i, 1), r.int64(i, 2)});
  return out;
}

Result<bool> SqlStore::queue_press_digest(const std::string& game, const std::string& player,
                                          std::int64_t from_id, std::int64_t to_id, UnixTime now,
                                          const Notice* notice) {
  if (player.empty() || to_id <= from_id || from_id < 0)
    return Status::InvalidArgument("a press digest needs a player and a later press id");
  ADJ_TRY(auto tx, sql::WriteTx::begin(session()));
  ADJ_RETURN_IF_ERROR(require_game_row(game));
  // A first mark is inserted; a later one moves only from where it was read (a concurrent
  // claimer waits on the row and then finds it moved).
  ADJ_TRY(const std::int64_t moved,
          from_id == 0
              ? session().run("INSERT INTO press_digests(game_id, player, last_id, sent_at) "
                              "VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                              {game, player, to_id, std::int64_t{now}})
              : session().run("UPDATE press_digests SET last_id = ?, sent_at = ? "
                              "WHERE game_id = ? AND player = ? AND last_id = ?",
                              {to_id, std::int64_t{now}, game, player, from_id}));
  if (moved == 0) return false;  // claimed by another; the destructor rolls back
  if (notice) {
    auto id = insert_notice(*notice);
    if (!id.ok()) {
      if (id.status().code() == StatusCode::kAlreadyExists) return false;  // rolled back
      return id.status();
    }
  }
  ADJ_RETURN_IF_ERROR(tx.commit());
  return true;
}

}  // namespace adj
