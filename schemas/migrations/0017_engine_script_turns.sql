-- @sqlite
-- 0017_engine_script_turns: the turn from whose run a stored engine script version is used
-- (storage/engine_script_store.h EngineScript::from_turn): the game's open turn when it was
-- stored. A rerun of an earlier turn after a rollback uses the version that turn ran with, so
-- rollback and rerun stay byte-identical even after an upload. Versions stored before this
-- migration are used from turn 1 on (as they were).
--
-- Applied by storage/sqlite/migrator.cc inside one transaction; do not add BEGIN/COMMIT here.
ALTER TABLE engine_scripts ADD COLUMN from_turn INTEGER NOT NULL DEFAULT 1 CHECK (from_turn >= 1);
-- @postgres
-- 0007_engine_script_turns: as 0017_engine_script_turns.sql, the turn from whose run
-- a stored engine script version is used.
ALTER TABLE engine_scripts ADD COLUMN from_turn BIGINT NOT NULL DEFAULT 1 CHECK (from_turn >= 1);
