// PgStore: the MailStore tables of schemas/pg/0003_mail.sql (inbox, its leases, the outbox), and
// Store::storage_by_game / outbox_message. Behaves as sqlite_store_mail.cc; the claims are safe
// across processes sharing the database:
// - put_inbox dedupes with INSERT ... ON CONFLICT (message_id), which waits for a concurrent
//   insert of the same id and then sees it;
// - lease_inbox takes the message's row lock, then one conditional upsert of the lease;
// - claim locks due rows with SELECT ... FOR UPDATE SKIP LOCKED and marks them in one statement.
#include <algorithm>
#include <string_view>

#include "storage/core/codec.h"
#include "storage/core/record_checks.h"
#include "storage/postgres/pg_store.h"

namespace adj {

using store_checks::valid_inbox_state;

using pg::Param;
using pg::Rows;

namespace {

constexpr std::string_view kPgInboxColumns =
    "SELECT id, message_id, channel, envelope_from, envelope_to_json, raw, received_at, state, "
    "outcome, attempts, raw_bytes, peer, pruned_at FROM inbox ";
// The same columns with raw left out (empty bytes in its place).
constexpr std::string_view kPgInboxColumnsNoRaw =
    "SELECT id, message_id, channel, envelope_from, envelope_to_json, ''::bytea, received_at, "
    "state, outcome, attempts, raw_bytes, peer, pruned_at FROM inbox ";

constexpr std::string_view kPgOutboxColumns =
    "id, kind, game_id, recipient, raw, dedupe_key, state, attempts, next_attempt_at, "
    "last_error, created_at";

// Text from outside (a Message-ID, MAIL FROM and the refusal addressed to it, a client address)
// as PostgreSQL TEXT can hold it: unchanged when it is valid UTF-8 without NUL, else with each
// invalid byte (and NUL) replaced by U+FFFD. SQLite stores such bytes as they are; PostgreSQL
// would refuse the row (and with it a whole batch of received mail).
std::string storable_text(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t n = 0;
    if (c >= 0x01 && c < 0x80)
      n = 1;
    else if (c >= 0xC2 && c <= 0xDF)
      n = 2;
    else if (c >= 0xE0 && c <= 0xEF)
      n = 3;
    else if (c >= 0xF0 && c <= 0xF4)
      n = 4;
    bool ok = n > 0 && i + n <= s.size();
    for (std::size_t k = 1; ok && k < n; ++k)
      ok = (static_cast<unsigned char>(s[i + k]) & 0xC0) == 0x80;
    if (ok && n >= 3) {
      const auto c1 = static_cast<unsigned char>(s[i + 1]);
      if (c == 0xE0 && c1 < 0xA0) ok = false;   // overlong
      if (c == 0xED && c1 >= 0xA0) ok = false;  // surrogates
      if (c == 0xF0 && c1 < 0x90) ok = false;   // overlong
      if (c == 0xF4 && c1 >= 0x90) ok = false;  // past U+10FFFF
    }
    if (ok) {
      out.append(s.substr(i, n));
      i += n;
    } else {
      out += "\xEF\xBF\xBD";
      i += 1;
    }
  }
  return out;
}

// Reads the columns of kPgInboxColumns.
Result<InboxMessage> pg_inbox_from_row(const Rows& r, int row) {
  InboxMessage m;
  m.id = r.int64(row, 0);
  m.message_id = r.text(row, 1);
  m.channel = r.text(row, 2);
  m.envelope_from = r.text(row, 3);
  ADJ_TRY(Json to,
          json_from_text(r.text(row, 4), "envelope of inbox message " + std::to_string(m.id)));
  if (!to.is_array())
    return Status::Corruption("envelope of inbox message " + std::to_string(m.id) +
                              " is not a list");
  for (const Json& t : to) {
    if (!t.is_string())
      return Status::Corruption("envelope of inbox message " + std::to_string(m.id) +
                                " holds a non-string recipient");
    m.envelope_to.push_back(t.get<std::string>());
  }
  const std::vector<std::uint8_t> raw = r.bytes(row, 5);
  m.raw.assign(raw.begin(), raw.end());
  m.received_at = r.int64(row, 6);
  m.state = r.text(row, 7);
  m.outcome = r.text(row, 8);
  m.attempts = r.int32(row, 9);
  m.raw_bytes = r.int64(row, 10);
  m.peer = r.text(row, 11);
  if (!r.is_null(row, 12)) m.pruned_at = r.int64(row, 12);
  return m;
}

Result<std::vector<InboxMessage>> inbox_rows(const Rows& r) {
  std::vector<InboxMessage> out;
  out.reserve(static_cast<std::size_t>(r.size()));
  for (int i = 0; i < r.size(); ++i) {
    ADJ_TRY(InboxMessage m, pg_inbox_from_row(r, i));
    out.push_back(std::move(m));
  }
  return out;
}

// Reads the columns of kPgOutboxColumns.
OutboxMessage pg_outbox_from_row(const Rows& r, int row) {
  OutboxMessage m;
  m.id = r.int64(row, 0);
  m.kind = r.text(row, 1);
  m.game = r.text(row, 2);
  m.to = r.text(row, 3);
  m.raw = r.text(row, 4);
  m.dedupe_key = r.text(row, 5);
  m.state = r.text(row, 6);
  m.attempts = r.int32(row, 7);
  m.next_attempt_at = r.int64(row, 8);
  m.last_error = r.text(row, 9);
  m.created_at = r.int64(row, 10);
  return m;
}

std::string inbox_not_found(std::int64_t id) { return "inbox message " + std::to_string(id); }

}  // namespace

Result<std::int64_t> PgStore::put_inbox(const InboxMessage& m, bool* duplicate) {
  if (duplicate) *duplicate = false;
  if (m.message_id.empty()) return Status::InvalidArgument("put_inbox: the message id is empty");
  ADJ_TRY(std::vector<InboxPut> put, put_inbox_batch({m}));
  if (duplicate) *duplicate = put.front().duplicate;
  return put.front().id;
}

Result<std::vector<InboxPut>> PgStore::put_inbox_batch(const std::vector<InboxMessage>& ms) {
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
  // uncommitted rows; the loser is retried whole.
  return pg::with_retry([&]() -> Result<std::vector<InboxPut>> {
    std::vector<InboxPut> out;
    out.reserve(ms.size());
    ADJ_TRY(auto tx, pg::Transaction::begin(conn_));
    for (std::size_t i = 0; i < ms.size(); ++i) {
      const InboxMessage& m = ms[i];
      const std::string message_id = storable_text(m.message_id);
      ADJ_TRY(Rows ins,
              conn_.query("INSERT INTO inbox(message_id, channel, envelope_from, "
                          "envelope_to_json, raw, received_at, state, outcome, raw_bytes, "
                          "peer) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) "
                          "ON CONFLICT (message_id) DO NOTHING RETURNING id",
                          {message_id, storable_text(m.channel), storable_text(m.envelope_from),
                           to_texts[i], Param::bytes(m.raw), m.received_at,
                           m.state.empty() ? std::string("new") : m.state, storable_text(m.outcome),
                           static_cast<std::int64_t>(m.raw.size()), storable_text(m.peer)}));
      if (ins.size() == 1) {
        out.push_back({ins.int64(0, 0), false});
        continue;
      }
      // Stored already (by an earlier message of this batch, or by a transaction that committed
      // while this insert waited for it): this statement's snapshot sees it.
      ADJ_TRY(Rows old, conn_.query("SELECT id FROM inbox WHERE message_id = $1", {message_id}));
      if (old.empty())
        return Status::IOError("put_inbox: message " + std::to_string(i) +
                               " conflicted with a row that is gone");
      out.push_back({old.int64(0, 0), true});
    }
    ADJ_RETURN_IF_ERROR(tx.commit());
    return out;
  });
}

Result<std::vector<InboxMessage>> PgStore::inbox_in_state(const std::string& state, int limit) {
  ADJ_TRY(Rows r,
          conn_.query(std::string(kPgInboxColumns) + "WHERE state = $1 ORDER BY id LIMIT $2",
                      {state, std::max(limit, 0)}));
  return inbox_rows(r);
}

Result<std::vector<InboxMessage>> PgStore::inbox_list(const std::string& state, int limit,
                                                      bool newest_first) {
  ADJ_TRY(Rows r, conn_.query(std::string(kPgInboxColumnsNoRaw) +
                                  "WHERE $1::text = '' OR state = $1::text ORDER BY id " +
                                  (newest_first ? "DESC" : "ASC") + " LIMIT $2",
                              {state, std::max(limit, 0)}));
  return inbox_rows(r);
}

namespace {

// Messages and raw bytes received since `since` WHERE `match` (on $1, bound to `key`).
Result<InboxUsage> pg_inbox_usage(pg::Connection& c, std::string_view match, const std::string& key,
                                  UnixTime since) {
  if (key.empty()) return InboxUsage{};
  ADJ_TRY(Rows r, c.query("SELECT count(*), coalesce(sum(raw_bytes), 0) FROM inbox WHERE " +
                              std::string(match) + " AND received_at >= $2",
                          {storable_text(key), since}));
  if (r.empty()) return InboxUsage{};
  return InboxUsage{r.int32(0, 0), r.int64(0, 1)};
}

}  // namespace

Result<InboxUsage> PgStore::inbox_usage_from(const std::string& from, UnixTime since) {
  return pg_inbox_usage(conn_, "lower(envelope_from) = lower($1)", from, since);
}

Result<InboxUsage> PgStore::inbox_usage_peer(const std::string& peer, UnixTime since) {
  return pg_inbox_usage(conn_, "peer = $1", peer, since);
}

Result<int> PgStore::prune_inbox(UnixTime before, UnixTime now) {
  ADJ_TRY(std::int64_t n,
          conn_.run("UPDATE inbox SET raw = ''::bytea, pruned_at = $1 WHERE state <> 'new' "
                    "AND received_at < $2 AND pruned_at IS NULL",
                    {now, before}));
  return static_cast<int>(n);
}

Result<std::vector<GameStorage>> PgStore::storage_by_game() {
  ADJ_TRY(Rows r, conn_.query("SELECT g.id, "
                              "(SELECT coalesce(sum(octet_length(raw_text) + "
                              "octet_length(ack_json)), 0) FROM submissions WHERE game_id = g.id), "
                              "(SELECT coalesce(sum(octet_length(text) + octet_length(json)), 0) "
                              "FROM reports WHERE game_id = g.id), "
                              "(SELECT coalesce(sum(octet_length(raw)), 0) FROM outbox "
                              "WHERE game_id = g.id) FROM games g ORDER BY g.id COLLATE \"C\""));
  std::vector<GameStorage> out;
  out.reserve(static_cast<std::size_t>(r.size()));
  for (int i = 0; i < r.size(); ++i)
    out.push_back({r.text(i, 0), r.int64(i, 1), r.int64(i, 2), r.int64(i, 3)});
  return out;
}

Result<InboxMessage> PgStore::inbox_message(std::int64_t id) {
  ADJ_TRY(Rows r, conn_.query(std::string(kPgInboxColumns) + "WHERE id = $1", {id}));
  if (r.empty()) return Status::NotFound(inbox_not_found(id));
  return pg_inbox_from_row(r, 0);
}

Status PgStore::set_inbox_state(std::int64_t id, const std::string& state,
                                const std::string& outcome) {
  if (!valid_inbox_state(state))
    return Status::InvalidArgument("set_inbox_state: unknown state '" + state + "'");
  ADJ_TRY(auto tx, pg::Transaction::begin(conn_));
  // The UPDATE takes the row lock lease_inbox takes; the DELETE after it (a new snapshot) then
  // sees any lease taken before.
  ADJ_TRY(std::int64_t n, conn_.run("UPDATE inbox SET state = $1, outcome = $2 WHERE id = $3",
                                    {state, storable_text(outcome), id}));
  if (n == 0) return Status::NotFound(inbox_not_found(id));
  if (state != "new") {
    ADJ_TRY(std::int64_t gone, conn_.run("DELETE FROM inbox_lease WHERE inbox_id = $1", {id}));
    (void)gone;
  }
  return tx.commit();
}

Status PgStore::mask_inbox_raw(std::int64_t id, const std::string& raw) {
  // The old bytes stay in a dead row version until VACUUM reclaims it (autovacuum does, soon
  // after, on a busy inbox); no reader sees them.
  ADJ_TRY(std::int64_t n,
          conn_.run("UPDATE inbox SET raw = $1 WHERE id = $2", {Param::bytes(raw), id}));
  if (n == 0) return Status::NotFound(inbox_not_found(id));
  return Status::Ok();
}

Result<bool> PgStore::lease_inbox(std::int64_t id, const std::string& holder, UnixTime now,
                                  std::int64_t seconds) {
  if (holder.empty()) return Status::InvalidArgument("lease_inbox: the holder is empty");
  return pg::with_retry([&]() -> Result<bool> {
    ADJ_TRY(auto tx, pg::Transaction::begin(conn_));
    // Every taker of this message's lease holds its row lock first, so the statement below (a
    // new snapshot) sees the lease as the last taker committed it.
    ADJ_TRY(Rows msg, conn_.query("SELECT state FROM inbox WHERE id = $1 FOR UPDATE", {id}));
    if (msg.empty()) return Status::NotFound(inbox_not_found(id));
    if (msg.text(0, 0) != "new") return false;  // the destructor rolls back
    // Taken when there is no lease, it is `holder`'s, or it ran out; a try starts unless
    // `holder` renews its own lease.
    ADJ_TRY(Rows r, conn_.query("WITH old AS (SELECT holder FROM inbox_lease WHERE inbox_id = $1), "
                                "l AS (INSERT INTO inbox_lease(inbox_id, holder, until) "
                                "VALUES ($1, $2, $3) ON CONFLICT (inbox_id) DO UPDATE SET "
                                "holder = excluded.holder, until = excluded.until "
                                "WHERE inbox_lease.holder = excluded.holder OR "
                                "inbox_lease.until <= $4 RETURNING inbox_id), "
                                "u AS (UPDATE inbox SET attempts = attempts + 1 "
                                "WHERE id IN (SELECT inbox_id FROM l) AND "
                                "NOT EXISTS (SELECT 1 FROM old WHERE holder = $2) RETURNING id) "
                                "SELECT (SELECT count(*) FROM l), (SELECT count(*) FROM u)",
                                {id, holder, now + seconds, now}));
    if (r.empty() || r.int64(0, 0) == 0) return false;
    ADJ_RETURN_IF_ERROR(tx.commit());
    return true;
  });
}

Result<std::vector<InboxLease>> PgStore::inbox_leases() {
  ADJ_TRY(Rows r, conn_.query("SELECT inbox_id, holder, until FROM inbox_lease ORDER BY inbox_id"));
  std::vector<InboxLease> out;
  out.reserve(static_cast<std::size_t>(r.size()));
  for (int i = 0; i < r.size(); ++i) out.push_back({r.int64(i, 0), r.text(i, 1), r.int64(i, 2)});
  return out;
}

Status PgStore::release_inbox(std::int64_t id, const std::string& holder) {
  auto n = conn_.run("DELETE FROM inbox_lease WHERE inbox_id = $1 AND holder = $2", {id, holder});
  return n.ok() ? Status::Ok() : n.status();
}

Status PgStore::retry_inbox_later(std::int64_t id, const std::string& holder) {
  auto n = conn_.run(
      "WITH d AS (DELETE FROM inbox_lease WHERE inbox_id = $1 AND holder = $2 "
      "RETURNING inbox_id) UPDATE inbox SET attempts = greatest(attempts - 1, 0) "
      "WHERE id IN (SELECT inbox_id FROM d)",
      {id, holder});
  return n.ok() ? Status::Ok() : n.status();
}

Result<std::int64_t> PgStore::enqueue(const OutboxMessage& m) {
  if (m.kind.empty() || m.to.empty() || m.dedupe_key.empty() || m.raw.empty())
    return Status::InvalidArgument(
        "enqueue: a message needs a kind, a recipient, a raw message "
        "and a dedupe key");
  ADJ_TRY(Rows r, conn_.query("INSERT INTO outbox(kind, game_id, recipient, raw, dedupe_key, "
                              "state, attempts, next_attempt_at, created_at) "
                              "VALUES ($1, $2, $3, $4, $5, 'pending', 0, $6, $7) "
                              "ON CONFLICT (dedupe_key) DO NOTHING RETURNING id",
                              {storable_text(m.kind), storable_text(m.game), storable_text(m.to),
                               storable_text(m.raw), storable_text(m.dedupe_key), m.next_attempt_at,
                               m.created_at}));
  if (r.empty()) return Status::AlreadyExists("outbox message " + m.dedupe_key);
  return r.int64(0, 0);
}

Result<std::vector<OutboxMessage>> PgStore::claim(UnixTime now, int limit,
                                                  std::int64_t lease_seconds) {
  // Rows another claimer has locked are skipped, and a row it marked and committed meanwhile is
  // re-checked against the condition on its new version: no message is claimed twice.
  std::string sql =
      "WITH c AS (SELECT id FROM outbox WHERE (state = 'pending' AND next_attempt_at <= $2) OR "
      "(state = 'sending' AND lease_until <= $2) "
      "ORDER BY kind IN ('refusal', 'help'), next_attempt_at, id LIMIT $3 "
      "FOR UPDATE SKIP LOCKED) "
      "UPDATE outbox o SET state = 'sending', lease_until = $1, attempts = o.attempts + 1 "
      "FROM c WHERE o.id = c.id RETURNING ";
  for (std::string_view rest = kPgOutboxColumns;;) {
    const std::size_t comma = rest.find(", ");
    sql += "o.";
    sql += rest.substr(0, comma);
    if (comma == std::string_view::npos) break;
    sql += ", ";
    rest.remove_prefix(comma + 2);
  }
  ADJ_TRY(Rows r, conn_.query(sql, {now + lease_seconds, now, std::max(limit, 0)}));
  std::vector<OutboxMessage> out;
  out.reserve(static_cast<std::size_t>(r.size()));
  for (int i = 0; i < r.size(); ++i) out.push_back(pg_outbox_from_row(r, i));
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

Status PgStore::mark_sent(std::int64_t id, UnixTime now) {
  // A mail that carried a secret or a takeover code keeps only its header once delivered: the
  // credential is then with its recipient, and the database holds it nowhere in clear. One
  // statement, so the body is never left behind.
  auto n = conn_.run(
      "UPDATE outbox SET state = 'sent', sent_at = $1, lease_until = NULL, last_error = '', "
      "raw = CASE WHEN kind IN ('secret', 'takeover') THEN "
      "(CASE WHEN strpos(raw, E'\\r\\n\\r\\n') > 0 "
      "THEN substr(raw, 1, strpos(raw, E'\\r\\n\\r\\n') + 3) ELSE '' END) || "
      "E'[The body of this message held a credential and was removed once it was "
      "delivered.]\\r\\n' ELSE raw END WHERE id = $2",
      {now, id});
  if (!n.ok()) return n.status();
  if (*n == 0) return Status::NotFound("outbox message " + std::to_string(id));
  return Status::Ok();
}

Status PgStore::mark_retry(std::int64_t id, const std::string& error, UnixTime next_attempt_at,
                           bool final) {
  // A message already sent (by another worker whose lease overlapped) stays sent.
  auto n = conn_.run(
      "UPDATE outbox SET state = $1, next_attempt_at = $2, last_error = $3, "
      "lease_until = NULL WHERE id = $4 AND state <> 'sent'",
      {final ? "failed" : "pending", next_attempt_at, storable_text(error), id});
  if (!n.ok()) return n.status();
  if (*n == 0) {
    ADJ_TRY(Rows exists, conn_.query("SELECT 1 FROM outbox WHERE id = $1", {id}));
    if (exists.empty()) return Status::NotFound("outbox message " + std::to_string(id));
  }
  return Status::Ok();
}

Result<std::vector<OutboxMessage>> PgStore::outbox(const std::string& game, int limit) {
  ADJ_TRY(Rows r, conn_.query("SELECT " + std::string(kPgOutboxColumns) +
                                  " FROM outbox WHERE $1::text = '' OR game_id = $1::text "
                                  "ORDER BY id DESC LIMIT $2",
                              {game, std::max(limit, 0)}));
  std::vector<OutboxMessage> out;
  out.reserve(static_cast<std::size_t>(r.size()));
  for (int i = 0; i < r.size(); ++i) out.push_back(pg_outbox_from_row(r, i));
  return out;
}

Result<OutboxMessage> PgStore::outbox_message(std::int64_t id) {
  ADJ_TRY(
      Rows r,
      conn_.query("SELECT " + std::string(kPgOutboxColumns) + " FROM outbox WHERE id = $1", {id}));
  if (r.empty())
    return Status::NotFound("There is no outgoing message " + std::to_string(id) + ".");
  return pg_outbox_from_row(r, 0);
}

Result<int> PgStore::pending_count() {
  ADJ_TRY(Rows r, conn_.query("SELECT count(*) FROM outbox WHERE state IN ('pending', 'sending')"));
  return r.empty() ? 0 : r.int32(0, 0);
}

Result<int> PgStore::failing_count() {
  ADJ_TRY(Rows r, conn_.query("SELECT count(*) FROM outbox WHERE state IN ('pending', "
                              "'sending') AND last_error <> ''"));
  return r.empty() ? 0 : r.int32(0, 0);
}

Result<int> PgStore::outbox_count(const std::string& to, const std::string& kind, UnixTime since) {
  ADJ_TRY(Rows r, conn_.query(to.empty() ? "SELECT count(*) FROM outbox WHERE $1::text = '' "
                                           "AND kind = $2 AND created_at >= $3"
                                         : "SELECT count(*) FROM outbox WHERE "
                                           "lower(recipient) = lower($1::text) AND kind = $2 "
                                           "AND created_at >= $3",
                              {storable_text(to), storable_text(kind), since}));
  return r.empty() ? 0 : r.int32(0, 0);
}

}  // namespace adj
