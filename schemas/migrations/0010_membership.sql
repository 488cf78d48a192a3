-- @sqlite
-- 0010_membership: sign-ups for games open for sign-ups, and each position's contact (address and
-- the person's name) kept beside the turn states so that a rollback never reverts an address
-- change (storage/membership_store.h).
--
-- Applied by storage/sqlite/migrator.cc inside one transaction; do not add BEGIN/COMMIT here.
CREATE TABLE signups (
  id          INTEGER PRIMARY KEY,
  game_id     TEXT    NOT NULL REFERENCES games(id) ON DELETE CASCADE,
  email       TEXT    NOT NULL CHECK (email <> ''),
  email_key   TEXT    NOT NULL,  -- lower-case email: one sign-up per address per game
  preferences TEXT    NOT NULL DEFAULT '',  -- space-separated player codes, most wanted first
  state       TEXT    NOT NULL DEFAULT 'pending'
              CHECK (state IN ('pending', 'approved', 'assigned', 'unassigned')),
  player      TEXT    NOT NULL DEFAULT '',  -- the position assigned at the start
  channel     TEXT    NOT NULL DEFAULT '',
  created_at  INTEGER NOT NULL,
  UNIQUE (game_id, email_key)
) STRICT;
CREATE INDEX signups_game ON signups(game_id, id);

CREATE TABLE contacts (
  game_id    TEXT    NOT NULL REFERENCES games(id) ON DELETE CASCADE,
  player     TEXT    NOT NULL CHECK (player <> ''),
  email      TEXT    NOT NULL,  -- '' for a vacant position
  name       TEXT    NOT NULL DEFAULT '',
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (game_id, player)
) STRICT;
