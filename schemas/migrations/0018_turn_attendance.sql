-- @sqlite
-- 0018_turn_attendance: who had no orders in each resolved turn, and when it ran, beside the turn
-- record (storage/attendance_store.h turns_without_orders). The attendance check reads the last
-- 50 resolved turns after every run (server/app/attendance.h); from the turn record that was a
-- json_extract over the whole summary (~30 MB at 10,000 players: ~0.18 s per turn read, so up to
-- ~9 s per run by turn 51 of such a game). Written by commit_turn in the turn's transaction and
-- removed with its turn; a turn without a row (a summary the writer did not know the list of)
-- is still read from its summary. Revision triggers as every game table has (0013).
--
-- Applied by storage/sqlite/migrator.cc inside one transaction; do not add BEGIN/COMMIT here.
CREATE TABLE turn_attendance (
  game_id        TEXT    NOT NULL,
  turn           INTEGER NOT NULL,
  ran_at         INTEGER NOT NULL,
  without_orders TEXT    NOT NULL CHECK (json_valid(without_orders) AND
                                         json_type(without_orders) = 'array'),
  PRIMARY KEY (game_id, turn),
  FOREIGN KEY (game_id, turn) REFERENCES turns(game_id, turn) ON DELETE CASCADE
) STRICT, WITHOUT ROWID;

-- The turns already resolved, where the summary's list is a list (or absent: nobody listed). A
-- summary with anything else there keeps no row, so reading it still reports the corruption.
INSERT INTO turn_attendance(game_id, turn, ran_at, without_orders)
  SELECT game_id, turn, ran_at, coalesce(json_extract(summary_json, '$.players_without_orders'), '[]')
  FROM turns
  WHERE coalesce(json_type(summary_json, '$.players_without_orders'), 'array') IN ('array', 'null');

CREATE TRIGGER rev_turn_attendance_insert AFTER INSERT ON turn_attendance BEGIN
  INSERT INTO revisions (scope, rev) VALUES (NEW.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_turn_attendance_update AFTER UPDATE ON turn_attendance BEGIN
  INSERT INTO revisions (scope, rev) VALUES (OLD.game_id, 1), (NEW.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_turn_attendance_delete AFTER DELETE ON turn_attendance BEGIN
  INSERT INTO revisions (scope, rev) VALUES (OLD.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
-- @postgres
-- 0008_turn_attendance: as 0018_turn_attendance.sql, who had no orders in each
-- resolved turn and when it ran, beside the turn record, so the attendance check does not parse
-- every recent turn's whole summary.
CREATE TABLE turn_attendance (
  game_id        TEXT   NOT NULL,
  turn           BIGINT NOT NULL,
  ran_at         BIGINT NOT NULL,
  without_orders TEXT   NOT NULL CHECK (json_typeof(without_orders::json) = 'array'),
  PRIMARY KEY (game_id, turn),
  FOREIGN KEY (game_id, turn) REFERENCES turns(game_id, turn) ON DELETE CASCADE
);

INSERT INTO turn_attendance(game_id, turn, ran_at, without_orders)
  SELECT game_id, turn, ran_at,
         coalesce(nullif(summary_json::jsonb -> 'players_without_orders', 'null'::jsonb), '[]'::jsonb)::text
  FROM turns
  WHERE coalesce(jsonb_typeof(summary_json::jsonb -> 'players_without_orders'), 'null')
        IN ('array', 'null');
SELECT adj_attach_revision_triggers('turn_attendance');
