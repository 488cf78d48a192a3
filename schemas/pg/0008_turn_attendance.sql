-- 0008_turn_attendance: as schemas/sql/0018_turn_attendance.sql, who had no orders in each
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
