// PressStore over SQLite (migration 0012).
#include "storage/core/codec.h"
#include "storage/core/record_checks.h"
#include "storage/sqlite/sqlite_store.h"

namespace adj {

using store_checks::known_press_level;
namespace {

using sqlite::Transaction;

constexpr const char* kPressColumns =
    "id, game_id, turn, sent_at, sender, recipients, to_all, anonymous, body, source";

PressMessage read_press(sqlite::Statement& st) {
  PressMessage m;
  m.id = st.column_int64(0);
  m.game = st.column_text(1);
  m.turn = st.column_int(2);
  m.sent_at = st.column_int64(3);
  m.sender = st.column_text(4);
  m.recipients = lines_from_text(st.column_text(5));
  m.to_all = st.column_int(6) != 0;
  m.anonymous = st.column_int(7) != 0;
  m.body = st.column_text(8);
  m.source = st.column_text(9);
  return m;
}

}  // namespace

Result<PressOptions> SqliteStore::press_options(const std::string& game) {
  ADJ_RETURN_IF_ERROR(require_game(game));
  ADJ_TRY(auto st, db_.prepare("SELECT press, gm_reads_private, new_holder_reads_earlier "
                               "FROM press_options WHERE game_id = ?"));
  st.bind_text(1, game);
  ADJ_TRY(bool row, st.step());
  PressOptions o;
  if (row) {
    o.press = st.column_text(0);
    o.gm_reads_private = st.column_int(1) != 0;
    o.new_holder_reads_earlier = st.column_int(2) != 0;
  }
  return o;
}

Status SqliteStore::set_press_options(const std::string& game, const PressOptions& o) {
  if (!known_press_level(o.press))
    return Status::InvalidArgument("press must be none, public, private or anonymous, not \"" +
                                   o.press + "\"");
  ADJ_TRY(auto tx, Transaction::begin(db_));
  ADJ_RETURN_IF_ERROR(require_game(game));
  ADJ_TRY(auto st, db_.prepare("INSERT INTO press_options(game_id, press, gm_reads_private, "
                               "new_holder_reads_earlier) "
                               "VALUES (?, ?, ?, ?) ON CONFLICT(game_id) DO UPDATE SET "
                               "press = excluded.press, "
                               "gm_reads_private = excluded.gm_reads_private, "
                               "new_holder_reads_earlier = excluded.new_holder_reads_earlier"));
  st.bind_text(1, game)
      .bind_text(2, o.press)
      .bind_int(3, o.gm_reads_private ? 1 : 0)
      .bind_int(4, o.new_holder_reads_earlier ? 1 : 0);
  ADJ_RETURN_IF_ERROR(st.run());
  return tx.commit();
}

Result<std::int64_t> SqliteStore::append_press(const PressMessage& m, const PressBounds& bounds) {
  if (m.sender.empty() || m.body.empty())
    return Status::InvalidArgument("a press message needs a sender and a text");
  if (!m.to_all && m.recipients.empty())
    return Status::InvalidArgument("a press message needs a recipient");
  for (const auto& r : m.recipients)
    if (r.empty() || r.find_first_of("\r\n") != std::string::npos)
      return Status::InvalidArgument("a press recipient is empty or holds a line break");
  ADJ_TRY(auto tx, Transaction::begin(db_));
  ADJ_RETURN_IF_ERROR(require_game(m.game));
  if (m.source.rfind("email:", 0) == 0) {
    ADJ_TRY(auto st, db_.prepare("SELECT id FROM press WHERE game_id = ? AND source = ?"));
    st.bind_text(1, m.game).bind_text(2, m.source);
    ADJ_TRY(bool seen, st.step());
    if (seen) return st.column_int64(0);
  }
  {
    ADJ_TRY(auto st, db_.prepare("SELECT count(*) FROM press WHERE game_id = ? AND "
                                 "sender = ? AND turn = ?"));
    st.bind_text(1, m.game).bind_text(2, m.sender).bind_int(3, m.turn);
    ADJ_TRY(bool row, st.step());
    if (row && st.column_int64(0) >= bounds.per_player_turn)
      return Status::FailedPrecondition(
          "you have sent " + std::to_string(bounds.per_player_turn) +
          " press messages this turn, the most a player may send in one turn; send more after "
          "the turn has run");
  }
  {
    ADJ_TRY(auto st, db_.prepare("SELECT count(*) FROM press WHERE game_id = ?"));
    st.bind_text(1, m.game);
    ADJ_TRY(bool row, st.step());
    if (row && st.column_int64(0) >= bounds.per_game)
      return Status::FailedPrecondition("this game holds " + std::to_string(bounds.per_game) +
                                        " press messages, the most one game may keep; no more "
                                        "press can be sent in it (ask the GM)");
  }
  ADJ_TRY(auto st, db_.prepare("INSERT INTO press(game_id, turn, sent_at, sender, recipients, "
                               "to_all, anonymous, body, source) "
                               "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"));
  st.bind_text(1, m.game)
      .bind_int(2, m.turn)
      .bind_int64(3, m.sent_at)
      .bind_text(4, m.sender)
      .bind_text(5, m.to_all ? std::string() : lines_to_text(m.recipients))
      .bind_int(6, m.to_all ? 1 : 0)
      .bind_int(7, m.anonymous ? 1 : 0)
      .bind_text(8, m.body)
      .bind_text(9, m.source);
  ADJ_RETURN_IF_ERROR(st.run());
  const std::int64_t id = db_.last_insert_rowid();
  ADJ_RETURN_IF_ERROR(tx.commit());
  return id;
}

Result<std::vector<PressMessage>> SqliteStore::press_messages(const std::string& game) {
  return press_messages_after(game, 0);
}

Result<std::vector<PressMessage>> SqliteStore::press_messages_after(const std::string& game,
                                                                    std::int64_t after_id) {
  ADJ_RETURN_IF_ERROR(require_game(game));
  ADJ_TRY(auto st, db_.prepare(std::string("SELECT ") + kPressColumns +
                               " FROM press WHERE game_id = ? AND id > ? ORDER BY id"));
  st.bind_text(1, game).bind_int64(2, after_id);
  std::vector<PressMessage> out;
  for (;;) {
    ADJ_TRY(bool row, st.step());
    if (!row) return out;
    out.push_back(read_press(st));
  }
}

Result<PressDigestState> SqliteStore::press_digest_state(const std::string& game) {
  ADJ_RETURN_IF_ERROR(require_game(game));
  PressDigestState out;
  {
    ADJ_TRY(auto st, db_.prepare("SELECT max(id) FROM press WHERE game_id = ?"));
    st.bind_text(1, game);
    ADJ_TRY(bool row, st.step());
    if (row) out.last_press_id = st.column_int64(0);  // NULL reads as 0
  }
  ADJ_TRY(auto st, db_.prepare("SELECT player, last_id, sent_at FROM press_digests "
                               "WHERE game_id = ? ORDER BY player"));
  st.bind_text(1, game);
  for (;;) {
    ADJ_TRY(bool row, st.step());
    if (!row) return out;
    out.marks.push_back({st.column_text(0), st.column_int64(1), st.column_int64(2)});
  }
}

Result<bool> SqliteStore::queue_press_digest(const std::string& game, const std::string& player,
                                             std::int64_t from_id, std::int64_t to_id, UnixTime now,
                                             const Notice* notice) {
  if (player.empty() || to_id <= from_id || from_id < 0)
    return Status::InvalidArgument("a press digest needs a player and a later press id");
  ADJ_TRY(auto tx, Transaction::begin(db_));
  ADJ_RETURN_IF_ERROR(require_game(game));
  // A first mark is inserted; a later one moves only from where it was read.
  ADJ_TRY(auto st,
          db_.prepare(from_id == 0 ? "INSERT INTO press_digests(game_id, player, last_id, "
                                     "sent_at) VALUES (?1, ?2, ?3, ?4) ON CONFLICT DO NOTHING"
                                   : "UPDATE press_digests SET last_id = ?3, sent_at = ?4 "
                                     "WHERE game_id = ?1 AND player = ?2 AND last_id = ?5"));
  st.bind_text(1, game).bind_text(2, player).bind_int64(3, to_id).bind_int64(4, now);
  if (from_id != 0) st.bind_int64(5, from_id);
  ADJ_RETURN_IF_ERROR(st.run());
  if (db_.changes() == 0) return false;  // claimed by another; the destructor rolls back
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
