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
