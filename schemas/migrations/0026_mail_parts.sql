-- 0026_mail_parts: a MIME part body stored once for many outgoing messages (storage/mail_store.h
-- MailStore::put_mail_part): a turn's map, the same in every player's report mail, is kept once
-- per game and turn instead of once per mail. An outbox row that names a part (part_key) holds
-- mail_part_placeholder(part_key) where the part's body goes; claim() puts the body there.
-- id is the caller's content key (a hash of the body), so storing the same part again writes
-- nothing. The outbox's reference keeps a part while any message names it; prune_mail_parts lets
-- go of it once its messages are long delivered.
-- @sqlite
CREATE TABLE mail_parts (
  id         TEXT    PRIMARY KEY CHECK (id <> ''),
  body       TEXT    NOT NULL,                    -- the part's body as it stands in the message
  created_at INTEGER NOT NULL
) STRICT;
-- @postgres
CREATE TABLE mail_parts (
  id         TEXT    PRIMARY KEY CHECK (id <> ''),
  body       TEXT    NOT NULL,
  created_at BIGINT  NOT NULL
);
-- @both
ALTER TABLE outbox ADD COLUMN part_key TEXT REFERENCES mail_parts(id);
CREATE INDEX outbox_by_part ON outbox(part_key) WHERE part_key IS NOT NULL;
