-- @sqlite
-- 0001_init: games, per-turn states, order submissions, resolved turns, battles and reports.
--
-- Applied by storage/sqlite/migrator.cc inside one transaction; do not add BEGIN/COMMIT here.
-- Conventions:
--   * Every table is STRICT. Times are Unix seconds (INTEGER) passed in by the caller.
--   * *_json columns hold one JSON document as text (nlohmann dump), checked with json_valid().
--   * Seeds are unsigned 64-bit integers, which SQLite's signed INTEGER cannot hold, so they are
--     stored as their decimal text.
--   * Game ids, player codes and battle ids compare exactly (BINARY collation).
--   * Rows of a game go away with it (ON DELETE CASCADE); rows of a resolved turn go away with
--     its `turns` row.
-- Later migrations (mail outbox, audit log) add their own tables; nothing here anticipates them.

-- One row per game.
-- Written by SqliteStore::create_game; open_turn by commit_turn (+1) and rollback (set back);
-- status by set_game_status.
CREATE TABLE games (
  id            TEXT    NOT NULL PRIMARY KEY,              -- e.g. "britain-9", chosen by the GM
  name          TEXT    NOT NULL,
  engine        TEXT    NOT NULL,                          -- combat engine name, e.g. "dark-age"
  scenario_json TEXT    NOT NULL CHECK (json_valid(scenario_json)),  -- the scenario as given
  status        TEXT    NOT NULL DEFAULT 'open',           -- "open", later "paused", "held", ...
  open_turn     INTEGER NOT NULL CHECK (open_turn >= 1),   -- orders are collected for this turn
  created_at    INTEGER NOT NULL
) STRICT;

-- The starting state of each turn of a game: GameState in its canonical JSON (rules/game/state.h).
-- Key (game_id, turn). Invariant: a row exists for the open turn, and none after it.
-- Written by create_game (the first turn) and commit_turn (turn + 1); rollback deletes later rows.
CREATE TABLE turn_states (
  game_id    TEXT    NOT NULL REFERENCES games(id) ON DELETE CASCADE,
  turn       INTEGER NOT NULL CHECK (turn >= 1),
  state_json TEXT    NOT NULL CHECK (json_valid(state_json)),
  PRIMARY KEY (game_id, turn)
) STRICT;

-- Every order file received, accepted or refused, exactly as it arrived, with its acknowledgement.
-- Key: id (AUTOINCREMENT, so ids are never reused and order by arrival). Never deleted, not even
-- by rollback. current = 1 marks the player's latest accepted file for a turn; at most one such
-- row per (game_id, turn, player) (index below).
-- Written by SqliteStore::put_submission only.
CREATE TABLE submissions (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  game_id     TEXT    NOT NULL REFERENCES games(id) ON DELETE CASCADE,
  player      TEXT    NOT NULL,       -- upper-case code; '' when the file named no known player
  turn        INTEGER NOT NULL CHECK (turn >= 1),
  source      TEXT    NOT NULL,       -- "cli", "web", "email:<message-id>", ...
  received_at INTEGER NOT NULL,
  raw_text    TEXT    NOT NULL,
  ack_json    TEXT    NOT NULL CHECK (json_valid(ack_json)),
  accepted    INTEGER NOT NULL CHECK (accepted IN (0, 1)),
  current     INTEGER NOT NULL CHECK (current IN (0, 1)),
  CHECK (current = 0 OR accepted = 1)
) STRICT;
CREATE INDEX submissions_by_turn ON submissions(game_id, turn, player);
CREATE UNIQUE INDEX submissions_one_current ON submissions(game_id, turn, player) WHERE current = 1;

-- One row per resolved turn: the seed it ran with and its summary (order of play, events, digest).
-- Key (game_id, turn). Written by commit_turn; rollback deletes rows for turns >= the reopened one.
CREATE TABLE turns (
  game_id      TEXT    NOT NULL REFERENCES games(id) ON DELETE CASCADE,
  turn         INTEGER NOT NULL CHECK (turn >= 1),
  seed         TEXT    NOT NULL CHECK (seed <> '' AND length(seed) <= 20 AND seed NOT GLOB '*[^0-9]*'),
  summary_json TEXT    NOT NULL CHECK (json_valid(summary_json)),
  ran_at       INTEGER NOT NULL,
  PRIMARY KEY (game_id, turn)
) STRICT;

-- Every battle of a resolved turn: what its engine was given and what it returned, with the seed
-- of its own random stream, so `--replay` can rerun it.
-- Key (game_id, turn, battle_id), e.g. battle_id "3.5.WSX". Written by commit_turn; removed with
-- its turn.
CREATE TABLE battles (
  game_id      TEXT    NOT NULL,
  turn         INTEGER NOT NULL,
  battle_id    TEXT    NOT NULL,
  seed         TEXT    NOT NULL CHECK (seed <> '' AND length(seed) <= 20 AND seed NOT GLOB '*[^0-9]*'),
  engine       TEXT    NOT NULL,
  input_json   TEXT    NOT NULL CHECK (json_valid(input_json)),
  outcome_json TEXT    NOT NULL CHECK (json_valid(outcome_json)),
  PRIMARY KEY (game_id, turn, battle_id),
  FOREIGN KEY (game_id, turn) REFERENCES turns(game_id, turn) ON DELETE CASCADE
) STRICT;

-- Each player's report of a resolved turn, as text (mail body) and as JSON (web view).
-- Key (game_id, turn, player). Written by commit_turn; removed with its turn.
CREATE TABLE reports (
  game_id TEXT    NOT NULL,
  turn    INTEGER NOT NULL,
  player  TEXT    NOT NULL,
  text    TEXT    NOT NULL,
  json    TEXT    NOT NULL CHECK (json_valid(json)),
  PRIMARY KEY (game_id, turn, player),
  FOREIGN KEY (game_id, turn) REFERENCES turns(game_id, turn) ON DELETE CASCADE
) STRICT;
-- @postgres
-- 0001_core (PostgreSQL): games, per-turn states, order submissions, resolved turns, battles,
-- reports and the revision counters, as the SQLite schema has them after 0001..0013.
--
-- Applied by storage/postgres/pg_migrator.cc inside one transaction; do not add BEGIN/COMMIT.
-- Conventions (every later @postgres fragment follows them):
--   * Same table and column names as the @sqlite fragments, so `adjutant copy` moves rows table by table.
--     Types map INTEGER -> BIGINT, TEXT -> TEXT, BLOB -> BYTEA, REAL -> DOUBLE PRECISION; flags
--     stay 0/1 integers with the same CHECKs. One exception: submissions.raw_text is BYTEA, as
--     an order file is kept exactly as it arrived, and PostgreSQL text holds neither NUL bytes
--     nor invalid UTF-8 (SQLite TEXT holds both). A copy reads that column's bytes. Times are Unix seconds passed in by the caller.
--   * *_json columns hold one JSON document as text, checked by a cast to json.
--   * Seeds (unsigned 64-bit) are decimal text, as in SQLite.
--   * Game ids, player codes and battle ids compare exactly; game ids are also unique regardless
--     of case (games_id_nocase).
--   * AUTOINCREMENT keys are BIGINT GENERATED BY DEFAULT AS IDENTITY (a copy may insert ids; it
--     then moves the sequence past them with setval).
--   * Rows of a game go away with it (ON DELETE CASCADE).
--
-- Revisions (the web answer cache, server/http/response_cache.h; SQLite 0013_revisions.sql):
-- every write to a game's rows adds to that game's revision. Each table with a game column gets
-- three statement-level triggers calling adj_bump_revisions(), which add the number of rows
-- written per game (one small upsert per statement and game, not per row, so a turn's thousands
-- of reports cost one). Attach them to a new table with
--     SELECT adj_attach_revision_triggers('table_name');            -- key column game_id
--     SELECT adj_attach_revision_triggers('games', 'id');           -- another key column
-- tests/storage/revisions_test.cc checks every table with a game_id column has them.

-- ---- revisions ----

CREATE TABLE revisions (
  scope TEXT   PRIMARY KEY,  -- a game id
  rev   BIGINT NOT NULL
);

-- Statement-level AFTER trigger function. TG_ARGV[0]: the game id column (default game_id).
-- The transition tables must be named adj_new (NEW TABLE) and adj_old (OLD TABLE), as
-- adj_attach_revision_triggers creates them.
CREATE FUNCTION adj_bump_revisions() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
  col text := coalesce(TG_ARGV[0], 'game_id');
  src text;
BEGIN
  IF TG_OP = 'INSERT' THEN
    src := format('SELECT %I AS k FROM adj_new', col);
  ELSIF TG_OP = 'DELETE' THEN
    src := format('SELECT %I AS k FROM adj_old', col);
  ELSE
    src := format('SELECT %I AS k FROM adj_old UNION ALL SELECT %I FROM adj_new', col, col);
  END IF;
  EXECUTE 'INSERT INTO revisions AS r (scope, rev) SELECT k, count(*) FROM (' || src ||
          ') t WHERE k IS NOT NULL GROUP BY k ORDER BY k '
          'ON CONFLICT (scope) DO UPDATE SET rev = r.rev + excluded.rev';
  RETURN NULL;
END
$fn$;

-- Creates the triggers rev_<table>_insert/_update/_delete on `tbl`.
CREATE FUNCTION adj_attach_revision_triggers(tbl text, key_column text DEFAULT 'game_id')
RETURNS void LANGUAGE plpgsql AS $fn$
BEGIN
  EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %I REFERENCING NEW TABLE AS adj_new '
                 'FOR EACH STATEMENT EXECUTE FUNCTION adj_bump_revisions(%L)',
                 'rev_' || tbl || '_insert', tbl, key_column);
  EXECUTE format('CREATE TRIGGER %I AFTER UPDATE ON %I '
                 'REFERENCING OLD TABLE AS adj_old NEW TABLE AS adj_new '
                 'FOR EACH STATEMENT EXECUTE FUNCTION adj_bump_revisions(%L)',
                 'rev_' || tbl || '_update', tbl, key_column);
  EXECUTE format('CREATE TRIGGER %I AFTER DELETE ON %I REFERENCING OLD TABLE AS adj_old '
                 'FOR EACH STATEMENT EXECUTE FUNCTION adj_bump_revisions(%L)',
                 'rev_' || tbl || '_delete', tbl, key_column);
END
$fn$;

-- ---- games ----

-- One row per game. Written by PgStore::create_game; open_turn by commit_turn (+1) and rollback;
-- status by set_game_status; resolving_turn/resolving_since by begin_resolving (a lease of
-- SqliteStore::kResolvingLeaseSeconds), cleared by commit_turn and end_resolving. Writers that
-- must see a stable open turn lock the row (SELECT ... FOR NO KEY UPDATE).
CREATE TABLE games (
  id              TEXT   NOT NULL PRIMARY KEY,
  name            TEXT   NOT NULL,
  engine          TEXT   NOT NULL,
  scenario_json   TEXT   NOT NULL CHECK (scenario_json::json IS NOT NULL),
  status          TEXT   NOT NULL DEFAULT 'open',
  open_turn       BIGINT NOT NULL CHECK (open_turn >= 1),
  created_at      BIGINT NOT NULL,
  resolving_turn  BIGINT,
  resolving_since BIGINT
);
CREATE UNIQUE INDEX games_id_nocase ON games (lower(id));

-- The starting state of each turn: GameState as canonical JSON. A row exists for the open turn
-- and none after it.
CREATE TABLE turn_states (
  game_id    TEXT   NOT NULL REFERENCES games(id) ON DELETE CASCADE,
  turn       BIGINT NOT NULL CHECK (turn >= 1),
  state_json TEXT   NOT NULL CHECK (state_json::json IS NOT NULL),
  PRIMARY KEY (game_id, turn)
);

-- Every order file received, accepted or refused. Never deleted, not even by rollback.
-- current = 1 marks the player's latest accepted file for a turn (at most one).
CREATE TABLE submissions (
  id          BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  game_id     TEXT   NOT NULL REFERENCES games(id) ON DELETE CASCADE,
  player      TEXT   NOT NULL,
  turn        BIGINT NOT NULL CHECK (turn >= 1),
  source      TEXT   NOT NULL,
  received_at BIGINT NOT NULL,
  raw_text    BYTEA  NOT NULL,  -- BYTEA (SQLite: TEXT): kept byte for byte, NUL and all
  ack_json    TEXT   NOT NULL CHECK (ack_json::json IS NOT NULL),
  accepted    BIGINT NOT NULL CHECK (accepted IN (0, 1)),
  current     BIGINT NOT NULL CHECK (current IN (0, 1)),
  CHECK (current = 0 OR accepted = 1)
);
CREATE INDEX submissions_by_turn ON submissions (game_id, turn, player);
CREATE UNIQUE INDEX submissions_one_current ON submissions (game_id, turn, player)
  WHERE current = 1;

-- One row per resolved turn.
CREATE TABLE turns (
  game_id      TEXT   NOT NULL REFERENCES games(id) ON DELETE CASCADE,
  turn         BIGINT NOT NULL CHECK (turn >= 1),
  seed         TEXT   NOT NULL CHECK (seed ~ '^[0-9]{1,20}$'),
  summary_json TEXT   NOT NULL CHECK (summary_json::json IS NOT NULL),
  ran_at       BIGINT NOT NULL,
  PRIMARY KEY (game_id, turn)
);

-- Every battle of a resolved turn; removed with its turn.
CREATE TABLE battles (
  game_id      TEXT   NOT NULL,
  turn         BIGINT NOT NULL,
  battle_id    TEXT   NOT NULL,
  seed         TEXT   NOT NULL CHECK (seed ~ '^[0-9]{1,20}$'),
  engine       TEXT   NOT NULL,
  input_json   TEXT   NOT NULL CHECK (input_json::json IS NOT NULL),
  outcome_json TEXT   NOT NULL CHECK (outcome_json::json IS NOT NULL),
  PRIMARY KEY (game_id, turn, battle_id),
  FOREIGN KEY (game_id, turn) REFERENCES turns(game_id, turn) ON DELETE CASCADE
);

-- Each player's report of a resolved turn; removed with its turn.
CREATE TABLE reports (
  game_id TEXT   NOT NULL,
  turn    BIGINT NOT NULL,
  player  TEXT   NOT NULL,
  text    TEXT   NOT NULL,
  json    TEXT   NOT NULL CHECK (json::json IS NOT NULL),
  PRIMARY KEY (game_id, turn, player),
  FOREIGN KEY (game_id, turn) REFERENCES turns(game_id, turn) ON DELETE CASCADE
);

SELECT adj_attach_revision_triggers('games', 'id');
SELECT adj_attach_revision_triggers('turn_states');
SELECT adj_attach_revision_triggers('submissions');
SELECT adj_attach_revision_triggers('turns');
SELECT adj_attach_revision_triggers('battles');
SELECT adj_attach_revision_triggers('reports');
