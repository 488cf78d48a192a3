// SqliteStore: the MailStore tables of migration 0003 (inbox and persistent outbox).
#include <algorithm>

#include "storage/core/codec.h"
#include "storage/core/record_checks.h"
#include "storage/sqlite/sqlite_store.h"

namespace adj {

using store_checks::valid_inbox_state;

using sqlite::Statement;
using sqlite::Transaction;

namespace {

constexpr const char* kInboxColumns =
    "SELECT id, message_id, channel, envelope_from, envelope_to_json, raw, received_at, state, "
    "outcome, attempts, raw_bytes, peer, pruned_at FROM inbox ";
// The same columns with raw left out (X'' in its place).
constexpr const char* kInboxColumnsNoRaw =
    "SELECT id, message_id, channel, envelope_from, envelope_to_json, X'', received_at, state, "
    "outcome, attempts, raw_bytes, peer, pruned_at FROM inbox ";

constexpr const char* kOutboxColumns =
    "id, kind, game_id, recipient, raw, dedupe_key, state, attempts, next_attempt_at, "
    "last_error, created_at";

std::span<const std::uint8_t> bytes(const std::string& s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

Result<InboxMessage> inbox_from_row(const Statement& st) {
  InboxMessage m;
  m.id = st.column_int64(0);
  m.message_id = st.column_text(1);
  m.channel = st.column_text(2);
  m.envelope_from = st.column_text(3);
  ADJ_TRY(Json to,
          json_from_text(st.column_text(4), "envelope of inbox message " + std::to_string(m.id)));
  if (!to.is_array())
    return Status::Corruption("envelope of inbox message " + std::to_string(m.id) +
                              " is not a list");
  for (const Json& r : to) {
    if (!r.is_string())
      return Status::Corruption("envelope of inbox message " + std::to_string(m.id) +
                                " holds a non-string recipient");
    m.envelope_to.push_back(r.get<std::string>());
  }
  const std::vector<std::uint8_t> raw = st.column_blob(5);
  m.raw.assign(raw.begin(), raw.end());
  m.received_at = st.column_int64(6);
  m.state = st.column_text(7);
  m.outcome = st.column_text(8);
  m.attempts = st.column_int(9);
  m.raw_bytes = st.column_int64(10);
  m.peer = st.column_text(11);
  if (!st.column_is_null(12)) m.pruned_at = st.column_int64(12);
  return m;
}

// Reads the columns of kOutboxColumns, starting at column 0.
OutboxMessage outbox_from_row(const Statement& st) {
  OutboxMessage m;
  m.id = st.column_int64(0);
  m.kind = st.column_text(1);
  m.game = st.column_text(2);
  m.to = st.column_text(3);
  m.raw = st.column_text(4);
  m.dedupe_key = st.column_text(5);
  m.state = st.column_text(6);
  m.attempts = st.column_int(7);
  m.next_attempt_at = st.column_int64(8);
  m.last_error = st.column_text(9);
  m.created_at = st.column_int64(10);
  return m;
}

}  // namespace

Result<std::int64_t> SqliteStore::put_inbox(const InboxMessage& m, bool* duplicate) {
  if (duplicate) *duplicate = false;
  if (m.message_id.empty()) return Status::InvalidArgument("put_inbox: the message id is empty");
  ADJ_TRY(std::vector<InboxPut> put, put_inbox_batch({m}));
  if (duplicate) *duplicate = put.front().duplicate;
  return put.front().id;
}

Result<std::vector<InboxPut>> SqliteStore::put_inbox_batch(const std::vector<InboxMessage>& ms) {
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
  std::vector<InboxPut> out;
  out.reserve(ms.size());
  if (ms.empty()) return out;

  ADJ_TRY(auto tx, Transaction::begin(db_));
  for (std::size_t i = 0; i < ms.size(); ++i) {
    const InboxMessage& m = ms[i];
    {
      ADJ_TRY(auto st, db_.prepare("SELECT id FROM inbox WHERE message_id = ?"));
      st.bind_text(1, m.message_id);
      ADJ_TRY(bool row, st.step());
      if (row) {
        out.push_back({st.column_int64(0), true});
        continue;
      }
    }
    ADJ_TRY(auto st, db_.prepare("INSERT INTO inbox(message_id, channel, envelope_from, "
                                 "envelope_to_json, raw, received_at, state, outcome, "
                                 "raw_bytes, peer) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
    st.bind_text(1, m.message_id)
        .bind_text(2, m.channel)
        .bind_text(3, m.envelope_from)
        .bind_text(4, to_texts[i])
        .bind_blob(5, bytes(m.raw))
        .bind_int64(6, m.received_at)
        .bind_text(7, m.state.empty() ? std::string("new") : m.state)
        .bind_text(8, m.outcome)
        .bind_int64(9, static_cast<std::int64_t>(m.raw.size()))
        .bind_text(10, m.peer);
    ADJ_RETURN_IF_ERROR(st.run());
    out.push_back({db_.last_insert_rowid(), false});
  }
  ADJ_RETURN_IF_ERROR(tx.commit());
  return out;
}

Result<std::vector<InboxMessage>> SqliteStore::inbox_in_state(const std::string& state, int limit) {
  ADJ_TRY(auto st, db_.prepare(std::string(kInboxColumns) + "WHERE state = ? ORDER BY id LIMIT ?"));
  st.bind_text(1, state).bind_int(2, std::max(limit, 0));
  std::vector<InboxMessage> out;
  for (;;) {
    ADJ_TRY(bool row, st.step());
    if (!row) return out;
    ADJ_TRY(InboxMessage m, inbox_from_row(st));
    out.push_back(std::move(m));
  }
}

Result<std::vector<InboxMessage>> SqliteStore::inbox_list(const std::string& state, int limit,
                                                          bool newest_first) {
  ADJ_TRY(auto st,
          db_.prepare(std::string(kInboxColumnsNoRaw) + "WHERE ?1 = '' OR state = ?1 ORDER BY id " +
                      (newest_first ? "DESC" : "ASC") + " LIMIT ?2"));
  st.bind_text(1, state).bind_int(2, std::max(limit, 0));
  std::vector<InboxMessage> out;
  for (;;) {
    ADJ_TRY(bool row, st.step());
    if (!row) return out;
    ADJ_TRY(InboxMessage m, inbox_from_row(st));
    out.push_back(std::move(m));
  }
}

namespace {

// Messages and raw bytes received since `since` WHERE `match` (one `?`, bound to `key`).
Result<InboxUsage> inbox_usage(sqlite::Database& db, const char* match, const std::string& key,
                               UnixTime since) {
  if (key.empty()) return InboxUsage{};
  ADJ_TRY(auto st, db.prepare(std::string("SELECT count(*), coalesce(sum(raw_bytes), 0) "
                                          "FROM inbox WHERE ") +
                              match + " AND received_at >= ?"));
  st.bind_text(1, key).bind_int64(2, since);
  ADJ_TRY(bool row, st.step());
  if (!row) return InboxUsage{};
  return InboxUsage{st.column_int(0), st.column_int64(1)};
}

}  // namespace

Result<InboxUsage> SqliteStore::inbox_usage_from(const std::string& from, UnixTime since) {
  return inbox_usage(db_, "envelope_from = ? COLLATE NOCASE", from, since);
}

Result<InboxUsage> SqliteStore::inbox_usage_peer(const std::string& peer, UnixTime since) {
  return inbox_usage(db_, "peer = ?", peer, since);
}

Result<int> SqliteStore::prune_inbox(UnixTime before, UnixTime now) {
  ADJ_TRY(auto st, db_.prepare("UPDATE inbox SET raw = X'', pruned_at = ? WHERE state <> 'new' "
                               "AND received_at < ? AND pruned_at IS NULL"));
  st.bind_int64(1, now).bind_int64(2, before);
  ADJ_RETURN_IF_ERROR(st.run());
  return db_.changes();
}

Result<std::vector<GameStorage>> SqliteStore::storage_by_game() {
  ADJ_TRY(
      auto st,
      db_.prepare("SELECT g.id, "
                  "(SELECT coalesce(sum(length(CAST(raw_text AS BLOB)) + length(CAST(ack_json AS "
                  "BLOB))), 0) FROM submissions WHERE game_id = g.id), "
                  "(SELECT coalesce(sum(length(CAST(text AS BLOB)) + length(CAST(json AS BLOB))), "
                  "0) FROM reports WHERE game_id = g.id), "
                  "(SELECT coalesce(sum(length(CAST(raw AS BLOB))), 0) FROM outbox WHERE "
                  "game_id = g.id) FROM games g ORDER BY g.id"));
  std::vector<GameStorage> out;
  for (;;) {
    ADJ_TRY(bool row, st.step());
    if (!row) return out;
    out.push_back({st.column_text(0), st.column_int64(1), st.column_int64(2), st.column_int64(3)});
  }
}

Result<InboxMessage> SqliteStore::inbox_message(std::int64_t id) {
  ADJ_TRY(auto st, db_.prepare(std::string(kInboxColumns) + "WHERE id = ?"));
  st.bind_int64(1, id);
  ADJ_TRY(bool row, st.step());
  if (!row) return Status::NotFound("inbox message " + std::to_string(id));
  return inbox_from_row(st);
}

Status SqliteStore::set_inbox_state(std::int64_t id, const std::string& state,
                                    const std::string& outcome) {
  if (!valid_inbox_state(state))
    return Status::InvalidArgument("set_inbox_state: unknown state '" + state + "'");
  ADJ_TRY(auto tx, Transaction::begin(db_));
  {
    ADJ_TRY(auto st, db_.prepare("UPDATE inbox SET state = ?, outcome = ? WHERE id = ?"));
    st.bind_text(1, state).bind_text(2, outcome).bind_int64(3, id);
    ADJ_RETURN_IF_ERROR(st.run());
    if (db_.changes() == 0) return Status::NotFound("inbox message " + std::to_string(id));
  }
  if (state != "new") {
    ADJ_TRY(auto st, db_.prepare("DELETE FROM inbox_lease WHERE inbox_id = ?"));
    st.bind_int64(1, id);
    ADJ_RETURN_IF_ERROR(st.run());
  }
  return tx.commit();
}

Status SqliteStore::mask_inbox_raw(std::int64_t id, const std::string& raw) {
  ADJ_RETURN_IF_ERROR(db_.exec("PRAGMA secure_delete=ON"));
  ADJ_TRY(auto st, db_.prepare("UPDATE inbox SET raw = ? WHERE id = ?"));
  st.bind_blob(1, bytes(raw)).bind_int64(2, id);
  Status s = st.run();
  const bool none = s.ok() && db_.changes() == 0;
  Status off = db_.exec("PRAGMA secure_delete=OFF");
  if (!s.ok()) return s;
  if (none) return Status::NotFound("inbox message " + std::to_string(id));
  return off;
}

Result<bool> SqliteStore::lease_inbox(std::int64_t id, const std::string& holder, UnixTime now,
                                      std::int64_t seconds) {
  if (holder.empty()) return Status::InvalidArgument("lease_inbox: the holder is empty");
  ADJ_TRY(auto tx, Transaction::begin(db_));
  {
    ADJ_TRY(auto st, db_.prepare("SELECT state FROM inbox WHERE id = ?"));
    st.bind_int64(1, id);
    ADJ_TRY(bool row, st.step());
    if (!row) return Status::NotFound("inbox message " + std::to_string(id));
    if (st.column_text(0) != "new") return false;
  }
  {
    ADJ_TRY(auto st, db_.prepare("SELECT holder, until FROM inbox_lease WHERE inbox_id = ?"));
    st.bind_int64(1, id);
    ADJ_TRY(bool row, st.step());
    if (row && st.column_text(0) != holder && st.column_int64(1) > now) return false;
  }
  {
    // A try starts unless `holder` renews its own lease.
    ADJ_TRY(auto st, db_.prepare("UPDATE inbox SET attempts = attempts + 1 WHERE id = ? AND "
                                 "NOT EXISTS (SELECT 1 FROM inbox_lease WHERE inbox_id = ? "
                                 "AND holder = ?)"));
    st.bind_int64(1, id).bind_int64(2, id).bind_text(3, holder);
    ADJ_RETURN_IF_ERROR(st.run());
  }
  ADJ_TRY(auto st, db_.prepare("INSERT INTO inbox_lease(inbox_id, holder, until) "
                               "VALUES (?, ?, ?) ON CONFLICT(inbox_id) DO UPDATE SET "
                               "holder = excluded.holder, until = excluded.until"));
  st.bind_int64(1, id).bind_text(2, holder).bind_int64(3, now + seconds);
  ADJ_RETURN_IF_ERROR(st.run());
  ADJ_RETURN_IF_ERROR(tx.commit());
  return true;
}

Result<std::vector<InboxLease>> SqliteStore::inbox_leases() {
  ADJ_TRY(auto st,
          db_.prepare("SELECT inbox_id, holder, until FROM inbox_lease ORDER BY inbox_id"));
  std::vector<InboxLease> out;
  for (;;) {
    ADJ_TRY(bool row, st.step());
    if (!row) return out;
    out.push_back({st.column_int64(0), st.column_text(1), st.column_int64(2)});
  }
}

Status SqliteStore::release_inbox(std::int64_t id, const std::string& holder) {
  ADJ_TRY(auto st, db_.prepare("DELETE FROM inbox_lease WHERE inbox_id = ? AND holder = ?"));
  st.bind_int64(1, id).bind_text(2, holder);
  return st.run();
}

Status SqliteStore::retry_inbox_later(std::int64_t id, const std::string& holder) {
  ADJ_TRY(auto tx, Transaction::begin(db_));
  ADJ_TRY(auto held, db_.prepare("DELETE FROM inbox_lease WHERE inbox_id = ? AND holder = ?"));
  held.bind_int64(1, id).bind_text(2, holder);
  ADJ_RETURN_IF_ERROR(held.run());
  if (db_.changes() > 0) {
    ADJ_TRY(auto st, db_.prepare("UPDATE inbox SET attempts = max(attempts - 1, 0) "
                                 "WHERE id = ?"));
    st.bind_int64(1, id);
    ADJ_RETURN_IF_ERROR(st.run());
  }
  return tx.commit();
}

Result<std::int64_t> SqliteStore::enqueue(const OutboxMessage& m) {
  if (m.kind.empty() || m.to.empty() || m.dedupe_key.empty() || m.raw.empty())
    return Status::InvalidArgument(
        "enqueue: a message needs a kind, a recipient, a raw message "
        "and a dedupe key");
  ADJ_TRY(auto st, db_.prepare("INSERT INTO outbox(kind, game_id, recipient, raw, dedupe_key, "
                               "state, attempts, next_attempt_at, created_at) "
                               "VALUES (?, ?, ?, ?, ?, 'pending', 0, ?, ?)"));
  st.bind_text(1, m.kind)
      .bind_text(2, m.game)
      .bind_text(3, m.to)
      .bind_text(4, m.raw)
      .bind_text(5, m.dedupe_key)
      .bind_int64(6, m.next_attempt_at)
      .bind_int64(7, m.created_at);
  Status s = st.run();
  if (s.code() == StatusCode::kAlreadyExists)
    return Status::AlreadyExists("outbox message " + m.dedupe_key);
  ADJ_RETURN_IF_ERROR(s);
  return db_.last_insert_rowid();
}

Result<std::vector<OutboxMessage>> SqliteStore::claim(UnixTime now, int limit,
                                                      std::int64_t lease_seconds) {
  ADJ_TRY(auto tx, Transaction::begin(db_));
  ADJ_TRY(auto st,
          db_.prepare(std::string("UPDATE outbox SET state = 'sending', lease_until = ?1, "
                                  "attempts = attempts + 1 WHERE id IN (SELECT id FROM outbox "
                                  "WHERE (state = 'pending' AND next_attempt_at <= ?2) OR "
                                  "(state = 'sending' AND lease_until <= ?2) "
                                  "ORDER BY kind IN ('refusal', 'help'), next_attempt_at, "
                                  "id LIMIT ?3) RETURNING ") +
                      kOutboxColumns));
  st.bind_int64(1, now + lease_seconds).bind_int64(2, now).bind_int(3, std::max(limit, 0));
  std::vector<OutboxMessage> out;
  for (;;) {
    ADJ_TRY(bool row, st.step());
    if (!row) break;
    out.push_back(outbox_from_row(st));
  }
  st.reset();
  ADJ_RETURN_IF_ERROR(tx.commit());
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

Status SqliteStore::mark_sent(std::int64_t id, UnixTime now) {
  ADJ_TRY(auto st, db_.prepare("UPDATE outbox SET state = 'sent', sent_at = ?, "
                               "lease_until = NULL, last_error = '' WHERE id = ?"));
  st.bind_int64(1, now).bind_int64(2, id);
  ADJ_RETURN_IF_ERROR(st.run());
  if (db_.changes() == 0) return Status::NotFound("outbox message " + std::to_string(id));
  // A mail that carried a secret or a takeover code keeps only its header once delivered: the
  // credential is then with its recipient, and the database holds it nowhere in clear.
  ADJ_TRY(auto secret, db_.prepare("SELECT raw FROM outbox WHERE id = ? AND kind IN "
                                   "('secret', 'takeover')"));
  secret.bind_int64(1, id);
  ADJ_TRY(bool row, secret.step());
  if (!row) return Status::Ok();
  std::string raw = secret.column_text(0);
  const std::size_t end = raw.find("\r\n\r\n");
  raw = (end == std::string::npos ? std::string() : raw.substr(0, end + 4)) +
        "[The body of this message held a credential and was removed once it was delivered.]\r\n";
  ADJ_TRY(auto blank, db_.prepare("UPDATE outbox SET raw = ? WHERE id = ?"));
  blank.bind_text(1, raw).bind_int64(2, id);
  return blank.run();
}

Status SqliteStore::mark_retry(std::int64_t id, const std::string& error, UnixTime next_attempt_at,
                               bool final) {
  // A message already sent (by another worker whose lease overlapped) stays sent.
  ADJ_TRY(auto st, db_.prepare("UPDATE outbox SET state = ?, next_attempt_at = ?, "
                               "last_error = ?, lease_until = NULL "
                               "WHERE id = ? AND state <> 'sent'"));
  st.bind_text(1, final ? "failed" : "pending")
      .bind_int64(2, next_attempt_at)
      .bind_text(3, error)
      .bind_int64(4, id);
  ADJ_RETURN_IF_ERROR(st.run());
  if (db_.changes() == 0) {
    ADJ_TRY(auto exists, db_.prepare("SELECT 1 FROM outbox WHERE id = ?"));
    exists.bind_int64(1, id);
    ADJ_TRY(bool row, exists.step());
    if (!row) return Status::NotFound("outbox message " + std::to_string(id));
  }
  return Status::Ok();
}

Result<std::vector<OutboxMessage>> SqliteStore::outbox(const std::string& game, int limit) {
  ADJ_TRY(auto st, db_.prepare(std::string("SELECT ") + kOutboxColumns +
                               " FROM outbox WHERE ?1 = '' OR game_id = ?1 "
                               "ORDER BY id DESC LIMIT ?2"));
  st.bind_text(1, game).bind_int(2, std::max(limit, 0));
  std::vector<OutboxMessage> out;
  for (;;) {
    ADJ_TRY(bool row, st.step());
    if (!row) return out;
    out.push_back(outbox_from_row(st));
  }
}

Result<OutboxMessage> SqliteStore::outbox_message(std::int64_t id) {
  ADJ_TRY(auto st,
          db_.prepare(std::string("SELECT ") + kOutboxColumns + " FROM outbox WHERE id = ?"));
  st.bind_int64(1, id);
  ADJ_TRY(bool row, st.step());
  if (!row) return Status::NotFound("There is no outgoing message " + std::to_string(id) + ".");
  return outbox_from_row(st);
}

Result<int> SqliteStore::pending_count() {
  ADJ_TRY(auto st,
          db_.prepare("SELECT count(*) FROM outbox WHERE state IN ('pending', 'sending')"));
  ADJ_TRY(bool row, st.step());
  return row ? st.column_int(0) : 0;
}

Result<int> SqliteStore::failing_count() {
  ADJ_TRY(auto st, db_.prepare("SELECT count(*) FROM outbox WHERE state IN ('pending', "
                               "'sending') AND last_error <> ''"));
  ADJ_TRY(bool row, st.step());
  return row ? st.column_int(0) : 0;
}

Result<int> SqliteStore::outbox_count(const std::string& to, const std::string& kind,
                                      UnixTime since) {
  ADJ_TRY(auto st, db_.prepare(to.empty() ? "SELECT count(*) FROM outbox WHERE ?1 = '' AND "
                                            "kind = ?2 AND created_at >= ?3"
                                          : "SELECT count(*) FROM outbox WHERE recipient = ?1 "
                                            "COLLATE NOCASE AND kind = ?2 AND created_at >= ?3"));
  st.bind_text(1, to).bind_text(2, kind).bind_int64(3, since);
  ADJ_TRY(bool row, st.step());
  return row ? st.column_int(0) : 0;
}

}  // namespace adj
