// SqliteStore: what a turn's commit (storage/core/sql_turn_writer.cc) and rollback's deletes do
// around their many rows: skip CHECKs and per-row revision triggers.
#include <sqlite3.h>

#include <cstdio>
#include <cstdlib>
#include <memory>

#include "storage/sqlite/sqlite_store.h"

namespace adj {

namespace {

// While alive, a setting of one connection is changed (set_scoped: set(db, true)); its end changes
// it back (set(db, false)). A connection left so would go on without a check, silently, so when
// that fails the process stops instead (fail closed), with set's message. Not thread-safe: one
// connection, used by one thread at a time (as SqliteStore's).
using Set = Status (*)(sqlite::Database& db, bool on);
struct SetBack {
  Set set;
  void operator()(sqlite::Database* db) const {
    if (Status off = set(*db, false); !off.ok()) {
      std::fprintf(stderr, "adjutant: %s\n", off.message().c_str());
      std::abort();
    }
  }
};
using ScopedSetting = std::unique_ptr<sqlite::Database, SetBack>;
Result<ScopedSetting> set_scoped(sqlite::Database& db, Set set) {
  ADJ_RETURN_IF_ERROR(set(db, true));
  return ScopedSetting(&db, SetBack{set});
}

// On: statements the connection compiles skip their CHECK constraints (PRAGMA
// ignore_check_constraints; changing it expires every compiled statement of the connection, so
// none compiled under it is used after it, cached or not). For rows whose JSON text is a dump()
// made in this process (records.h: the *_text preconditions), where the per-row json_valid would
// only parse again what nlohmann wrote: the columns' NOT NULL, STRICT types, keys and foreign keys
// still apply, and every other connection and statement still checks (a row written by hand).
// The pragma only sets a flag: switching it off fails only when SQLite cannot even compile it
// (out of memory).
Status unchecked_writes(sqlite::Database& db, bool on) {
  if (on) return db.exec("PRAGMA ignore_check_constraints = ON");
  Status off = db.exec("PRAGMA ignore_check_constraints = OFF");
  if (off.ok()) return off;
  return Status::IOError("cannot switch SQLite CHECK constraints back on (" + off.to_string() +
                         ")");
}

// On: the connection runs no triggers (SQLITE_DBCONFIG_ENABLE_TRIGGER; changing it expires every
// compiled statement of the connection, so none compiled while it is off is used after it). For
// the bulk writes of a turn's battles and reports inside mark_bulk: the only triggers on their
// inserts are the revision bumps of 0013/0016, which the bulk mark skips anyway (unmark_bulk
// bumps once). Compiled with a trigger, every such INSERT must also keep a statement journal (a
// trigger makes it a multi-table write that may abort halfway), and that journal copies each
// B-tree page the row touches, spilled to a temporary file: at 10,000 players ~2 pages of 16 KB
// per row, 3.3 GB in 300,000 writes (6 MB without), for nothing. Foreign keys, NOT NULL and the
// table's keys still apply.
Status triggers_off(sqlite::Database& db, bool on) {
  int now = on ? 1 : 0;
  const int rc = sqlite3_db_config(db.handle(), SQLITE_DBCONFIG_ENABLE_TRIGGER, on ? 0 : 1, &now);
  if (rc == SQLITE_OK && now == (on ? 0 : 1)) return Status::Ok();
  return Status::IOError(on ? "sqlite: cannot turn triggers off for a turn's bulk writes"
                            : "cannot turn SQLite triggers back on");
}

// The bulk mark of 0016_bulk_revisions.sql: between mark_bulk and unmark_bulk (REQUIRES: one
// transaction) the per-row revision triggers of `game`'s battles and reports are skipped;
// unmark_bulk bumps the game's revision once for all of them.
Status mark_bulk(sql::Session& s, const std::string& game) {
  return s.write("INSERT OR IGNORE INTO revision_bulk(scope) VALUES (?)", {game});
}

Status unmark_bulk(sql::Session& s, const std::string& game) {
  ADJ_RETURN_IF_ERROR(s.write("DELETE FROM revision_bulk WHERE scope = ?", {game}));
  return s.write(
      "INSERT INTO revisions(scope, rev) VALUES (?, 1) "
      "ON CONFLICT (scope) DO UPDATE SET rev = rev + 1",
      {game});
}

// SqliteStore::begin_turn_rows: foreign keys deferred to the commit (the rows come before their
// turn record; SQLite turns it off again at the transaction's end), CHECK-free writes until the
// commit ends (every JSON text written is a dump(), records.h), and the bulk mark with triggers
// off until rows_done().
class SqliteTurnRows final : public TurnRows {
 public:
  static Result<std::unique_ptr<TurnRows>> begin(sqlite::Database& db, const std::string& game) {
    std::unique_ptr<SqliteTurnRows> r(new SqliteTurnRows(db, game));
    ADJ_RETURN_IF_ERROR(db.exec("PRAGMA defer_foreign_keys = ON"));
    ADJ_TRY(r->unchecked_, set_scoped(db, unchecked_writes));
    ADJ_RETURN_IF_ERROR(mark_bulk(db, game));
    ADJ_TRY(r->triggers_off_, set_scoped(db, triggers_off));
    return std::unique_ptr<TurnRows>(std::move(r));
  }
  // The rest of the commit runs its triggers (turn states, games).
  Status rows_done() override {
    triggers_off_.reset();
    return unmark_bulk(s_, game_);
  }

 private:
  SqliteTurnRows(sql::Session& s, std::string game) : s_(s), game_(std::move(game)) {}
  sql::Session& s_;
  std::string game_;
  ScopedSetting unchecked_;     // unchecked_writes
  ScopedSetting triggers_off_;  // triggers_off; ended first
};

}  // namespace

Result<std::unique_ptr<TurnRows>> SqliteStore::begin_turn_rows(const std::string& game) {
  return SqliteTurnRows::begin(db_, game);
}

Status SqliteStore::mark_bulk_writes(const std::string& game, bool on) {
  return on ? mark_bulk(db_, game) : unmark_bulk(db_, game);
}

}  // namespace adj
