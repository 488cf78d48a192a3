// Narrow storage interfaces, one per consumer. Implementations: storage/sqlite/sqlite_store.h.
// Thread-safety: an implementation object is used from one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rules/core/status.h"
#include "storage/records.h"
#include "storage/state_view.h"
#include "storage/turn_writer.h"

namespace adj {

// Games and their per-turn states.
class GameStore {
 public:
  virtual ~GameStore() = default;
  // Stores a new game: its scenario as given and the starting state of turn 1 (`initial.turn`).
  // AlreadyExists when the id is taken; nothing is written then.
  virtual Status create_game(const GameState& initial, const Json& scenario, UnixTime now) = 0;
  // Replaces the starting state and scenario of a game no turn has run of (a generated world
  // made again for the players who signed up, membership.h), keeping its id, status, creation
  // time, sign-ups and options. `initial.game_id` names the game and `initial.turn` must be its
  // open turn. NotFound for an unknown game; FailedPrecondition once a turn has run.
  virtual Status replace_opening(const GameState& initial, const Json& scenario) = 0;
  virtual Result<std::vector<GameSummary>> list_games() = 0;
  // Game ids are unique regardless of case: the stored id that `game` names in any case.
  // NotFound when there is none.
  virtual Result<std::string> stored_game_id(const std::string& game) = 0;
  virtual Result<GameSummary> game_summary(const std::string& game) = 0;
  virtual Result<Json> scenario(const std::string& game) = 0;
  // The starting state of `turn`, or of the open turn when nullopt.
  virtual Result<GameState> load_state(const std::string& game, std::optional<int> turn) = 0;
  // Part of the starting state of `turn` (the open turn when nullopt): what checking one order
  // file reads, as cut_state(load_state(game, turn), players, areas) (storage/state_view.h) returns
  // it, contacts applied. With both lists empty, the state's head alone (no players, areas or
  // borders). Errors as load_state. The default loads the whole state and cuts it; a backend may
  // read only the parts (SqliteStore does), returning exactly the same value.
  virtual Result<GameState> load_view(const std::string& game, std::optional<int> turn,
                                      const std::vector<std::string>& players,
                                      const std::vector<std::string>& areas) {
    Result<GameState> st = load_state(game, turn);
    if (!st.ok()) return st.status();
    return cut_state(std::move(st).value(), players, areas);
  }
  // Every area's code and name in the starting state of `turn` (open turn when nullopt), sorted
  // by code (storage/state_view.h area_names_of): for suggestions when a file names an unknown
  // area. Errors as load_state. The default loads the whole state.
  virtual Result<std::vector<Area>> area_names(const std::string& game, std::optional<int> turn) {
    Result<GameState> st = load_state(game, turn);
    if (!st.ok()) return st.status();
    return area_names_of(*st);
  }
  // Marks the open turn `turn` as being resolved from `now` on: until its commit or
  // end_resolving (or a lease runs out, for a run that died), put_submission refuses files for
  // it. FailedPrecondition unless `turn` is the open turn, and when the game is archived
  // (archived_refusal, storage/admin_store.h). Call before reading the turn's orders.
  // It is the claim among processes sharing the database: Unavailable (nothing written) while
  // another run's mark for `turn` is younger than the backend's lease (SQLite and PostgreSQL:
  // kResolvingLeaseSeconds, or ADJUTANT_TURN_LEASE_SECONDS), so one due turn is resolved by one
  // process; a run that died is taken over once its lease has run out. One conditional update.
  virtual Status begin_resolving(const std::string& game, int turn, UnixTime now) = 0;
  // Clears the mark of begin_resolving when it is for `turn` (a run that failed); else nothing.
  virtual Status end_resolving(const std::string& game, int turn) = 0;
  // Commits a resolved turn atomically, in parts (storage/turn_writer.h): battles and reports
  // added one by one, then finish() with the rest (TurnCommit): the next state, the turn record;
  // clears the resolving mark. FailedPrecondition (nothing written) unless `turn` is the game's
  // open turn and `submissions` (the ids the run resolved, TurnCommit::submissions) are exactly
  // its current accepted files, checked up front. A summary with "ending" (the turn ended the
  // game) also sets the status to "finished".
  virtual Result<std::unique_ptr<TurnWriter>> begin_commit(
      const std::string& game, int turn, std::vector<std::int64_t> submissions) = 0;
  // Reopens `turn`: removes what turns >= turn produced (states after it, turn records, battles,
  // reports). Submissions are kept, those of later turns too: when those turns open again their
  // files are checked again from their text by the run (a rerun with the same orders reproduces
  // the same states). FailedPrecondition unless 1 <= turn <= open turn. A "finished" game
  // rolled back to a turn before its open turn is "open" again.
  virtual Status rollback(const std::string& game, int turn) = 0;
  // The stored turn record (seed, summary) of a resolved turn.
  virtual Result<Json> turn_record(const std::string& game, int turn) = 0;
  // When a resolved turn was committed (its record's ran_at), without reading its summary (a big
  // turn's summary is tens of MB). NotFound when the turn has not been resolved.
  virtual Result<UnixTime> turn_ran_at(const std::string& game, int turn) = 0;
};

// How long a resolving mark (GameStore::begin_resolving) holds without a commit, on every backend:
// a run that died stops closing its turn, and another process may claim the turn. 600 s unless
// the environment sets ADJUTANT_TURN_LEASE_SECONDS (1..86400; read once per process). Keep it
// above the longest turn run, or a slow run is resolved a second time (one of the two commits
// wins). Defined in storage/resolving_lease.cc.
inline constexpr UnixTime kResolvingLeaseSeconds = 600;
UnixTime resolving_lease_seconds();

// Order files.
class SubmissionStore {
 public:
  virtual ~SubmissionStore() = default;
  // Appends a submission. When it is accepted it becomes the player's current file for its turn
  // and any earlier one stops being current (both are kept). Returns the new id. Checked in the
  // same transaction: FailedPrecondition (nothing stored) when record.turn is not the open turn
  // any more or the game is archived (archived_refusal), Unavailable while the turn is being
  // resolved (see begin_resolving).
  virtual Result<std::int64_t> put_submission(const SubmissionRecord& record) = 0;
  // The current accepted submission of every player for a turn, sorted by player code.
  virtual Result<std::vector<SubmissionRecord>> current_submissions(const std::string& game,
                                                                    int turn) = 0;
  // `player`'s entry of current_submissions(game, turn), or nullopt when it has none.
  virtual Result<std::optional<SubmissionRecord>> current_submission(const std::string& game,
                                                                     int turn,
                                                                     const std::string& player) = 0;
  // Every submission of a game (all turns, accepted or not), oldest first.
  virtual Result<std::vector<SubmissionRecord>> all_submissions(const std::string& game) = 0;
};

// Reports and battle logs of resolved turns.
class ReportStore {
 public:
  virtual ~ReportStore() = default;
  virtual Result<ReportRecord> report(const std::string& game, const std::string& player,
                                      int turn) = 0;
  // Resolved turn numbers that have reports, ascending.
  virtual Result<std::vector<int>> report_turns(const std::string& game) = 0;
  virtual Result<BattleRecord> battle(const std::string& game, int turn, const std::string& id) = 0;
  virtual Result<std::vector<BattleRecord>> battles(const std::string& game, int turn) = 0;
};

}  // namespace adj
