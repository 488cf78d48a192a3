-- @sqlite
-- 0011_attendance: missed turns, civil disorder, standby players, takeover codes and absences
-- (storage/attendance_store.h). Consecutive misses are derived from the turn records
-- (summary.players_without_orders), so a rollback stays consistent; what is kept here is only
-- what a record cannot tell.
--
-- Applied by storage/sqlite/migrator.cc inside one transaction; do not add BEGIN/COMMIT here.

-- The game's attendance policy; a game without a row has the defaults of AttendanceOptions.
CREATE TABLE attendance_options (
  game_id              TEXT    PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE,
  civil_disorder_after INTEGER NOT NULL CHECK (civil_disorder_after BETWEEN 0 AND 100),
  absence_extends      INTEGER NOT NULL CHECK (absence_extends IN (0, 1)),
  absence_max_days     INTEGER NOT NULL CHECK (absence_max_days BETWEEN 0 AND 366),
  absence_max_per_game INTEGER NOT NULL CHECK (absence_max_per_game BETWEEN 0 AND 1000),
  takeover_code_days   INTEGER NOT NULL CHECK (takeover_code_days BETWEEN 1 AND 366)
) STRICT;

-- Per position: misses count from misses_from_turn on (a takeover restarts the count), and the
-- position is in civil disorder from the open turn disorder_turn on (NULL: not in disorder).
CREATE TABLE attendance_players (
  game_id          TEXT    NOT NULL REFERENCES games(id) ON DELETE CASCADE,
  player           TEXT    NOT NULL CHECK (player <> ''),
  misses_from_turn INTEGER NOT NULL DEFAULT 1 CHECK (misses_from_turn >= 1),
  disorder_turn    INTEGER CHECK (disorder_turn IS NULL OR disorder_turn >= 1),
  PRIMARY KEY (game_id, player)
) STRICT;

-- Declared absences, inclusive UTC dates YYYY-MM-DD.
CREATE TABLE absences (
  id          INTEGER PRIMARY KEY,
  game_id     TEXT    NOT NULL REFERENCES games(id) ON DELETE CASCADE,
  player      TEXT    NOT NULL CHECK (player <> ''),
  from_day    TEXT    NOT NULL CHECK (length(from_day) = 10),
  to_day      TEXT    NOT NULL CHECK (length(to_day) = 10 AND to_day >= from_day),
  declared_at INTEGER NOT NULL
) STRICT;
CREATE INDEX absences_game ON absences(game_id, player);

-- Addresses waiting to take over a position in civil disorder.
CREATE TABLE standby (
  id         INTEGER PRIMARY KEY,
  game_id    TEXT    NOT NULL REFERENCES games(id) ON DELETE CASCADE,
  address    TEXT    NOT NULL CHECK (address <> ''),
  created_at INTEGER NOT NULL,
  UNIQUE (game_id, address)
) STRICT;

-- Single-use codes to take a position over, stored as BLAKE2b hashes (never in clear).
CREATE TABLE takeover_codes (
  id         INTEGER PRIMARY KEY,
  game_id    TEXT    NOT NULL REFERENCES games(id) ON DELETE CASCADE,
  player     TEXT    NOT NULL CHECK (player <> ''),
  code_hash  TEXT    NOT NULL UNIQUE CHECK (length(code_hash) = 64),
  address    TEXT    NOT NULL DEFAULT '',
  issued_by  TEXT    NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  used_at    INTEGER,
  used_by    TEXT
) STRICT;
CREATE INDEX takeover_codes_game ON takeover_codes(game_id, player);
