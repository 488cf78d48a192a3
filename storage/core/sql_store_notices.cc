// SqlStore: NoticeStore (SQLite migration 0009, PostgreSQL 0004_notices.sql).
#include "base/ascii.h"
#include "storage/core/codec.h"
#include "storage/core/record_checks.h"
#include "storage/core/sql_store.h"

namespace adj {

using store_checks::bad_recipient;

namespace {

constexpr const char* kNoticeSelect =
    "SELECT id, game_id, kind, players, addresses, subject, body, dedupe_key, thread, "
    "created_at, state FROM notices ";

Notice notice_from_row(const sql::Rows& r, int i) {
  Notice n;
  r.read(i, n.id, n.game, n.kind, sql::Skip{}, sql::Skip{}, n.subject, n.text, n.dedupe_key,
         n.thread, n.created_at, n.state);
  n.players = lines_from_text(r.text(i, 3));
  n.addresses = lines_from_text(r.text(i, 4));
  return n;
}

}  // namespace

Result<std::int64_t> SqlStore::append_notice(const Notice& n) {
  ADJ_TRY(auto tx, sql::WriteTx::begin(session()));
  ADJ_TRY(const std::int64_t id, insert_notice(n));
  ADJ_RETURN_IF_ERROR(tx.commit());
  return id;
}

Result<std::int64_t> SqlStore::insert_notice(const Notice& n) {
  if (n.kind.empty() || n.subject.empty() || n.text.empty() || n.dedupe_key.empty())
    return Status::InvalidArgument("a notice needs a kind, a subject, a text and a dedupe key");
  if (n.players.empty() && n.addresses.empty())
    return Status::InvalidArgument("a notice needs at least one recipient");
  if (bad_recipient(n.players) || bad_recipient(n.addresses))
    return Status::InvalidArgument("a notice recipient is empty or holds a line break");
  ADJ_RETURN_IF_ERROR(require_game_row(n.game));
  // ON CONFLICT: two processes appending one dedupe key at once get one row, and no error
  // aborts the caller's transaction.
  ADJ_TRY(const sql::Rows r,
          session().query(
              "INSERT INTO notices(game_id, kind, players, addresses, subject, body, "
              "dedupe_key, thread, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
              "ON CONFLICT (dedupe_key) DO NOTHING RETURNING id",
              {n.game, n.kind, ascii::joined(n.players, '\n'), ascii::joined(n.addresses, '\n'),
               n.subject, n.text, n.dedupe_key, n.thread, std::int64_t{n.created_at}}));
  if (r.empty()) return Status::AlreadyExists("notice " + n.dedupe_key);
  return r.int64(0, 0);
}

Result<std::vector<Notice>> SqlStore::pending_notices(int limit) {
  ADJ_TRY(const sql::Rows r, session().query(std::string(kNoticeSelect) +
                                                 "WHERE state = 'pending' ORDER BY id LIMIT ?",
                                             {sql::limit_param(limit)}));
  return sql::map_rows(r, notice_from_row);
}

Status SqlStore::mark_notice_done(std::int64_t id) {
  return sql::changed_or(session().run("UPDATE notices SET state = 'done', body = CASE WHEN kind = "
                                       "'takeover' THEN '[removed once queued: it held a takeover "
                                       "code]' ELSE body END WHERE id = ?",
                                       {id}),
                         Status::NotFound("notice " + std::to_string(id)));
}

Result<std::vector<Notice>> SqlStore::notices(const std::string& game) {
  ADJ_RETURN_IF_ERROR(require_game_row(game));
  ADJ_TRY(const sql::Rows r,
          session().query(std::string(kNoticeSelect) + "WHERE game_id = ? ORDER BY id", {game}));
  return sql::map_rows(r, notice_from_row);
}

}  // namespace adj
