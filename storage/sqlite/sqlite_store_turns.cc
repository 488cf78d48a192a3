// SqliteStore: what a turn's commit (storage/core/sql_turn_writer.cc) and rollback's deletes do
// around their many rows: skip CHECKs and per-row revision triggers.
#include <sqlite3.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <utility>

#include "storage/sqlite/sqlite_store.h"

namespace adj {

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

// SqliteStore::begin_turn_rows: foreign keys deferred to the commit (the rows come before their
// turn record; SQLite turns it off again at the transaction's end), CHECK-free writes until the
// commit ends (every JSON text written is a dump(), records.h), and the bulk mark with triggers
// off until rows_done().
class SqliteTurnRows final : public TurnRows {
 public:
  static Result<std::unique_ptr<TurnRows>> begin(sqlite::Database& db, const std::string& game) {
    std::unique_ptr<SqliteTurnRows> r(new SqliteTurnRows(db, game));
    ADJ_RETURN_IF_ERROR(db.exec("PRAGMA defer_foreign_keys = ON"));
    ADJ_TRY(auto unchecked, UncheckedWrites::begin(db));
    r->unchecked_.emplace(std::move(unchecked));
    ADJ_RETURN_IF_ERROR(mark_bulk(db, game));
    ADJ_TRY(auto triggers_off, TriggersOff::begin(db));
    r->triggers_off_.emplace(std::move(triggers_off));
    return std::unique_ptr<TurnRows>(std::move(r));
  }
  // The rest of the commit runs its triggers (turn states, games).
  Status rows_done() override {
    triggers_off_.reset();
    return unmark_bulk(db_, game_);
  }

 private:
  SqliteTurnRows(sqlite::Database& db, std::string game) : db_(db), game_(std::move(game)) {}
  sqlite::Database& db_;
  std::string game_;
  std::optional<UncheckedWrites> unchecked_;
  std::optional<TriggersOff> triggers_off_;  // ended first
};

}  // namespace

Result<std::unique_ptr<TurnRows>> SqliteStore::begin_turn_rows(const std::string& game) {
  return SqliteTurnRows::begin(db_, game);
}

Status SqliteStore::mark_bulk_writes(const std::string& game, bool on) {
  return on ? mark_bulk(db_, game) : unmark_bulk(db_, game);
}

}  // namespace adj
