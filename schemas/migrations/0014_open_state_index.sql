-- @sqlite
-- 0014_open_state_index: the open turn's state also addressable per player, per area and per
-- border, so that checking one order file reads what the file names, not the whole state
-- (SqliteStore::load_view; storage/sqlite/sqlite_store_views.cc).
--
-- Derived data: turn_states stays the record. The index of a game is valid only while its
-- open_states row exists and names the game's open turn; any write to the game's turn_states
-- rows deletes that row (triggers below), so a state written by any other path is never read
-- through a stale index: the reader then loads the whole state. create_game, commit_turn,
-- rollback and the credential upgrade (0005) write the index again in their own transaction.
-- No revision triggers (0013): the index changes only together with turn_states, whose triggers
-- already bump the game's revision (tests/storage/revisions_test.cc leaves these tables out).

-- One row per indexed game: the open turn's state without players, areas and adjacency.
CREATE TABLE open_states (
  game_id   TEXT    NOT NULL PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE,
  turn      INTEGER NOT NULL CHECK (turn >= 1),
  head_json TEXT    NOT NULL CHECK (json_valid(head_json))
) STRICT;

-- The state's players (as in its "players" array), by code.
CREATE TABLE open_state_players (
  game_id     TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
  code        TEXT NOT NULL,
  player_json TEXT NOT NULL,
  PRIMARY KEY (game_id, code)
) STRICT, WITHOUT ROWID;

-- The state's areas (as in its "areas" array), by code; name for "did you mean".
CREATE TABLE open_state_areas (
  game_id   TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
  code      TEXT NOT NULL,
  name      TEXT NOT NULL,
  area_json TEXT NOT NULL,
  PRIMARY KEY (game_id, code)
) STRICT, WITHOUT ROWID;

-- The state's borders (as in its "adjacency" array: [a, b] or [a, b, features], a < b).
CREATE TABLE open_state_edges (
  game_id   TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
  a         TEXT NOT NULL,
  b         TEXT NOT NULL,
  edge_json TEXT NOT NULL,
  PRIMARY KEY (game_id, a, b)
) STRICT, WITHOUT ROWID;
CREATE INDEX open_state_edges_by_b ON open_state_edges(game_id, b);

CREATE TRIGGER open_state_stale_insert AFTER INSERT ON turn_states BEGIN
  DELETE FROM open_states WHERE game_id = NEW.game_id;
END;
CREATE TRIGGER open_state_stale_update AFTER UPDATE ON turn_states BEGIN
  DELETE FROM open_states WHERE game_id IN (OLD.game_id, NEW.game_id);
END;
CREATE TRIGGER open_state_stale_delete AFTER DELETE ON turn_states BEGIN
  DELETE FROM open_states WHERE game_id = OLD.game_id;
END;

-- Backfill: the open turn's state of every game. Rows that would repeat a key (a state written
-- by hand with two areas of one code) are skipped, and such a game is left unindexed.
INSERT OR IGNORE INTO open_state_players(game_id, code, player_json)
  SELECT s.game_id, json_extract(p.value, '$.code'), p.value
    FROM games g JOIN turn_states s ON s.game_id = g.id AND s.turn = g.open_turn,
         json_each(s.state_json, '$.players') p;
INSERT OR IGNORE INTO open_state_areas(game_id, code, name, area_json)
  SELECT s.game_id, json_extract(a.value, '$.code'),
         coalesce(json_extract(a.value, '$.name'), json_extract(a.value, '$.code')), a.value
    FROM games g JOIN turn_states s ON s.game_id = g.id AND s.turn = g.open_turn,
         json_each(s.state_json, '$.areas') a;
INSERT OR IGNORE INTO open_state_edges(game_id, a, b, edge_json)
  SELECT s.game_id, json_extract(e.value, '$[0]'), json_extract(e.value, '$[1]'), e.value
    FROM games g JOIN turn_states s ON s.game_id = g.id AND s.turn = g.open_turn,
         json_each(s.state_json, '$.adjacency') e;
INSERT INTO open_states(game_id, turn, head_json)
  SELECT s.game_id, s.turn, json_remove(s.state_json, '$.players', '$.areas', '$.adjacency')
    FROM games g JOIN turn_states s ON s.game_id = g.id AND s.turn = g.open_turn
   WHERE json_type(s.state_json, '$.players') = 'array'
     AND json_type(s.state_json, '$.areas') = 'array'
     AND json_type(s.state_json, '$.adjacency') = 'array'
     AND (SELECT count(*) FROM open_state_players x WHERE x.game_id = s.game_id) =
         json_array_length(s.state_json, '$.players')
     AND (SELECT count(*) FROM open_state_areas x WHERE x.game_id = s.game_id) =
         json_array_length(s.state_json, '$.areas')
     AND (SELECT count(*) FROM open_state_edges x WHERE x.game_id = s.game_id) =
         json_array_length(s.state_json, '$.adjacency');

-- Everything a game's small columns answer, without its row: the row holds the scenario copy
-- (megabytes for a big game), and a column after it (status, created_at, the resolving mark)
-- could otherwise only be read by walking its overflow pages, on every order file.
CREATE INDEX games_small_columns
  ON games(id, name, engine, open_turn, status, created_at, resolving_turn, resolving_since);
-- @postgres
-- 0005_open_state_index: the open turn's state also addressable per player, per area and per
-- border, as 0014_open_state_index.sql has it for SQLite: the same table and column
-- names, so `adjutant copy` moves the rows as they are. Read by PgStore::load_view / area_names
-- (storage/postgres/pg_store_views.cc), so that checking one order file reads what the file
-- names, not the whole state.
--
-- Derived data: turn_states stays the record. A game's index is valid only while its open_states
-- row exists and names the game's open turn; any write to the game's turn_states rows deletes
-- that row (triggers below), so a state written by any other path is never read through a stale
-- index: the reader then loads the whole state. create_game, commit_turn and rollback write the
-- index again in their own transaction. Games created before this migration are read whole until
-- their next commit_turn or rollback. No revision triggers: the index changes only together with
-- turn_states, whose triggers already bump the game's revision.

CREATE TABLE open_states (
  game_id   TEXT    NOT NULL PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE,
  turn      BIGINT  NOT NULL CHECK (turn >= 1),
  head_json TEXT    NOT NULL
);

CREATE TABLE open_state_players (
  game_id     TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
  code        TEXT NOT NULL,
  player_json TEXT NOT NULL,
  PRIMARY KEY (game_id, code)
);

CREATE TABLE open_state_areas (
  game_id   TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
  code      TEXT NOT NULL,
  name      TEXT NOT NULL,
  area_json TEXT NOT NULL,
  PRIMARY KEY (game_id, code)
);

CREATE TABLE open_state_edges (
  game_id   TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
  a         TEXT NOT NULL,
  b         TEXT NOT NULL,
  edge_json TEXT NOT NULL,
  PRIMARY KEY (game_id, a, b)
);
CREATE INDEX open_state_edges_by_b ON open_state_edges(game_id, b);

CREATE FUNCTION adj_open_state_stale() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    DELETE FROM open_states WHERE game_id = OLD.game_id;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    DELETE FROM open_states WHERE game_id = NEW.game_id;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER open_state_stale AFTER INSERT OR UPDATE OR DELETE ON turn_states
  FOR EACH ROW EXECUTE FUNCTION adj_open_state_stale();
