-- @sqlite
-- 0005_credentials: player secrets and tokens stored only as hashes (storage/credential_store.h,
-- server/app/secrets.h). Same conventions as 0001_init.
--
-- Data from earlier versions (secrets in the scenario copy and in every turn state, link tokens
-- in clear in player_tokens, PLAYER secrets in stored order files) cannot be converted in SQL
-- (Argon2id): the row in pending_upgrades asks for the C++ step SqliteStore::
-- upgrade_credentials, which the server runs when it opens the database (server/app/
-- open_store.h) and which removes the row in the same transaction as its work.

-- One row per player that has a secret: its Argon2id string ("$argon2id$v=19$...").
-- Written by SqliteStore::set_secret_hash and upgrade_credentials.
CREATE TABLE player_secrets (
  game_id     TEXT    NOT NULL REFERENCES games(id) ON DELETE CASCADE,
  player      TEXT    NOT NULL CHECK (player <> ''),
  secret_hash TEXT    NOT NULL CHECK (secret_hash GLOB '$argon2id$*'),
  changed_at  INTEGER NOT NULL,
  PRIMARY KEY (game_id, player)
) STRICT;

-- Link tokens (kind 'link', at most one per player) and sign-in sessions (kind 'session'), as
-- BLAKE2b-256 hashes of the 128-bit token: 64 lower-case hex digits.
-- Written by set_link_token, add_session_token, revoke_tokens and upgrade_credentials.
CREATE TABLE player_token_hashes (
  token_hash TEXT    NOT NULL PRIMARY KEY
             CHECK (length(token_hash) = 64 AND token_hash NOT GLOB '*[^0-9a-f]*'),
  game_id    TEXT    NOT NULL REFERENCES games(id) ON DELETE CASCADE,
  player     TEXT    NOT NULL CHECK (player <> ''),
  kind       TEXT    NOT NULL CHECK (kind IN ('link', 'session')),
  created_at INTEGER NOT NULL
) STRICT;
CREATE INDEX player_token_hashes_by_player ON player_token_hashes(game_id, player, kind);
CREATE UNIQUE INDEX player_token_hashes_one_link ON player_token_hashes(game_id, player)
  WHERE kind = 'link';

-- C++ steps still to run on this database (by name). Written by migrations; a step deletes its
-- row when done.
CREATE TABLE pending_upgrades (
  name TEXT NOT NULL PRIMARY KEY
) STRICT;
INSERT INTO pending_upgrades(name) VALUES ('hash_credentials');
