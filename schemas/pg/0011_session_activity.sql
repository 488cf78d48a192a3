-- 0011_session_activity: as schemas/sql/0021_session_activity.sql, when each sign-in session was
-- last used (the idle limit). No game_id column, so no revision triggers: a use does not empty
-- the page cache.
CREATE TABLE session_activity (
  token_hash   TEXT   NOT NULL PRIMARY KEY
               REFERENCES player_token_hashes(token_hash) ON DELETE CASCADE,
  last_used_at BIGINT NOT NULL
);
