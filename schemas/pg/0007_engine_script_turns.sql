-- 0007_engine_script_turns: as schemas/sql/0017_engine_script_turns.sql, the turn from whose run
-- a stored engine script version is used.
ALTER TABLE engine_scripts ADD COLUMN from_turn BIGINT NOT NULL DEFAULT 1 CHECK (from_turn >= 1);
