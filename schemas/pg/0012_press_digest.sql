-- 0012_press_digest: as schemas/sql/0022_press_digest.sql, the last press id mailed to each
-- player in a digest (server/app/press_digest.h) and when. Moved by queue_press_digest under a
-- row lock, in the transaction that appends the digest's notice.
CREATE TABLE press_digests (
  game_id TEXT   NOT NULL REFERENCES games(id) ON DELETE CASCADE,
  player  TEXT   NOT NULL CHECK (player <> ''),
  last_id BIGINT NOT NULL CHECK (last_id >= 0),
  sent_at BIGINT NOT NULL,
  PRIMARY KEY (game_id, player)
);
SELECT adj_attach_revision_triggers('press_digests');
