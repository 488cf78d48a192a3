// PgStore: PressStore over schemas/pg/0002_admin.sql (tables press_options, press). Behaviour,
// error codes and texts are SqliteStore's (storage/sqlite/sqlite_store_press.cc).
//
// append_press checks its bounds and the mail block's source under a lock on the game's row
// (FOR NO KEY UPDATE: it serialises press senders of one game without blocking inserts that only
// reference the game), so concurrent senders, in any number of daemons, cannot pass a bound or
// store one mail block twice.
#include <cstdint>

#include "storage/core/codec.h"
#include "storage/core/messages.h"
#include "storage/core/record_checks.h"
#include "storage/postgres/pg_store.h"

namespace adj {

using store_checks::known_press_level;

using pg::Param;

Result<PressOptions> PgStore::press_options(const std::string& game) {
  ADJ_TRY(const pg::Rows r,
          conn_.query("SELECT o.press, o.gm_reads_private, o.new_holder_reads_earlier FROM games g "
                      "LEFT JOIN press_options o ON o.game_id = g.id WHERE g.id = $1",
                      {Param(game)}));
  if (r.empty()) return Status::NotFound(no_such_game(game));
  PressOptions o;
  if (!r.is_null(0, 0)) {
    o.press = r.text(0, 0);
    o.gm_reads_private = r.int64(0, 1) != 0;
    o.new_holder_reads_earlier = r.int64(0, 2) != 0;
  }
  return o;
}

Status PgStore::set_press_options(const std::string& game, const PressOptions& o) {
  if (!known_press_level(o.press))
    return Status::InvalidArgument("press must be none, public, private or anonymous, not \"" +
                                   o.press + "\"");
  ADJ_TRY(const std::int64_t n,
          conn_.run("INSERT INTO press_options(game_id, press, gm_reads_private, "
                    "new_holder_reads_earlier) "
                    "SELECT id, $2::text, $3::bigint, $4::bigint FROM games WHERE id = $1 "
                    "ON CONFLICT (game_id) DO UPDATE SET press = excluded.press, "
                    "gm_reads_private = excluded.gm_reads_private, "
                    "new_holder_reads_earlier = excluded.new_holder_reads_earlier",
                    {Param(game), Param(o.press), Param(std::int64_t{o.gm_reads_private ? 1 : 0}),
                     Param(std::int64_t{o.new_holder_reads_earlier ? 1 : 0})}));
  if (n == 0) return Status::NotFound(no_such_game(game));
  return Status::Ok();
}

Result<std::int64_t> PgStore::append_press(const PressMessage& m, const PressBounds& bounds) {
  if (m.sender.empty() || m.body.empty())
    return Status::InvalidArgument("a press message needs a sender and a text");
  if (!m.to_all && m.recipients.empty())
    return Status::InvalidArgument("a press message needs a recipient");
  for (const auto& r : m.recipients)
    if (r.empty() || r.find_first_of("\r\n") != std::string::npos)
      return Status::InvalidArgument("a press recipient is empty or holds a line break");
  ADJ_TRY(auto tx, pg::Transaction::begin(conn_));
  {
    ADJ_TRY(const pg::Rows game, conn_.query("SELECT 1 FROM games WHERE id = $1 "
                                             "FOR NO KEY UPDATE",
                                             {Param(m.game)}));
    if (game.empty()) return Status::NotFound(no_such_game(m.game));
  }
  if (m.source.rfind("email:", 0) == 0) {
    ADJ_TRY(const pg::Rows seen,
            conn_.query("SELECT id FROM press WHERE game_id = $1 AND source = $2",
                        {Param(m.game), Param(m.source)}));
    if (!seen.empty()) return seen.int64(0, 0);  // the destructor ends the transaction
  }
  // Both counts in one statement (the game's row lock keeps them current until commit).
  ADJ_TRY(const pg::Rows counts,
          conn_.query("SELECT count(*) FILTER (WHERE sender = $2 AND turn = $3::bigint), "
                      "count(*) FROM press WHERE game_id = $1",
                      {Param(m.game), Param(m.sender), Param(std::int64_t{m.turn})}));
  if (counts.int64(0, 0) >= bounds.per_player_turn)
    return Status::FailedPrecondition(
        "you have sent " + std::to_string(bounds.per_player_turn) +
        " press messages this turn, the most a player may send in one turn; send more after "
        "the turn has run");
  if (counts.int64(0, 1) >= bounds.per_game)
    return Status::FailedPrecondition("this game holds " + std::to_string(bounds.per_game) +
                                      " press messages, the most one game may keep; no more "
                                      "press can be sent in it (ask the GM)");
  ADJ_TRY(
      const pg::Rows id,
      conn_.query("INSERT INTO press(game_id, turn, sent_at, sender, recipients, to_all, "
                  "anonymous, body, source) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) "
                  "RETURNING id",
                  {Param(m.game), Param(std::int64_t{m.turn}), Param(m.sent_at), Param(m.sender),
                   Param(m.to_all ? std::string() : lines_to_text(m.recipients)),
                   Param(std::int64_t{m.to_all ? 1 : 0}), Param(std::int64_t{m.anonymous ? 1 : 0}),
                   Param(m.body), Param(m.source)}));
  ADJ_RETURN_IF_ERROR(tx.commit());
  return id.int64(0, 0);
}

Result<std::vector<PressMessage>> PgStore::press_messages(const std::string& game) {
  return press_messages_after(game, 0);
}

Result<std::vector<PressMessage>> PgStore::press_messages_after(const std::string& game,
                                                                std::int64_t after_id) {
  // The game's row joined to its messages: none when the game does not exist, one with NULL
  // message columns when it has no press (after `after_id`).
  ADJ_TRY(const pg::Rows r,
          conn_.query("SELECT p.id, p.turn, p.sent_at, p.sender, p.recipients, p.to_all, "
                      "p.anonymous, p.body, p.source FROM games g "
                      "LEFT JOIN press p ON p.game_id = g.id AND p.id > $2 WHERE g.id = $1 "
                      "ORDER BY p.id",
                      {Param(game), Param(after_id)}));
  if (r.empty()) return Status::NotFound(no_such_game(game));
  std::vector<PressMessage> out;
  for (int i = 0; i < r.size(); ++i) {
    if (r.is_null(i, 0)) continue;
    PressMessage m;
    m.id = r.int64(i, 0);
    m.game = game;
    m.turn = r.int32(i, 1);
    m.sent_at = r.int64(i, 2);
    m.sender = r.text(i, 3);
    m.recipients = lines_from_text(r.text(i, 4));
    m.to_all = r.int64(i, 5) != 0;
    m.anonymous = r.int64(i, 6) != 0;
    m.body = r.text(i, 7);
    m.source = r.text(i, 8);
    out.push_back(std::move(m));
  }
  return out;
}

Result<PressDigestState> PgStore::press_digest_state(const std::string& game) {
  ADJ_TRY(const pg::Rows head,
          conn_.query("SELECT (SELECT coalesce(max(id), 0) FROM press WHERE game_id = g.id) "
                      "FROM games g WHERE g.id = $1",
                      {Param(game)}));
  if (head.empty()) return Status::NotFound(no_such_game(game));
  PressDigestState out;
  out.last_press_id = head.int64(0, 0);
  ADJ_TRY(const pg::Rows r, conn_.query("SELECT player, last_id, sent_at FROM press_digests "
                                        "WHERE game_id = $1 ORDER BY player",
                                        {Param(game)}));
  for (int i = 0; i < r.size(); ++i)
    out.marks.push_back({r.text(i, 0), r.int64(i, 1), r.int64(i, 2)});
  return out;
}

Result<bool> PgStore::queue_press_digest(const std::string& game, const std::string& player,
                                         std::int64_t from_id, std::int64_t to_id, UnixTime now,
                                         const Notice* notice) {
  if (player.empty() || to_id <= from_id || from_id < 0)
    return Status::InvalidArgument("a press digest needs a player and a later press id");
  ADJ_TRY(auto tx, pg::Transaction::begin(conn_));
  ADJ_RETURN_IF_ERROR(require_game(game));
  // A first mark is inserted; a later one moves only from where it was read (a concurrent
  // claimer waits on the row and then finds it moved).
  Result<std::int64_t> moved =
      from_id == 0 ? conn_.run(
                         "INSERT INTO press_digests(game_id, player, last_id, sent_at) "
                         "VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
                         {Param(game), Param(player), Param(to_id), Param(now)})
                   : conn_.run(
                         "UPDATE press_digests SET last_id = $3, sent_at = $4 "
                         "WHERE game_id = $1 AND player = $2 AND last_id = $5",
                         {Param(game), Param(player), Param(to_id), Param(now), Param(from_id)});
  if (!moved.ok()) return moved.status();
  if (*moved == 0) return false;  // claimed by another; the destructor rolls back
  if (notice) {
    auto id = append_notice(*notice);
    if (!id.ok()) {
      if (id.status().code() == StatusCode::kAlreadyExists) return false;
      return id.status();
    }
  }
  ADJ_RETURN_IF_ERROR(tx.commit());
  return true;
}

}  // namespace adj
