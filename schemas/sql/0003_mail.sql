-- 0003_mail: the mail inbox (every message received, raw) and the persistent outbox (every
-- message to send) of storage/mail_store.h.
--
-- Applied by storage/sqlite/migrator.cc inside one transaction; do not add BEGIN/COMMIT here.
-- Same conventions as 0001_init: STRICT tables, Unix seconds passed in by the caller.
-- Neither table references games: mail is kept (for audit and delivery) even for a message that
-- names no game or a game that no longer exists.

-- Every message received (SMTP, an MTA pipe, a watched Maildir), stored before it is answered
-- or acknowledged to the sending MTA. Key: id (AUTOINCREMENT: ids order arrival and are never
-- reused). message_id is unique: the same message received twice is stored (and processed) once.
-- raw is a BLOB because mail may carry 8-bit bytes in any charset; it is the message exactly as
-- received (an oversized message is stored as its header block with an
-- X-Adjutant-Truncated header, see server/mail/mail_ingest.h).
-- Written by SqliteStore::put_inbox (insert) and set_inbox_state (state, outcome).
CREATE TABLE inbox (
  id               INTEGER PRIMARY KEY AUTOINCREMENT,
  message_id       TEXT    NOT NULL UNIQUE CHECK (message_id <> ''),  -- without the <>
  channel          TEXT    NOT NULL,                   -- "smtp", "pipe", "maildir", ...
  envelope_from    TEXT    NOT NULL,                   -- MAIL FROM; '' when unknown
  envelope_to_json TEXT    NOT NULL CHECK (json_valid(envelope_to_json)),  -- RCPT TO list
  raw              BLOB    NOT NULL,
  received_at      INTEGER NOT NULL,
  state            TEXT    NOT NULL CHECK (state IN ('new', 'processed', 'failed')),
  outcome          TEXT    NOT NULL DEFAULT ''         -- what processing did, for the GM
) STRICT;
CREATE INDEX inbox_by_state ON inbox(state, id);

-- Every message to send, with its delivery state. Key: id; dedupe_key is unique, so the same
-- logical message (the reply to one inbox message, one player's report of one turn) is queued
-- once however often its producer runs.
-- States: 'pending' (due at next_attempt_at) -> 'sending' (claimed until lease_until; a lease
-- that expires makes it claimable again) -> 'sent', or back to 'pending' with a later
-- next_attempt_at, or 'failed' for good. attempts counts claims.
-- Written by SqliteStore::enqueue, claim, mark_sent and mark_retry.
CREATE TABLE outbox (
  id              INTEGER PRIMARY KEY AUTOINCREMENT,
  kind            TEXT    NOT NULL CHECK (kind <> ''),  -- "ack", "refusal", "report", ...
  game_id         TEXT    NOT NULL,                     -- '' when the message is about no game
  recipient       TEXT    NOT NULL CHECK (recipient <> ''),
  raw             TEXT    NOT NULL,                     -- complete RFC 5322 message, CRLF
  dedupe_key      TEXT    NOT NULL UNIQUE CHECK (dedupe_key <> ''),
  state           TEXT    NOT NULL CHECK (state IN ('pending', 'sending', 'sent', 'failed')),
  attempts        INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  next_attempt_at INTEGER NOT NULL,
  lease_until     INTEGER,                              -- set while 'sending'
  last_error      TEXT    NOT NULL DEFAULT '',
  created_at      INTEGER NOT NULL,
  sent_at         INTEGER                               -- set when 'sent'
) STRICT;
CREATE INDEX outbox_due ON outbox(state, next_attempt_at);
CREATE INDEX outbox_by_game ON outbox(game_id, id);
CREATE INDEX outbox_by_recipient ON outbox(recipient COLLATE NOCASE, kind, created_at);
