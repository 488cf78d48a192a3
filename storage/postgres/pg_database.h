// A thin RAII layer over libpq: a connection, parameterised queries and transactions. Errors are
// values: every failure carries the server's message, its SQLSTATE and the SQL that failed.
// Nothing here throws.
//
// Parameters are $1, $2, ... and travel out of line (never spliced into SQL), as text, except
// bytea parameters, which travel as binary. Results come back as text; bytea columns are decoded.
//
// Waits are bounded (storage/wait_limit.h): connecting by the connect limit, each round trip
// (send a statement, read all its results) by the statement limit, both read on the calling
// thread when the wait starts. A wait that runs out closes the session (IOError, SQLSTATE
// 57014; no cancel request is sent, as libpq's would block on a stalled server: the server's own
// statement_timeout, set to the statement limit, ends the statement there) and the next use
// reconnects, as after a lost connection.
//
// Thread-safety: a Connection and everything made from it are used by one thread at a time (one
// connection per thread). Transactions are the session's (storage/postgres/pg_session.h).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rules/core/status.h"
#include "storage/core/sql_session.h"

struct pg_conn;
struct pg_result;

namespace adj::pg {

// A count that grows after every statement this process ran that may have written to a
// PostgreSQL database, through any Connection: each COMMIT and ROLLBACK, each statement run
// outside a transaction other than a SELECT, and any statement on a session that broke. A value
// read before a query proves that the query saw every write this process finished before it (a
// cache read at that value is current while the value is unchanged). Thread-safe.
std::uint64_t write_epoch();
// Makes write_epoch() grow: for a write that did not go through a Connection's statements (a COPY
// outside a transaction: pg_copy_in.h). Nothing on a thread whose writes are quiet.
void note_write();
// While on (default off), the calling thread's writes do not make write_epoch() grow: a cache
// read at an unchanged value may miss them for as long as it would miss another process's
// writes (PgStore::kRevisionsFresh). For background threads whose writes no reader is waiting
// for at once. Thread-local.
void set_quiet_writes(bool on);

// Maps a SQLSTATE to a Status, as sqlite_status does for SQLite:
//   23505 unique_violation -> AlreadyExists;  23503 foreign_key_violation -> FailedPrecondition;
//   other 23xxx (check, not null) -> InvalidArgument;  22xxx (data) -> InvalidArgument;
//   42xxx (syntax, undefined column) -> Internal;  40001/40P01 (serialization, deadlock) and
//   connection failures (08xxx, or no SQLSTATE) -> IOError;  XX001/XX002 -> Corruption;
//   anything else -> IOError. The message is "<server message> (SQLSTATE xxxxx) [in: <context>]",
//   so sql::with_retry and callers can tell the SQLSTATE.
Status pg_status(std::string_view sqlstate, std::string_view message, std::string_view context);

// The Status of a failed result `r` (or of the connection `c` when `r` is null), through
// pg_status. Only the server's primary message is kept: its DETAIL quotes row and key values.
Status result_status(pg_conn* c, pg_result* r, std::string_view context);

// Parameters are the shared layer's (storage/core/sql_session.h): NULL, integers and reals as
// their decimal text, text, and bytes as bytea (sent in binary).
using Param = sql::Param;

// The text PostgreSQL reads for an integer or real parameter (decimal; reals to 17 digits).
// REQUIRES: p.kind() is kInt or kReal.
std::string number_text(const Param& p);

// The rows of one statement, owned (the libpq result is cleared on destruction), and the
// sql::RowSource of PgSession's rows. Move-only. Getters take a 0-based row and column; NULL
// reads as 0 / "" / empty.
class Rows final : public sql::RowSource {
 public:
  Rows() = default;

  int size() const override;  // number of rows
  bool empty() const { return size() == 0; }
  int columns() const override;
  // From the column's type: integers and booleans kInt, float kReal, bytea kBytes, else kText.
  sql::Param::Kind kind(int row, int col) const override;
  bool is_null(int row, int col) const override;
  std::int64_t int64(int row, int col) const override;  // also reads booleans as 0/1
  double float64(int row, int col) const override;
  std::string text(int row, int col) const override;
  std::vector<std::uint8_t> bytes(int row, int col) const override;  // a bytea column, decoded
  // Rows affected by INSERT/UPDATE/DELETE (PQcmdTuples).
  std::int64_t affected() const;

 private:
  friend class Connection;
  struct Clear {
    void operator()(pg_result* r) const;  // PQclear
  };
  explicit Rows(pg_result* r) : r_(r) {}
  std::unique_ptr<pg_result, Clear> r_;
};

// An open connection. Move-only; closes on destruction.
class Connection {
 public:
  // Connects with a libpq connection string or URI (postgresql://user@host:port/db?...), with
  // TCP keepalives after the idle limit and tcp_user_timeout (settings the string gives win).
  // Sets client_encoding UTF8, TimeZone UTC and statement_timeout to the statement limit.
  // IOError naming the host (never the password) when the server cannot be reached or does not
  // answer within the connect limit.
  static Result<Connection> open(const std::string& conninfo);

  Connection(Connection&& other) noexcept;
  Connection& operator=(Connection&& other) noexcept;
  ~Connection();

  // Runs one or more ';'-separated statements without parameters, discarding any rows.
  Status exec(std::string_view sql);
  // Runs exactly one statement with parameters $1..$n. Statements are prepared once per
  // connection (keyed by their SQL text) and reused. InvalidArgument (nothing sent) when a text
  // parameter holds a NUL byte (PostgreSQL text cannot; libpq would silently cut it there).
  Result<Rows> query(std::string_view sql, std::span<const Param> params = {});
  Result<Rows> query(std::string_view sql, std::initializer_list<Param> params) {
    return query(sql, std::span<const Param>(params.begin(), params.size()));
  }

  // True while a transaction is open on this connection.
  bool in_transaction() const;
  // False once the server went away; the next query tries to reconnect once.
  bool healthy() const;

  pg_conn* handle() const { return conn_.get(); }

 private:
  struct Finish {
    void operator()(pg_conn* c) const;  // PQfinish
  };
  explicit Connection(pg_conn* c, std::string conninfo);
  void close() { conn_.reset(); }
  // Reconnects a lost session unless it was inside a transaction (then IOError).
  Status ready_for(std::string_view sql);
  void note_state();  // records whether the session is inside a transaction
  // Sends with `send` (a PQsend* call on the connection) and reads every result within the
  // statement limit. Returns the first failed result, else the last one (never empty), or an
  // error with the session closed when the wait ran out or the connection failed.
  Result<Rows> round_trip(const std::function<int(pg_conn*)>& send, std::string_view context);
  // The result `sent` of a round trip for `sql`, owned, once the session's state is noted: its
  // error unless it is a command's, rows or an empty query's. `ran`: false for the round trip
  // that only prepared `sql` (no write happened; write_epoch() grows after the statement runs).
  Result<Rows> answer(Result<Rows> sent, std::string_view sql, bool ran = true);
  std::unique_ptr<pg_conn, Finish> conn_;
  std::string conninfo_;
  struct Prepared;  // pg_database.cc: SQL text -> statement name
  std::unique_ptr<Prepared> prepared_;
};

}  // namespace adj::pg
