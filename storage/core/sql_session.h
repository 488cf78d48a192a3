// The narrow layer each backend gives the shared store (storage/core/sql_store.h): one connection
// that runs a statement with `?` parameters and returns its rows, and one write transaction.
// Everything above it (checks, error texts, codecs, the SQL both dialects accept) is written once.
//
// SQL handed to a Session is written once for both dialects: `?` or `?N` placeholders (as SQLite
// numbers them; PostgreSQL's session turns them into $1, $2, ... outside quotes), standard CAST(?
// AS BIGINT) rather than `::`, RETURNING, ON CONFLICT, FILTER. Where a dialect needs its own words,
// a Session says them (lock_rows()).
//
// Thread-safety: a Session is used by one thread at a time, as the connection it wraps. Rows own
// their data and outlive the statement that made them.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "rules/core/status.h"

namespace adj::sql {

enum class Dialect { kSqlite, kPostgres };

// One parameter: NULL, an integer, a real, a text or bytes. There is no bool: flags are stored
// as 0/1 integers in both schemas (flag()).
class Param {
 public:
  enum class Kind { kNull, kInt, kReal, kText, kBytes };
  Param() = default;  // NULL
  Param(std::nullopt_t) {}
  Param(std::int64_t v) : kind_(Kind::kInt), int_(v) {}
  Param(int v) : kind_(Kind::kInt), int_(v) {}
  Param(double v) : kind_(Kind::kReal), real_(v) {}
  Param(std::string_view v) : kind_(Kind::kText), text_(v) {}
  Param(std::string v) : kind_(Kind::kText), text_(std::move(v)) {}
  Param(const char* v) : kind_(Kind::kText), text_(v) {}
  template <typename T>  // NULL when empty
  Param(const std::optional<T>& v) : Param(v ? Param(*v) : Param()) {}
  Param(bool) = delete;  // say flag(b)
  static Param bytes(std::string_view b);
  static Param bytes(std::span<const std::uint8_t> b);
  // A text read where it is, without a copy. REQUIRES: `v` outlives the call it is passed to.
  static Param ref(std::string_view v);

  Kind kind() const { return kind_; }
  std::int64_t as_int() const { return int_; }
  double as_real() const { return real_; }
  std::string_view as_text() const { return ref_ ? *ref_ : std::string_view(text_); }

 private:
  Kind kind_ = Kind::kNull;
  std::int64_t int_ = 0;
  double real_ = 0;
  std::string text_;
  std::optional<std::string_view> ref_;  // set by ref()
};

inline Param flag(bool b) { return Param(std::int64_t{b ? 1 : 0}); }

// What a backend's rows are read through (Rows below).
class RowSource {
 public:
  virtual ~RowSource() = default;
  virtual int size() const = 0;
  virtual int columns() const = 0;
  // How the value is stored: kNull, kInt, kReal, kText or kBytes.
  virtual Param::Kind kind(int row, int col) const = 0;
  virtual bool is_null(int row, int col) const = 0;
  virtual std::int64_t int64(int row, int col) const = 0;
  virtual double float64(int row, int col) const = 0;
  virtual std::string text(int row, int col) const = 0;
  virtual std::vector<std::uint8_t> bytes(int row, int col) const = 0;
};

// A column Rows::read passes over.
struct Skip {};

// The rows of one statement, owned. Getters take a 0-based row and column; NULL reads as 0 / ""
// / empty. REQUIRES: row < size(), col < columns().
class Rows {
 public:
  Rows() = default;
  explicit Rows(std::unique_ptr<RowSource> s) : s_(std::move(s)) {}

  int size() const { return s_ ? s_->size() : 0; }
  bool empty() const { return size() == 0; }
  int columns() const { return s_ ? s_->columns() : 0; }
  Param::Kind kind(int row, int col) const { return s_->kind(row, col); }
  bool is_null(int row, int col) const { return s_->is_null(row, col); }
  std::int64_t int64(int row, int col) const { return s_->int64(row, col); }
  int int32(int row, int col) const { return static_cast<int>(s_->int64(row, col)); }
  bool boolean(int row, int col) const { return s_->int64(row, col) != 0; }
  double float64(int row, int col) const { return s_->float64(row, col); }
  std::string text(int row, int col) const { return s_->text(row, col); }
  std::vector<std::uint8_t> bytes(int row, int col) const { return s_->bytes(row, col); }

  // Reads the columns of `row`, from the first, into `out...` in order, each as its type asks:
  // std::int64_t, int, bool, double, std::string, a std::optional of one (left as it is for
  // NULL), or Skip{} (the column is not read).
  template <typename... T>
  void read(int row, T&&... out) const {
    int col = 0;
    (cell(row, col++, out), ...);
  }

 private:
  void cell(int, int, Skip) const {}
  void cell(int row, int col, std::int64_t& v) const { v = int64(row, col); }
  void cell(int row, int col, int& v) const { v = int32(row, col); }
  void cell(int row, int col, bool& v) const { v = boolean(row, col); }
  void cell(int row, int col, double& v) const { v = float64(row, col); }
  void cell(int row, int col, std::string& v) const { v = text(row, col); }
  template <typename T>
  void cell(int row, int col, std::optional<T>& v) const {
    if (!is_null(row, col)) cell(row, col, v.emplace());
  }

  std::unique_ptr<RowSource> s_;
};

// Many rows into one table (Session::bulk_insert): SQLite runs one prepared INSERT a row as it is
// added; PostgreSQL keeps the rows in COPY's binary format and sends them with one COPY from
// stream() or finish() on (so each value must have its column's type: pg_copy_in.h). A failure (a
// duplicate key) may show at add() or only at finish(), and leaves the transaction to be rolled
// back. Not thread-safe; REQUIRES: the Session outlives it.
class BulkInsert {
 public:
  virtual ~BulkInsert() = default;
  // One value a column, in the columns' order; texts are read during the call only.
  virtual Status add(std::span<const Param> row) = 0;
  Status add(std::initializer_list<Param> row) {
    return add(std::span<const Param>(row.begin(), row.size()));
  }
  // From now on rows may be sent as they are added (PostgreSQL starts its COPY here, so memory
  // holds a chunk, not every row). REQUIRES: no other statement on the session until finish().
  // Nothing on SQLite, which writes each row at add().
  virtual Status stream() { return Status::Ok(); }
  // Every row is in. Once; no add() after it.
  virtual Status finish() = 0;
};

// The rows of one SELECT, fetched a batch at a time (Session::open_cursor). Not thread-safe;
// REQUIRES: the Session outlives it, inside the transaction it was opened in.
class Cursor {
 public:
  virtual ~Cursor() = default;
  // The next rows, at most `max_rows` of them; none at the end.
  virtual Result<Rows> next(int max_rows) = 0;
};

class Session {
 public:
  virtual ~Session() = default;
  virtual Dialect dialect() const = 0;

  // Runs exactly one statement with `?` parameters bound in order; its rows (none for a
  // statement without RETURNING). Errors as the backend maps them (sqlite_status, pg_status).
  virtual Result<Rows> query(std::string_view sql, std::span<const Param> params) = 0;
  Result<Rows> query(std::string_view sql, std::initializer_list<Param> params) {
    return query(sql, std::span<const Param>(params.begin(), params.size()));
  }
  // As query(), for a statement whose rows are not needed: the rows it changed.
  virtual Result<std::int64_t> run(std::string_view sql, std::span<const Param> params) = 0;
  Result<std::int64_t> run(std::string_view sql, std::initializer_list<Param> params) {
    return run(sql, std::span<const Param>(params.begin(), params.size()));
  }
  // As run(), for its Status only (a write, or a SELECT that locks rows).
  Status write(std::string_view sql, std::span<const Param> params) {
    return run(sql, params).status();
  }
  Status write(std::string_view sql, std::initializer_list<Param> params) {
    return run(sql, params).status();
  }

  // Runs one or more ';'-separated statements without parameters (a migration), discarding rows.
  virtual Status exec(std::string_view script) = 0;

  // A BulkInsert of rows into `table`'s `columns` (comma-separated); both are SQL the caller
  // wrote, never input. REQUIRES: inside a WriteTx; on PostgreSQL, no other statement on the
  // session between its finish() and the first statement that depends on the rows.
  virtual Result<std::unique_ptr<BulkInsert>> bulk_insert(std::string_view table,
                                                          std::string_view columns) = 0;
  // A Cursor over the rows of `select` (no parameters; SQL the caller wrote). REQUIRES: inside a
  // transaction (ReadTx or WriteTx), which it must not outlive; on SQLite, other statements may
  // run while it is open.
  virtual Result<std::unique_ptr<Cursor>> open_cursor(std::string_view select) = 0;

  // The write transaction (use WriteTx): SQLite's BEGIN IMMEDIATE (writers queue at the start),
  // PostgreSQL's BEGIN at READ COMMITTED (writers lock the rows they change: lock_rows()).
  // REQUIRES: no transaction open on this session for begin_write.
  virtual Status begin_write() = 0;
  virtual Status commit() = 0;
  virtual Status rollback() = 0;

  // True while any transaction is open on the connection (a WriteTx, a ReadTx, or one the
  // backend opened itself).
  virtual bool in_transaction() const = 0;
  // A read snapshot (use ReadTx): SQLite's deferred BEGIN, PostgreSQL's REPEATABLE READ, so the
  // statements until end_read() see one committed state. REQUIRES: !in_transaction().
  virtual Status begin_read() = 0;
  // Ends the read snapshot (nothing to keep: rolled back).
  virtual void end_read() = 0;

  // True for a failure worth running the whole transaction again: PostgreSQL's serialization
  // failure and deadlock (SQLSTATE 40001, 40P01). SQLite never reports these.
  virtual bool retryable(const Status& s) const = 0;

  // Appended to a SELECT of rows the transaction goes on to depend on or change, so concurrent
  // writers of those rows queue: " FOR NO KEY UPDATE" on PostgreSQL, "" on SQLite (whose write
  // transaction already holds the database's one write lock).
  std::string_view lock_rows() const {
    return dialect() == Dialect::kPostgres ? " FOR NO KEY UPDATE" : "";
  }
  // Appended to a SELECT of rows a housekeeping write may take or leave: " FOR UPDATE SKIP
  // LOCKED" on PostgreSQL (rows other transactions hold are left for a later pass, so the
  // housekeeping never waits), "" on SQLite.
  std::string_view skip_locked() const {
    return dialect() == Dialect::kPostgres ? " FOR UPDATE SKIP LOCKED" : "";
  }
  // Appended to an ORDER BY term of text, so both dialects sort by bytes: ` COLLATE "C"` on
  // PostgreSQL (whose default collation follows the locale), "" on SQLite (BINARY already).
  std::string_view bytewise() const {
    return dialect() == Dialect::kPostgres ? " COLLATE \"C\"" : "";
  }
  // While on, the pages a write frees are overwritten (SQLite's secure_delete), so a masked
  // secret's old bytes do not stay in the file. Nothing on PostgreSQL, where the old row version
  // stays until VACUUM reclaims it (autovacuum does, soon after, on a busy table) and no reader
  // sees it.
  virtual Status overwrite_freed(bool /*on*/) { return Status::Ok(); }
  // Text from outside (a Message-ID, an envelope address, a client address, an error) as the
  // dialect's TEXT can hold it: as it is on SQLite; on PostgreSQL, whose text refuses NUL and
  // invalid UTF-8 (and would refuse a whole batch of received mail with it), with each such byte
  // replaced by U+FFFD.
  virtual Param outside_text(std::string_view s) const = 0;
  // `column` equal to `placeholder` ignoring ASCII case: "column = ?1 COLLATE NOCASE" on SQLite
  // (an index may serve it), "lower(column) = lower(?1)" on PostgreSQL.
  std::string nocase_equals(std::string_view column, std::string_view placeholder) const {
    if (dialect() == Dialect::kSqlite)
      return std::string(column) + " = " + std::string(placeholder) + " COLLATE NOCASE";
    return "lower(" + std::string(column) + ") = lower(" + std::string(placeholder) + ")";
  }
  // A text kept byte for byte (order files, mail): TEXT on SQLite, BYTEA on PostgreSQL (whose
  // text refuses NUL and invalid UTF-8). Read it back with Rows::bytes().
  Param raw_text(std::string_view s) const {
    return dialect() == Dialect::kPostgres ? Param::bytes(s) : Param(s);
  }
};

// A write transaction on a Session: begun by begin(), rolled back on destruction unless
// committed. Move-only. REQUIRES: the Session outlives it.
class WriteTx {
 public:
  static Result<WriteTx> begin(Session& s);

  // On failure the transaction stays open and is rolled back on destruction.
  Status commit();
  // Ends the transaction now, undoing its writes (the destructor then does nothing).
  Status rollback();

 private:
  struct Rollback {
    void operator()(Session* s) const { (void)s->rollback(); }
  };
  explicit WriteTx(Session* s) : s_(s) {}
  std::unique_ptr<Session, Rollback> s_;  // null once committed or moved from
};

// Runs `body` (which opens and commits its own WriteTx) until it does not fail with a failure
// s.retryable() names, at most `attempts` times.
template <typename F>
auto with_retry(const Session& s, F&& body, int attempts = 5) -> decltype(body()) {
  for (int i = 1;; ++i) {
    auto r = body();
    if (r.ok() || i >= attempts) return r;
    if constexpr (requires { r.status(); }) {
      if (!s.retryable(r.status())) return r;
    } else {
      if (!s.retryable(r)) return r;
    }
  }
}

// A read snapshot on a Session for this object's life, unless the Session is inside a
// transaction already (then its statements share that one). Move-only. REQUIRES: the Session
// outlives it.
class ReadTx {
 public:
  static Result<ReadTx> begin(Session& s);

 private:
  struct EndRead {
    void operator()(Session* s) const { s->end_read(); }
  };
  explicit ReadTx(Session* s) : s_(s) {}
  std::unique_ptr<Session, EndRead> s_;  // null when it began nothing
};

// f(r, i) of every row i of `r`, in order: a std::vector of them, or, when `f` returns a Result,
// a Result of the vector of their values (the first error, when one fails).
template <typename F>
auto map_rows(const Rows& r, F&& f) {
  using R = decltype(f(r, 0));
  if constexpr (requires(R v) { std::move(v).value(); }) {
    std::vector<std::decay_t<decltype(std::declval<R>().value())>> out;
    out.reserve(static_cast<std::size_t>(r.size()));
    for (int i = 0; i < r.size(); ++i) {
      R v = f(r, i);
      if (!v.ok()) return Result<decltype(out)>(v.status());
      out.push_back(std::move(v).value());
    }
    return Result<decltype(out)>(std::move(out));
  } else {
    std::vector<R> out;
    out.reserve(static_cast<std::size_t>(r.size()));
    for (int i = 0; i < r.size(); ++i) out.push_back(f(r, i));
    return out;
  }
}

// The Status of a write that must change a row: its error, else `none` when `changed` (run()'s
// count) is 0, else Ok.
inline Status changed_or(const Result<std::int64_t>& changed, Status none) {
  if (!changed.ok()) return changed.status();
  return *changed == 0 ? none : Status::Ok();
}

// A LIMIT parameter: `limit`, or no limit when it is negative (both dialects take the largest
// integer; SQLite refuses NULL there).
inline Param limit_param(std::int64_t limit) {
  return limit < 0 ? Param(std::int64_t{INT64_MAX}) : Param(limit);
}

}  // namespace adj::sql
