// SqliteStore: committing, rolling back and reading resolved turns.
#include <sqlite3.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <utility>

#include "storage/core/codec.h"
#include "storage/core/record_checks.h"
#include "storage/core/turn_attendance.h"
#include "storage/sqlite/sqlite_store.h"

namespace adj {

using store_checks::check_commit;

using sqlite::Transaction;

namespace {

// While alive, statements the connection compiles skip their CHECK constraints (PRAGMA
// ignore_check_constraints; changing it expires every compiled statement of the connection, so
// none compiled under it is used after it, cached or not). For rows whose JSON text is a dump()
// made in this process (records.h: the *_text preconditions), where the per-row json_valid would
// only parse again what nlohmann wrote: the columns' NOT NULL, STRICT types, keys and foreign keys
// still apply, and every other connection and statement still checks (a row written by hand).
// Not thread-safe: one connection, used by one thread at a time (as SqliteStore's).
class UncheckedWrites {
 public:
  static Result<UncheckedWrites> begin(sqlite::Database& db) {
    ADJ_RETURN_IF_ERROR(db.exec("PRAGMA ignore_check_constraints = ON"));
    return UncheckedWrites(db);
  }
  UncheckedWrites(UncheckedWrites&& o) noexcept : db_(std::exchange(o.db_, nullptr)) {}
  UncheckedWrites& operator=(UncheckedWrites&&) = delete;
  ~UncheckedWrites() {
    if (!db_) return;
    // The pragma only sets a flag: it fails only when SQLite cannot even compile it (out of
    // memory). A connection left skipping its CHECKs would store whatever it is given from then
    // on, silently, so the process stops instead (fail closed).
    if (Status off = db_->exec("PRAGMA ignore_check_constraints = OFF"); !off.ok()) {
      std::fprintf(stderr, "adjutant: cannot switch SQLite CHECK constraints back on (%s)\n",
                   off.to_string().c_str());
      std::abort();
    }
  }

 private:
  explicit UncheckedWrites(sqlite::Database& db) : db_(&db) {}
  sqlite::Database* db_;
};

// While alive, the connection runs no triggers (SQLITE_DBCONFIG_ENABLE_TRIGGER; changing it
// expires every compiled statement of the connection, so none compiled while it is off is used
// after it). For the bulk writes of a turn's battles and reports inside mark_bulk: the only
// triggers on their inserts are the revision bumps of 0013/0016, which the bulk mark skips
// anyway (unmark_bulk bumps once). Compiled with a trigger, every such INSERT must also keep a
// statement journal (a trigger makes it a multi-table write that may abort halfway), and that
// journal copies each B-tree page the row touches, spilled to a temporary file: at 10,000
// players ~2 pages of 16 KB per row, 3.3 GB in 300,000 writes (6 MB without), for nothing.
// Foreign keys, NOT NULL and the table's keys still apply. Not thread-safe (one connection, one
// thread at a time).
class TriggersOff {
 public:
  static Result<TriggersOff> begin(sqlite::Database& db) {
    int now = 1;
    const int rc = sqlite3_db_config(db.handle(), SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, &now);
    if (rc != SQLITE_OK || now != 0)
      return Status::IOError("sqlite: cannot turn triggers off for a turn's bulk writes");
    return TriggersOff(db);
  }
  TriggersOff(TriggersOff&& o) noexcept : db_(std::exchange(o.db_, nullptr)) {}
  TriggersOff& operator=(TriggersOff&&) = delete;
  ~TriggersOff() {
    if (!db_) return;
    // A connection left without triggers would skip every revision bump from then on, silently,
    // so the process stops instead (fail closed).
    int now = 0;
    if (sqlite3_db_config(db_->handle(), SQLITE_DBCONFIG_ENABLE_TRIGGER, 1, &now) != SQLITE_OK ||
        now != 1) {
      std::fprintf(stderr, "adjutant: cannot turn SQLite triggers back on\n");
      std::abort();
    }
  }

 private:
  explicit TriggersOff(sqlite::Database& db) : db_(&db) {}
  sqlite::Database* db_;
};

// The bulk mark of 0016_bulk_revisions.sql: between mark_bulk and unmark_bulk (REQUIRES: one
// transaction) the per-row revision triggers of `game`'s battles and reports are skipped;
// unmark_bulk bumps the game's revision once for all of them.
Status mark_bulk(sqlite::Database& db, const std::string& game) {
  ADJ_TRY(auto st, db.prepare("INSERT OR IGNORE INTO revision_bulk(scope) VALUES (?)"));
  st.bind_text(1, game);
  return st.run();
}

Status unmark_bulk(sqlite::Database& db, const std::string& game) {
  ADJ_TRY(auto del, db.prepare("DELETE FROM revision_bulk WHERE scope = ?"));
  del.bind_text(1, game);
  ADJ_RETURN_IF_ERROR(del.run());
  ADJ_TRY(auto bump, db.prepare("INSERT INTO revisions(scope, rev) VALUES (?, 1) "
                                "ON CONFLICT (scope) DO UPDATE SET rev = rev + 1"));
  bump.bind_text(1, game);
  return bump.run();
}

constexpr const char* kInsertBattle =
    "INSERT INTO battles(game_id, turn, battle_id, seed, engine, input_json, outcome_json) "
    "VALUES (?, ?, ?, ?, ?, ?, ?)";
constexpr const char* kInsertReport =
    "INSERT INTO reports(game_id, turn, player, text, json) VALUES (?, ?, ?, ?, ?)";

}  // namespace

// SqliteStore::begin_commit's writer: one transaction on the store's connection from begin() to
// finish(); each battle and report is one INSERT as it is added, its texts bound in place.
// Battles and reports come before their turn record, so foreign keys are deferred to the commit
// (PRAGMA defer_foreign_keys, which SQLite turns off again at the transaction's end).
class SqliteTurnWriter final : public TurnWriter {
 public:
  static Result<std::unique_ptr<SqliteTurnWriter>> begin(SqliteStore& store,
                                                         const std::string& game, int turn,
                                                         std::vector<std::int64_t> submissions);
  // The statements before the transaction and the transaction before UncheckedWrites (members in
  // reverse order): a writer never finished is rolled back.
  ~SqliteTurnWriter() override = default;

  Status add_battle(BattleRecord b) override { return remember(write_battle(b)); }
  Status add_report(ReportRecord r) override { return remember(write_report(r)); }
  Status finish(TurnCommit& rest) override { return remember(finish_commit(rest)); }

  // The same without taking the records (commit_turn).
  Status write_battle(const BattleRecord& b);
  Status write_report(const ReportRecord& r);
  Status finish_commit(const TurnCommit& rest);

 private:
  SqliteTurnWriter(SqliteStore& store, std::string game, int turn)
      : store_(store), db_(store.db_), game_(std::move(game)), turn_(turn) {}
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

  SqliteStore& store_;
  sqlite::Database& db_;
  std::string game_;
  int turn_;
  std::optional<UncheckedWrites> unchecked_;
  std::optional<Transaction> tx_;
  std::optional<TriggersOff> triggers_off_;  // from begin() until the battles and reports are in
  std::optional<sqlite::Statement> battle_;
  std::optional<sqlite::Statement> report_;
  Status first_error_;
  bool done_ = false;
};

Result<std::unique_ptr<SqliteTurnWriter>> SqliteTurnWriter::begin(
    SqliteStore& store, const std::string& game, int turn, std::vector<std::int64_t> submissions) {
  std::unique_ptr<SqliteTurnWriter> w(new SqliteTurnWriter(store, game, turn));
  sqlite::Database& db = store.db_;
  ADJ_TRY(auto tx, Transaction::begin(db));
  w->tx_.emplace(std::move(tx));
  ADJ_RETURN_IF_ERROR(store.check_commit_start(game, turn, std::move(submissions)));
  if (auto s = db.exec("PRAGMA defer_foreign_keys = ON"); !s.ok()) return w->failed(s);
  // Every JSON text written is a dump() (the caller's per records.h, or this writer's).
  ADJ_TRY(auto unchecked, UncheckedWrites::begin(db));
  w->unchecked_.emplace(std::move(unchecked));
  if (auto s = mark_bulk(db, game); !s.ok()) return w->failed(s);
  ADJ_TRY(auto triggers_off, TriggersOff::begin(db));
  w->triggers_off_.emplace(std::move(triggers_off));
  // Compiled after UncheckedWrites and TriggersOff began (changing either expires compiled
  // statements).
  ADJ_TRY(auto battle, db.prepare(kInsertBattle));
  w->battle_.emplace(std::move(battle));
  ADJ_TRY(auto report, db.prepare(kInsertReport));
  w->report_.emplace(std::move(report));
  return w;
}

Status SqliteTurnWriter::write_battle(const BattleRecord& b) {
  ADJ_RETURN_IF_ERROR(usable());
  std::string input;  // the dump when not given as text
  if (b.input_text.empty()) {
    ADJ_TRY(input, json_to_text(b.input, "battle " + b.id + " input"));
  }
  std::string outcome;
  if (b.outcome_text.empty()) {
    ADJ_TRY(outcome, json_to_text(b.outcome, "battle " + b.id + " outcome"));
  }
  sqlite::Statement& st = *battle_;
  st.bind_text(1, game_)
      .bind_int(2, turn_)
      .bind_text(3, b.id)
      .bind_text(4, seed_to_text(b.seed))
      .bind_text(5, b.engine)
      .bind_text_in_place(6, b.input_text.empty() ? input : b.input_text)
      .bind_text_in_place(7, b.outcome_text.empty() ? outcome : b.outcome_text);
  Status s = st.run();
  st.reset();  // before the texts bound in place go
  return s.ok() ? s : failed(s);
}

Status SqliteTurnWriter::write_report(const ReportRecord& r) {
  ADJ_RETURN_IF_ERROR(usable());
  if (r.turn != turn_)
    return Status::InvalidArgument("commit_turn game " + game_ + " turn " + std::to_string(turn_) +
                                   ": the report of " + r.player + " is for turn " +
                                   std::to_string(r.turn));
  std::string json;
  if (r.json_text.empty()) {
    ADJ_TRY(json, json_to_text(r.json, "report of " + r.player));
  }
  sqlite::Statement& st = *report_;
  st.bind_text(1, game_)
      .bind_int(2, turn_)
      .bind_text(3, r.player)
      .bind_text_in_place(4, r.text)
      .bind_text_in_place(5, r.json_text.empty() ? json : r.json_text);
  Status s = st.run();
  st.reset();
  return s.ok() ? s : failed(s);
}

Status SqliteTurnWriter::finish_commit(const TurnCommit& rest) {
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
  const std::string_view summary =
      rest.summary_text.empty() ? std::string_view(summary_dump) : rest.summary_text;
  std::string next_state;  // the dump when rest.next_state_text is not given
  if (rest.next_state_text.empty()) {
    ADJ_TRY(next_state, json_to_text(to_json(rest.next_state), "next state of " + where));
  }
  const std::string_view state_text =
      rest.next_state_text.empty() ? std::string_view(next_state) : rest.next_state_text;
  for (const auto& b : rest.battles) ADJ_RETURN_IF_ERROR(write_battle(b));
  for (const auto& r : rest.reports) ADJ_RETURN_IF_ERROR(write_report(r));
  done_ = true;  // whatever follows: a writer finishes once
  battle_.reset();
  report_.reset();
  triggers_off_.reset();  // the rest of the commit runs its triggers (turns, states, games)

  ADJ_TRY(auto turn, db_.prepare("INSERT INTO turns(game_id, turn, seed, summary_json, ran_at) "
                                 "VALUES (?, ?, ?, ?, ?)"));
  turn.bind_text(1, game_)
      .bind_int(2, turn_)
      .bind_text(3, seed_to_text(rest.seed))
      .bind_text_in_place(4, summary)
      .bind_int64(5, rest.ran_at);
  if (auto s = turn.run(); !s.ok()) return failed(s);
  if (const std::optional<std::string> listed = without_orders_text(rest)) {
    ADJ_TRY(auto attendance,
            db_.prepare("INSERT INTO turn_attendance(game_id, turn, ran_at, without_orders) "
                        "VALUES (?, ?, ?, ?)"));
    attendance.bind_text(1, game_)
        .bind_int(2, turn_)
        .bind_int64(3, rest.ran_at)
        .bind_text(4, *listed);
    if (auto s = attendance.run(); !s.ok()) return failed(s);
  }
  if (auto s = unmark_bulk(db_, game_); !s.ok()) return failed(s);

  ADJ_TRY(auto state,
          db_.prepare("INSERT INTO turn_states(game_id, turn, state_json) VALUES (?, ?, ?)"));
  state.bind_text(1, game_).bind_int(2, turn_ + 1).bind_text_in_place(3, state_text);
  if (auto s = state.run(); !s.ok()) return failed(s);
  if (auto s = store_.index_open_state(game_, rest.next_state, state_text); !s.ok())
    return failed(s);

  ADJ_TRY(auto bump, db_.prepare("UPDATE games SET open_turn = ?, resolving_turn = NULL, "
                                 "resolving_since = NULL WHERE id = ?"));
  bump.bind_int(1, turn_ + 1).bind_text(2, game_);
  if (auto s = bump.run(); !s.ok()) return failed(s);
  if (rest.summary.contains("ending")) {  // the turn ended the game (server/app/ending.h)
    ADJ_TRY(auto over, db_.prepare("UPDATE games SET status = 'finished' WHERE id = ?"));
    over.bind_text(1, game_);
    if (auto s = over.run(); !s.ok()) return failed(s);
  }
  Status committed = tx_->commit();
  unchecked_.reset();
  if (!committed.ok()) return failed(committed);
  return Status::Ok();
}

Result<std::unique_ptr<TurnWriter>> SqliteStore::begin_commit(
    const std::string& game, int turn, std::vector<std::int64_t> submissions) {
  ADJ_TRY(auto w, SqliteTurnWriter::begin(*this, game, turn, std::move(submissions)));
  return std::unique_ptr<TurnWriter>(std::move(w));
}

Status SqliteStore::commit_turn(const std::string& game, const TurnCommit& commit) {
  ADJ_RETURN_IF_ERROR(check_commit(game, commit));
  ADJ_TRY(auto w, SqliteTurnWriter::begin(*this, game, commit.turn, commit.submissions));
  return w->finish_commit(commit);
}

Status SqliteStore::mark_bulk_writes(const std::string& game, bool on) {
  return on ? mark_bulk(db_, game) : unmark_bulk(db_, game);
}

}  // namespace adj
