-- @sqlite
-- 0004_inbox_lease: who is answering an inbox message right now.
--
-- Applied by storage/sqlite/migrator.cc inside one transaction; do not add BEGIN/COMMIT here.
-- Several processes may answer mail from one database (the daemon, `adjutant ingest` run by an
-- MTA): a message is answered by whoever holds its lease, so it is answered once. A lease that
-- runs out (its holder died mid-way) may be taken by anyone; the row goes when the message leaves
-- "new". Key: inbox_id. holder names a process and thread ("host:pid:n"). until: Unix seconds.
-- Written by SqliteStore::lease_inbox, release_inbox and set_inbox_state (delete).
CREATE TABLE inbox_lease (
  inbox_id INTEGER PRIMARY KEY REFERENCES inbox(id) ON DELETE CASCADE,
  holder   TEXT    NOT NULL CHECK (holder <> ''),
  until    INTEGER NOT NULL
) STRICT;
