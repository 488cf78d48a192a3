-- 0006_engine_scripts: the scripts of games whose combat engine is a Lua script, as the SQLite
-- schema has them after schemas/sql/0015_engine_scripts.sql; the same table and column names, so
-- `adjutant copy` moves the rows as they are.
CREATE TABLE engine_scripts (
  game_id     TEXT   NOT NULL REFERENCES games(id) ON DELETE CASCADE,
  version     BIGINT NOT NULL CHECK (version >= 1),
  source      TEXT   NOT NULL CHECK (source <> ''),
  sha256      TEXT   NOT NULL CHECK (length(sha256) = 64),
  created_at  BIGINT NOT NULL,
  created_by  TEXT   NOT NULL DEFAULT '',
  conformance TEXT   NOT NULL DEFAULT '',
  PRIMARY KEY (game_id, version)
);
SELECT adj_attach_revision_triggers('engine_scripts');
