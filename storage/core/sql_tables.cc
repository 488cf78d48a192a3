// TableAccess (storage/table_copy.h) over a SqlStore's connection, for either dialect.
#include <filesystem>
#include <map>

#include "base/ascii.h"
#include "storage/core/record_checks.h"
#include "storage/core/sql_store.h"
#include "storage/table_copy.h"

namespace adj {

using store_checks::quote_identifier;

namespace {

constexpr int kFetchRows = 1000;

// SQLite's affinity rules (datatype3.html, 3.1), in their order.
ColumnClass sqlite_class(const std::string& declared) {
  const std::string t = ascii::upper(declared);
  const auto has = [&t](const char* w) { return t.find(w) != std::string::npos; };
  if (has("INT")) return ColumnClass::kInteger;
  if (has("CHAR") || has("CLOB") || has("TEXT")) return ColumnClass::kText;
  if (t.empty() || has("BLOB")) return ColumnClass::kBytes;
  if (has("REAL") || has("FLOA") || has("DOUB")) return ColumnClass::kReal;
  return ColumnClass::kOther;
}

// PostgreSQL's information_schema data_type.
ColumnClass pg_class(const std::string& t) {
  if (t == "bigint" || t == "integer" || t == "smallint") return ColumnClass::kInteger;
  if (t == "double precision" || t == "real") return ColumnClass::kReal;
  if (t == "bytea") return ColumnClass::kBytes;
  if (t == "text" || t == "character varying") return ColumnClass::kText;
  return ColumnClass::kOther;
}

// The catalog queries, each with the table's name as ?1.
struct Catalog {
  const char* tables;       // name
  const char* columns;      // name, declared type, "YES" for an identity column
  const char* primary_key;  // column, in key order
  const char* parents;      // referenced table
};

constexpr Catalog kSqliteCatalog = {
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' "
    "ESCAPE '\\' ORDER BY name",
    "SELECT name, type, 'NO' FROM pragma_table_info(?1) ORDER BY cid",
    "SELECT name FROM pragma_table_info(?1) WHERE pk > 0 ORDER BY pk",
    "SELECT DISTINCT \"table\" FROM pragma_foreign_key_list(?1)"};

constexpr Catalog kPgCatalog = {
    "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() "
    "AND table_type = 'BASE TABLE' ORDER BY table_name COLLATE \"C\"",
    "SELECT column_name, data_type, is_identity FROM information_schema.columns "
    "WHERE table_schema = current_schema() AND table_name = ?1 ORDER BY ordinal_position",
    "SELECT k.column_name FROM information_schema.table_constraints c "
    "JOIN information_schema.key_column_usage k ON k.constraint_schema = c.constraint_schema "
    "AND k.constraint_name = c.constraint_name AND k.table_name = c.table_name "
    "WHERE c.table_schema = current_schema() AND c.table_name = ?1 AND "
    "c.constraint_type = 'PRIMARY KEY' ORDER BY k.ordinal_position",
    "SELECT DISTINCT p.relname::text FROM pg_constraint k JOIN pg_class r ON r.oid = k.conrelid "
    "JOIN pg_class p ON p.oid = k.confrelid WHERE k.contype = 'f' AND r.relnamespace = "
    "(SELECT oid FROM pg_namespace WHERE nspname = current_schema()) AND r.relname = ?1"};

std::string column_list(const std::vector<std::string>& columns) {
  std::string out;
  for (std::size_t i = 0; i < columns.size(); ++i)
    out += (i ? ", " : "") + quote_identifier(columns[i]);
  return out;
}

}  // namespace

Result<bool> TableAccess::Cursor::next(std::vector<Cell>& cells) {
  if (at_ >= batch_.size()) {
    ADJ_TRY(batch_, c_->next(kFetchRows));
    at_ = 0;
    if (batch_.empty()) return false;
  }
  const int row = at_++;
  cells.clear();
  for (int c = 0; c < batch_.columns(); ++c) {
    switch (batch_.kind(row, c)) {
      case sql::Param::Kind::kNull:
        cells.emplace_back();
        break;
      case sql::Param::Kind::kInt:
        cells.emplace_back(batch_.int64(row, c));
        break;
      case sql::Param::Kind::kReal:
        cells.emplace_back(batch_.float64(row, c));
        break;
      case sql::Param::Kind::kText:
        cells.emplace_back(batch_.text(row, c));
        break;
      case sql::Param::Kind::kBytes:
        cells.push_back(sql::Param::bytes(batch_.bytes(row, c)));
        break;
    }
  }
  return true;
}

TableAccess::TableAccess(std::unique_ptr<SqlStore> store, std::string sqlite_path)
    : store_(std::move(store)), s_(store_->session()), path_(std::move(sqlite_path)) {}

TableAccess::~TableAccess() {
  rollback();
  end_read();
}

std::string TableAccess::backend() const { return sqlite() ? "sqlite" : "postgresql"; }

Result<std::string> TableAccess::identity() {
  if (sqlite()) {
    std::error_code ec;
    const auto p = std::filesystem::weakly_canonical(path_, ec);
    if (ec) return Status::IOError("cannot resolve " + path_ + ": " + ec.message());
    return "sqlite:" + p.string();
  }
  auto r = s_.query(
      "SELECT (SELECT system_identifier::text FROM pg_control_system()) || '/' || "
      "current_database()",
      {});
  if (!r.ok()) {
    // pg_control_system() may be withheld from this role: the server's address instead.
    r = s_.query(
        "SELECT coalesce(host(inet_server_addr()), 'local') || ':' || "
        "coalesce(inet_server_port(), 0)::text || '/' || current_database()",
        {});
  }
  if (!r.ok()) return r.status();
  return "postgresql:" + r->text(0, 0);
}

Result<std::vector<TableInfo>> TableAccess::tables() {
  const Catalog& cat = sqlite() ? kSqliteCatalog : kPgCatalog;
  ADJ_TRY(const sql::Rows names, s_.query(cat.tables, {}));
  std::vector<TableInfo> out;
  for (int i = 0; i < names.size(); ++i) {
    TableInfo t;
    t.name = names.text(i, 0);
    ADJ_TRY(const sql::Rows cols, s_.query(cat.columns, {t.name}));
    for (int c = 0; c < cols.size(); ++c) {
      const std::string type = cols.text(c, 1);
      t.columns.push_back({cols.text(c, 0), sqlite() ? sqlite_class(type) : pg_class(type)});
      if (cols.text(c, 2) == "YES") t.identity = cols.text(c, 0);
    }
    ADJ_TRY(const sql::Rows pk, s_.query(cat.primary_key, {t.name}));
    for (int c = 0; c < pk.size(); ++c) t.primary_key.push_back(pk.text(c, 0));
    ADJ_TRY(const sql::Rows fk, s_.query(cat.parents, {t.name}));
    for (int c = 0; c < fk.size(); ++c)
      if (fk.text(c, 0) != t.name) t.parents.push_back(fk.text(c, 0));
    out.push_back(std::move(t));
  }
  return out;
}

Status TableAccess::begin_read() {
  if (reading_) return Status::Ok();
  ADJ_RETURN_IF_ERROR(s_.begin_read());
  // SQLite's snapshot starts at the first read.
  if (auto r = s_.query(
          "SELECT count(*) FROM " + std::string(sqlite() ? "sqlite_master" : "pg_class"), {});
      !r.ok()) {
    s_.end_read();
    return r.status();
  }
  reading_ = true;
  return Status::Ok();
}

void TableAccess::end_read() {
  if (!reading_) return;
  reading_ = false;
  s_.end_read();
}

Result<std::int64_t> TableAccess::count(const std::string& table) {
  ADJ_TRY(const sql::Rows r, s_.query("SELECT count(*) FROM " + quote_identifier(table), {}));
  return r.int64(0, 0);
}

// Text ordered bytewise (PostgreSQL's COLLATE "C" where SQLite's BINARY already is).
Result<TableAccess::Cursor> TableAccess::open_scan(const std::string& table,
                                                   const std::vector<std::string>& columns,
                                                   const std::vector<std::string>& order_by) {
  if (!s_.in_transaction())
    return Status::Internal("table scan outside a transaction (begin_read first)");
  std::map<std::string, ColumnClass> classes;
  if (!sqlite()) {
    ADJ_TRY(const sql::Rows cols, s_.query(kPgCatalog.columns, {table}));
    for (int c = 0; c < cols.size(); ++c) classes[cols.text(c, 0)] = pg_class(cols.text(c, 1));
  }
  std::string sql = "SELECT " + column_list(columns) + " FROM " + quote_identifier(table);
  for (std::size_t i = 0; i < order_by.size(); ++i) {
    sql += (i ? ", " : " ORDER BY ") + quote_identifier(order_by[i]);
    if (classes[order_by[i]] == ColumnClass::kText) sql += s_.bytewise();
  }
  ADJ_TRY(auto cursor, s_.open_cursor(sql));
  return Cursor(std::move(cursor));
}

Status TableAccess::begin_write() {
  ADJ_TRY(auto tx, sql::WriteTx::begin(s_));
  tx_.emplace(std::move(tx));
  return Status::Ok();
}

Status TableAccess::insert(const TableInfo& table, const std::vector<std::string>& columns,
                           const std::vector<Cell>& row) {
  std::string sql = "INSERT INTO " + quote_identifier(table.name) + " (" + column_list(columns) +
                    ")" + (sqlite() ? "" : " OVERRIDING SYSTEM VALUE") + " VALUES (";
  for (std::size_t i = 0; i < columns.size(); ++i) sql += i ? ", ?" : "?";
  std::vector<sql::Param> params;
  params.reserve(columns.size());
  for (std::size_t i = 0; i < columns.size(); ++i) {
    const Cell& c = row[i];
    ColumnClass cls = ColumnClass::kOther;
    for (const auto& col : table.columns)
      if (col.name == columns[i]) cls = col.type;
    // Text and bytes as the destination column keeps them.
    if (c.kind() != Cell::Kind::kText && c.kind() != Cell::Kind::kBytes)
      params.push_back(c);
    else
      params.push_back(cls == ColumnClass::kBytes ? sql::Param::bytes(c.as_text())
                                                  : sql::Param::ref(c.as_text()));
  }
  return s_.write(sql + ")", params);
}

Status TableAccess::clear(const std::string& table) {
  return s_.write("DELETE FROM " + quote_identifier(table), {});
}

// PostgreSQL: each identity's next id past the largest copied one (1 for an empty table).
// SQLite's AUTOINCREMENT follows the inserted ids.
Status TableAccess::finish_identities(const std::vector<TableInfo>& copied) {
  if (sqlite()) return Status::Ok();
  for (const auto& t : copied) {
    if (t.identity.empty()) continue;
    const std::string col = quote_identifier(t.identity), tbl = quote_identifier(t.name);
    ADJ_RETURN_IF_ERROR(
        s_.write("SELECT setval(pg_get_serial_sequence(?, ?), coalesce((SELECT "
                 "max(" +
                     col + ") FROM " + tbl + "), 1), (SELECT max(" + col + ") FROM " + tbl +
                     ") IS NOT NULL)",
                 {tbl, t.identity}));
  }
  return Status::Ok();
}

Status TableAccess::commit() {
  if (!tx_) return Status::Internal("commit without begin_write");
  Status s = tx_->commit();
  tx_.reset();
  return s;
}

void TableAccess::rollback() {
  if (tx_) (void)tx_->rollback();
  tx_.reset();
}

}  // namespace adj
