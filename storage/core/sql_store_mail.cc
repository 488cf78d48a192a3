// SqlStore: the MailStore tables (inbox, its leases, the outbox; SQLite migrations 0003, 0004,
// 0006; PostgreSQL 0003_mail.sql) and Store::storage_by_game / outbox_message. The claims are
// safe across processes sharing a database:
// - put_inbox_batch dedupes with INSERT ... ON CONFLICT (message_id), which on PostgreSQL waits
//   for a concurrent insert of the same id and then sees it;
// - lease_inbox reads the message's row with lock_rows() first, so every taker of one lease
//   queues there and sees the lease as the last one committed it;
// - claim is one write transaction (SQLite's one writer; PostgreSQL's FOR UPDATE SKIP LOCKED).
#include <algorithm>

#include "storage/core/codec.h"
#include "storage/core/messages.h"
#include "storage/core/sql_store.h"

namespace adj {

namespace {

// The columns of an outbox row in the order outbox_from_row reads them.
constexpr const char* kOutboxColumns =
    "id, kind, game_id, recipient, raw, dedupe_key, state, attempts, next_attempt_at, "
    "last_error, created_at, part_key";

constexpr const char* kInboxSelect =
    "SELECT id, message_id, channel, envelope_from, envelope_to_json, raw, received_at, state, "
    "outcome, attempts, raw_bytes, peer, pruned_at FROM inbox ";
// The same columns with raw left out (NULL, read as empty bytes, in its place).
constexpr const char* kInboxSelectNoRaw =
    "SELECT id, message_id, channel, envelope_from, envelope_to_json, CAST(NULL AS BYTEA), "
    "received_at, state, outcome, attempts, raw_bytes, peer, pruned_at FROM inbox ";

Result<InboxMessage> inbox_from_row(const sql::Rows& r, int row) {
  InboxMessage m;
  r.read(row, m.id, m.message_id, m.channel, m.envelope_from, sql::Skip{}, sql::Skip{},
         m.received_at, m.state, m.outcome, m.attempts, m.raw_bytes, m.peer, m.pruned_at);
  const std::string envelope = "envelope of inbox message " + std::to_string(m.id);
  ADJ_TRY(Json to, json_from_text(r.text(row, 4), envelope));
  if (!to.is_array()) return Status::Corruption(envelope + " is not a list");
  for (const Json& t : to) {
    if (!t.is_string()) return Status::Corruption(envelope + " holds a non-string recipient");
    m.envelope_to.push_back(t.get<std::string>());
  }
  const std::vector<std::uint8_t> raw = r.bytes(row, 5);
  m.raw.assign(raw.begin(), raw.end());
  return m;
}

OutboxMessage outbox_from_row(const sql::Rows& r, int row) {
  OutboxMessage m;
  r.read(row, m.id, m.kind, m.game, m.to, m.raw, m.dedupe_key, m.state, m.attempts,
         m.next_attempt_at, m.last_error, m.created_at, m.part_key);  // part_key NULL: ""
  return m;
}

// A part key as MailStore::put_mail_part takes it: 1 to 64 ASCII letters and digits.
bool valid_part_key(const std::string& key) {
  if (key.empty() || key.size() > 64) return false;
  for (char c : key)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) return false;
  return true;
}

// The messages a claim's rows (kOutboxColumns) hold, in the order claim() returns them: mail to
// players first, then by due time, then by id.
std::vector<OutboxMessage> claimed_from_rows(const sql::Rows& r) {
  std::vector<OutboxMessage> out = sql::map_rows(r, outbox_from_row);
  std::sort(out.begin(), out.end(), [](const OutboxMessage& a, const OutboxMessage& b) {
    const auto anonymous = [](const OutboxMessage& m) {
      return m.kind == "refusal" || m.kind == "help";
    };
    if (anonymous(a) != anonymous(b)) return !anonymous(a);
    return a.next_attempt_at != b.next_attempt_at ? a.next_attempt_at < b.next_attempt_at
                                                  : a.id < b.id;
  });
  return out;
}

// SQL for the length in bytes of the text or bytes `expr`.
std::string byte_length(sql::Dialect d, std::string_view expr) {
  if (d == sql::Dialect::kSqlite) return "length(CAST(" + std::string(expr) + " AS BLOB))";
  return "octet_length(" + std::string(expr) + ")";
}

// Messages and raw bytes received since `since` WHERE `match` (on ?1, bound to `key`).
Result<InboxUsage> inbox_usage(sql::Session& s, std::string_view match, const std::string& key,
                               UnixTime since) {
  if (key.empty()) return InboxUsage{};
  ADJ_TRY(const sql::Rows r,
          s.query("SELECT count(*), coalesce(sum(raw_bytes), 0) FROM inbox WHERE " +
                      std::string(match) + " AND received_at >= ?2",
                  {s.outside_text(key), std::int64_t{since}}));
  if (r.empty()) return InboxUsage{};
  return InboxUsage{r.int32(0, 0), r.int64(0, 1)};
}

// One outbox row, in the caller's transaction (or its own statement): its id, or 0 when its
// dedupe key is taken.
Result<std::int64_t> insert_outbox(sql::Session& s, const OutboxMessage& m) {
  if (m.kind.empty() || m.to.empty() || m.dedupe_key.empty() || m.raw.empty())
    return Status::InvalidArgument(
        "enqueue: a message needs a kind, a recipient, a raw message "
        "and a dedupe key");
  if (!m.part_key.empty() && (!valid_part_key(m.part_key) ||
                              m.raw.find(mail_part_placeholder(m.part_key)) == std::string::npos))
    return Status::InvalidArgument("enqueue: the message lacks the place of its stored part");
  if (!m.part_key.empty()) {
    ADJ_TRY(const sql::Rows p, s.query("SELECT 1 FROM mail_parts WHERE id = ?", {m.part_key}));
    if (p.empty()) return Status::NotFound("enqueue: there is no stored part " + m.part_key);
  }
  const sql::Param part = m.part_key.empty() ? sql::Param() : sql::Param(m.part_key);
  ADJ_TRY(const sql::Rows r,
          s.query("INSERT INTO outbox(kind, game_id, recipient, raw, dedupe_key, "
                  "state, attempts, next_attempt_at, created_at, part_key) "
                  "VALUES (?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?) "
                  "ON CONFLICT (dedupe_key) DO NOTHING RETURNING id",
                  {s.outside_text(m.kind), s.outside_text(m.game), s.outside_text(m.to),
                   s.outside_text(m.raw), s.outside_text(m.dedupe_key),
                   std::int64_t{m.next_attempt_at}, std::int64_t{m.created_at}, part}));
  return r.empty() ? std::int64_t{0} : r.int64(0, 0);
}

// MailStore inbox states: "new", "processed", "failed".
bool valid_inbox_state(const std::string& s) {
  return s == "new" || s == "processed" || s == "failed";
}

}  // namespace

Status SqlStore::mask_inbox_raw(std::int64_t id, const std::string& raw) {
  ADJ_RETURN_IF_ERROR(session().overwrite_freed(true));
  auto n = session().run("UPDATE inbox SET raw = ? WHERE id = ?", {sql::Param::bytes(raw), id});
  Status off = session().overwrite_freed(false);
  ADJ_RETURN_IF_ERROR(sql::changed_or(n, Status::NotFound(inbox_not_found(id))));
  return off;
}

Result<std::vector<OutboxMessage>> SqlStore::claim(UnixTime now, int limit,
                                                   std::int64_t lease_seconds) {
  // SQLite: one writer at a time, so no other claimer runs between the choice and the mark.
  // PostgreSQL: rows another claimer has locked are skipped, and a row it marked and committed
  // meanwhile is checked against the condition again, on its new version, when it is locked.
  ADJ_TRY(auto tx, sql::WriteTx::begin(session()));
  ADJ_TRY(
      const sql::Rows r,
      session().query("UPDATE outbox SET state = 'sending', lease_until = ?1, attempts = "
                      "attempts + 1 WHERE id IN (SELECT id FROM outbox WHERE (state = "
                      "'pending' AND next_attempt_at <= ?2) OR (state = 'sending' AND "
                      "lease_until <= ?2) ORDER BY kind IN ('refusal', 'help'), "
                      "next_attempt_at, id LIMIT ?3" +
                          std::string(session().skip_locked()) + ") RETURNING " + kOutboxColumns,
                      {std::int64_t{now + lease_seconds}, std::int64_t{now}, std::max(limit, 0)}));
  std::vector<OutboxMessage> out;
  out.reserve(r.size());
  // Each stored part read once per claim, however many of the claimed messages name it.
  std::string key, body;
  for (OutboxMessage& m : claimed_from_rows(r)) {
    if (!m.part_key.empty() && m.part_key != key) {
      Result<std::string> part = mail_part(m.part_key);
      if (part.ok()) {
        key = m.part_key;
        body = std::move(part).value();
      } else if (part.status().code() != StatusCode::kNotFound) {
        return part.status();
      }
    }
    if (!m.part_key.empty() && (m.part_key != key || !put_in_mail_part(m.raw, key, body))) {
      ADJ_RETURN_IF_ERROR(session().write(
          "UPDATE outbox SET state = 'failed', lease_until = NULL, last_error = ? "
          "WHERE id = ?",
          {"its stored part " + m.part_key + " is missing or has no place in it", m.id}));
      continue;
    }
    out.push_back(std::move(m));
  }
  ADJ_RETURN_IF_ERROR(tx.commit());
  return out;
}

Result<std::int64_t> SqlStore::put_inbox(const InboxMessage& m, bool* duplicate) {
  if (duplicate) *duplicate = false;
  if (m.message_id.empty()) return Status::InvalidArgument("put_inbox: the message id is empty");
  ADJ_TRY(std::vector<InboxPut> put, put_inbox_batch({m}));
  if (duplicate) *duplicate = put.front().duplicate;
  return put.front().id;
}

Result<std::vector<InboxPut>> SqlStore::put_inbox_batch(const std::vector<InboxMessage>& ms) {
  std::vector<std::string> to_texts;
  to_texts.reserve(ms.size());
  for (std::size_t i = 0; i < ms.size(); ++i) {
    const InboxMessage& m = ms[i];
    const std::string where = "put_inbox: message " + std::to_string(i) + ": ";
    if (m.message_id.empty()) return Status::InvalidArgument(where + "the message id is empty");
    if (!m.state.empty() && !valid_inbox_state(m.state))
      return Status::InvalidArgument(where + "unknown state '" + m.state + "'");
    Json to = Json::array();
    for (const std::string& r : m.envelope_to) to.push_back(r);
    ADJ_TRY(std::string text, json_to_text(to, "envelope recipients"));
    to_texts.push_back(std::move(text));
  }
  if (ms.empty()) return std::vector<InboxPut>{};

  // Two batches holding the same ids in different orders may deadlock on each other's
  // uncommitted rows (PostgreSQL); the loser is retried whole.
  sql::Session& s = session();
  return sql::with_retry(s, [&]() -> Result<std::vector<InboxPut>> {
    std::vector<InboxPut> out;
    out.reserve(ms.size());
    ADJ_TRY(auto tx, sql::WriteTx::begin(s));
    for (std::size_t i = 0; i < ms.size(); ++i) {
      const InboxMessage& m = ms[i];
      const sql::Param message_id = s.outside_text(m.message_id);
      ADJ_TRY(const sql::Rows ins,
              s.query("INSERT INTO inbox(message_id, channel, envelope_from, "
                      "envelope_to_json, raw, received_at, state, outcome, raw_bytes, "
                      "peer) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                      "ON CONFLICT (message_id) DO NOTHING RETURNING id",
                      {message_id, s.outside_text(m.channel), s.outside_text(m.envelope_from),
                       to_texts[i], sql::Param::bytes(m.raw), std::int64_t{m.received_at},
                       m.state.empty() ? std::string("new") : m.state, s.outside_text(m.outcome),
                       static_cast<std::int64_t>(m.raw.size()), s.outside_text(m.peer)}));
      if (ins.size() == 1) {
        out.push_back({ins.int64(0, 0), false});
        continue;
      }
      // Stored already (by an earlier message of this batch, or by a transaction that committed
      // while this insert waited for it): this statement sees it.
      ADJ_TRY(const sql::Rows old,
              s.query("SELECT id FROM inbox WHERE message_id = ?", {message_id}));
      if (old.empty())
        return Status::IOError("put_inbox: message " + std::to_string(i) +
                               " conflicted with a row that is gone");
      out.push_back({old.int64(0, 0), true});
    }
    ADJ_RETURN_IF_ERROR(tx.commit());
    return out;
  });
}

Result<std::vector<InboxMessage>> SqlStore::inbox_list(const std::string& state, int limit,
                                                       bool newest_first) {
  ADJ_TRY(const sql::Rows r,
          session().query(std::string(kInboxSelectNoRaw) +
                              "WHERE CAST(?1 AS TEXT) = '' OR state = ?1 ORDER BY id " +
                              (newest_first ? "DESC" : "ASC") + " LIMIT ?2",
                          {state, std::max(limit, 0)}));
  return sql::map_rows(r, inbox_from_row);
}

Result<InboxUsage> SqlStore::inbox_usage_from(const std::string& from, UnixTime since) {
  return inbox_usage(session(), session().nocase_equals("envelope_from", "?1"), from, since);
}

Result<InboxUsage> SqlStore::inbox_usage_peer(const std::string& peer, UnixTime since) {
  return inbox_usage(session(), "peer = ?1", peer, since);
}

Result<int> SqlStore::prune_inbox(UnixTime before, UnixTime now) {
  ADJ_TRY(const std::int64_t n,
          session().run(
              "UPDATE inbox SET raw = ?, pruned_at = ? WHERE state <> 'new' "
              "AND received_at < ? AND pruned_at IS NULL",
              {sql::Param::bytes(std::string_view()), std::int64_t{now}, std::int64_t{before}}));
  return static_cast<int>(n);
}

Result<std::vector<GameStorage>> SqlStore::storage_by_game() {
  const sql::Dialect d = session().dialect();
  ADJ_TRY(const sql::Rows r,
          session().query("SELECT g.id, "
                          "(SELECT coalesce(sum(" +
                              byte_length(d, "raw_text") + " + " + byte_length(d, "ack_json") +
                              "), 0) FROM submissions WHERE game_id = g.id), "
                              "(SELECT coalesce(sum(" +
                              byte_length(d, "text") + " + " + byte_length(d, "json") +
                              "), 0) FROM reports WHERE game_id = g.id), "
                              "(SELECT coalesce(sum(" +
                              byte_length(d, "raw") +
                              "), 0) FROM outbox WHERE game_id = g.id) "
                              "FROM games g ORDER BY g.id" +
                              std::string(session().bytewise()),
                          {}));
  return sql::map_rows(r, [](const sql::Rows& r, int i) {
    return GameStorage{r.text(i, 0), r.int64(i, 1), r.int64(i, 2), r.int64(i, 3)};
  });
}

Result<InboxMessage> SqlStore::inbox_message(std::int64_t id) {
  ADJ_TRY(const sql::Rows r, session().query(std::string(kInboxSelect) + "WHERE id = ?", {id}));
  if (r.empty()) return Status::NotFound(inbox_not_found(id));
  return inbox_from_row(r, 0);
}

Status SqlStore::set_inbox_state(std::int64_t id, const std::string& state,
                                 const std::string& outcome) {
  if (!valid_inbox_state(state))
    return Status::InvalidArgument("set_inbox_state: unknown state '" + state + "'");
  ADJ_TRY(auto tx, sql::WriteTx::begin(session()));
  // The UPDATE takes the row lock lease_inbox takes; the DELETE after it then sees any lease
  // taken before.
  ADJ_TRY(const std::int64_t n,
          session().run("UPDATE inbox SET state = ?, outcome = ? WHERE id = ?",
                        {state, session().outside_text(outcome), id}));
  if (n == 0) return Status::NotFound(inbox_not_found(id));
  if (state != "new")
    ADJ_RETURN_IF_ERROR(session().write("DELETE FROM inbox_lease WHERE inbox_id = ?", {id}));
  return tx.commit();
}

Result<bool> SqlStore::lease_inbox(std::int64_t id, const std::string& holder, UnixTime now,
                                   std::int64_t seconds) {
  if (holder.empty()) return Status::InvalidArgument("lease_inbox: the holder is empty");
  sql::Session& s = session();
  return sql::with_retry(s, [&]() -> Result<bool> {
    ADJ_TRY(auto tx, sql::WriteTx::begin(s));
    // Every taker of this message's lease holds its row lock first, so the statements below see
    // the lease as the last taker committed it.
    ADJ_TRY(const sql::Rows msg,
            s.query("SELECT state FROM inbox WHERE id = ?" + std::string(s.lock_rows()), {id}));
    if (msg.empty()) return Status::NotFound(inbox_not_found(id));
    if (msg.text(0, 0) != "new") return false;  // the destructor rolls back
    ADJ_TRY(const sql::Rows lease,
            s.query("SELECT holder, until FROM inbox_lease WHERE inbox_id = ?", {id}));
    if (!lease.empty() && lease.text(0, 0) != holder && lease.int64(0, 1) > now) return false;
    // A try starts unless `holder` renews its own lease.
    if (lease.empty() || lease.text(0, 0) != holder)
      ADJ_RETURN_IF_ERROR(s.write("UPDATE inbox SET attempts = attempts + 1 WHERE id = ?", {id}));
    ADJ_RETURN_IF_ERROR(
        s.write("INSERT INTO inbox_lease(inbox_id, holder, until) "
                "VALUES (?, ?, ?) ON CONFLICT (inbox_id) DO UPDATE SET "
                "holder = excluded.holder, until = excluded.until",
                {id, holder, std::int64_t{now + seconds}}));
    ADJ_RETURN_IF_ERROR(tx.commit());
    return true;
  });
}

Result<std::vector<InboxLease>> SqlStore::inbox_leases() {
  ADJ_TRY(const sql::Rows r,
          session().query("SELECT inbox_id, holder, until FROM inbox_lease ORDER BY inbox_id", {}));
  return sql::map_rows(r, [](const sql::Rows& r, int i) {
    return InboxLease{r.int64(i, 0), r.text(i, 1), r.int64(i, 2)};
  });
}

Status SqlStore::release_inbox(std::int64_t id, const std::string& holder) {
  return session().write("DELETE FROM inbox_lease WHERE inbox_id = ? AND holder = ?", {id, holder});
}

Status SqlStore::retry_inbox_later(std::int64_t id, const std::string& holder) {
  ADJ_TRY(auto tx, sql::WriteTx::begin(session()));
  ADJ_TRY(const std::int64_t held,
          session().run("DELETE FROM inbox_lease WHERE inbox_id = ? AND holder = ?", {id, holder}));
  if (held > 0)
    ADJ_RETURN_IF_ERROR(
        session().write("UPDATE inbox SET attempts = CASE WHEN attempts > 0 THEN "
                        "attempts - 1 ELSE 0 END WHERE id = ?",
                        {id}));
  return tx.commit();
}

Status SqlStore::put_mail_part(const std::string& key, const std::string& body, UnixTime now) {
  if (!valid_part_key(key))
    return Status::InvalidArgument("put_mail_part: a part key is 1 to 64 letters and digits");
  sql::Session& s = session();
  return s.write(
      "INSERT INTO mail_parts(id, body, created_at) VALUES (?, ?, ?) "
      "ON CONFLICT (id) DO NOTHING",
      {key, s.outside_text(body), std::int64_t{now}});
}

Result<std::string> SqlStore::mail_part(const std::string& key) {
  ADJ_TRY(const sql::Rows p, session().query("SELECT body FROM mail_parts WHERE id = ?", {key}));
  if (p.empty()) return Status::NotFound("no stored part " + key);
  return p.text(0, 0);
}

Result<int> SqlStore::prune_mail_parts(UnixTime before) {
  ADJ_TRY(auto tx, sql::WriteTx::begin(session()));
  // The placeholder, mail_part_placeholder(part_key), taken out.
  ADJ_RETURN_IF_ERROR(
      session().write("UPDATE outbox SET raw = replace(raw, ?1 || part_key || ?2, ''), "
                      "part_key = NULL WHERE part_key IS NOT NULL AND state IN ('sent', "
                      "'failed') AND created_at < ?3",
                      {kMailPartBefore, kMailPartAfter, std::int64_t{before}}));
  ADJ_TRY(const std::int64_t n,
          session().run("DELETE FROM mail_parts WHERE created_at < ? AND NOT EXISTS (SELECT 1 "
                        "FROM outbox WHERE outbox.part_key = mail_parts.id)",
                        {std::int64_t{before}}));
  ADJ_RETURN_IF_ERROR(tx.commit());
  return static_cast<int>(n);
}

Result<std::int64_t> SqlStore::enqueue(const OutboxMessage& m) {
  ADJ_TRY(const std::int64_t id, insert_outbox(session(), m));
  if (id == 0) return Status::AlreadyExists("outbox message " + m.dedupe_key);
  return id;
}

Result<std::vector<std::int64_t>> SqlStore::enqueue_batch(const std::vector<OutboxMessage>& ms) {
  ADJ_TRY(auto tx, sql::WriteTx::begin(session()));
  std::vector<std::int64_t> ids;
  ids.reserve(ms.size());
  for (std::size_t i = 0; i < ms.size(); ++i) {
    Result<std::int64_t> id = insert_outbox(session(), ms[i]);
    if (!id.ok())
      return Status(id.status().code(),
                    "message " + std::to_string(i) + ": " + id.status().message());
    ids.push_back(*id);
  }
  ADJ_RETURN_IF_ERROR(tx.commit());
  return ids;
}

Status SqlStore::mark_sent(std::int64_t id, UnixTime now) {
  ADJ_TRY(auto tx, sql::WriteTx::begin(session()));
  ADJ_TRY(const sql::Rows r,
          session().query("UPDATE outbox SET state = 'sent', sent_at = ?, lease_until = NULL, "
                          "last_error = '' WHERE id = ? RETURNING kind",
                          {std::int64_t{now}, id}));
  if (r.empty()) return Status::NotFound(outbox_not_found(id));
  // A mail that carried a secret or a takeover code keeps only its header once delivered: the
  // credential is then with its recipient, and the database holds it nowhere in clear. In the
  // same transaction, so the body is never left behind. (Only then is the message read back: a
  // report with its map is about a megabyte.)
  const std::string kind = r.text(0, 0);
  if (kind == "secret" || kind == "takeover") {
    ADJ_TRY(const sql::Rows body, session().query("SELECT raw FROM outbox WHERE id = ?", {id}));
    std::string raw = body.empty() ? std::string() : body.text(0, 0);
    const std::size_t end = raw.find("\r\n\r\n");
    raw = (end == std::string::npos ? std::string() : raw.substr(0, end + 4)) +
          "[The body of this message held a credential and was removed once it was "
          "delivered.]\r\n";
    ADJ_RETURN_IF_ERROR(session().write("UPDATE outbox SET raw = ? WHERE id = ?", {raw, id}));
  }
  return tx.commit();
}

Status SqlStore::mark_retry(std::int64_t id, const std::string& error, UnixTime next_attempt_at,
                            bool final) {
  // A message already sent (by another worker whose lease overlapped) stays sent.
  ADJ_TRY(const std::int64_t n,
          session().run("UPDATE outbox SET state = ?, next_attempt_at = ?, last_error = ?, "
                        "lease_until = NULL WHERE id = ? AND state <> 'sent'",
                        {final ? "failed" : "pending", std::int64_t{next_attempt_at},
                         session().outside_text(error), id}));
  if (n == 0) {
    ADJ_TRY(const sql::Rows exists, session().query("SELECT 1 FROM outbox WHERE id = ?", {id}));
    if (exists.empty()) return Status::NotFound(outbox_not_found(id));
  }
  return Status::Ok();
}

Result<std::vector<OutboxMessage>> SqlStore::outbox(const std::string& game, int limit) {
  ADJ_TRY(const sql::Rows r,
          session().query(std::string("SELECT ") + kOutboxColumns +
                              " FROM outbox WHERE CAST(?1 AS TEXT) = '' OR game_id = ?1 "
                              "ORDER BY id DESC LIMIT ?2",
                          {game, std::max(limit, 0)}));
  return sql::map_rows(r, outbox_from_row);
}

Result<OutboxMessage> SqlStore::outbox_message(std::int64_t id) {
  ADJ_TRY(
      const sql::Rows r,
      session().query(std::string("SELECT ") + kOutboxColumns + " FROM outbox WHERE id = ?", {id}));
  if (r.empty())
    return Status::NotFound("There is no outgoing message " + std::to_string(id) + ".");
  return outbox_from_row(r, 0);
}

Result<int> SqlStore::pending_count() {
  ADJ_TRY(const sql::Rows r,
          session().query("SELECT count(*) FROM outbox WHERE state IN ('pending', 'sending')", {}));
  return r.empty() ? 0 : r.int32(0, 0);
}

Result<int> SqlStore::failing_count() {
  ADJ_TRY(const sql::Rows r, session().query("SELECT count(*) FROM outbox WHERE state IN "
                                             "('pending', 'sending') AND last_error <> ''",
                                             {}));
  return r.empty() ? 0 : r.int32(0, 0);
}

Result<int> SqlStore::outbox_count(const std::string& to, const std::string& kind, UnixTime since) {
  sql::Session& s = session();
  ADJ_TRY(const sql::Rows r,
          s.query(to.empty()
                      ? std::string("SELECT count(*) FROM outbox WHERE "
                                    "CAST(?1 AS TEXT) = '' AND kind = ?2 AND "
                                    "created_at >= ?3")
                      : "SELECT count(*) FROM outbox WHERE " + s.nocase_equals("recipient", "?1") +
                            " AND kind = ?2 AND created_at >= ?3",
                  {s.outside_text(to), s.outside_text(kind), std::int64_t{since}}));
  return r.empty() ? 0 : r.int32(0, 0);
}

}  // namespace adj
