-- @sqlite
-- 0008_auth_throttle: the guessing limiter's counters for mail (server/app/auth_throttle.h).
--
-- Applied by storage/sqlite/migrator.cc inside one transaction; do not add BEGIN/COMMIT here.
-- Several processes answer mail from one database (the daemon's mail thread, each `adjutant
-- ingest` an MTA runs), so the failures they count must add up: one row per key, read and
-- written back in one BEGIN IMMEDIATE transaction (SqliteThrottleStore::update_throttle).
-- Key: "sender:<address>" or "player:<game>/<code>". Times are Unix seconds. trusted and recent
-- are newline-separated client keys (a key never holds a newline). Rows that are unlocked and
-- quiet are deleted, and the table is capped by deleting the least recently failed.
CREATE TABLE auth_throttle (
  key            TEXT    PRIMARY KEY CHECK (key <> ''),
  failures       INTEGER NOT NULL DEFAULT 0,
  window_start   INTEGER NOT NULL DEFAULT 0,
  last_failure   INTEGER NOT NULL DEFAULT 0,
  lockouts       INTEGER NOT NULL DEFAULT 0,
  locked_until   INTEGER NOT NULL DEFAULT 0,
  total_failures INTEGER NOT NULL DEFAULT 0,
  trusted        TEXT    NOT NULL DEFAULT '',
  recent         TEXT    NOT NULL DEFAULT ''
) STRICT;
CREATE INDEX auth_throttle_last_failure ON auth_throttle(last_failure);
