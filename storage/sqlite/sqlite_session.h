// sql::Session (storage/core/sql_session.h) over one sqlite::Database: statements from its cache,
// rows read into memory, the write transaction as BEGIN IMMEDIATE (compiled once, from the cache).
//
// Thread-safety: as the Database. Lifetime: the Database outlives the session.
#pragma once

#include "storage/core/sql_session.h"
#include "storage/sqlite/database.h"

namespace adj::sqlite {

class SqliteSession final : public sql::Session {
 public:
  explicit SqliteSession(Database& db) : db_(db) {}

  using sql::Session::query;
  using sql::Session::run;
  sql::Dialect dialect() const override { return sql::Dialect::kSqlite; }
  Result<sql::Rows> query(std::string_view sql, std::span<const sql::Param> params) override;
  Result<std::int64_t> run(std::string_view sql, std::span<const sql::Param> params) override;
  Status exec(std::string_view script) override { return db_.exec(script); }
  Result<std::unique_ptr<sql::BulkInsert>> bulk_insert(std::string_view table,
                                                       std::string_view columns) override;
  Result<std::unique_ptr<sql::Cursor>> open_cursor(std::string_view select) override;
  bool in_transaction() const override { return db_.in_transaction(); }
  Status begin_read() override { return db_.exec("BEGIN"); }
  void end_read() override {
    if (db_.in_transaction()) (void)db_.exec("ROLLBACK");  // read only: nothing to keep
  }
  Status begin_write() override;
  Status commit() override;
  Status rollback() override;
  bool retryable(const Status&) const override { return false; }
  sql::Param outside_text(std::string_view s) const override { return sql::Param(s); }
  Status overwrite_freed(bool on) override {
    return db_.exec(on ? "PRAGMA secure_delete=ON" : "PRAGMA secure_delete=OFF");
  }

 private:
  Database& db_;
  bool writing_ = false;  // between begin_write() and its commit() or rollback()
};

}  // namespace adj::sqlite
