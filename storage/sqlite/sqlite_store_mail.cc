// SqliteStore: the MailStore methods only SQLite spells its own way (the rest are SqlStore's,
// storage/core/sql_store_mail.cc): the outbox claim and the inbox masking under secure_delete.
#include "storage/core/mail_rows.h"
#include "storage/core/messages.h"
#include "storage/sqlite/sqlite_store.h"

namespace adj {

Status SqliteStore::mask_inbox_raw(std::int64_t id, const std::string& raw) {
  ADJ_RETURN_IF_ERROR(db_.exec("PRAGMA secure_delete=ON"));
  auto n = session_.run("UPDATE inbox SET raw = ? WHERE id = ?", {sql::Param::bytes(raw), id});
  Status off = db_.exec("PRAGMA secure_delete=OFF");  // the old bytes are overwritten
  if (!n.ok()) return n.status();
  if (*n == 0) return Status::NotFound(inbox_not_found(id));
  return off;
}

Result<std::vector<OutboxMessage>> SqliteStore::claim(UnixTime now, int limit,
                                                      std::int64_t lease_seconds) {
  // One writer at a time: no other claimer runs between the choice and the mark.
  ADJ_TRY(auto tx, sql::WriteTx::begin(session_));
  ADJ_TRY(
      const sql::Rows r,
      session_.query(std::string("UPDATE outbox SET state = 'sending', lease_until = ?1, "
                                 "attempts = attempts + 1 WHERE id IN (SELECT id FROM outbox "
                                 "WHERE (state = 'pending' AND next_attempt_at <= ?2) OR "
                                 "(state = 'sending' AND lease_until <= ?2) "
                                 "ORDER BY kind IN ('refusal', 'help'), next_attempt_at, "
                                 "id LIMIT ?3) RETURNING ") +
                         kOutboxColumns,
                     {std::int64_t{now + lease_seconds}, std::int64_t{now}, std::max(limit, 0)}));
  ADJ_RETURN_IF_ERROR(tx.commit());
  return claimed_from_rows(r);
}

}  // namespace adj
