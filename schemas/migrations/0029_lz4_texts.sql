-- 0029_lz4_texts: the rest of PostgreSQL's big texts are compressed with lz4 where the server
-- has it, as 0025 did for the turn rows. Queueing a turn's report mails inserts one outbox row
-- per player (the whole message) and pglz took more than half of those inserts' time: in 200
-- games due at once, 1,258 ms of server time for 3,622 inserts with pglz, 544-585 ms with lz4
-- (docs/performance.md). Rows already stored keep their pglz; both read the same. Nothing for
-- SQLite, which compresses nothing.
-- @postgres
DO $$
DECLARE
  c record;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_settings
                 WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)) THEN
    RETURN;
  END IF;
  FOR c IN SELECT * FROM (VALUES ('outbox', 'raw'), ('mail_parts', 'body'), ('notices', 'body'),
                                 ('inbox', 'raw'), ('submissions', 'raw_text'),
                                 ('submissions', 'ack_json'), ('open_states', 'head_json'),
                                 ('games', 'scenario_json'), ('audit_log', 'detail_json'),
                                 ('press', 'body')) AS v(tbl, col) LOOP
    EXECUTE format('ALTER TABLE %I ALTER COLUMN %I SET COMPRESSION lz4', c.tbl, c.col);
  END LOOP;
END
$$;
