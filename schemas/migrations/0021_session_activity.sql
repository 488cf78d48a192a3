-- @sqlite
-- 0021_session_activity: when each sign-in session was last used, for the server-side idle
-- limit (server/app/services.h Services::token_owner, flag --session-idle-days). A table of its
-- own, without a game_id column: a use is not a change of the game's pages, so it must not bump
-- the game's revision (0013) and empty the page cache. A session without a row was not used since
-- it was made (its created_at counts). Rows go with their token (ON DELETE CASCADE).
--
-- Applied by storage/sqlite/migrator.cc inside one transaction; do not add BEGIN/COMMIT here.
CREATE TABLE session_activity (
  token_hash   TEXT    NOT NULL PRIMARY KEY
               REFERENCES player_token_hashes(token_hash) ON DELETE CASCADE,
  last_used_at INTEGER NOT NULL
) STRICT;
-- @postgres
-- 0011_session_activity: as 0021_session_activity.sql, when each sign-in session was
-- last used (the idle limit). No game_id column, so no revision triggers: a use does not empty
-- the page cache.
CREATE TABLE session_activity (
  token_hash   TEXT   NOT NULL PRIMARY KEY
               REFERENCES player_token_hashes(token_hash) ON DELETE CASCADE,
  last_used_at BIGINT NOT NULL
);
