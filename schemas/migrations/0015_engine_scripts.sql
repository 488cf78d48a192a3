-- @sqlite
-- 0015_engine_scripts: the scripts of games whose combat engine is a Lua script
-- (storage/engine_script_store.h, rules/combat/script_engine.h). One row per game and version;
-- a game's state names the version that runs (rules/game/state.h EngineSpec), battle logs the
-- version that fought, so the text of every version is kept for --replay and reruns.
--
-- Applied by storage/sqlite/migrator.cc inside one transaction; do not add BEGIN/COMMIT here.
CREATE TABLE engine_scripts (
  game_id     TEXT    NOT NULL REFERENCES games(id) ON DELETE CASCADE,
  version     INTEGER NOT NULL CHECK (version >= 1),
  source      TEXT    NOT NULL CHECK (source <> ''),
  sha256      TEXT    NOT NULL CHECK (length(sha256) = 64),
  created_at  INTEGER NOT NULL,
  created_by  TEXT    NOT NULL DEFAULT '',
  -- The conformance suite's report when the version was stored (JSON text; '' when none ran).
  conformance TEXT    NOT NULL DEFAULT '',
  PRIMARY KEY (game_id, version)
) STRICT;

CREATE TRIGGER rev_engine_scripts_insert AFTER INSERT ON engine_scripts BEGIN
  INSERT INTO revisions (scope, rev) VALUES (NEW.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_engine_scripts_update AFTER UPDATE ON engine_scripts BEGIN
  INSERT INTO revisions (scope, rev) VALUES (OLD.game_id, 1), (NEW.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_engine_scripts_delete AFTER DELETE ON engine_scripts BEGIN
  INSERT INTO revisions (scope, rev) VALUES (OLD.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
-- @postgres
-- 0006_engine_scripts: the scripts of games whose combat engine is a Lua script, as the SQLite
-- schema has them after 0015_engine_scripts.sql; the same table and column names, so
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
