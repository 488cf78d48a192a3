-- 0009_notices: messages the game sends on its own (storage/notice_store.h), queued durably in
-- the transaction of the action that caused them and turned into outbox mail by the mail layer.
--
-- Applied by storage/sqlite/migrator.cc inside one transaction; do not add BEGIN/COMMIT here.
-- players and addresses are newline-separated (a code or address never holds a newline).
CREATE TABLE notices (
  id         INTEGER PRIMARY KEY,
  game_id    TEXT    NOT NULL REFERENCES games(id) ON DELETE CASCADE,
  kind       TEXT    NOT NULL CHECK (kind <> ''),
  players    TEXT    NOT NULL DEFAULT '',
  addresses  TEXT    NOT NULL DEFAULT '',
  subject    TEXT    NOT NULL CHECK (subject <> ''),
  body       TEXT    NOT NULL CHECK (body <> ''),
  dedupe_key TEXT    NOT NULL UNIQUE CHECK (dedupe_key <> ''),
  thread     TEXT    NOT NULL DEFAULT '',
  created_at INTEGER NOT NULL,
  state      TEXT    NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'done'))
) STRICT;
CREATE INDEX notices_pending ON notices(state, id);
CREATE INDEX notices_game ON notices(game_id, id);
