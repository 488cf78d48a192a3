-- 0005_open_state_index: the open turn's state also addressable per player, per area and per
-- border, as schemas/sql/0014_open_state_index.sql has it for SQLite: the same table and column
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
