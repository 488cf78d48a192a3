// A thin RAII layer over the SQLite C API: a connection, prepared statements and transactions,
// and the connection as the sql::Session of the shared store (storage/core/sql_session.h). Errors
// are values: every failure carries SQLite's message, its extended result code and the SQL that
// failed. Nothing here throws.
//
// Thread-safety: a Database and everything made from it are used by one thread at a time (one
// connection per thread). Lifetime: Statements refer to their Database, which must outlive them.
//
// Statement cache: prepare() hands out a compiled statement kept from an earlier prepare() of the
// same SQL text when one is idle, and a Statement going out of scope is reset, its bindings
// cleared, and kept for the next prepare() (up to kMaxIdleStatements; then finalized). Callers
// see no difference except speed: compiling is most of the cost of a small statement.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "rules/core/status.h"
#include "storage/core/sql_session.h"

struct sqlite3;
struct sqlite3_stmt;

namespace adj::sqlite {

class Statement;
struct StatementCache;  // database.cc
class Checkpointer;     // checkpointer.h

// Maps an SQLite result code to a Status:
//   UNIQUE / PRIMARY KEY constraint -> AlreadyExists;  FOREIGN KEY -> FailedPrecondition;
//   other constraints -> InvalidArgument;  CORRUPT / NOTADB -> Corruption;
//   ERROR / MISUSE / RANGE (bad SQL, bad bind index) -> Internal;  anything else -> IOError.
// `context` (usually the SQL) is appended to the message.
Status sqlite_status(sqlite3* db, int rc, std::string_view context);

// The `synchronous` setting of connections opened from now on (process-wide; default NORMAL;
// thread-safe): FULL when `full`. With WAL, NORMAL keeps every committed transaction across a
// crash or SIGKILL of the process; FULL also across power loss or an OS crash, at the cost of an
// fsync per commit.
void set_default_synchronous(bool full);

// Creates `path` (mode 0600) when missing, and takes group and other permissions off it and its
// -wal, -shm and -journal files. Paths SQLite treats specially (":memory:", "file:" URIs, "")
// are left alone. IOError when a file cannot be created or chmod-ed.
Status make_private_file(const std::string& path);

// Makes `db` wait up to `timeout_ms` for a lock another connection holds (then SQLITE_BUSY, as
// sqlite3_busy_timeout), trying again after each sleep of busy_sleep_us(0), (1), ... SQLite's
// own handler sleeps 1, 2, 5, 10, 15, 20, 25, ... 100 ms, so a writer waiting behind another one
// that holds the lock for a few milliseconds took it up to 10-20 ms after its release; with
// these sleeps, within a millisecond. Replaces any busy handler or timeout set before.
void set_busy_wait(sqlite3* db, int timeout_ms);
// The sleep before try `count` + 1 (count >= 0): 50 us doubling to 800 us, then 1 ms each.
std::int64_t busy_sleep_us(int count);

// An open connection. Move-only; closes on destruction.
class Database final : public sql::Session {
 public:
  // Opens (creating if missing) the database file at `path` and sets, in this order,
  // set_busy_wait(kBusyTimeoutMs) (before any statement, so concurrent openers wait rather than
  // fail with "database is locked"), journal_mode=WAL (":memory:" stays "memory"),
  // foreign_keys=ON and synchronous as set_default_synchronous says (NORMAL unless changed).
  // While set_background_checkpoints is on, a file's connection leaves its checkpoints to the
  // file's Checkpointer (checkpointer.h).
  // The file is created with mode 0600 (the -wal and -shm files follow it); an existing file,
  // -wal, -shm or -journal readable by group or others is chmod-ed to owner-only first.
  // IOError when the file cannot be opened; Corruption when it is not a database.
  static Result<Database> open(const std::string& path);
  static constexpr int kBusyTimeoutMs = 5000;

  Database(Database&& other) noexcept;
  Database& operator=(Database&& other) noexcept;
  ~Database();

  // Runs one or more ';'-separated statements, discarding any rows.
  Status exec(std::string_view sql) override;
  // Compiles exactly one statement. Internal when `sql` holds more than one.
  Result<Statement> prepare(std::string_view sql);

  // True while a transaction is open on this connection.
  bool in_transaction() const override;

  // ---- sql::Session (sqlite_session.cc): statements from the cache, rows read into memory, the
  // write transaction as BEGIN IMMEDIATE (compiled once, from the cache).
  using sql::Session::query;
  using sql::Session::run;
  sql::Dialect dialect() const override { return sql::Dialect::kSqlite; }
  Result<sql::Rows> query(std::string_view sql, std::span<const sql::Param> params) override;
  Result<std::int64_t> run(std::string_view sql, std::span<const sql::Param> params) override;
  Result<std::unique_ptr<sql::BulkInsert>> bulk_insert(std::string_view table,
                                                       std::string_view columns) override;
  Result<std::unique_ptr<sql::Cursor>> open_cursor(std::string_view select) override;
  Status begin_read() override { return exec("BEGIN"); }
  void end_read() override {
    if (in_transaction()) (void)exec("ROLLBACK");  // read only: nothing to keep
  }
  Status begin_write() override;
  Status commit() override;
  Status rollback() override;
  bool retryable(const Status&) const override { return false; }
  sql::Param outside_text(std::string_view s) const override { return sql::Param(s); }
  Status overwrite_freed(bool on) override {
    return exec(on ? "PRAGMA secure_delete=ON" : "PRAGMA secure_delete=OFF");
  }

  // The raw handle, still owned by this object.
  sqlite3* handle() const { return db_.get(); }

  // At most this many idle compiled statements are kept.
  static constexpr std::size_t kMaxIdleStatements = 128;

 private:
  struct Close {
    void operator()(sqlite3* db) const;
  };
  explicit Database(sqlite3* db);
  // This file's background checkpoints (checkpointer.h) when they were on at open; released
  // after the connection (declared before it) closes.
  std::shared_ptr<Checkpointer> checkpointer_;
  std::unique_ptr<sqlite3, Close> db_;
  // Stable across moves (Statements point at it); destroyed first, finalizing the idle statements.
  std::unique_ptr<StatementCache> cache_;
  bool writing_ = false;  // between begin_write() and its commit() or rollback()
};

// A prepared statement. Move-only; finalized on destruction.
//
// Binding is 1-based and chainable: `st.bind(1, id).bind(2, turn);`. A bind failure (bad index,
// out of memory) is kept and returned by the next step() or run(), so call sites check one
// Status.
class Statement {
 public:
  // NULL, an integer, a real, a text or bytes (a BLOB), as `value` is. Texts and bytes are
  // copied, unless `in_place`: SQLite then reads them where they are (REQUIRES: they stay alive
  // and unchanged until reset() or the Statement's end; for big texts written once).
  Statement& bind(int index, const sql::Param& value, bool in_place = false);

  // Advances: true when a row is available, false when the statement is done.
  Result<bool> step();
  // Steps to completion, discarding rows (INSERT, UPDATE, DELETE, DDL).
  Status run();
  // Makes the statement ready to run again: resets it, clears bindings and any kept bind error.
  void reset();

  int column_count() const;
  // The value in column `index` (0-based) of the current row, as SQLite stores it: NULL, an
  // integer, a real, a text or bytes (a BLOB), owning its bytes.
  sql::Param column(int index) const;

 private:
  friend class Database;
  // Puts a statement back in `cache` (reset) while it has room, else finalizes it.
  struct Release {
    StatementCache* cache = nullptr;
    std::string sql;  // the cache key, and for error messages
    void operator()(sqlite3_stmt* stmt);
  };
  Statement(sqlite3_stmt* stmt, std::string sql, StatementCache* cache)
      : stmt_(stmt, Release{cache, std::move(sql)}) {}
  void keep_bind_error(int rc);
  sqlite3_stmt* stmt() const { return stmt_.get(); }
  const std::string& sql() const { return stmt_.get_deleter().sql; }

  std::unique_ptr<sqlite3_stmt, Release> stmt_;
  Status bind_error_;
};

}  // namespace adj::sqlite
