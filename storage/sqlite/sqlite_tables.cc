#include "storage/sqlite/sqlite_tables.h"
#include "base/ascii.h"
#include "storage/core/record_checks.h"

#include <sqlite3.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

namespace adj {

using store_checks::quote_identifier;

namespace {

using ascii::upper;

// SQLite's affinity rules (datatype3.html, 3.1), in their order.
ColumnClass class_of(const std::string& declared) {
  const std::string t = upper(declared);
  if (t.find("INT") != std::string::npos) return ColumnClass::kInteger;
  if (t.find("CHAR") != std::string::npos || t.find("CLOB") != std::string::npos ||
      t.find("TEXT") != std::string::npos)
    return ColumnClass::kText;
  if (t.empty() || t.find("BLOB") != std::string::npos) return ColumnClass::kBytes;
  if (t.find("REAL") != std::string::npos || t.find("FLOA") != std::string::npos ||
      t.find("DOUB") != std::string::npos)
    return ColumnClass::kReal;
  return ColumnClass::kOther;
}

class SqliteCursor final : public TableAccess::Cursor {
 public:
  SqliteCursor(sqlite3* db, sqlite3_stmt* stmt, std::string sql, std::size_t columns)
      : db_(db), stmt_(stmt), sql_(std::move(sql)), columns_(columns) {}
  ~SqliteCursor() override { sqlite3_finalize(stmt_); }
  SqliteCursor(const SqliteCursor&) = delete;
  SqliteCursor& operator=(const SqliteCursor&) = delete;

  Result<bool> next(std::vector<Cell>& cells) override {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_DONE) return false;
    if (rc != SQLITE_ROW) return sqlite::sqlite_status(db_, rc, sql_);
    cells.resize(columns_);
    for (int c = 0; c < static_cast<int>(columns_); ++c) {
      Cell& cell = cells[static_cast<std::size_t>(c)];
      cell.s.clear();
      switch (sqlite3_column_type(stmt_, c)) {
        case SQLITE_INTEGER:
          cell.kind = Cell::Kind::kInt;
          cell.i = sqlite3_column_int64(stmt_, c);
          break;
        case SQLITE_FLOAT:
          cell.kind = Cell::Kind::kReal;
          cell.d = sqlite3_column_double(stmt_, c);
          break;
        case SQLITE_NULL:
          cell.kind = Cell::Kind::kNull;
          break;
        default: {
          // TEXT or BLOB: the stored bytes as they are (a TEXT may hold NUL or invalid UTF-8).
          cell.kind =
              sqlite3_column_type(stmt_, c) == SQLITE_TEXT ? Cell::Kind::kText : Cell::Kind::kBytes;
          const void* p = sqlite3_column_blob(stmt_, c);
          const int n = sqlite3_column_bytes(stmt_, c);
          if (p && n > 0) cell.s.assign(static_cast<const char*>(p), static_cast<std::size_t>(n));
        }
      }
    }
    return true;
  }

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_;
  std::string sql_;
  std::size_t columns_;
};

class SqliteTables final : public TableAccess {
 public:
  explicit SqliteTables(std::unique_ptr<SqliteStore> store) : store_(std::move(store)) {}
  ~SqliteTables() override {
    if (db().in_transaction()) (void)db().exec("ROLLBACK");
  }

  std::string backend() const override { return "sqlite"; }
  Result<std::string> identity() override {
    std::error_code ec;
    const auto p = std::filesystem::weakly_canonical(store_->path(), ec);
    if (ec) return Status::IOError("cannot resolve " + store_->path() + ": " + ec.message());
    return "sqlite:" + p.string();
  }

  Result<std::vector<TableInfo>> tables() override {
    std::vector<std::string> names;
    {
      auto st = db().prepare(
          "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' "
          "ESCAPE '\\' ORDER BY name");
      if (!st.ok()) return st.status();
      for (;;) {
        auto more = st->step();
        if (!more.ok()) return more.status();
        if (!*more) break;
        names.push_back(st->column_text(0));
      }
    }
    std::vector<TableInfo> out;
    for (const auto& name : names) {
      TableInfo t;
      t.name = name;
      std::map<int, std::string> pk;
      {
        auto st = db().prepare("SELECT name, type, pk FROM pragma_table_info(?1)");
        if (!st.ok()) return st.status();
        st->bind_text(1, name);
        for (;;) {
          auto more = st->step();
          if (!more.ok()) return more.status();
          if (!*more) break;
          t.columns.push_back({st->column_text(0), class_of(st->column_text(1))});
          if (st->column_int(2) > 0) pk[st->column_int(2)] = st->column_text(0);
        }
      }
      for (const auto& [i, c] : pk) t.primary_key.push_back(c);
      {
        auto st = db().prepare("SELECT DISTINCT \"table\" FROM pragma_foreign_key_list(?1)");
        if (!st.ok()) return st.status();
        st->bind_text(1, name);
        for (;;) {
          auto more = st->step();
          if (!more.ok()) return more.status();
          if (!*more) break;
          if (st->column_text(0) != name) t.parents.push_back(st->column_text(0));
        }
      }
      out.push_back(std::move(t));
    }
    return out;
  }

  Status begin_read() override {
    if (reading_) return Status::Ok();
    Status s = db().exec("BEGIN");
    if (!s.ok()) return s;
    // The snapshot starts at the first read.
    s = db().exec("SELECT count(*) FROM sqlite_master");
    if (!s.ok()) {
      (void)db().exec("ROLLBACK");
      return s;
    }
    reading_ = true;
    return Status::Ok();
  }
  void end_read() override {
    if (!reading_) return;
    reading_ = false;
    if (db().in_transaction()) (void)db().exec("ROLLBACK");
  }

  Result<std::int64_t> count(const std::string& table) override {
    auto st = db().prepare("SELECT count(*) FROM " + quote_identifier(table));
    if (!st.ok()) return st.status();
    auto more = st->step();
    if (!more.ok()) return more.status();
    return st->column_int64(0);
  }

  Result<std::unique_ptr<Cursor>> open_scan(const std::string& table,
                                            const std::vector<std::string>& columns,
                                            const std::vector<std::string>& order_by) override {
    std::string sql = "SELECT ";
    for (std::size_t i = 0; i < columns.size(); ++i)
      sql += (i ? ", " : "") + quote_identifier(columns[i]);
    sql += " FROM " + quote_identifier(table);
    for (std::size_t i = 0; i < order_by.size(); ++i)
      sql += (i ? ", " : " ORDER BY ") + quote_identifier(order_by[i]) + " COLLATE BINARY";
    // Not the statement cache: a scan may run while other statements are open.
    sqlite3_stmt* raw = nullptr;
    const int rc = sqlite3_prepare_v2(db().handle(), sql.c_str(), -1, &raw, nullptr);
    if (rc != SQLITE_OK) {
      sqlite3_finalize(raw);
      return sqlite::sqlite_status(db().handle(), rc, sql);
    }
    return std::unique_ptr<Cursor>(
        std::make_unique<SqliteCursor>(db().handle(), raw, std::move(sql), columns.size()));
  }

  Status begin_write() override { return db().exec("BEGIN IMMEDIATE"); }

  Status insert(const TableInfo& table, const std::vector<std::string>& columns,
                const std::vector<Cell>& row) override {
    std::string sql = "INSERT INTO " + quote_identifier(table.name) + " (";
    for (std::size_t i = 0; i < columns.size(); ++i)
      sql += (i ? ", " : "") + quote_identifier(columns[i]);
    sql += ") VALUES (";
    for (std::size_t i = 0; i < columns.size(); ++i)
      sql += (i ? ", ?" : "?") + std::to_string(i + 1);
    sql += ")";
    auto st = db().prepare(sql);
    if (!st.ok()) return st.status();
    for (std::size_t i = 0; i < columns.size(); ++i) {
      const Cell& c = row[i];
      const int at = static_cast<int>(i + 1);
      ColumnClass cls = ColumnClass::kOther;
      for (const auto& col : table.columns)
        if (col.name == columns[i]) cls = col.type;
      switch (c.kind) {
        case Cell::Kind::kNull:
          st->bind_null(at);
          break;
        case Cell::Kind::kInt:
          st->bind_int64(at, c.i);
          break;
        case Cell::Kind::kReal:
          st->bind_double(at, c.d);
          break;
        default:
          if (cls == ColumnClass::kBytes)
            st->bind_blob(at, std::span<const std::uint8_t>(
                                  reinterpret_cast<const std::uint8_t*>(c.s.data()), c.s.size()));
          else
            st->bind_text(at, c.s);
      }
    }
    return st->run();
  }

  Status clear(const std::string& table) override {
    return db().exec("DELETE FROM " + quote_identifier(table));
  }
  Status finish_identities(const std::vector<TableInfo>&) override { return Status::Ok(); }
  Status commit() override { return db().exec("COMMIT"); }
  void rollback() override {
    if (db().in_transaction()) (void)db().exec("ROLLBACK");
  }

  Status rebuild_derived(const std::vector<std::string>& games) override {
    return store_->rebuild_open_state_indexes(games);
  }

 private:
  sqlite::Database& db() { return store_->database(); }
  std::unique_ptr<SqliteStore> store_;
  bool reading_ = false;
};

}  // namespace

std::unique_ptr<TableAccess> sqlite_table_access(std::unique_ptr<SqliteStore> store) {
  return std::make_unique<SqliteTables>(std::move(store));
}

}  // namespace adj
