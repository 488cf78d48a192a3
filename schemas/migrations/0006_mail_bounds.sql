-- @sqlite
-- 0006_mail_bounds: what keeps received mail from stalling the host or filling its disk.
--
-- Applied by storage/sqlite/migrator.cc inside one transaction; do not add BEGIN/COMMIT here.
--
-- inbox.attempts: how many times a process took the message's lease to answer it (each try,
-- including one whose process died or ran past its lease). MailIngest marks the message
-- "failed" after MailConfig::max_process_attempts, so one poison message is not retried forever
-- after restarts. Written by SqliteStore::lease_inbox.
ALTER TABLE inbox ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0);
-- inbox.raw_bytes: the size of raw as stored (kept when raw is pruned), for the per-sender
-- storage budget and the sizes the GM sees. Written by put_inbox.
ALTER TABLE inbox ADD COLUMN raw_bytes INTEGER NOT NULL DEFAULT 0 CHECK (raw_bytes >= 0);
-- inbox.peer: the client address the message came from ("" when unknown: pipe, Maildir).
ALTER TABLE inbox ADD COLUMN peer TEXT NOT NULL DEFAULT '';
-- inbox.pruned_at: when the raw bytes of a processed message were dropped (prune_inbox); the
-- row (Message-ID for dedupe, outcome) stays. NULL while raw is kept.
ALTER TABLE inbox ADD COLUMN pruned_at INTEGER;
UPDATE inbox SET raw_bytes = length(raw);
CREATE INDEX inbox_by_received ON inbox(received_at);
CREATE INDEX inbox_by_sender ON inbox(envelope_from COLLATE NOCASE, received_at);
CREATE INDEX inbox_by_peer ON inbox(peer, received_at);
-- The global hourly budget of refusals counts by kind over all recipients.
CREATE INDEX outbox_by_kind ON outbox(kind, created_at);
