-- @sqlite
-- Revision counters for the web answer cache (server/http/response_cache.h).
-- Every write to a game's rows adds one to that game's revision. The site's revision '*' (the
-- index lists every game) is the sum of them all, computed by the reader
-- (storage/sqlite/revision_watch.h): one small write per row written, not two. A cached page remembers the revision it was made at and is made
-- again once it changed: whoever wrote (the daemon, a web or mail handler, or the command line in
-- another process). The outbox is left out: delivering mail changes no page that is cached.
-- tests/storage/revisions_test.cc checks that every table with a game_id has the three triggers.
CREATE TABLE revisions (
  scope TEXT PRIMARY KEY,  -- a game id
  rev   INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TRIGGER rev_games_insert AFTER INSERT ON games BEGIN
  INSERT INTO revisions (scope, rev) VALUES (NEW.id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_games_update AFTER UPDATE ON games BEGIN
  INSERT INTO revisions (scope, rev) VALUES (OLD.id, 1), (NEW.id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_games_delete AFTER DELETE ON games BEGIN
  INSERT INTO revisions (scope, rev) VALUES (OLD.id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_absences_insert AFTER INSERT ON absences BEGIN
  INSERT INTO revisions (scope, rev) VALUES (NEW.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_absences_update AFTER UPDATE ON absences BEGIN
  INSERT INTO revisions (scope, rev) VALUES (OLD.game_id, 1), (NEW.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_absences_delete AFTER DELETE ON absences BEGIN
  INSERT INTO revisions (scope, rev) VALUES (OLD.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_attendance_options_insert AFTER INSERT ON attendance_options BEGIN
  INSERT INTO revisions (scope, rev) VALUES (NEW.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_attendance_options_update AFTER UPDATE ON attendance_options BEGIN
  INSERT INTO revisions (scope, rev) VALUES (OLD.game_id, 1), (NEW.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_attendance_options_delete AFTER DELETE ON attendance_options BEGIN
  INSERT INTO revisions (scope, rev) VALUES (OLD.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_attendance_players_insert AFTER INSERT ON attendance_players BEGIN
  INSERT INTO revisions (scope, rev) VALUES (NEW.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_attendance_players_update AFTER UPDATE ON attendance_players BEGIN
  INSERT INTO revisions (scope, rev) VALUES (OLD.game_id, 1), (NEW.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_attendance_players_delete AFTER DELETE ON attendance_players BEGIN
  INSERT INTO revisions (scope, rev) VALUES (OLD.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_audit_log_insert AFTER INSERT ON audit_log BEGIN
  INSERT INTO revisions (scope, rev) VALUES (NEW.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_audit_log_update AFTER UPDATE ON audit_log BEGIN
  INSERT INTO revisions (scope, rev) VALUES (OLD.game_id, 1), (NEW.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_audit_log_delete AFTER DELETE ON audit_log BEGIN
  INSERT INTO revisions (scope, rev) VALUES (OLD.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_battles_insert AFTER INSERT ON battles BEGIN
  INSERT INTO revisions (scope, rev) VALUES (NEW.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_battles_update AFTER UPDATE ON battles BEGIN
  INSERT INTO revisions (scope, rev) VALUES (OLD.game_id, 1), (NEW.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_battles_delete AFTER DELETE ON battles BEGIN
  INSERT INTO revisions (scope, rev) VALUES (OLD.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_contacts_insert AFTER INSERT ON contacts BEGIN
  INSERT INTO revisions (scope, rev) VALUES (NEW.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_contacts_update AFTER UPDATE ON contacts BEGIN
  INSERT INTO revisions (scope, rev) VALUES (OLD.game_id, 1), (NEW.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_contacts_delete AFTER DELETE ON contacts BEGIN
  INSERT INTO revisions (scope, rev) VALUES (OLD.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_notices_insert AFTER INSERT ON notices BEGIN
  INSERT INTO revisions (scope, rev) VALUES (NEW.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_notices_update AFTER UPDATE ON notices BEGIN
  INSERT INTO revisions (scope, rev) VALUES (OLD.game_id, 1), (NEW.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_notices_delete AFTER DELETE ON notices BEGIN
  INSERT INTO revisions (scope, rev) VALUES (OLD.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_player_secrets_insert AFTER INSERT ON player_secrets BEGIN
  INSERT INTO revisions (scope, rev) VALUES (NEW.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_player_secrets_update AFTER UPDATE ON player_secrets BEGIN
  INSERT INTO revisions (scope, rev) VALUES (OLD.game_id, 1), (NEW.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_player_secrets_delete AFTER DELETE ON player_secrets BEGIN
  INSERT INTO revisions (scope, rev) VALUES (OLD.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_player_token_hashes_insert AFTER INSERT ON player_token_hashes BEGIN
  INSERT INTO revisions (scope, rev) VALUES (NEW.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_player_token_hashes_update AFTER UPDATE ON player_token_hashes BEGIN
  INSERT INTO revisions (scope, rev) VALUES (OLD.game_id, 1), (NEW.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_player_token_hashes_delete AFTER DELETE ON player_token_hashes BEGIN
  INSERT INTO revisions (scope, rev) VALUES (OLD.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_player_tokens_insert AFTER INSERT ON player_tokens BEGIN
  INSERT INTO revisions (scope, rev) VALUES (NEW.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_player_tokens_update AFTER UPDATE ON player_tokens BEGIN
  INSERT INTO revisions (scope, rev) VALUES (OLD.game_id, 1), (NEW.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_player_tokens_delete AFTER DELETE ON player_tokens BEGIN
  INSERT INTO revisions (scope, rev) VALUES (OLD.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_press_insert AFTER INSERT ON press BEGIN
  INSERT INTO revisions (scope, rev) VALUES (NEW.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_press_update AFTER UPDATE ON press BEGIN
  INSERT INTO revisions (scope, rev) VALUES (OLD.game_id, 1), (NEW.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_press_delete AFTER DELETE ON press BEGIN
  INSERT INTO revisions (scope, rev) VALUES (OLD.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_press_options_insert AFTER INSERT ON press_options BEGIN
  INSERT INTO revisions (scope, rev) VALUES (NEW.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_press_options_update AFTER UPDATE ON press_options BEGIN
  INSERT INTO revisions (scope, rev) VALUES (OLD.game_id, 1), (NEW.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_press_options_delete AFTER DELETE ON press_options BEGIN
  INSERT INTO revisions (scope, rev) VALUES (OLD.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_reports_insert AFTER INSERT ON reports BEGIN
  INSERT INTO revisions (scope, rev) VALUES (NEW.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_reports_update AFTER UPDATE ON reports BEGIN
  INSERT INTO revisions (scope, rev) VALUES (OLD.game_id, 1), (NEW.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_reports_delete AFTER DELETE ON reports BEGIN
  INSERT INTO revisions (scope, rev) VALUES (OLD.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_run_attempts_insert AFTER INSERT ON run_attempts BEGIN
  INSERT INTO revisions (scope, rev) VALUES (NEW.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_run_attempts_update AFTER UPDATE ON run_attempts BEGIN
  INSERT INTO revisions (scope, rev) VALUES (OLD.game_id, 1), (NEW.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_run_attempts_delete AFTER DELETE ON run_attempts BEGIN
  INSERT INTO revisions (scope, rev) VALUES (OLD.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_schedules_insert AFTER INSERT ON schedules BEGIN
  INSERT INTO revisions (scope, rev) VALUES (NEW.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_schedules_update AFTER UPDATE ON schedules BEGIN
  INSERT INTO revisions (scope, rev) VALUES (OLD.game_id, 1), (NEW.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_schedules_delete AFTER DELETE ON schedules BEGIN
  INSERT INTO revisions (scope, rev) VALUES (OLD.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_signups_insert AFTER INSERT ON signups BEGIN
  INSERT INTO revisions (scope, rev) VALUES (NEW.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_signups_update AFTER UPDATE ON signups BEGIN
  INSERT INTO revisions (scope, rev) VALUES (OLD.game_id, 1), (NEW.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_signups_delete AFTER DELETE ON signups BEGIN
  INSERT INTO revisions (scope, rev) VALUES (OLD.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_standby_insert AFTER INSERT ON standby BEGIN
  INSERT INTO revisions (scope, rev) VALUES (NEW.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_standby_update AFTER UPDATE ON standby BEGIN
  INSERT INTO revisions (scope, rev) VALUES (OLD.game_id, 1), (NEW.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_standby_delete AFTER DELETE ON standby BEGIN
  INSERT INTO revisions (scope, rev) VALUES (OLD.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_submissions_insert AFTER INSERT ON submissions BEGIN
  INSERT INTO revisions (scope, rev) VALUES (NEW.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_submissions_update AFTER UPDATE ON submissions BEGIN
  INSERT INTO revisions (scope, rev) VALUES (OLD.game_id, 1), (NEW.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_submissions_delete AFTER DELETE ON submissions BEGIN
  INSERT INTO revisions (scope, rev) VALUES (OLD.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_takeover_codes_insert AFTER INSERT ON takeover_codes BEGIN
  INSERT INTO revisions (scope, rev) VALUES (NEW.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_takeover_codes_update AFTER UPDATE ON takeover_codes BEGIN
  INSERT INTO revisions (scope, rev) VALUES (OLD.game_id, 1), (NEW.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_takeover_codes_delete AFTER DELETE ON takeover_codes BEGIN
  INSERT INTO revisions (scope, rev) VALUES (OLD.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_turn_states_insert AFTER INSERT ON turn_states BEGIN
  INSERT INTO revisions (scope, rev) VALUES (NEW.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_turn_states_update AFTER UPDATE ON turn_states BEGIN
  INSERT INTO revisions (scope, rev) VALUES (OLD.game_id, 1), (NEW.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_turn_states_delete AFTER DELETE ON turn_states BEGIN
  INSERT INTO revisions (scope, rev) VALUES (OLD.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_turns_insert AFTER INSERT ON turns BEGIN
  INSERT INTO revisions (scope, rev) VALUES (NEW.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_turns_update AFTER UPDATE ON turns BEGIN
  INSERT INTO revisions (scope, rev) VALUES (OLD.game_id, 1), (NEW.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER rev_turns_delete AFTER DELETE ON turns BEGIN
  INSERT INTO revisions (scope, rev) VALUES (OLD.game_id, 1)
    ON CONFLICT (scope) DO UPDATE SET rev = rev + 1;
END;
