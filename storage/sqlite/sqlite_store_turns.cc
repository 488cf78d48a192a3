// SqliteStore: committing, rolling back and reading resolved turns.
#include <algorithm>
#include <cstdlib>
#include <utility>

#include "storage/record_checks.h"
#include "storage/sqlite/codec.h"
#include "storage/sqlite/sqlite_store.h"
#include "storage/sqlite/try.h"

namespace adj {

using store_checks::check_commit;

using sqlite::Transaction;

namespace {

// The JSON columns of a commit, serialised up front so a bad document fails before any write.
struct CommitText {
  std::string summary;
  std::string next_state;
  std::vector<std::pair<std::string, std::string>> battles;  // input, outcome
  std::vector<std::string> reports;
};

Result<CommitText> commit_text(const std::string& game, const TurnCommit& c) {
  const std::string where = "game " + game + " turn " + std::to_string(c.turn);
  CommitText t;
  ADJ_SQL_TRY(t.summary, sqlite::json_to_text(c.summary, "summary of " + where));
  if (c.next_state_text.empty()) {
    ADJ_SQL_TRY(t.next_state,
                sqlite::json_to_text(to_json(c.next_state), "next state of " + where));
  }
  for (const auto& b : c.battles) {
    std::string input;  // empty when written from b.input_text (commit_turn)
    if (b.input_text.empty()) {
      ADJ_SQL_TRY(input, sqlite::json_to_text(b.input, "battle " + b.id + " input"));
    }
    std::string outcome;  // empty when written from b.outcome_text (commit_turn)
    if (b.outcome_text.empty()) {
      ADJ_SQL_TRY(outcome, sqlite::json_to_text(b.outcome, "battle " + b.id + " outcome"));
    }
    t.battles.emplace_back(std::move(input), std::move(outcome));
  }
  for (const auto& r : c.reports) {
    if (!r.json_text.empty()) {
      t.reports.emplace_back();  // written from r.json_text (commit_turn)
      continue;
    }
    ADJ_SQL_TRY(std::string json, sqlite::json_to_text(r.json, "report of " + r.player));
    t.reports.push_back(std::move(json));
  }
  return t;
}

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
    // Cannot fail short of a closed connection: the pragma only sets a flag.
    if (db_) (void)db_->exec("PRAGMA ignore_check_constraints = OFF");
  }

 private:
  explicit UncheckedWrites(sqlite::Database& db) : db_(&db) {}
  sqlite::Database* db_;
};

// The bulk mark of 0016_bulk_revisions.sql: between mark_bulk and unmark_bulk (REQUIRES: one
// transaction) the per-row revision triggers of `game`'s battles and reports are skipped;
// unmark_bulk bumps the game's revision once for all of them.
Status mark_bulk(sqlite::Database& db, const std::string& game) {
  ADJ_SQL_TRY(auto st, db.prepare("INSERT OR IGNORE INTO revision_bulk(scope) VALUES (?)"));
  st.bind_text(1, game);
  return st.run();
}

Status unmark_bulk(sqlite::Database& db, const std::string& game) {
  ADJ_SQL_TRY(auto del, db.prepare("DELETE FROM revision_bulk WHERE scope = ?"));
  del.bind_text(1, game);
  ADJ_RETURN_IF_ERROR(del.run());
  ADJ_SQL_TRY(auto bump, db.prepare("INSERT INTO revisions(scope, rev) VALUES (?, 1) "
                                    "ON CONFLICT (scope) DO UPDATE SET rev = rev + 1"));
  bump.bind_text(1, game);
  return bump.run();
}

}  // namespace

Status SqliteStore::commit_turn(const std::string& game, const TurnCommit& commit) {
  ADJ_RETURN_IF_ERROR(check_commit(game, commit));
  ADJ_SQL_TRY(const CommitText text, commit_text(game, commit));

  ADJ_SQL_TRY(auto tx, Transaction::begin(db_));
  ADJ_SQL_TRY(const int current, open_turn(game));
  if (commit.turn != current)
    return Status::FailedPrecondition("commit_turn game " + game + ": turn " +
                                      std::to_string(commit.turn) + " is not the open turn (" +
                                      std::to_string(current) + ")");
  const auto failed = [&](const Status& s) {
    return Status(s.code(), "commit_turn game " + game + " turn " + std::to_string(commit.turn) +
                                ": " + s.message());
  };
  {
    // The files resolved must be exactly the turn's current accepted files: one accepted after
    // the run read them would otherwise be acknowledged and never used.
    ADJ_SQL_TRY(auto cur, db_.prepare("SELECT id FROM submissions WHERE game_id = ? AND turn = ? "
                                      "AND accepted = 1 AND current = 1 ORDER BY id"));
    cur.bind_text(1, game).bind_int(2, commit.turn);
    std::vector<std::int64_t> now_current;
    for (;;) {
      ADJ_SQL_TRY(bool row, cur.step());
      if (!row) break;
      now_current.push_back(cur.column_int64(0));
    }
    std::vector<std::int64_t> used = commit.submissions;
    std::sort(used.begin(), used.end());
    if (used != now_current)
      return Status::FailedPrecondition(
          "commit_turn game " + game + " turn " + std::to_string(commit.turn) +
          ": the turn's order files changed while it was being resolved; nothing was written");
  }

  // Every JSON text below is a dump() (commit_text, or the caller's per records.h).
  ADJ_SQL_TRY(auto unchecked, UncheckedWrites::begin(db_));
  if (auto s = mark_bulk(db_, game); !s.ok()) return failed(s);

  ADJ_SQL_TRY(auto turn, db_.prepare("INSERT INTO turns(game_id, turn, seed, summary_json, ran_at) "
                                     "VALUES (?, ?, ?, ?, ?)"));
  turn.bind_text(1, game)
      .bind_int(2, commit.turn)
      .bind_text(3, sqlite::seed_to_text(commit.seed))
      .bind_text(4, text.summary)
      .bind_int64(5, commit.ran_at);
  if (auto s = turn.run(); !s.ok()) return failed(s);

  ADJ_SQL_TRY(auto battle,
              db_.prepare("INSERT INTO battles(game_id, turn, battle_id, seed, engine, "
                          "input_json, outcome_json) VALUES (?, ?, ?, ?, ?, ?, ?)"));
  for (std::size_t i = 0; i < commit.battles.size(); ++i) {
    const BattleRecord& b = commit.battles[i];
    battle.reset();
    battle.bind_text(1, game)
        .bind_int(2, commit.turn)
        .bind_text(3, b.id)
        .bind_text(4, sqlite::seed_to_text(b.seed))
        .bind_text(5, b.engine)
        .bind_text(6, b.input_text.empty() ? text.battles[i].first : b.input_text)
        .bind_text(7, b.outcome_text.empty() ? text.battles[i].second : b.outcome_text);
    if (auto s = battle.run(); !s.ok()) return failed(s);
  }

  ADJ_SQL_TRY(auto report, db_.prepare("INSERT INTO reports(game_id, turn, player, text, json) "
                                       "VALUES (?, ?, ?, ?, ?)"));
  for (std::size_t i = 0; i < commit.reports.size(); ++i) {
    const ReportRecord& r = commit.reports[i];
    report.reset();
    report.bind_text(1, game)
        .bind_int(2, commit.turn)
        .bind_text(3, r.player)
        .bind_text(4, r.text)
        .bind_text(5, r.json_text.empty() ? text.reports[i] : r.json_text);
    if (auto s = report.run(); !s.ok()) return failed(s);
  }

  if (auto s = unmark_bulk(db_, game); !s.ok()) return failed(s);

  ADJ_SQL_TRY(auto state,
              db_.prepare("INSERT INTO turn_states(game_id, turn, state_json) VALUES (?, ?, ?)"));
  state.bind_text(1, game)
      .bind_int(2, commit.turn + 1)
      .bind_text(3, commit.next_state_text.empty() ? text.next_state : commit.next_state_text);
  if (auto s = state.run(); !s.ok()) return failed(s);
  if (auto s = index_open_state(game, commit.next_state,
                                commit.next_state_text.empty() ? std::string_view(text.next_state)
                                                               : commit.next_state_text);
      !s.ok())
    return failed(s);

  ADJ_SQL_TRY(auto bump, db_.prepare("UPDATE games SET open_turn = ?, resolving_turn = NULL, "
                                     "resolving_since = NULL WHERE id = ?"));
  bump.bind_int(1, commit.turn + 1).bind_text(2, game);
  if (auto s = bump.run(); !s.ok()) return failed(s);
  if (commit.summary.contains("ending")) {  // the turn ended the game (server/app/ending.h)
    ADJ_SQL_TRY(auto over, db_.prepare("UPDATE games SET status = 'finished' WHERE id = ?"));
    over.bind_text(1, game);
    if (auto s = over.run(); !s.ok()) return failed(s);
  }
  return tx.commit();
}

Status SqliteStore::begin_resolving(const std::string& game, int turn, UnixTime now) {
  // One conditional update is the claim: of several processes sharing the database, only one
  // marks the turn, until it commits, gives the mark back, or its lease runs out (a run that died).
  ADJ_SQL_TRY(auto tx, Transaction::begin(db_));
  ADJ_SQL_TRY(const int current, open_turn(game));
  if (turn != current)
    return Status::FailedPrecondition("game " + game + ": turn " + std::to_string(turn) +
                                      " is not the open turn (" + std::to_string(current) + ")");
  ADJ_SQL_TRY(auto mark,
              db_.prepare("UPDATE games SET resolving_turn = ?1, resolving_since = ?2 "
                          "WHERE id = ?3 AND open_turn = ?1 AND (resolving_turn IS NULL OR "
                          "resolving_turn <> ?1 OR resolving_since + ?4 <= ?2)"));
  mark.bind_int(1, turn).bind_int64(2, now).bind_text(3, game).bind_int64(
      4, resolving_lease_seconds());
  ADJ_RETURN_IF_ERROR(mark.run());
  if (db_.changes() == 0)
    return Status::Unavailable("game " + game + ": turn " + std::to_string(turn) +
                               " is being resolved by another run right now");
  return tx.commit();
}

Status SqliteStore::end_resolving(const std::string& game, int turn) {
  ADJ_SQL_TRY(auto clear,
              db_.prepare("UPDATE games SET resolving_turn = NULL, "
                          "resolving_since = NULL WHERE id = ? AND resolving_turn = ?"));
  clear.bind_text(1, game).bind_int(2, turn);
  return clear.run();
}

Status SqliteStore::rollback(const std::string& game, int turn) {
  ADJ_SQL_TRY(auto tx, Transaction::begin(db_));
  ADJ_SQL_TRY(const int current, open_turn(game));
  const std::string where = "rollback game " + game + " to turn " + std::to_string(turn) + ": ";
  if (turn < 1 || turn > current)
    return Status::FailedPrecondition(where + "the open turn is " + std::to_string(current));
  {
    ADJ_SQL_TRY(auto has, db_.prepare("SELECT 1 FROM turn_states WHERE game_id = ? AND turn = ?"));
    has.bind_text(1, game).bind_int(2, turn);
    ADJ_SQL_TRY(bool row, has.step());
    if (!row) return Status::FailedPrecondition(where + "no state is stored for that turn");
  }
  // Children before parents, although ON DELETE CASCADE would also remove battles and reports.
  // A finished game ended with its last resolved turn: removing that turn reopens it.
  static constexpr const char* kDeletes[] = {
      ("UPDATE games SET status = 'open' WHERE id = ?1 AND status = 'finished' AND "
       "?2 < open_turn"),
      "DELETE FROM battles WHERE game_id = ?1 AND turn >= ?2",
      "DELETE FROM reports WHERE game_id = ?1 AND turn >= ?2",
      "DELETE FROM turns WHERE game_id = ?1 AND turn >= ?2",
      "DELETE FROM turn_states WHERE game_id = ?1 AND turn > ?2",
      ("UPDATE games SET open_turn = ?2, resolving_turn = NULL, resolving_since = NULL "
       "WHERE id = ?1"),
  };
  ADJ_RETURN_IF_ERROR(mark_bulk(db_, game));  // one revision bump for the battles and reports
  for (const char* sql : kDeletes) {
    ADJ_SQL_TRY(auto st, db_.prepare(sql));
    st.bind_text(1, game).bind_int(2, turn);
    ADJ_RETURN_IF_ERROR(st.run());
  }
  ADJ_RETURN_IF_ERROR(unmark_bulk(db_, game));
  ADJ_RETURN_IF_ERROR(reindex_open_state(game));
  return tx.commit();
}

Result<Json> SqliteStore::turn_record(const std::string& game, int turn) {
  ADJ_RETURN_IF_ERROR(require_game(game));
  ADJ_SQL_TRY(auto st, db_.prepare("SELECT seed, summary_json, ran_at FROM turns "
                                   "WHERE game_id = ? AND turn = ?"));
  st.bind_text(1, game).bind_int(2, turn);
  ADJ_SQL_TRY(bool row, st.step());
  const std::string where = "game " + game + " turn " + std::to_string(turn);
  if (!row) return Status::NotFound(where + " has not been resolved");
  ADJ_SQL_TRY(const std::uint64_t seed, sqlite::seed_from_text(st.column_text(0), where));
  ADJ_SQL_TRY(Json summary, sqlite::json_from_text(st.column_text(1), "summary of " + where));
  return Json{{"game", game},
              {"turn", turn},
              {"seed", sqlite::seed_to_text(seed)},
              {"summary", std::move(summary)},
              {"ran_at", st.column_int64(2)}};
}

Result<UnixTime> SqliteStore::turn_ran_at(const std::string& game, int turn) {
  ADJ_SQL_TRY(auto st, db_.prepare("SELECT ran_at FROM turns WHERE game_id = ? AND turn = ?"));
  st.bind_text(1, game).bind_int(2, turn);
  ADJ_SQL_TRY(bool row, st.step());
  if (!row)
    return Status::NotFound("game " + game + " turn " + std::to_string(turn) +
                            " has not been resolved");
  return UnixTime{st.column_int64(0)};
}

}  // namespace adj
