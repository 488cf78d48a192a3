// PgStore: the MailStore methods only PostgreSQL spells its own way (the rest are SqlStore's,
// storage/core/sql_store_mail.cc): the outbox claim, safe across processes sharing the database
// (due rows locked with FOR UPDATE SKIP LOCKED and marked in one statement), and the inbox
// masking.
#include <algorithm>
#include <string_view>

#include "storage/core/mail_rows.h"
#include "storage/core/messages.h"
#include "storage/postgres/pg_store.h"

namespace adj {

Status PgStore::mask_inbox_raw(std::int64_t id, const std::string& raw) {
  // The old bytes stay in a dead row version until VACUUM reclaims it (autovacuum does, soon
  // after, on a busy inbox); no reader sees them.
  ADJ_TRY(const std::int64_t n,
          session_.run("UPDATE inbox SET raw = ? WHERE id = ?", {sql::Param::bytes(raw), id}));
  if (n == 0) return Status::NotFound(inbox_not_found(id));
  return Status::Ok();
}

Result<std::vector<OutboxMessage>> PgStore::claim(UnixTime now, int limit,
                                                  std::int64_t lease_seconds) {
  // Rows another claimer has locked are skipped, and a row it marked and committed meanwhile is
  // re-checked against the condition on its new version: no message is claimed twice.
  std::string sql =
      "WITH c AS (SELECT id FROM outbox WHERE (state = 'pending' AND next_attempt_at <= ?2) OR "
      "(state = 'sending' AND lease_until <= ?2) "
      "ORDER BY kind IN ('refusal', 'help'), next_attempt_at, id LIMIT ?3 "
      "FOR UPDATE SKIP LOCKED) "
      "UPDATE outbox o SET state = 'sending', lease_until = ?1, attempts = o.attempts + 1 "
      "FROM c WHERE o.id = c.id RETURNING ";
  for (std::string_view rest = kOutboxColumns;;) {
    const std::size_t comma = rest.find(", ");
    sql += "o.";
    sql += rest.substr(0, comma);
    if (comma == std::string_view::npos) break;
    sql += ", ";
    rest.remove_prefix(comma + 2);
  }
  ADJ_TRY(const sql::Rows r, session_.query(sql, {std::int64_t{now + lease_seconds},
                                                  std::int64_t{now}, std::max(limit, 0)}));
  return claimed_from_rows(r);
}

}  // namespace adj
