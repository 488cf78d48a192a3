// Row-level access to a whole database, table by table, for `adjutant copy` (moving a host's
// games between SQLite and PostgreSQL) and its check. Both schemas (schemas/migrations)
// use the same table and column names; what each database holds is read from its own catalog
// (sqlite_master and pragma table_info; information_schema), never from a list kept here.
//
// Opened through open_table_access() (storage/open_database.h). Thread-safety: one thread.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rules/core/status.h"
#include "storage/core/sql_session.h"

namespace adj {

// One cell, as stored: a sql::Param that owns its text. kText and kBytes are both byte
// strings: a SQLite TEXT may hold any bytes, and PostgreSQL keeps such a column
// (submissions.raw_text) as BYTEA.
using Cell = sql::Param;

// Equal by value with types normalised: text and bytes compare by their bytes; an integer and
// a real compare by value (a REAL column holding a whole number); NULL only equals NULL.
bool same_value(const Cell& a, const Cell& b);

// How a column stores its values on this backend (from the declared type).
enum class ColumnClass { kInteger, kReal, kText, kBytes, kOther };

struct ColumnInfo {
  std::string name;
  ColumnClass type = ColumnClass::kOther;
};

struct TableInfo {
  std::string name;
  std::vector<ColumnInfo> columns;       // in the table's order
  std::vector<std::string> primary_key;  // empty: ordered by every column
  std::vector<std::string> parents;      // tables its foreign keys reference (not itself)
  std::string identity;  // the identity column (PostgreSQL GENERATED ... AS IDENTITY), or ""
};

class SqlStore;  // storage/core/sql_store.h

// Over one store's connection, for either dialect (storage/core/sql_tables.cc).
class TableAccess {
 public:
  // Owns `store`; reads and writes through its session (PostgreSQL: in the connection's current
  // schema). `sqlite_path` is the file a SQLite store opened ("" for PostgreSQL): its canonical
  // path is the database's identity().
  TableAccess(std::unique_ptr<SqlStore> store, std::string sqlite_path);
  ~TableAccess();  // rolls back an uncommitted write, ends a read
  TableAccess(const TableAccess&) = delete;
  TableAccess& operator=(const TableAccess&) = delete;

  // "sqlite" or "postgresql".
  std::string backend() const;
  // Names the database itself, so two arguments naming one database compare equal: SQLite the
  // file's canonical path, PostgreSQL the cluster's system identifier and the database name.
  Result<std::string> identity();
  // Every user table of the database, sorted by name.
  Result<std::vector<TableInfo>> tables();

  // Reading: begin_read() takes a consistent snapshot (a read transaction) that later scans and
  // counts see; end_read() ends it.
  Status begin_read();
  void end_read();
  Result<std::int64_t> count(const std::string& table);
  // Every row of `table`, the cells of `columns` in that order, ordered by `order_by` (names
  // from tables(); never outside input; text bytewise), pulled one at a time: memory holds a
  // batch, not the table. One cursor at a time per TableAccess; it must not outlive it.
  class Cursor {
   public:
    explicit Cursor(std::unique_ptr<sql::Cursor> c) : c_(std::move(c)) {}
    // Fills `row` with the next row: false at the end.
    Result<bool> next(std::vector<Cell>& row);

   private:
    std::unique_ptr<sql::Cursor> c_;
    sql::Rows batch_;
    int at_ = 0;
  };
  Result<Cursor> open_scan(const std::string& table, const std::vector<std::string>& columns,
                           const std::vector<std::string>& order_by);

  // Writing: one transaction from begin_write() to commit(); the destructor or rollback()
  // undoes an uncommitted one.
  Status begin_write();
  // Inserts one row; each cell is stored as the destination column's class asks (bytes into a
  // SQLite TEXT column stay TEXT, text into BYTEA becomes its bytes).
  Status insert(const TableInfo& table, const std::vector<std::string>& columns,
                const std::vector<Cell>& row);
  // Removes every row of `table` (only for tables a fresh database seeds, e.g. pending_upgrades).
  Status clear(const std::string& table);
  // After the inserts, inside the transaction: moves identity sequences past the largest id
  // (PostgreSQL); nothing on SQLite (AUTOINCREMENT follows the inserted ids).
  Status finish_identities(const std::vector<TableInfo>& copied);
  Status commit();
  void rollback();

 private:
  bool sqlite() const { return s_.dialect() == sql::Dialect::kSqlite; }

  std::unique_ptr<SqlStore> store_;
  sql::Session& s_;
  std::string path_;
  std::optional<sql::WriteTx> tx_;
  bool reading_ = false;
};

// ---- the copy (storage/table_copy.cc) ----

struct TableCount {
  std::string table;
  std::int64_t rows = 0;
};

// Copies every table the two databases share from `from` into `to`, in one transaction on
// `to`, parents before children. Refuses (FailedPrecondition, nothing written) when `to`
// already holds games or rows in any copied table (other than pending_upgrades, which a fresh
// SQLite database seeds and the copy empties), when `from` has pending upgrade steps, or when
// a table or column is on one side only and is not knowingly skipped (the message names it).
// Skipped: schema_migrations (each side's own). The open-state index tables are copied after
// turn_states, whose triggers mark the index stale. revisions is written
// by the destination's triggers during the copy and then overwritten with the source's rows.
Status copy_tables(TableAccess& from, TableAccess& to);

// Compares every table both databases share (the copy's skip rules), row by row in primary-key
// order. OK with the per-table counts of `from` when they are equal; otherwise
// FailedPrecondition naming the first differing table and the row's key (never other cells,
// which may be secrets).
Result<std::vector<TableCount>> compare_tables(TableAccess& from, TableAccess& to);

}  // namespace adj
