// The SQLite implementation of the storage interfaces (storage/game_store.h), over one database
// file whose schema is schemas/sql/*.sql.
//
// Thread-safety: one SqliteStore per thread. Several stores (threads or processes) may open the
// same file: SQLite's WAL mode lets readers run alongside the one writer, and every write is a
// BEGIN IMMEDIATE transaction that waits up to 5 s for the lock (then IOError).
//
// Details the interfaces leave open:
//   * Unknown game -> NotFound("game <id>"). Game ids, player codes and battle ids match exactly.
//   * Stored JSON or seeds that do not parse -> Corruption naming the row.
//   * JSON that cannot be serialised (invalid UTF-8 in a string) -> InvalidArgument; nothing
//     is written then.
//   * list_games is sorted by id; battles(game, turn) by battle id.
//   * turn_record returns {"game", "turn", "seed" (decimal string), "summary", "ran_at"}.
#pragma once

#include <memory>
#include <string>

#include "storage/game_store.h"
#include "storage/sqlite/database.h"

namespace adj {

class SqliteStore : public GameStore, public SubmissionStore, public ReportStore {
 public:
  // Opens `path`, creating the file if missing, and applies any pending migrations.
  // FailedPrecondition when the file was written by a newer schema than this binary knows.
  static Result<std::unique_ptr<SqliteStore>> open(const std::string& path);

  // ---- GameStore ----
  // REQUIRES of `initial`: a non-empty game_id and turn >= 1 (InvalidArgument otherwise).
  // The game starts with status "open" and open turn `initial.turn`.
  Status create_game(const GameState& initial, const Json& scenario, UnixTime now) override;
  Result<std::vector<GameSummary>> list_games() override;
  Result<GameSummary> game_summary(const std::string& game) override;
  Result<Json> scenario(const std::string& game) override;
  // NotFound when the game exists but has no stored state for `turn` (after the open turn).
  // Corruption when the stored state does not parse or names another game or turn.
  Result<GameState> load_state(const std::string& game, std::optional<int> turn) override;
  // InvalidArgument (nothing written) unless commit.next_state is for `game` and turn + 1 and
  // every report's turn is commit.turn. Any failing write (e.g. two battles with one id) rolls
  // the whole commit back and returns the error; the turn stays open.
  Status commit_turn(const std::string& game, const TurnCommit& commit) override;
  // Also FailedPrecondition when no state is stored for `turn` (before the game's first turn).
  Status rollback(const std::string& game, int turn) override;
  // NotFound when the turn has not been resolved.
  Result<Json> turn_record(const std::string& game, int turn) override;

  // ---- SubmissionStore ----
  // record.id and record.current are ignored: the store assigns the id, and an accepted record
  // becomes current. NotFound for an unknown game; InvalidArgument when turn < 1.
  Result<std::int64_t> put_submission(const SubmissionRecord& record) override;
  Result<std::vector<SubmissionRecord>> current_submissions(const std::string& game,
                                                            int turn) override;
  Result<std::vector<SubmissionRecord>> all_submissions(const std::string& game) override;

  // ---- ReportStore ----
  // NotFound when the game, or that player's report for that turn, does not exist.
  Result<ReportRecord> report(const std::string& game, const std::string& player,
                              int turn) override;
  Result<std::vector<int>> report_turns(const std::string& game) override;
  Result<BattleRecord> battle(const std::string& game, int turn, const std::string& id) override;
  Result<std::vector<BattleRecord>> battles(const std::string& game, int turn) override;

  // ---- Not part of the interfaces ----
  // Sets games.status (any non-empty word; InvalidArgument when empty). NotFound for an unknown
  // game.
  Status set_game_status(const std::string& game, const std::string& status);
  // The schema version of the open database (the last migration applied).
  Result<int> schema_version();

 private:
  explicit SqliteStore(sqlite::Database db) : db_(std::move(db)) {}

  // The game's open turn; NotFound("game <id>") when it does not exist.
  Result<int> open_turn(const std::string& game);
  Status require_game(const std::string& game);

  sqlite::Database db_;
};

}  // namespace adj
