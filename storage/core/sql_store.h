// The part of Store (storage/store.h) written once over a sql::Session
// (storage/core/sql_session.h): the checks, error texts, row codecs and transaction shape both
// backends share. SqliteStore and PgStore derive from it and add what only their engine has
// (opening, migrations, revisions, the unchecked bulk rows of a turn on SQLite, the outbox
// claim), each giving its connection as session().
//
// Concurrency, the same on both backends: every write runs in one sql::WriteTx; a write that
// checks a count or a claim first reads the rows it depends on with Session::lock_rows(), so
// writers on PostgreSQL (READ COMMITTED, several daemons) queue there as SQLite's (one writer
// at a time) queue at BEGIN IMMEDIATE.
//
// Details the interfaces leave open:
//   * Unknown game -> NotFound(no_such_game(id)) (storage/core/messages.h). Game ids, player
//     codes and battle ids match exactly; front ends turn a game id into its stored spelling
//     first (stored_game_id), and ids are unique regardless of case.
//   * Stored JSON or seeds that do not parse -> Corruption naming the row.
//   * JSON that cannot be serialised (invalid UTF-8 in a string) -> InvalidArgument; nothing
//     is written then.
//   * Lists sorted by text sort by bytes on both backends (Session::bytewise): list_games by
//     id, battles(game, turn) by battle id, submissions by player.
//   * turn_record returns {"game", "turn", "seed" (decimal string), "summary", "ran_at"}.
//   * AdminStore: every per-game method returns NotFound for an unknown game. Audit entries
//     are append-only (a trigger refuses UPDATE, and DELETE while the game exists).
//   * MailStore: inbox raw bytes are kept exactly (BLOB, BYTEA); outbox(game) with game ""
//     lists every message; outbox lists are newest first; claim counts an attempt (attempts + 1)
//     per claim.
//
// Thread-safety: one store per thread, as every Store.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "storage/core/sql_session.h"
#include "storage/store.h"

namespace adj {

// What a backend does around a turn's bulk rows (battles and reports), inside the commit's
// WriteTx (SqlStore::begin_turn_rows): begun before the first row, rows_done() after the last,
// ended (destroyed) after the commit or the rollback.
class TurnRows {
 public:
  virtual ~TurnRows() = default;
  virtual Status rows_done() { return Status::Ok(); }
};

class SqlStore : public Store {
 public:
  // The last migration applied (storage/core/migration_files.h), for either dialect.
  Result<int> schema_version() override;

  // ---- GameStore (sql_store_games.cc) ----
  // REQUIRES of `initial`: a non-empty game_id and turn >= 1 (InvalidArgument otherwise).
  // The game starts with status "open" and open turn `initial.turn`. AlreadyExists also when
  // the id differs only by case from an existing one (the message names it).
  Status create_game(const GameState& initial, const Json& scenario, UnixTime now) override;
  Status replace_opening(const GameState& initial, const Json& scenario) override;
  Result<std::vector<GameSummary>> list_games() override;
  Result<std::string> stored_game_id(const std::string& game) override;
  Result<GameSummary> game_summary(const std::string& game) override;
  Result<Json> scenario(const std::string& game) override;
  // NotFound when the game exists but has no stored state for `turn` (after the open turn).
  // Corruption when the stored state does not parse or names another game or turn.
  Result<GameState> load_state(const std::string& game, std::optional<int> turn) override;

  // The resolving mark, rollback and turn records (sql_store_turns.cc).
  // One conditional UPDATE: of two runs starting at once exactly one sets the mark; a mark older
  // than resolving_lease_seconds() (a run that died) is taken over. FailedPrecondition when
  // `turn` is not the open turn; Unavailable while another run holds the mark.
  Status begin_resolving(const std::string& game, int turn, UnixTime now) override;
  Status end_resolving(const std::string& game, int turn) override;
  // Also FailedPrecondition when no state is stored for `turn` (before the game's first turn).
  Status rollback(const std::string& game, int turn) override;
  // NotFound when the turn has not been resolved.
  Result<Json> turn_record(const std::string& game, int turn) override;
  Result<UnixTime> turn_ran_at(const std::string& game, int turn) override;
  // Committing a turn (sql_turn_writer.cc). InvalidArgument (nothing written) unless
  // commit.next_state is for `game` and turn + 1 and every report's turn is commit.turn. Any
  // failing write (e.g. two battles with one id) rolls the whole commit back and returns the
  // error; the turn stays open.
  // Begins the commit's write transaction at once (on SQLite other writers wait until finish()
  // or the writer's end; on PostgreSQL the game's row is locked) and checks the open turn and
  // the submissions there. Battles and reports are bulk rows (sql::BulkInsert) as they are
  // added; the turn record, the next state and its index at finish().
  Result<std::unique_ptr<TurnWriter>> begin_commit(const std::string& game, int turn,
                                                   std::vector<std::int64_t> submissions) override;

  // ---- ReportStore (sql_store_reports.cc) ----
  // NotFound when the game, or that player's report for that turn, does not exist.
  Result<ReportRecord> report(const std::string& game, const std::string& player,
                              int turn) override;
  Result<std::vector<int>> report_turns(const std::string& game) override;
  Result<BattleRecord> battle(const std::string& game, int turn, const std::string& id) override;
  Result<std::vector<BattleRecord>> battles(const std::string& game, int turn) override;

  // Read from the open-state index, in one read snapshot, when it is current for the turn asked;
  // otherwise as GameStore's defaults (the whole state, cut). Results equal the defaults'.
  Result<GameState> load_view(const std::string& game, std::optional<int> turn,
                              const std::vector<std::string>& players,
                              const std::vector<std::string>& areas) override;
  Result<std::vector<Area>> area_names(const std::string& game, std::optional<int> turn) override;

  // ---- SubmissionStore (sql_store_submissions.cc) ----
  // record.id and record.current are ignored: the store assigns the id, and an accepted record
  // becomes current. NotFound for an unknown game; InvalidArgument when turn < 1;
  // FailedPrecondition when the turn is not open; Unavailable while it is being resolved.
  Result<std::int64_t> put_submission(const SubmissionRecord& record) override;
  // Sorted by player (bytewise).
  Result<std::vector<SubmissionRecord>> current_submissions(const std::string& game,
                                                            int turn) override;
  // One row, through the index of current files (game, turn, player).
  Result<std::optional<SubmissionRecord>> current_submission(const std::string& game, int turn,
                                                             const std::string& player) override;
  Result<std::vector<SubmissionRecord>> all_submissions(const std::string& game) override;

  // ---- EngineScriptStore (sql_store_engine_scripts.cc) ----
  // Versions are numbered under a lock on the game's row.
  Result<int> add_engine_script(const EngineScript& s) override;
  Result<EngineScript> engine_script(const std::string& game, int version) override;
  Result<std::optional<EngineScript>> engine_script_for_turn(const std::string& game,
                                                             int turn) override;
  Result<std::vector<EngineScript>> engine_script_versions(const std::string& game) override;

  // ---- AdminStore (sql_store_admin.cc) ----
  Result<Schedule> schedule(const std::string& game) override;
  // Stores the schedule as given (the GameAdmin validates against the clock). InvalidArgument
  // (nothing written) when a field is out of range: kind not none/fixed/interval, a negative
  // interval or grace, time_of_day outside 0..86399, max_attempts < 1, nmr_guard_ratio outside
  // 0..1.
  Status set_schedule(const std::string& game, const Schedule& s) override;
  // e.id is ignored (assigned by the store). InvalidArgument when actor or action is empty or the
  // detail cannot be serialised.
  Status append_audit(const AuditEntry& e) override;
  Result<std::vector<AuditEntry>> audit_log(const std::string& game) override;
  Result<int> failed_attempts(const std::string& game) override;
  Status record_failed_attempt(const std::string& game, const std::string& why) override;
  Status reset_attempts(const std::string& game) override;
  Result<UnixTime> last_tick() override;
  Status set_last_tick(UnixTime t) override;

  // Sets games.status (any non-empty word; InvalidArgument when empty).
  Status set_game_status(const std::string& game, const std::string& status) override;

  // ---- A game's end: deleting a draft, archiving (sql_store_lifecycle.cc); the host audit log
  // (sql_store_admin.cc) ----
  // The game's row is locked first, so a turn commit, a submission or a sign-up of the game
  // either comes before the deletion (and is counted, or refuses it) or finds no game. The
  // tables counted are every table with a game_id column, read from the catalog, so a table
  // added later is counted (and must cascade from games, as every such table does).
  Result<GameDeletion> delete_game(const std::string& game, const AuditEntry& record) override;
  Status set_archived(const std::string& game, std::optional<UnixTime> at) override;
  Status append_host_audit(const AuditEntry& e) override;
  Result<std::vector<AuditEntry>> host_audit_log(int limit) override;

  // ---- CredentialStore (sql_store_credentials.cc) ----
  // The store does not know the game's players: callers check `player` (InvalidArgument when
  // empty). Hashes are stored as given; the table CHECKs refuse what is not an Argon2id string or
  // 64 hex digits (InvalidArgument).
  Result<std::string> secret_hash(const std::string& game, const std::string& player) override;
  Status set_secret_hash(const std::string& game, const std::string& player,
                         const std::string& hash, UnixTime now) override;
  Status set_link_token(const std::string& game, const std::string& player,
                        const std::string& token_hash, UnixTime now) override;
  Status add_session_token(const std::string& game, const std::string& player,
                           const std::string& token_hash, UnixTime now) override;
  Status revoke_tokens(const std::string& game, const std::string& player) override;
  Result<TokenRecord> token_record(const std::string& token_hash) override;
  Status touch_session(const std::string& token_hash, UnixTime now) override;
  Status revoke_sessions(const std::string& game, const std::string& player,
                         const std::string& keep_hash) override;

  // ---- MembershipStore (sql_store_membership.cc) ----
  // load_state applies the game's contacts to the players of the state it returns.
  Result<std::int64_t> add_signup(const Signup& s, int max) override;
  Result<std::vector<Signup>> signups(const std::string& game) override;
  Status remove_signup(const std::string& game, std::int64_t id) override;
  Result<std::int64_t> add_confirmation(const PendingConfirmation& c,
                                        const ConfirmationLimits& l) override;
  Result<std::optional<PendingConfirmation>> use_confirmation(const std::string& code_hash,
                                                              UnixTime now) override;
  Status set_signup_state(const std::string& game, std::int64_t id, const std::string& state,
                          const std::string& player) override;
  Status set_contact(const std::string& game, const Contact& c) override;
  Result<std::vector<Contact>> contacts(const std::string& game) override;

  // ---- AttendanceStore (sql_store_attendance.cc) ----
  Result<std::vector<TurnAttendance>> turns_without_orders(const std::string& game,
                                                           int from_turn) override;
  Result<AttendanceOptions> attendance_options(const std::string& game) override;
  Status set_attendance_options(const std::string& game, const AttendanceOptions& o) override;
  Result<std::vector<AttendanceRecord>> attendance_records(const std::string& game) override;
  Status put_attendance_record(const std::string& game, const AttendanceRecord& r) override;
  Result<std::int64_t> add_absence(const Absence& a) override;
  Result<std::vector<Absence>> absences(const std::string& game) override;
  Result<bool> add_standby(const std::string& game, const std::string& address,
                           UnixTime now) override;
  Result<std::vector<StandbyEntry>> standby_list(const std::string& game) override;
  Status remove_standby(const std::string& game, const std::string& address) override;
  Result<std::int64_t> add_takeover_code(const TakeoverCode& c) override;
  Result<bool> use_takeover_code(const std::string& game, const std::string& player,
                                 const std::string& code_hash, const std::string& used_by,
                                 UnixTime now) override;
  Result<std::vector<TakeoverCode>> takeover_codes(const std::string& game) override;

  // ---- MailStore (sql_store_mail.cc) ----
  // InvalidArgument for an empty message_id or an unknown state ("" means "new").
  Result<std::int64_t> put_inbox(const InboxMessage& m, bool* duplicate) override;
  Result<std::vector<InboxPut>> put_inbox_batch(const std::vector<InboxMessage>& ms) override;
  Result<std::vector<InboxMessage>> inbox_list(const std::string& state, int limit,
                                               bool newest_first) override;
  Result<InboxUsage> inbox_usage_from(const std::string& from, UnixTime since) override;
  Result<InboxUsage> inbox_usage_peer(const std::string& peer, UnixTime since) override;
  Result<int> prune_inbox(UnixTime before, UnixTime now) override;
  // Bytes stored per game (every game, by id), for the GM page and /metrics.
  Result<std::vector<GameStorage>> storage_by_game() override;
  // NotFound when there is no such message; InvalidArgument for an unknown state.
  Status set_inbox_state(std::int64_t id, const std::string& state,
                         const std::string& outcome) override;
  Result<InboxMessage> inbox_message(std::int64_t id) override;
  // The old bytes overwritten where the engine can (Session::overwrite_freed).
  Status mask_inbox_raw(std::int64_t id, const std::string& raw) override;
  // In one write transaction: no message is claimed twice, by threads or by processes sharing
  // the database (on PostgreSQL the due rows are locked with skip_locked()).
  Result<std::vector<OutboxMessage>> claim(UnixTime now, int limit,
                                           std::int64_t lease_seconds) override;
  Result<bool> lease_inbox(std::int64_t id, const std::string& holder, UnixTime now,
                           std::int64_t seconds) override;
  Status release_inbox(std::int64_t id, const std::string& holder) override;
  Status retry_inbox_later(std::int64_t id, const std::string& holder) override;
  Result<std::vector<InboxLease>> inbox_leases() override;
  Status put_mail_part(const std::string& key, const std::string& body, UnixTime now) override;
  Result<std::string> mail_part(const std::string& key) override;
  Result<int> prune_mail_parts(UnixTime before) override;
  // m.id, m.state, m.attempts and m.last_error are ignored: a new message is "pending" with no
  // attempts. InvalidArgument when kind, to, raw or dedupe_key is empty.
  Result<std::int64_t> enqueue(const OutboxMessage& m) override;
  Result<std::vector<std::int64_t>> enqueue_batch(const std::vector<OutboxMessage>& ms) override;
  // NotFound for an unknown id. Marking is allowed in any state (a message whose lease expired
  // during a slow delivery is still marked).
  Status mark_sent(std::int64_t id, UnixTime now) override;
  // A message already "sent" stays sent. NotFound for an unknown id.
  Status mark_retry(std::int64_t id, const std::string& error, UnixTime next_attempt_at,
                    bool final) override;
  Result<std::vector<OutboxMessage>> outbox(const std::string& game, int limit) override;
  // One outbox message by id (the GM's message view). NotFound for an unknown id.
  Result<OutboxMessage> outbox_message(std::int64_t id) override;
  // Messages "pending" or "sending".
  Result<int> pending_count() override;
  Result<int> failing_count() override;
  Result<int> outbox_count(const std::string& to, const std::string& kind, UnixTime since) override;

  // ---- NoticeStore (sql_store_notices.cc) ----
  // AlreadyExists("notice <key>") for a dedupe key stored before (ON CONFLICT, so no error
  // aborts a caller's transaction).
  Result<std::int64_t> append_notice(const Notice& n) override;
  Result<std::vector<Notice>> pending_notices(int limit) override;
  Status mark_notice_done(std::int64_t id) override;
  Result<std::vector<Notice>> notices(const std::string& game) override;

  // ---- ThrottleStore (sql_throttle.cc), on throttle_session() ----
  Result<std::vector<ThrottleState>> throttle_states(const std::vector<std::string>& keys) override;
  // InvalidArgument (nothing written) for an empty key or one holding a newline, or when `change`
  // leaves a client key holding a newline.
  Status update_throttle(const std::vector<std::string>& keys,
                         const std::function<void(std::vector<ThrottleState>&)>& change,
                         std::int64_t now, std::int64_t forget_before,
                         std::size_t max_rows) override;

  // ---- PressStore (sql_store_press.cc) ----
  Result<PressOptions> press_options(const std::string& game) override;
  Status set_press_options(const std::string& game, const PressOptions& o) override;
  // The bounds are counted under a lock on the game's row, so concurrent senders cannot pass one.
  Result<std::int64_t> append_press(const PressMessage& m, const PressBounds& bounds) override;
  Result<std::vector<PressMessage>> press_messages_after(const std::string& game,
                                                         std::int64_t after_id) override;
  Result<PressDigestState> press_digest_state(const std::string& game) override;
  Result<bool> queue_press_digest(const std::string& game, const std::string& player,
                                  std::int64_t from_id, std::int64_t to_id, UnixTime now,
                                  const Notice* notice) override;

 protected:
  friend class SqlTurnWriter;  // sql_turn_writer.cc
  friend class TableAccess;    // sql_tables.cc

  // The backend's connection. Valid for the store's life once constructed.
  virtual sql::Session& session() = 0;
  // The connection the throttle writes on (valid for the store's life): session() by default;
  // SQLite's own second connection to the file, so a failed login is counted outside any
  // transaction of the store.
  virtual Result<sql::Session*> throttle_session() { return &session(); }

  // Nothing by default; SQLite's skips CHECKs and per-row triggers (sqlite_store_turns.cc).
  virtual Result<std::unique_ptr<TurnRows>> begin_turn_rows(const std::string& /*game*/) {
    return std::make_unique<TurnRows>();
  }

  // NotFound(no_such_game) unless `game` exists; with `lock`, its row is read with lock_rows()
  // (REQUIRES: inside a WriteTx then).
  Status require_game_row(const std::string& game, bool lock = false);
  // The rows of `sql`, a statement that returns at least one row when `game` exists (one that
  // reads its row of games); NotFound(no_such_game) when it returns none.
  Result<sql::Rows> game_rows(const std::string& game, std::string_view sql,
                              std::initializer_list<sql::Param> params);
  // Sets each player's email to their contact's (MembershipStore), when they have one.
  Status apply_contacts(const std::string& game, GameState& state);
  // Writes the open-state index of `game` from `state`, the state just stored as its open turn
  // (without contacts applied), inside the caller's WriteTx. `state_text`, when not empty, is
  // to_json(state).dump() (storage/core/state_text.h), whose rows are cut out of it rather than
  // serialised again. (sql_store_views.cc)
  Status index_open_state(const std::string& game, const GameState& state,
                          std::string_view state_text = {});
  // Brackets a write of many rows of `game` (rollback's deletes): a backend whose triggers would
  // bump the game's revision per row bumps it once. Nothing by default.
  virtual Status mark_bulk_writes(const std::string& /*game*/, bool /*on*/) { return Status::Ok(); }
  // Inside the caller's WriteTx (or the backend's own write transaction), before a turn's commit
  // writes anything: the game's row locked, FailedPrecondition unless `turn` is its open turn and
  // `submissions` are exactly the turn's current accepted files (in any order).
  Status check_commit_start(const std::string& game, int turn,
                            std::vector<std::int64_t> submissions);
  // index_open_state of the game's stored open-turn state, inside the caller's WriteTx; nothing
  // when it has none or it does not parse (readers then load it whole and report it).
  Status reindex_open_state(const std::string& game);
  // The row (open turn, indexed turn, head) of `game`'s open-state index when it is current for
  // `turn` (the open turn when nullopt); no row when it is not; NotFound for an unknown game.
  Result<sql::Rows> indexed_head(const std::string& game, std::optional<int> turn);
  // "SELECT <a GameSummary's columns> FROM games" (games_small_columns()).
  std::string summary_select();
  // "games", or on SQLite the index of its small columns (not through the row and its scenario).
  std::string games_small_columns(std::string_view alias = {});
  // SQL for the member `key` of the JSON text in `column`, as JSON text; NULL when absent or
  // a JSON null. `column` and `key` are SQL the caller wrote, never input.
  std::string json_member(std::string_view column, std::string_view key);
  // FailedPrecondition(archived_refusal(game, what)) when the game's row, read inside the
  // caller's WriteTx, is archived; Ok otherwise (also for an unknown game: the caller says so).
  Status refuse_archived(const std::string& game, const std::string& what);
  // append_notice's checks and insert, inside the caller's WriteTx.
  Result<std::int64_t> insert_notice(const Notice& n);
  // append_host_audit's check and insert (inside the caller's WriteTx, if any); the entry's id.
  Result<std::int64_t> insert_host_audit(const AuditEntry& e);
};

// The table `revisions` (migration 0013) as a RevisionMap, "*" the sum of its rows.
Result<std::shared_ptr<const RevisionMap>> read_revisions(sql::Session& s);

}  // namespace adj
