// NoticeStore over SQLite (migration 0009).
#include "storage/core/codec.h"
#include "storage/sqlite/sqlite_store.h"

namespace adj {
namespace {

using sqlite::Transaction;

bool has_newline(const std::vector<std::string>& v) {
  for (const auto& s : v)
    if (s.empty() || s.find_first_of("\r\n") != std::string::npos) return true;
  return false;
}

constexpr const char* kColumns =
    "id, game_id, kind, players, addresses, subject, body, dedupe_key, thread, created_at, state";

Notice read_notice(sqlite::Statement& st) {
  Notice n;
  n.id = st.column_int64(0);
  n.game = st.column_text(1);
  n.kind = st.column_text(2);
  n.players = lines_from_text(st.column_text(3));
  n.addresses = lines_from_text(st.column_text(4));
  n.subject = st.column_text(5);
  n.text = st.column_text(6);
  n.dedupe_key = st.column_text(7);
  n.thread = st.column_text(8);
  n.created_at = st.column_int64(9);
  n.state = st.column_text(10);
  return n;
}

}  // namespace

Result<std::int64_t> SqliteStore::append_notice(const Notice& n) {
  ADJ_TRY(auto tx, Transaction::begin(db_));
  ADJ_TRY(const std::int64_t id, insert_notice(n));
  ADJ_RETURN_IF_ERROR(tx.commit());
  return id;
}

Result<std::int64_t> SqliteStore::insert_notice(const Notice& n) {
  if (n.kind.empty() || n.subject.empty() || n.text.empty() || n.dedupe_key.empty())
    return Status::InvalidArgument("a notice needs a kind, a subject, a text and a dedupe key");
  if (n.players.empty() && n.addresses.empty())
    return Status::InvalidArgument("a notice needs at least one recipient");
  if (has_newline(n.players) || has_newline(n.addresses))
    return Status::InvalidArgument("a notice recipient is empty or holds a line break");
  ADJ_RETURN_IF_ERROR(require_game(n.game));
  {
    ADJ_TRY(auto st, db_.prepare("SELECT 1 FROM notices WHERE dedupe_key = ?"));
    st.bind_text(1, n.dedupe_key);
    ADJ_TRY(bool dup, st.step());
    if (dup) return Status::AlreadyExists("notice " + n.dedupe_key);
  }
  ADJ_TRY(auto st, db_.prepare("INSERT INTO notices(game_id, kind, players, addresses, "
                               "subject, body, dedupe_key, thread, created_at) "
                               "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"));
  st.bind_text(1, n.game)
      .bind_text(2, n.kind)
      .bind_text(3, lines_to_text(n.players))
      .bind_text(4, lines_to_text(n.addresses))
      .bind_text(5, n.subject)
      .bind_text(6, n.text)
      .bind_text(7, n.dedupe_key)
      .bind_text(8, n.thread)
      .bind_int64(9, n.created_at);
  ADJ_RETURN_IF_ERROR(st.run());
  return db_.last_insert_rowid();
}

Result<std::vector<Notice>> SqliteStore::pending_notices(int limit) {
  ADJ_TRY(auto st, db_.prepare(std::string("SELECT ") + kColumns +
                               " FROM notices WHERE state = 'pending' ORDER BY id LIMIT ?"));
  st.bind_int64(1, limit);
  std::vector<Notice> out;
  for (;;) {
    ADJ_TRY(bool row, st.step());
    if (!row) return out;
    out.push_back(read_notice(st));
  }
}

Status SqliteStore::mark_notice_done(std::int64_t id) {
  ADJ_TRY(auto st, db_.prepare("UPDATE notices SET state = 'done', body = CASE WHEN kind = "
                               "'takeover' THEN '[removed once queued: it held a takeover "
                               "code]' ELSE body END WHERE id = ?"));
  st.bind_int64(1, id);
  ADJ_RETURN_IF_ERROR(st.run());
  if (db_.changes() == 0) return Status::NotFound("notice " + std::to_string(id));
  return Status::Ok();
}

Result<std::vector<Notice>> SqliteStore::notices(const std::string& game) {
  ADJ_RETURN_IF_ERROR(require_game(game));
  ADJ_TRY(auto st, db_.prepare(std::string("SELECT ") + kColumns +
                               " FROM notices WHERE game_id = ? ORDER BY id"));
  st.bind_text(1, game);
  std::vector<Notice> out;
  for (;;) {
    ADJ_TRY(bool row, st.step());
    if (!row) return out;
    out.push_back(read_notice(st));
  }
}

}  // namespace adj
