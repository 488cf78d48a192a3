-- @sqlite
-- 0007_integrity: turns being resolved, and game ids unique regardless of case.
--
-- Applied by storage/sqlite/migrator.cc inside one transaction; do not add BEGIN/COMMIT here.
--
-- games.resolving_turn / resolving_since: set by SqliteStore::begin_resolving when a turn run
-- starts reading the open turn's orders, cleared by commit_turn and end_resolving. While set (and
-- younger than SqliteStore::kResolvingLeaseSeconds, so a run that died does not close the turn for
-- ever) put_submission refuses files for that turn instead of accepting files the run would never
-- read. commit_turn also checks that the files it resolved are still the current ones.
ALTER TABLE games ADD COLUMN resolving_turn INTEGER;
ALTER TABLE games ADD COLUMN resolving_since INTEGER;

-- Game ids are compared regardless of case: new ids are stored lower-case (scenario load) and a
-- case variant of an existing id is refused. Ids stored before this migration keep their spelling
-- (renaming would have to touch every table that names a game); lookups find them in any case.
-- Two existing games whose ids differ only by case stop the migration with the message below:
-- nothing is changed, and the database stays usable by the adjutant that wrote it.
CREATE TEMP TABLE adj_0007_check (x INTEGER);
CREATE TEMP TRIGGER adj_0007_refuse BEFORE INSERT ON adj_0007_check
WHEN EXISTS (SELECT 1 FROM games GROUP BY lower(id) HAVING count(*) > 1)
BEGIN
  SELECT RAISE(ABORT, 'two games have ids that differ only by case; nothing was changed. List them with: sqlite3 <db> "SELECT group_concat(id, '' and '') FROM games GROUP BY lower(id) HAVING count(*) > 1", then export and delete one of each pair with the adjutant that created them before upgrading');
END;
INSERT INTO adj_0007_check VALUES (1);
DROP TRIGGER adj_0007_refuse;
DROP TABLE adj_0007_check;
CREATE UNIQUE INDEX games_id_nocase ON games(id COLLATE NOCASE);
