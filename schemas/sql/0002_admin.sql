-- 0002_admin: running games over time. Turn schedules and deadlines, the GM audit log, player
-- link tokens, failed turn-run attempts and the daemon's own state (storage/admin_store.h).
--
-- Applied by storage/sqlite/migrator.cc inside one transaction; do not add BEGIN/COMMIT here.
-- Same conventions as 0001_init: STRICT tables, Unix seconds passed in by the caller, JSON as
-- text checked with json_valid(), exact (BINARY) ids, rows of a game go away with it.

-- A game's schedule (Schedule in storage/admin_store.h). At most one row per game; no row means
-- the default schedule (kind 'none': turns run only by hand).
-- Written by SqliteStore::set_schedule (whole row replaced).
CREATE TABLE schedules (
  game_id                TEXT    NOT NULL PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE,
  kind                   TEXT    NOT NULL CHECK (kind IN ('none', 'fixed', 'interval')),
  deadline               INTEGER,                -- the open turn's deadline; NULL when none
  interval_seconds       INTEGER NOT NULL CHECK (interval_seconds >= 0),
  time_of_day            INTEGER CHECK (time_of_day IS NULL OR time_of_day BETWEEN 0 AND 86399),
  early_when_all_in      INTEGER NOT NULL CHECK (early_when_all_in IN (0, 1)),
  max_attempts           INTEGER NOT NULL CHECK (max_attempts >= 1),
  nmr_guard_ratio        REAL    NOT NULL CHECK (nmr_guard_ratio BETWEEN 0 AND 1),
  downtime_grace_seconds INTEGER NOT NULL CHECK (downtime_grace_seconds >= 0)
) STRICT;

-- Every GM and scheduler action on a game, readable by its players. Append-only: rows are never
-- changed (trigger below) and go away only with their game. id (AUTOINCREMENT) orders entries.
-- Written by SqliteStore::append_audit only.
CREATE TABLE audit_log (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  game_id     TEXT    NOT NULL REFERENCES games(id) ON DELETE CASCADE,
  at          INTEGER NOT NULL,
  actor       TEXT    NOT NULL CHECK (actor <> ''),   -- "gm", "scheduler", "player:WSX", ...
  action      TEXT    NOT NULL CHECK (action <> ''),  -- "create", "run", "hold", ...
  detail_json TEXT    NOT NULL CHECK (json_valid(detail_json))
) STRICT;
CREATE INDEX audit_log_by_game ON audit_log(game_id, id);
CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
BEGIN
  SELECT RAISE(ABORT, 'audit_log is append-only');
END;
CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
  WHEN EXISTS (SELECT 1 FROM games WHERE id = OLD.game_id)
BEGIN
  SELECT RAISE(ABORT, 'audit_log is append-only');
END;

-- Per-player secret link tokens: 128 random bits as 32 lower-case hex digits. One per
-- (game_id, player), created on first request and never changed.
-- Written by SqliteStore::player_token only.
CREATE TABLE player_tokens (
  token   TEXT NOT NULL PRIMARY KEY CHECK (length(token) = 32 AND token NOT GLOB '*[^0-9a-f]*'),
  game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
  player  TEXT NOT NULL CHECK (player <> ''),
  UNIQUE (game_id, player)
) STRICT;

-- Failed runs of a game's open turn and the last error. No row means no failure.
-- Written by record_failed_attempt (+1) and reset_attempts (row removed).
CREATE TABLE run_attempts (
  game_id    TEXT    NOT NULL PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE,
  failed     INTEGER NOT NULL CHECK (failed >= 1),
  last_error TEXT    NOT NULL
) STRICT;

-- The daemon's own state: one row (id = 1) once the scheduler has run.
-- Written by SqliteStore::set_last_tick.
CREATE TABLE daemon_state (
  id        INTEGER NOT NULL PRIMARY KEY CHECK (id = 1),
  last_tick INTEGER NOT NULL                -- the scheduler's last pass, for the downtime guard
) STRICT;
