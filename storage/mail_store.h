// Storage for mail: the inbox (every message received, raw, before the SMTP 250 reply) and the
// persistent outbox (every message to send, delivered at least once and marked exactly once).
// Implemented by SqliteStore (migration 0003). Thread-safety: one object per thread; several
// processes may share the database (SQLite WAL + BEGIN IMMEDIATE).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rules/core/status.h"
#include "storage/records.h"

namespace adj {

struct InboxMessage {
  std::int64_t id = 0;
  std::string message_id;  // the Message-ID header (or a content hash when missing)
  std::string channel;     // "smtp", "pipe", "maildir", "web"
  std::string envelope_from;
  std::vector<std::string> envelope_to;
  std::string raw;  // the message exactly as received (RFC 5322)
  UnixTime received_at = 0;
  std::string state;    // "new", "processed", "failed"
  std::string outcome;  // what processing did ("orders accepted for britain-1/WSX", ...)
  // Migration 0006:
  int attempts = 0;                   // leases taken to answer it (read back; put_inbox ignores it)
  std::int64_t raw_bytes = 0;         // size of raw as stored (read back; put_inbox computes it)
  std::string peer;                   // the client address it came from; "" when unknown
  std::optional<UnixTime> pruned_at;  // set when raw was dropped (raw is then "")
};

// How much one sender or client address stored in the inbox over a window (storage budgets).
struct InboxUsage {
  int messages = 0;
  std::int64_t bytes = 0;
};

// Bytes stored for one game (GM page, /metrics).
struct GameStorage {
  std::string game;
  std::int64_t submissions = 0;  // order files and their acknowledgements
  std::int64_t reports = 0;      // turn reports (text and JSON)
  std::int64_t mail = 0;         // outgoing mail queued for the game (reports, answers)
};

struct OutboxMessage {
  std::int64_t id = 0;
  std::string kind;        // "ack", "refusal", "report", "reminder", "help", "status", ...
  std::string game;        // may be empty
  std::string to;          // one recipient address
  std::string raw;         // the complete RFC 5322 message (headers + MIME body), CRLF
  std::string dedupe_key;  // unique: the same logical message is never queued twice
  std::string state;       // "pending", "sending", "sent", "failed"
  int attempts = 0;
  UnixTime next_attempt_at = 0;
  std::string last_error;
  UnixTime created_at = 0;
  // Migration 0026: "" or a part stored with MailStore::put_mail_part. raw then holds
  // mail_part_placeholder(part_key) once, where the part's body goes: claim() returns raw with
  // the body in its place; outbox() and Store::outbox_message() return raw as stored.
  std::string part_key;
};

// What stands in an outbox message's raw for the body of its stored part `key`: letters and
// digits only, so a MIME writer may put it where base64 goes. kMailPartBefore + key +
// kMailPartAfter.
inline constexpr const char* kMailPartBefore = "AdjutantStoredPart";
inline constexpr const char* kMailPartAfter = "Here";
inline std::string mail_part_placeholder(const std::string& key) {
  return kMailPartBefore + key + kMailPartAfter;
}
// Puts `body` in place of the placeholder of `key` in `raw` (its first one); false, `raw`
// unchanged, when `raw` holds none.
inline bool put_in_mail_part(std::string& raw, const std::string& key, const std::string& body) {
  const std::string placeholder = mail_part_placeholder(key);
  const std::size_t at = raw.find(placeholder);
  if (at == std::string::npos) return false;
  raw.replace(at, placeholder.size(), body);
  return true;
}

// Who is answering an inbox message (MailStore::lease_inbox).
struct InboxLease {
  std::int64_t inbox_id = 0;
  std::string holder;  // "host:pid:n"
  UnixTime until = 0;
};

// Where put_inbox_batch put one message.
struct InboxPut {
  std::int64_t id = 0;
  bool duplicate = false;  // a message with its message_id was already stored (id is that one)
};

class MailStore {
 public:
  virtual ~MailStore() = default;
  // Stores a received message durably. When a message with the same message_id exists, nothing
  // is written and the existing id is returned with `*duplicate = true`.
  virtual Result<std::int64_t> put_inbox(const InboxMessage& m, bool* duplicate) = 0;
  // put_inbox for each message in one transaction (one commit: the SMTP listener's group
  // commit), results in the same order. A repeat inside the batch is a duplicate of the first.
  // All or nothing: on error nothing is stored. InvalidArgument for an empty message_id or an
  // unknown state names the message's index.
  virtual Result<std::vector<InboxPut>> put_inbox_batch(const std::vector<InboxMessage>& ms) = 0;
  // The messages in `state` ("" for any state) without their raw bytes (raw ""), so listing many
  // large messages costs little: oldest first, or newest first when `newest_first` (the GM's
  // view). inbox_message() reads one with its bytes.
  virtual Result<std::vector<InboxMessage>> inbox_list(const std::string& state, int limit,
                                                       bool newest_first) = 0;
  // Messages and bytes stored at or after `since` from envelope sender `from` (compared without
  // regard to case) and, separately, from client address `peer`. Empty strings count nothing.
  virtual Result<InboxUsage> inbox_usage_from(const std::string& from, UnixTime since) = 0;
  virtual Result<InboxUsage> inbox_usage_peer(const std::string& peer, UnixTime since) = 0;
  // Drops the raw bytes of messages no longer "new" received before `before` (pruned_at = now);
  // the rows stay (Message-ID for dedupe, outcome). Returns how many were pruned.
  virtual Result<int> prune_inbox(UnixTime before, UnixTime now) = 0;
  virtual Status set_inbox_state(std::int64_t id, const std::string& state,
                                 const std::string& outcome) = 0;
  // One stored message by id; NotFound when there is none.
  virtual Result<InboxMessage> inbox_message(std::int64_t id) = 0;
  // Replaces a processed message's raw bytes by `raw` (the same message with the secrets it
  // carried masked: MailIngest does this once the message is processed). NotFound when there is
  // no such message.
  virtual Status mask_inbox_raw(std::int64_t id, const std::string& raw) = 0;
  // The processing lease of a "new" message (migration 0004), so that several processes sharing
  // the database answer each message once. Takes it for `holder` until now + seconds: true when
  // taken (attempts + 1), or renewed because `holder` already has it; false when the message is no
  // longer "new" or another holder's lease runs past `now`. NotFound for an unknown id.
  // set_inbox_state drops the lease.
  virtual Result<bool> lease_inbox(std::int64_t id, const std::string& holder, UnixTime now,
                                   std::int64_t seconds) = 0;
  // Gives the lease back early (the message stays "new" for a retry). A lease `holder` does not
  // hold is left alone.
  virtual Status release_inbox(std::int64_t id, const std::string& holder) = 0;
  // Gives the lease back and uncounts the try lease_inbox counted: the message could not be
  // answered for a passing reason (the turn is being resolved) and is retried without using up
  // its tries. A lease `holder` does not hold is left alone.
  virtual Status retry_inbox_later(std::int64_t id, const std::string& holder) = 0;
  // Every lease held now (running out or not), oldest message first.
  virtual Result<std::vector<InboxLease>> inbox_leases() = 0;

  // Stores the body of a part that many messages share (a turn's map): `key` names it (1 to 64
  // letters and digits: a hash of the body, so equal bodies share a key). Storing a key that is
  // stored already writes nothing. InvalidArgument (nothing written) for a key not as above.
  virtual Status put_mail_part(const std::string& key, const std::string& body, UnixTime now) = 0;
  // The body of stored part `key`; NotFound when there is none.
  virtual Result<std::string> mail_part(const std::string& key) = 0;
  // Lets go of the stored parts of messages delivered (or failed for good) that were queued
  // before `before`: each such message keeps its raw with the placeholder taken out (an empty
  // attachment where its part was) and names no part; then every part stored before `before`
  // that no message names is deleted. Returns how many parts were deleted.
  virtual Result<int> prune_mail_parts(UnixTime before) = 0;
  // Queues a message; AlreadyExists (nothing written) when dedupe_key is taken. With a part_key:
  // InvalidArgument unless raw holds its placeholder, NotFound unless the part is stored.
  virtual Result<std::int64_t> enqueue(const OutboxMessage& m) = 0;
  // enqueue for each of `ms` in one transaction (one commit: a game's reports of a turn), the
  // results in order: the new id, or 0 for a message whose dedupe_key was taken (nothing written
  // for it). All or nothing on any other error, which names the message's index.
  virtual Result<std::vector<std::int64_t>> enqueue_batch(const std::vector<OutboxMessage>& ms) = 0;
  // Claims up to `limit` pending messages due at `now` (or "sending" ones whose lease expired),
  // each with its stored part put in (a message whose part is missing, which only a damaged
  // database has, is marked "failed" with the reason and left out, so it holds no one else up),
  // marking them "sending" with a lease until now + lease_seconds. Players' mail (reports,
  // acknowledgements, ...) comes first, answers to unauthenticated senders ("refusal", "help")
  // last, so a flood of refusals never delays a report; within each, oldest due first.
  virtual Result<std::vector<OutboxMessage>> claim(UnixTime now, int limit,
                                                   std::int64_t lease_seconds) = 0;
  virtual Status mark_sent(std::int64_t id, UnixTime now) = 0;
  // Back to "pending" at next_attempt_at, or "failed" for good when `final`.
  virtual Status mark_retry(std::int64_t id, const std::string& error, UnixTime next_attempt_at,
                            bool final) = 0;
  virtual Result<std::vector<OutboxMessage>> outbox(const std::string& game, int limit) = 0;
  virtual Result<int> pending_count() = 0;
  // Of those, the messages whose latest attempt failed (retried later; the GM desk and /healthz).
  virtual Result<int> failing_count() = 0;
  // How many messages of `kind` were queued to `to` (compared without regard to case; "" for
  // every recipient) at or after `since`, in any state. For rate limits (refusals per sender
  // per hour, and in all).
  virtual Result<int> outbox_count(const std::string& to, const std::string& kind,
                                   UnixTime since) = 0;
};

}  // namespace adj
