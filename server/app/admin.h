// GM controls and the deadline scheduler, over the stores. No sockets, no clock of its own (the
// Clock is passed in), so every decision is testable with a fixed time.
//
// Thread-safety: one GameAdmin per thread (it borrows that thread's stores and Services).
//
// Audit log. Each successful GM action appends one entry (actor as given), after the action is
// applied; when that write fails the action stands and the write's error is returned. Actions and
// their `detail` fields (times are Unix seconds):
//   create    {name, engine, turn}                        (the seed is never logged)
//   preview   {turn, digest}
//   run       {turn, digest, players_without_orders, deadline (next, or null), released_hold}
//   rollback  {turn (reopened), from_turn, later_files: [{turn, player, submission}], why (the
//             GM's reason, when given)} (files on
//             file for the removed turns, checked again when those turns open again)
//   schedule  {schedule: {kind, deadline, interval_seconds, time_of_day, early_when_all_in,
//              max_attempts, nmr_guard_ratio, downtime_grace_seconds}}
//   deadline  {from (or null), to}
//   extend    {from, to, seconds}   by the scheduler: {from, to, reason: "downtime", down_since}
//             or {from, to, reason: "absence", turn, players} (server/app/attendance.h)
//   civil-disorder, takeover, ...: attendance (server/app/attendance.h lists them); a committed
//             run calls Attendance::after_run, and the scheduler leaves positions in civil
//             disorder out of "every order is in" and the NMR guard.
//   pause     {from (status), turn, deadline, remaining (seconds left, when in the future)}
//   resume    {from (status), turn, deadline}
//   guard     {guard: "nmr", turn, players_without_orders, share, usual (or null), threshold}
//   failed    {turn, attempt, max_attempts, error}        (scheduler only)
//   hold      {turn, reason, attempts, error}             (scheduler: max_attempts reached)
//   token     {player}                  a new link token issued by the GM (never the token)
//   reset     {player, what}            the GM reset a player's secret and/or tokens
//   finish    {turn, kind, winners, message}  the run ended the game (rules/game/victory.h)
//   reopen    {turn, message}           a rollback of a finished game reopened it
//   secret    {player, what}            the player changed their secret ("secret") or rotated
//                                       their tokens ("token"); actor "player:<code>"
//   archive   {why (when given)}        the GM archived the game (also on the host's log)
//   unarchive {why (when given)}        the GM unarchived it (also on the host's log)
// The host's own log (AdminStore::host_audit_log) keeps what outlives a game:
//   delete    {why, name, removed: {table: rows}, mail_dropped, mail_kept, audit: [the game's
//             entries]}  a game that had not started was deleted (delete_game)
// Every scheduler entry has actor "scheduler" and a human-readable "message".
//
// Game status: "open" games are run by the scheduler; "paused" (by the GM) and "held" (by a
// guard or after max_attempts failures) games never are. A GM may still run any game by hand.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "server/app/gm_orders.h"
#include "server/app/services.h"
#include "storage/admin_store.h"

namespace adj {

// Who has sent orders for the open turn.
struct SubmissionStatus {
  std::string player;
  std::string name;
  bool has_orders = false;
  std::optional<UnixTime> received_at;
  int accepted = 0, rejected = 0;  // line counts of the current file
};

// A player's SubmissionStatus given their current file for the open turn (null: none).
SubmissionStatus submission_status_of(const std::string& player, const std::string& name,
                                      const SubmissionRecord* file);

// The open turn of a game and its deadline (nullopt: none set), as a report tells it.
struct NextDeadline {
  int turn = 0;
  std::optional<UnixTime> at;
};

// What the scheduler did for one game on one tick.
struct TickAction {
  std::string game;
  std::string action;  // "ran", "held", "extended", "failed", "waiting", "reports"
  std::string detail;
  // "ran": the turn resolved. "reports": the resolved turn whose reports were never recorded as
  // queued (audit "reports", MailIngest::queue_turn_reports); the caller queues them.
  int turn = 0;
};

// A schedule as JSON (the API's and the audit log's form).
Json to_json(const Schedule& s);

class GameAdmin {
 public:
  GameAdmin(Services& services, Stores stores, AdminStore& admin, Clock clock)
      : svc_(services), s_(stores), admin_(admin), now_(std::move(clock)) {}

  // Every GM action below is written to the audit log with `actor`.
  // fresh_secrets and issued: as Services::create_game.
  Result<GameSummary> create_game(const Json& scenario, Seed seed, const std::string& actor,
                                  bool fresh_secrets = false,
                                  std::map<std::string, std::string>* issued = nullptr);
  // A committed run resets the failed attempts, sets the next deadline (interval: previous
  // deadline, or now when none, + interval, on the UTC day it falls on at time_of_day when set,
  // moved on by whole intervals until it is in the future; fixed: cleared until the GM sets one)
  // and releases a "held" game to "open" (a "paused" game stays paused). A preview writes only
  // its audit entry.
  Result<TurnRunOutcome> run_turn(const std::string& game, bool preview, const std::string& actor);
  // As above, for `expected_turn` only (Services::run_turn): a stale request runs nothing.
  Result<TurnRunOutcome> run_turn(const std::string& game, bool preview, const std::string& actor,
                                  std::optional<int> expected_turn);
  // Also resets the failed attempts; the schedule is left as it is. Every player is told, with
  // `reason` (check_gm_reason, server/app/audit_log.h) when not empty.
  Status rollback(const std::string& game, int turn, const std::string& actor,
                  const std::string& reason = {});
  // InvalidArgument (nothing written) unless: kind is none, fixed or interval; interval has
  // interval_seconds > 0 (a whole number of days when time_of_day is set); time_of_day is
  // 0..86399; a deadline is in the future (or equal to the stored one); max_attempts >= 1;
  // nmr_guard_ratio in 0..1 (1 disables the NMR guard); downtime_grace_seconds >= 0 (0 disables
  // the downtime guard). Stored as given except: kind none drops the deadline, kinds other than
  // interval drop time_of_day, and an interval schedule without a deadline gets its first one as
  // after a run, from now.
  Status set_schedule(const std::string& game, const Schedule& s, const std::string& actor);
  // InvalidArgument unless `deadline` is in the future. A "none" schedule becomes "fixed".
  Status set_deadline(const std::string& game, UnixTime deadline, const std::string& actor);
  // The deadline becomes max(deadline, now) + seconds. InvalidArgument unless seconds > 0;
  // FailedPrecondition when the game has no deadline.
  Status extend_deadline(const std::string& game, std::int64_t seconds, const std::string& actor);
  // Status "paused" (from "open" or "held"; FailedPrecondition otherwise). The time left to a
  // future deadline is kept in the audit entry.
  Status pause(const std::string& game, const std::string& actor);
  // Status "open" (from "paused" or "held"; FailedPrecondition otherwise); resets the failed
  // attempts. From "paused": when the deadline was not changed while paused, it becomes now +
  // the time that was left at the pause. From "held": the deadline is kept, and the NMR guard
  // is waived for the open turn (the GM has seen the hold and chosen to go on).
  Status resume(const std::string& game, const std::string& actor);

  // The end of a game (game_lifecycle.cc). `reason`: the GM's optional why (check_gm_reason),
  // kept in the audit entries.
  // Deletes a game that has not started, with every row of it (AdminStore::delete_game, one
  // transaction with the host audit entry "delete", which keeps the game's own log). Nobody is
  // told: sign-ups and mail not sent yet go with it. Nothing changes when it fails:
  // FailedPrecondition "game G has started (turn N ran); archive it instead ..." once a turn
  // has run, Unavailable while one is being resolved, NotFound for an unknown game,
  // InvalidArgument for a bad reason.
  Result<GameDeletion> delete_game(const std::string& game, const std::string& actor,
                                   const std::string& reason = {});
  // Archives a game: it leaves the open game lists and stays readable, and takes no orders,
  // sign-ups or turn runs (the store refuses them; the scheduler passes it by) until it is
  // unarchived. Audited "archive" on the game and on the host. FailedPrecondition when it is
  // archived already; unarchive_game likewise when it is not. Unarchiving leaves the status and
  // the deadline as they were: a deadline that passed meanwhile runs the turn at the scheduler's
  // next pass unless the game is paused or given a new deadline first.
  Status archive_game(const std::string& game, const std::string& actor,
                      const std::string& reason = {});
  Status unarchive_game(const std::string& game, const std::string& actor,
                        const std::string& reason = {});
  // True once a turn of the game has run, so delete_game refuses it: its audit log has a "run"
  // entry, or the turn before the open one has a record. (The store decides at the deletion;
  // this is what the desk shows.) NotFound for an unknown game.
  Result<bool> has_started(const std::string& game);
  // The host's audit log, newest first (AdminStore::host_audit_log).
  Result<std::vector<AuditEntry>> host_audit_log(int limit);

  Result<Schedule> schedule(const std::string& game);
  // The deadline a report of `report_turn` states: the open turn's when that report is the
  // latest (report_turn + 1 is open) and the game is not over; nullopt otherwise, and when the
  // stores cannot tell.
  std::optional<NextDeadline> deadline_after_report(const std::string& game, int report_turn);
  Result<std::vector<AuditEntry>> audit_log(const std::string& game);
  // One entry per player of the open turn, in the state's player order.
  // `open`: the game's open state when the caller has read it (null: read here).
  Result<std::vector<SubmissionStatus>> submission_status(const std::string& game,
                                                          const GameState* open = nullptr);
  // Link tokens are stored hashed, so the GM cannot read one: this issues a new link token for
  // the player (the previous link stops working), shown once. Audited ("token", by `actor`).
  // `player` is matched case-insensitively; NotFound for an unknown game or player.
  Result<std::string> issue_player_token(const std::string& game, const std::string& player,
                                         const std::string& actor);
  // The GM's reset: `what` is "secret" (a new random secret, returned once), "token" (every
  // token of the player revoked and a new link token returned once) or "both" (the secret and
  // the token, as "<secret> <token>"). Audited ("reset", {player, what}). InvalidArgument for
  // another `what`.
  Result<std::string> reset_player(const std::string& game, const std::string& player,
                                   const std::string& what, const std::string& actor);
  // A player's own change, after the caller authenticated them: `what` "secret" sets
  // `new_secret` (InvalidArgument unless acceptable_secret; returns "") and ends every sign-in
  // session of the player but the caller's `current_token` (Services::change_secret), "token"
  // revokes every token of the player and returns a new link token. Audited ("secret", actor
  // "player:<code>").
  Result<std::string> player_update(const std::string& game, const std::string& player,
                                    const std::string& what, const std::string& new_secret,
                                    const std::string& current_token = "");
  // NotFound for an unknown token (Services::token_owner).
  Result<std::pair<std::string, std::string>> token_owner(const std::string& token);
  // True when `secret` is the player's secret (Services::authenticate_player). False for a wrong
  // secret and for an unknown player or one without a secret. NotFound for an unknown game.
  Result<bool> check_secret(const std::string& game, const std::string& player,
                            const std::string& secret);

  // One scheduler pass over every game: runs due turns (deadline passed, or all orders in when
  // early_when_all_in), applies the guards (NMR spike -> hold; downtime -> extend overdue
  // deadlines), retries failures up to max_attempts then holds the game; advances interval
  // deadlines after a run. Records its own time for the downtime guard. Never throws.
  //
  // Considered: games with status "open" whose schedule is not "none" and that have a deadline
  // or early_when_all_in; one TickAction each, in game id order. For each, in order:
  //  1. Downtime guard: when the previous pass was more than downtime_grace_seconds ago, and the
  //     deadline fell after it and is now overdue by more than the grace, the deadline becomes
  //     now + grace ("extended"; audit "extend"). Never on the first pass (no previous one).
  //  2. Not yet due (deadline in the future or none, and not early with every order in):
  //     "waiting".
  //  3. NMR-spike guard: when the share of players without orders exceeds nmr_guard_ratio and
  //     is at least kNmrSpikeMargin above the usual share (the mean over up to
  //     kNmrHistoryTurns previous resolved turns; with none, the ratio alone decides), the game
  //     is held ("held"; status "held"; audit "guard") unless the GM resumed it from a hold
  //     during this turn.
  //  4. Otherwise the turn runs as run_turn does ("ran"). A failure is counted (audit "failed",
  //     "failed"); at max_attempts failures the game is held ("held"; audit "hold"). A turn is
  //     never skipped: it is retried on the next pass.
  //
  // Several processes on one database may tick at once: a due turn is run by one of them
  // (GameStore::begin_resolving is the claim; the others answer "waiting"), and a turn whose
  // bookkeeping a dead process left undone is finished by another (unfinished_run; for a game
  // without a deadline, run by hand, after kBookkeepingGraceSeconds). With
  // `recover_reports` (the daemon, which queues reports for "ran"), every committed turn of a
  // game (open, held, paused or finished) whose reports were never recorded as queued gets a
  // "reports" action, after the game's own.
  // `on_action` (may be empty) is called with each game's actions as soon as that game is done,
  // before the next game is looked at (so a host's reports go out while later games still run),
  // on the calling thread; it must not throw.
  std::vector<TickAction> tick(bool recover_reports = false,
                               const std::function<void(const TickAction&)>& on_action = {});

  // One pass of tick() shared by several threads (the daemon's --turn-threads), so that one
  // game's turn is computed while another's is written: each thread calls tick_shard with the
  // same pass and its own shard, on its own GameAdmin, and end_tick_pass is called once after
  // every shard is done. The pass fixes `now` and the previous pass's time for all of them (the
  // downtime guard of step 1 sees one pass whichever thread looks at a game); the shard looks
  // at the games at positions shard, shard + shards, ... of list_games.
  struct TickPass {
    UnixTime now = 0;
    UnixTime last_tick = 0;  // 0: unknown (no downtime guard)
    int shard = 0;
    int shards = 1;
  };
  TickPass begin_tick_pass();
  // `completed` (may be null) is set to whether the shard went through the list of games (not
  // when the list could not be read or an unexpected exception ended it).
  std::vector<TickAction> tick_shard(const TickPass& pass, bool recover_reports,
                                     const std::function<void(const TickAction&)>& on_action,
                                     bool* completed = nullptr);
  // Records the pass's time as the previous tick's; call only when every shard completed (as
  // tick() does), so that a pass cut short does not hide a downtime from the next.
  void end_tick_pass(const TickPass& pass);

  static constexpr double kNmrSpikeMargin = 0.25;
  static constexpr int kNmrHistoryTurns = 5;
  // How long after a turn's commit its missing bookkeeping is left to the process that ran it.
  static constexpr std::int64_t kBookkeepingGraceSeconds = 60;
  // Turns committed longer ago are not looked at (databases from before the "reports" entry).
  static constexpr std::int64_t kRecoverySeconds = 86400;
  // Every turn before `open_turn` (ascending) whose latest audit "run" entry in `log` is between
  // `grace` and kRecoverySeconds old at `now`, with no "reports" entry for that turn since.
  static std::vector<int> turns_missing_reports(const std::vector<AuditEntry>& log, int open_turn,
                                                UnixTime now,
                                                std::int64_t grace = kBookkeepingGraceSeconds);

  // Services::upload_engine_script, audited ("engine_script": version, sha256) when stored.
  Result<EngineScript> upload_engine_script(const std::string& game, std::string_view source,
                                            const std::string& actor);
  // Writes one entry of the game's audit log (what the GM desk shows) at the clock's now.
  Status audit(const std::string& game, const std::string& actor, const std::string& action,
               Json detail);

  // script_version_room (engine_catalog.h) of this game: asked before the costly check.
  Status script_version_room(const std::string& game);

  // The GM's desk for a player's orders (gm_orders.h) over this admin's stores.
  Result<OrdersOnFile> orders_on_file(const std::string& game, const std::string& player);
  Result<SubmitOutcome> enter_orders(const std::string& game, const std::string& player,
                                     std::string_view text, const std::string& actor,
                                     std::optional<int> expected_turn);

 private:
  // The bookkeeping after a committed run (see run_turn); the first error, the rest still done.
  Status finish_run(const std::string& game, const std::string& actor, const TurnRunOutcome& out);
  // Tells every player that `turn` was reopened (from open turn `from_turn`): that the orders
  // on file are kept, the deadline, and that a corrected report follows (Services::notify).
  Status notify_rollback(const std::string& game, int turn, int from_turn,
                         const std::string& reason);
  // Tells every player that the open turn's deadline changed from `from` to `to` (nullopt: none;
  // `how`: "set", "extended" or "schedule"). Nothing when it did not change or there are no
  // players (Services::notify).
  Status notify_deadline(const std::string& game, const std::optional<UnixTime>& from,
                         const std::optional<UnixTime>& to, const std::string& how);
  TickAction tick_game(const GameSummary& game, UnixTime now, UnixTime last_tick);
  // Runs a due turn for the scheduler, counting a failure and holding at max_attempts. Only the
  // turn `game` names: when another process resolves or resolved it, "waiting" (no failure).
  TickAction run_due(const GameSummary& game, const Schedule& s);
  // Several schedulers on one database, any of which may die at any point. For the turn before
  // the open one, committed less than kRecoverySeconds ago, whose audit "run" entry is missing
  // from `log` (the game's audit log; the process that ran it stopped before finish_run):
  // "waiting" for kBookkeepingGraceSeconds after the commit, then finish_run from the stored turn
  // record under the open turn's claim (GameStore::begin_resolving): "ran". nullopt when nothing
  // is missing. The caller calls it only when the open turn is due (its deadline is the previous
  // turn's, so the open turn must not run on it), or when the game has no deadline to run on
  // (run by hand, or finished).
  std::optional<TickAction> unfinished_run(const GameSummary& game, UnixTime now,
                                           const std::vector<AuditEntry>& log);
  // A "reports" action (with its turn) for every turn of turns_missing_reports(log): the process
  // that committed it stopped before its reports were recorded as queued.
  std::vector<TickAction> missing_reports(const GameSummary& game, UnixTime now,
                                          const std::vector<AuditEntry>& log);
  // True when nothing of a game's runs can still need recovering: no turn misses its reports
  // (grace 0), and the last committed turn (committed at `ran_at`; 0: none) has its "run" entry
  // and a "reports" entry after it, or is older than kRecoverySeconds.
  bool settled(const GameSummary& game, UnixTime now, const std::vector<AuditEntry>& log,
               UnixTime ran_at);
  // Mean share of players without orders over the previous resolved turns; nullopt when none.
  std::optional<double> usual_nmr_share(const std::string& game, int turn, std::size_t players);
  // True when the GM resumed the game from "held" during `turn`.
  bool guard_waived(const std::string& game, int turn);

  Services& svc_;
  Stores s_;
  AdminStore& admin_;
  Clock now_;
  // Games not open (finished, held, paused) found settled() by tick(true): game id -> its open
  // turn and its last turn's ran_at then. Not looked at again until either changes (a run, or a
  // rollback and rerun); erased when the game is seen open. At most one entry per game. Only
  // tick() touches it; guarded for the GameAdmin shared by the web's threads.
  std::mutex quiet_mu_;
  std::map<std::string, std::pair<int, UnixTime>> quiet_;
};

}  // namespace adj
