-- @postgres
-- 0027_turn_rows_revisions (PostgreSQL): the battles and reports of a turn no longer bump their
-- game's revision by an insert trigger of their own. Those rows are written only by a turn's
-- commit (storage/core/sql_turn_writer.cc), in the transaction that also writes the turn's row
-- in `turns` and the game's next state, whose triggers bump the game: the pages of the game are
-- made again all the same. The insert triggers were statement-level with a transition table,
-- which holds every new row whole: a 10,000-player commit wrote and read back about 455 MB of
-- temporary files to count rows of one game (docs/performance.md). Their update and delete
-- triggers stay (a rollback deletes the rows through `turns`, whose trigger bumps the game too).
-- `adjutant copy` writes revisions last from the source, so it does not need them either.
-- Nothing for SQLite, whose row triggers a commit already skips (0016_bulk_revisions).
DROP TRIGGER IF EXISTS rev_battles_insert ON battles;
DROP TRIGGER IF EXISTS rev_reports_insert ON reports;
