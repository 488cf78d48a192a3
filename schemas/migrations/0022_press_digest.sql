-- @sqlite
-- 0022_press_digest: press mail as a digest per recipient (server/app/press_digest.h). One row per
-- game and player that was ever mailed a digest: the last press id the player was mailed and
-- when. Moved by queue_press_digest only from the last_id it was read at, in the transaction that
-- appends the digest's notice, so two processes never mail the same press twice.
--
-- Applied by storage/sqlite/migrator.cc inside one transaction; do not add BEGIN/COMMIT here.
CREATE TABLE press_digests (
  game_id TEXT    NOT NULL REFERENCES games(id) ON DELETE CASCADE,
  player  TEXT    NOT NULL CHECK (player <> ''),
  last_id INTEGER NOT NULL CHECK (last_id >= 0),
  sent_at INTEGER NOT NULL,
  PRIMARY KEY (game_id, player)
) STRICT;
CREATE TRIGGER rev_press_digests_insert AFTER INSERT ON press_digests BEGIN
  INSERT INTO revisions (scope, rev) VALUES (NEW.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_press_digests_update AFTER UPDATE ON press_digests BEGIN
  INSERT INTO revisions (scope, rev) VALUES (OLD.game_id, 1), (NEW.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_press_digests_delete AFTER DELETE ON press_digests BEGIN
  INSERT INTO revisions (scope, rev) VALUES (OLD.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
-- @postgres
-- 0012_press_digest: as 0022_press_digest.sql, the last press id mailed to each
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
