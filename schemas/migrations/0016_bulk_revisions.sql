-- @sqlite
-- 0016_bulk_revisions: one revision bump per commit_turn / rollback for a turn's battles and
-- reports, instead of one per row (a 10,000-player turn writes 75,000 of them, and each per-row
-- bump was an upsert of the game's revisions row).
--
-- revision_bulk names the games whose battles and reports are being written in bulk by the store
-- (SqliteStore::commit_turn and rollback, storage/sqlite/sqlite_store_turns.cc): the store inserts
-- the game's row, writes, deletes the row and bumps the game's revision once, all in one
-- transaction. Other connections therefore never see a row in it, and every other write (a row
-- written by hand, another tool, a later feature) still bumps the revision per row as 0013 says.
-- A row left in it by hand would silence the bumps of that game's battles and reports only.
-- Transient: `adjutant copy` neither copies nor compares it (storage/table_copy.cc).
CREATE TABLE revision_bulk (
  scope TEXT PRIMARY KEY  -- a game id
) STRICT, WITHOUT ROWID;

DROP TRIGGER rev_battles_insert;
DROP TRIGGER rev_battles_delete;
DROP TRIGGER rev_reports_insert;
DROP TRIGGER rev_reports_delete;

CREATE TRIGGER rev_battles_insert AFTER INSERT ON battles
  WHEN NOT EXISTS (SELECT 1 FROM revision_bulk WHERE scope = NEW.game_id) BEGIN
  INSERT INTO revisions (scope, rev) VALUES (NEW.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_battles_delete AFTER DELETE ON battles
  WHEN NOT EXISTS (SELECT 1 FROM revision_bulk WHERE scope = OLD.game_id) BEGIN
  INSERT INTO revisions (scope, rev) VALUES (OLD.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_reports_insert AFTER INSERT ON reports
  WHEN NOT EXISTS (SELECT 1 FROM revision_bulk WHERE scope = NEW.game_id) BEGIN
  INSERT INTO revisions (scope, rev) VALUES (NEW.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_reports_delete AFTER DELETE ON reports
  WHEN NOT EXISTS (SELECT 1 FROM revision_bulk WHERE scope = OLD.game_id) BEGIN
  INSERT INTO revisions (scope, rev) VALUES (OLD.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
