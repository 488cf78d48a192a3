-- @postgres
-- 0025_turn_rows (PostgreSQL): what a turn's commit writes (storage/core/sql_turn_writer.cc,
-- PgStore::begin_turn_rows) goes in as a stream, checked once. Nothing for SQLite, whose commit
-- already defers its foreign keys and skips these CHECKs (sqlite_store_turns.cc).
--
-- * The battles' and reports' references to their turn may wait for the COMMIT (DEFERRABLE,
--   still INITIALLY IMMEDIATE for every other statement): the commit streams those rows while
--   the turn is being written, before its turn record, whose summary comes last.
-- * The JSON CHECKs of the rows a commit writes skip the rows of the game named by the
--   transaction-local setting adj.trusted_json, which only the commit sets (set_config(...,
--   true)): their texts are the store's own dump() (storage/records.h). Every other write is
--   checked as before; NULL (unset) or '' (set earlier in the session) names no game. NOT
--   VALID: the rows already stored were checked by the constraint each replaces.
-- * The big texts are compressed with lz4 where the server has it (PostgreSQL 14 and later,
--   built --with-lz4, as Debian's is): pglz took more than half of a 10,000-player commit's
--   server time. Rows already stored keep their pglz; both read the same.

ALTER TABLE battles ALTER CONSTRAINT battles_game_id_turn_fkey DEFERRABLE INITIALLY IMMEDIATE;
ALTER TABLE reports ALTER CONSTRAINT reports_game_id_turn_fkey DEFERRABLE INITIALLY IMMEDIATE;

-- The JSON columns a commit writes: each CHECK replaced (named as PostgreSQL named the first),
-- and each compressed with lz4 when the server has it, as reports.text.
DO $$
DECLARE
  c record;
  lz4 boolean := EXISTS (SELECT 1 FROM pg_settings
                         WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals));
BEGIN
  FOR c IN SELECT * FROM (VALUES ('battles', 'input_json'), ('battles', 'outcome_json'),
                                 ('reports', 'json'), ('turns', 'summary_json'),
                                 ('turn_states', 'state_json')) AS v(tbl, col) LOOP
    EXECUTE format('ALTER TABLE %I DROP CONSTRAINT %I, ADD CONSTRAINT %I CHECK (game_id = '
                   'current_setting(''adj.trusted_json'', true) OR %I::json IS NOT NULL) NOT VALID',
                   c.tbl, c.tbl || '_' || c.col || '_check', c.tbl || '_' || c.col || '_check',
                   c.col);
    IF lz4 THEN
      EXECUTE format('ALTER TABLE %I ALTER COLUMN %I SET COMPRESSION lz4', c.tbl, c.col);
    END IF;
  END LOOP;
  IF lz4 THEN
    EXECUTE 'ALTER TABLE reports ALTER COLUMN text SET COMPRESSION lz4';
  END IF;
END
$$;
