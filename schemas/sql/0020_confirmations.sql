-- 0020_confirmations: sign-up and standby requests waiting for the address to confirm them
-- (storage/membership_store.h PendingConfirmation, server/app/confirmations.h). A request made
-- on a public channel is kept here with the hash of a random code mailed to the address; only
-- confirming it puts the address on the sign-up or standby list. The rows also count the
-- requests per client and per address for the rate limits, so every daemon thread and process
-- shares them.
--
-- Applied by storage/sqlite/migrator.cc inside one transaction; do not add BEGIN/COMMIT here.
CREATE TABLE confirmations (
  id           INTEGER PRIMARY KEY,
  game_id      TEXT    NOT NULL REFERENCES games(id) ON DELETE CASCADE,
  kind         TEXT    NOT NULL CHECK (kind IN ('signup', 'standby')),
  address      TEXT    NOT NULL CHECK (address <> ''),
  address_key  TEXT    NOT NULL CHECK (address_key <> ''),
  client       TEXT    NOT NULL CHECK (client <> ''),
  payload      TEXT    NOT NULL DEFAULT '{}',
  code_hash    TEXT    NOT NULL UNIQUE CHECK (length(code_hash) = 64),
  created_at   INTEGER NOT NULL,
  expires_at   INTEGER NOT NULL,
  confirmed_at INTEGER
) STRICT;
CREATE INDEX confirmations_client ON confirmations(client, created_at);
CREATE INDEX confirmations_address ON confirmations(address_key, created_at);
CREATE INDEX confirmations_game ON confirmations(game_id, confirmed_at);
CREATE INDEX confirmations_expiry ON confirmations(expires_at);

-- Revisions (0013): every write bumps the game's revision.
CREATE TRIGGER rev_confirmations_insert AFTER INSERT ON confirmations BEGIN
  INSERT INTO revisions (scope, rev) VALUES (NEW.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_confirmations_update AFTER UPDATE ON confirmations BEGIN
  INSERT INTO revisions (scope, rev) VALUES (OLD.game_id, 1), (NEW.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_confirmations_delete AFTER DELETE ON confirmations BEGIN
  INSERT INTO revisions (scope, rev) VALUES (OLD.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
