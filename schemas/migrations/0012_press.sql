-- @sqlite
-- 0012_press: press between players (storage/press_store.h) and each game's press options.
--
-- Applied by storage/sqlite/migrator.cc inside one transaction; do not add BEGIN/COMMIT here.
-- recipients are newline-separated player codes ('' when the message is to everyone).
CREATE TABLE press_options (
  game_id          TEXT    PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE,
  press            TEXT    NOT NULL CHECK (press IN ('none', 'public', 'private', 'anonymous')),
  gm_reads_private INTEGER NOT NULL CHECK (gm_reads_private IN (0, 1))
) STRICT;

CREATE TABLE press (
  id         INTEGER PRIMARY KEY,
  game_id    TEXT    NOT NULL REFERENCES games(id) ON DELETE CASCADE,
  turn       INTEGER NOT NULL CHECK (turn >= 1),
  sent_at    INTEGER NOT NULL,
  sender     TEXT    NOT NULL CHECK (sender <> ''),
  recipients TEXT    NOT NULL DEFAULT '',
  to_all     INTEGER NOT NULL CHECK (to_all IN (0, 1)),
  anonymous  INTEGER NOT NULL CHECK (anonymous IN (0, 1)),
  body       TEXT    NOT NULL CHECK (body <> ''),
  -- Where it came from ("web", "api", "email:<message-id>#<block>"); a mail's block is stored
  -- once however often the mail is processed.
  source     TEXT    NOT NULL DEFAULT '',
  CHECK (to_all = 1 OR recipients <> '')
) STRICT;
CREATE INDEX press_game ON press(game_id, id);
CREATE INDEX press_sender_turn ON press(game_id, sender, turn);
CREATE UNIQUE INDEX press_mail_source ON press(game_id, source) WHERE source LIKE 'email:%';
