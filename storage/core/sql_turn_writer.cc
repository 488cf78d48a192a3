// SqlStore: committing a resolved turn in parts (begin_commit), written once for both dialects.
// The battles and reports go in as bulk rows as they are added (sql::BulkInsert: SQLite's
// prepared INSERT a row, PostgreSQL's COPY streamed a chunk at a time), inside whatever the
// backend does around them (begin_turn_rows: SQLite's unchecked, trigger-free writes;
// PostgreSQL's references to the turn checked at the COMMIT); the turn record, the next state,
// its index and the game's new open turn follow, then the commit.
#include <memory>
#include <optional>

#include "storage/core/codec.h"
#include "storage/core/sql_store.h"
#include "storage/turn_writer.h"

namespace adj {

namespace {

constexpr std::string_view kBattleColumns =
    "game_id, turn, battle_id, seed, engine, input_json, outcome_json";
constexpr std::string_view kReportColumns = "game_id, turn, player, text, json";

// InvalidArgument unless report `r` of a commit of `game`'s `turn` is for that turn.
Status check_report_turn(const std::string& game, int turn, const ReportRecord& r) {
  if (r.turn == turn) return Status::Ok();
  return Status::InvalidArgument("commit_turn game " + game + " turn " + std::to_string(turn) +
                                 ": the report of " + r.player + " is for turn " +
                                 std::to_string(r.turn));
}

// The consistency of a turn's commit `c` with `game` (InvalidArgument).
Status check_commit(const std::string& game, const TurnCommit& c) {
  const std::string where = "commit_turn game " + game + " turn " + std::to_string(c.turn) + ": ";
  if (c.next_state.game_id != game)
    return Status::InvalidArgument(where + "next_state is for game " + c.next_state.game_id);
  if (c.next_state.turn != c.turn + 1)
    return Status::InvalidArgument(where + "next_state is for turn " +
                                   std::to_string(c.next_state.turn) + ", expected " +
                                   std::to_string(c.turn + 1));
  for (const auto& r : c.reports) ADJ_RETURN_IF_ERROR(check_report_turn(game, c.turn, r));
  return Status::Ok();
}

}  // namespace

// SqlStore::begin_commit's writer: one WriteTx from begin() to finish(); each battle and report
// is a bulk row as it is added (on SQLite written at once, on PostgreSQL sent with the COPY's
// next chunk), so the caller frees the records one by one. One bulk insert is open at a time:
// a battle after a report (or the reverse) ends the open one and begins another.
class SqlTurnWriter final : public TurnWriter {
 public:
  static Result<std::unique_ptr<SqlTurnWriter>> begin(SqlStore& store, const std::string& game,
                                                      int turn,
                                                      std::vector<std::int64_t> submissions);

  Status add_battle(BattleRecord b) override { return remember(write_battle(b)); }
  Status add_report(ReportRecord r) override { return remember(write_report(r)); }
  Status finish(TurnCommit& rest) override { return remember(finish_commit(rest)); }

  // The same, reading the records where they are (finish_commit: those `rest` still holds).
  Status write_battle(const BattleRecord& b);
  Status write_report(const ReportRecord& r);
  Status finish_commit(const TurnCommit& rest);

 private:
  SqlTurnWriter(SqlStore& store, std::string game, int turn)
      : store_(store), s_(store.session()), game_(std::move(game)), turn_(turn) {}
  Status remember(Status s) {
    if (!s.ok() && first_error_.ok()) first_error_ = s;
    return s;
  }
  Status usable() const {
    if (!first_error_.ok()) return first_error_;
    if (done_)
      return Status::FailedPrecondition("commit_turn game " + game_ + ": already finished");
    return Status::Ok();
  }
  Status failed(const Status& s) const {
    return Status(s.code(), "commit_turn game " + game_ + " turn " + std::to_string(turn_) + ": " +
                                s.message());
  }
  enum class Table { kNone, kBattles, kReports };
  // The bulk insert of `t`'s rows, streaming; the open one of the other table is finished first.
  Result<sql::BulkInsert*> rows_of(Table t);
  // Finishes the open bulk insert, if any.
  Status end_rows();
  // The turn record and its attendance.
  Status write_turn_record(const TurnCommit& rest, std::string_view summary);
  // The next state and its index, and the game's open turn.
  Status write_open_turn(const TurnCommit& rest, std::string_view state);

  SqlStore& store_;
  sql::Session& s_;
  std::string game_;
  int turn_;
  // Declared in the order they begin: the transaction ends before the backend's scope, the
  // bulk inserts before the transaction.
  std::unique_ptr<TurnRows> rows_scope_;
  std::optional<sql::WriteTx> tx_;
  std::unique_ptr<sql::BulkInsert> rows_;  // of rows_table_
  Table rows_table_ = Table::kNone;
  Status first_error_;
  bool done_ = false;
};

Result<std::unique_ptr<SqlTurnWriter>> SqlTurnWriter::begin(SqlStore& store,
                                                            const std::string& game, int turn,
                                                            std::vector<std::int64_t> submissions) {
  std::unique_ptr<SqlTurnWriter> w(new SqlTurnWriter(store, game, turn));
  ADJ_TRY(auto tx, sql::WriteTx::begin(w->s_));
  w->tx_.emplace(std::move(tx));
  ADJ_RETURN_IF_ERROR(store.check_commit_start(game, turn, std::move(submissions)));
  auto scope = store.begin_turn_rows(game);
  if (!scope.ok()) return w->failed(scope.status());
  w->rows_scope_ = std::move(scope).value();
  return w;
}

Result<sql::BulkInsert*> SqlTurnWriter::rows_of(Table t) {
  if (rows_table_ == t) return rows_.get();
  ADJ_RETURN_IF_ERROR(end_rows());
  // Made after the backend's scope began (on SQLite it changes how statements compile).
  ADJ_TRY(rows_, t == Table::kBattles ? s_.bulk_insert("battles", kBattleColumns)
                                      : s_.bulk_insert("reports", kReportColumns));
  rows_table_ = t;
  ADJ_RETURN_IF_ERROR(rows_->stream());
  return rows_.get();
}

Status SqlTurnWriter::end_rows() {
  if (rows_table_ == Table::kNone) return Status::Ok();
  rows_table_ = Table::kNone;
  Status s = rows_->finish();
  rows_.reset();
  return s;
}

Status SqlTurnWriter::write_battle(const BattleRecord& b) {
  ADJ_RETURN_IF_ERROR(usable());
  std::string input;  // the dump when not given as text
  if (b.input_text.empty()) {
    ADJ_TRY(input, json_to_text(b.input, "battle " + b.id + " input"));
  }
  std::string outcome;
  if (b.outcome_text.empty()) {
    ADJ_TRY(outcome, json_to_text(b.outcome, "battle " + b.id + " outcome"));
  }
  Result<sql::BulkInsert*> rows = rows_of(Table::kBattles);
  if (!rows.ok()) return failed(rows.status());
  Status s = (*rows)->add({sql::Param::ref(game_), turn_, sql::Param::ref(b.id),
                           std::to_string(b.seed), sql::Param::ref(b.engine),
                           sql::Param::ref(b.input_text.empty() ? input : b.input_text),
                           sql::Param::ref(b.outcome_text.empty() ? outcome : b.outcome_text)});
  return s.ok() ? s : failed(s);
}

Status SqlTurnWriter::write_report(const ReportRecord& r) {
  ADJ_RETURN_IF_ERROR(usable());
  ADJ_RETURN_IF_ERROR(check_report_turn(game_, turn_, r));
  std::string json;
  if (r.json_text.empty()) {
    ADJ_TRY(json, json_to_text(r.json, "report of " + r.player));
  }
  Result<sql::BulkInsert*> rows = rows_of(Table::kReports);
  if (!rows.ok()) return failed(rows.status());
  Status s = (*rows)->add({sql::Param::ref(game_), turn_, sql::Param::ref(r.player),
                           sql::Param::ref(r.text),
                           sql::Param::ref(r.json_text.empty() ? json : r.json_text)});
  return s.ok() ? s : failed(s);
}

Status SqlTurnWriter::finish_commit(const TurnCommit& rest) {
  ADJ_RETURN_IF_ERROR(usable());
  if (rest.turn != turn_)
    return Status::InvalidArgument("commit_turn game " + game_ + ": the writer is for turn " +
                                   std::to_string(turn_) + ", not " + std::to_string(rest.turn));
  ADJ_RETURN_IF_ERROR(check_commit(game_, rest));
  const std::string where = "game " + game_ + " turn " + std::to_string(turn_);
  std::string summary_dump;  // when rest.summary_text is not given
  if (rest.summary_text.empty()) {
    ADJ_TRY(summary_dump, json_to_text(rest.summary, "summary of " + where));
  }
  std::string state_dump;  // when rest.next_state_text is not given
  if (rest.next_state_text.empty()) {
    ADJ_TRY(state_dump, json_to_text(to_json(rest.next_state), "next state of " + where));
  }
  // The rows the caller still holds, battles before reports, then the turn record they refer to
  // (both backends check those references at the COMMIT: begin_turn_rows).
  for (const auto& b : rest.battles) ADJ_RETURN_IF_ERROR(write_battle(b));
  for (const auto& r : rest.reports) ADJ_RETURN_IF_ERROR(write_report(r));
  done_ = true;  // whatever follows: a writer finishes once
  Status s = end_rows();
  if (s.ok())
    s = write_turn_record(rest, rest.summary_text.empty() ? summary_dump : rest.summary_text);
  if (s.ok()) s = rows_scope_->rows_done();
  if (s.ok())
    s = write_open_turn(rest, rest.next_state_text.empty() ? state_dump : rest.next_state_text);
  if (s.ok()) s = tx_->commit();
  if (!s.ok()) return failed(s);
  rows_scope_.reset();
  return Status::Ok();
}

Status SqlTurnWriter::write_turn_record(const TurnCommit& rest, std::string_view summary) {
  ADJ_RETURN_IF_ERROR(
      s_.write("INSERT INTO turns(game_id, turn, seed, summary_json, ran_at) "
               "VALUES (?, ?, ?, ?, ?)",
               {game_, turn_, std::to_string(rest.seed), sql::Param::ref(summary),
                std::int64_t{rest.ran_at}}));
  if (const std::optional<std::string> listed = without_orders_text(rest))
    ADJ_RETURN_IF_ERROR(
        s_.write("INSERT INTO turn_attendance(game_id, turn, ran_at, "
                 "without_orders) VALUES (?, ?, ?, ?)",
                 {game_, turn_, std::int64_t{rest.ran_at}, *listed}));
  return Status::Ok();
}

Status SqlTurnWriter::write_open_turn(const TurnCommit& rest, std::string_view state) {
  ADJ_RETURN_IF_ERROR(
      s_.write("INSERT INTO turn_states(game_id, turn, state_json) VALUES (?, ?, ?)",
               {game_, turn_ + 1, sql::Param::ref(state)}));
  ADJ_RETURN_IF_ERROR(store_.index_open_state(game_, rest.next_state, state));
  // A summary with "ending" (the turn ended the game, server/app/ending.h) finishes the game.
  return s_.write(
      "UPDATE games SET open_turn = ?1, resolving_turn = NULL, resolving_since = NULL, "
      "status = CASE WHEN ?3 = 1 THEN 'finished' ELSE status END WHERE id = ?2",
      {turn_ + 1, game_, sql::flag(rest.summary.contains("ending"))});
}

Result<std::unique_ptr<TurnWriter>> SqlStore::begin_commit(const std::string& game, int turn,
                                                           std::vector<std::int64_t> submissions) {
  ADJ_TRY(auto w, SqlTurnWriter::begin(*this, game, turn, std::move(submissions)));
  return std::unique_ptr<TurnWriter>(std::move(w));
}

}  // namespace adj
