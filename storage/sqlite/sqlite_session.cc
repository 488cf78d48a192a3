// sqlite::Database as the sql::Session of the shared store (storage/sqlite/database.h).
#include "storage/sqlite/database.h"

#include <sqlite3.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

namespace adj::sqlite {
namespace {

using Kind = sql::Param::Kind;

// Rows read into memory, each cell as SQLite typed it: NULL, INTEGER, REAL, TEXT or BLOB.
class SqliteRows final : public sql::RowSource {
 public:
  SqliteRows(int columns, std::vector<sql::Param> cells)
      : columns_(columns), cells_(std::move(cells)) {}
  int size() const override {
    return columns_ == 0 ? 0 : static_cast<int>(cells_.size()) / columns_;
  }
  int columns() const override { return columns_; }
  Kind kind(int row, int col) const override { return at(row, col).kind(); }
  bool is_null(int row, int col) const override { return kind(row, col) == Kind::kNull; }
  // As SQLite converts: text to its leading integer, a real truncated; NULL to 0 or "".
  std::int64_t int64(int row, int col) const override {
    const sql::Param& c = at(row, col);
    if (c.kind() == Kind::kInt) return c.as_int();
    if (c.kind() == Kind::kReal) return static_cast<std::int64_t>(c.as_real());
    return std::strtoll(std::string(c.as_text()).c_str(), nullptr, 10);
  }
  double float64(int row, int col) const override {
    const sql::Param& c = at(row, col);
    if (c.kind() == Kind::kInt) return static_cast<double>(c.as_int());
    if (c.kind() == Kind::kReal) return c.as_real();
    return std::strtod(std::string(c.as_text()).c_str(), nullptr);
  }
  std::string text(int row, int col) const override {
    const sql::Param& c = at(row, col);
    if (c.kind() == Kind::kInt) return std::to_string(c.as_int());
    if (c.kind() == Kind::kReal) return std::to_string(c.as_real());
    return std::string(c.as_text());
  }
  std::vector<std::uint8_t> bytes(int row, int col) const override {
    const std::string s = text(row, col);
    return {s.begin(), s.end()};
  }

 private:
  const sql::Param& at(int row, int col) const {
    return cells_[static_cast<std::size_t>(row) * static_cast<std::size_t>(columns_) +
                  static_cast<std::size_t>(col)];
  }
  int columns_;
  std::vector<sql::Param> cells_;
};

// Binds `params` in order, read where they are (they outlive the statement's run).
void bind_all(Statement& st, std::span<const sql::Param> params) {
  for (std::size_t i = 0; i < params.size(); ++i)
    st.bind(static_cast<int>(i + 1), params[i], /*in_place=*/true);
}

// Steps `st` for at most `max_rows` rows (all when negative), read into memory.
Result<sql::Rows> read_rows(Statement& st, int max_rows) {
  std::vector<sql::Param> cells;
  int columns = 0;
  for (int n = 0; max_rows < 0 || n < max_rows; ++n) {
    ADJ_TRY(bool row, st.step());
    if (!row) break;
    columns = st.column_count();
    for (int c = 0; c < columns; ++c) cells.push_back(st.column(c));
  }
  return sql::Rows(std::make_unique<SqliteRows>(columns, std::move(cells)));
}

// One prepared INSERT, run a row at a time with the texts bound where they are.
class SqliteBulkInsert final : public sql::BulkInsert {
 public:
  explicit SqliteBulkInsert(Statement st) : st_(std::move(st)) {}
  Status add(std::span<const sql::Param> row) override {
    bind_all(st_, row);
    Status s = st_.run();
    st_.reset();  // before the texts bound in place go
    return s;
  }
  Status finish() override { return Status::Ok(); }

 private:
  Statement st_;
};

class SqliteCursor final : public sql::Cursor {
 public:
  explicit SqliteCursor(Statement st) : st_(std::move(st)) {}
  Result<sql::Rows> next(int max_rows) override {
    if (done_) return sql::Rows();  // a statement stepped past its end would start again
    ADJ_TRY(sql::Rows rows, read_rows(st_, max_rows));
    done_ = rows.size() < max_rows;
    return rows;
  }

 private:
  Statement st_;
  bool done_ = false;
};

}  // namespace

Result<sql::Rows> Database::query(std::string_view sql, std::span<const sql::Param> params) {
  ADJ_TRY(auto st, prepare(sql));
  bind_all(st, params);
  return read_rows(st, -1);
}

Result<std::unique_ptr<sql::BulkInsert>> Database::bulk_insert(std::string_view table,
                                                               std::string_view columns) {
  std::string sql = "INSERT INTO " + std::string(table) + "(" + std::string(columns) + ") VALUES (";
  for (std::size_t i = 0, n = 1 + static_cast<std::size_t>(
                                      std::count(columns.begin(), columns.end(), ','));
       i < n; ++i)
    sql += i ? ", ?" : "?";
  ADJ_TRY(auto st, prepare(sql + ")"));
  return std::unique_ptr<sql::BulkInsert>(std::make_unique<SqliteBulkInsert>(std::move(st)));
}

Result<std::unique_ptr<sql::Cursor>> Database::open_cursor(std::string_view select) {
  ADJ_TRY(auto st, prepare(select));
  return std::unique_ptr<sql::Cursor>(std::make_unique<SqliteCursor>(std::move(st)));
}

Result<std::int64_t> Database::run(std::string_view sql, std::span<const sql::Param> params) {
  ADJ_TRY(auto st, prepare(sql));
  bind_all(st, params);
  ADJ_RETURN_IF_ERROR(st.run());
  return sqlite3_changes64(handle());  // rows changed by that INSERT, UPDATE or DELETE
}

Status Database::begin_write() {
  if (writing_) return Status::Internal("sqlite: a write transaction is already open");
  ADJ_RETURN_IF_ERROR(run("BEGIN IMMEDIATE", {}).status());
  writing_ = true;
  return Status::Ok();
}

Status Database::commit() {
  if (!writing_) return Status::Internal("sqlite: commit without a transaction");
  ADJ_RETURN_IF_ERROR(run("COMMIT", {}).status());  // on failure still open, for rollback()
  writing_ = false;
  return Status::Ok();
}

Status Database::rollback() {
  if (!writing_) return Status::Ok();
  writing_ = false;
  // SQLite may already have rolled back on its own (SQLITE_FULL, SQLITE_IOERR, ...).
  if (!in_transaction()) return Status::Ok();
  return run("ROLLBACK", {}).status();
}

}  // namespace adj::sqlite
