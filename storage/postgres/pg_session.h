// sql::Session (storage/core/sql_session.h) over one pg::Connection: `?` placeholders numbered
// $1, $2, ... (outside quotes), rows kept as libpq returned them, the write transaction as BEGIN
// at READ COMMITTED.
//
// Thread-safety: as the Connection. Lifetime: the Connection outlives the session.
#pragma once

#include <string>

#include "storage/core/sql_session.h"
#include "storage/postgres/pg_database.h"

namespace adj::pg {

// `sql` with each `?` outside '...' and "..." replaced by $1, $2, ... in order, and each `?N` by
// $N (as SQLite numbers them: a plain `?` after `?N` is one more than the largest N so far).
std::string numbered_placeholders(std::string_view sql);

// `s` as PostgreSQL TEXT can hold it: unchanged when it is valid UTF-8 without NUL, else with
// each invalid byte (and NUL) replaced by U+FFFD.
std::string storable_text(std::string_view s);

class PgSession final : public sql::Session {
 public:
  explicit PgSession(Connection& conn) : conn_(conn) {}

  using sql::Session::query;
  using sql::Session::run;
  sql::Dialect dialect() const override { return sql::Dialect::kPostgres; }
  Result<sql::Rows> query(std::string_view sql, std::span<const sql::Param> params) override;
  Result<std::int64_t> run(std::string_view sql, std::span<const sql::Param> params) override;
  Status exec(std::string_view script) override { return conn_.exec(script); }
  Result<std::unique_ptr<sql::BulkInsert>> bulk_insert(std::string_view table,
                                                       std::string_view columns) override;
  Result<std::unique_ptr<sql::Cursor>> open_cursor(std::string_view select) override;
  bool in_transaction() const override { return conn_.in_transaction(); }
  Status begin_read() override { return conn_.exec("BEGIN ISOLATION LEVEL REPEATABLE READ"); }
  void end_read() override {
    if (conn_.in_transaction()) (void)conn_.exec("ROLLBACK");  // read only: nothing to keep
  }
  Status begin_write() override;
  Status commit() override;
  Status rollback() override;
  bool retryable(const Status& s) const override;
  sql::Param outside_text(std::string_view s) const override;

 private:
  Result<Rows> pg_query(std::string_view sql, std::span<const sql::Param> params);
  Connection& conn_;
  bool writing_ = false;  // between begin_write() and its commit() or rollback()
  int cursors_ = 0;
};

}  // namespace adj::pg
