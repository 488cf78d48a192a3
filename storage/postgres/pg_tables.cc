#include "storage/postgres/pg_tables.h"
#include "storage/core/record_checks.h"

#include <libpq-fe.h>

#include <cstdlib>
#include <map>

namespace adj {

using store_checks::quote_identifier;

namespace {

constexpr int kFetchRows = 1000;

// PostgreSQL type oids (pg_type.dat).
constexpr Oid kBool = 16, kBytea = 17, kInt8 = 20, kInt2 = 21, kInt4 = 23, kFloat4 = 700,
              kFloat8 = 701;

ColumnClass pg_class_of(const std::string& data_type) {
  if (data_type == "bigint" || data_type == "integer" || data_type == "smallint")
    return ColumnClass::kInteger;
  if (data_type == "double precision" || data_type == "real") return ColumnClass::kReal;
  if (data_type == "bytea") return ColumnClass::kBytes;
  if (data_type == "text" || data_type == "character varying") return ColumnClass::kText;
  return ColumnClass::kOther;
}

Status result_error(PGresult* r, PGconn* c, const std::string& sql) {
  return pg::result_status(c, r, sql);
}

class PgCursor final : public TableAccess::Cursor {
 public:
  PgCursor(pg::Connection& conn, std::string name, std::string table, std::size_t columns)
      : conn_(conn),
        name_(std::move(name)),
        table_(std::move(table)),
        columns_(columns),
        fetch_("FETCH " + std::to_string(kFetchRows) + " FROM " + name_),
        batch_(nullptr, PQclear) {}
  ~PgCursor() override {
    batch_.reset();
    if (conn_.in_transaction()) (void)conn_.exec("CLOSE " + name_);
  }
  PgCursor(const PgCursor&) = delete;
  PgCursor& operator=(const PgCursor&) = delete;

  Result<bool> next(std::vector<Cell>& cells) override {
    if (done_) return false;
    if (!batch_ || at_ >= PQntuples(batch_.get())) {
      batch_.reset(PQexec(conn_.handle(), fetch_.c_str()));
      at_ = 0;
      if (!batch_ || PQresultStatus(batch_.get()) != PGRES_TUPLES_OK)
        return result_error(batch_.get(), conn_.handle(), fetch_);
      if (PQntuples(batch_.get()) == 0) {
        done_ = true;
        return false;
      }
    }
    PGresult* r = batch_.get();
    const int i = at_++;
    cells.resize(columns_);
    for (int c = 0; c < static_cast<int>(columns_); ++c) {
      Cell& cell = cells[static_cast<std::size_t>(c)];
      cell.s.clear();
      if (PQgetisnull(r, i, c)) {
        cell.kind = Cell::Kind::kNull;
        continue;
      }
      const char* v = PQgetvalue(r, i, c);
      switch (PQftype(r, c)) {
        case kInt2:
        case kInt4:
        case kInt8:
          cell.kind = Cell::Kind::kInt;
          cell.i = std::strtoll(v, nullptr, 10);
          break;
        case kBool:
          cell.kind = Cell::Kind::kInt;
          cell.i = v[0] == 't' ? 1 : 0;
          break;
        case kFloat4:
        case kFloat8:
          // Shortest text that reads back to the same double (PostgreSQL 12+).
          cell.kind = Cell::Kind::kReal;
          cell.d = std::strtod(v, nullptr);
          break;
        case kBytea: {
          cell.kind = Cell::Kind::kBytes;
          std::size_t len = 0;
          unsigned char* b = PQunescapeBytea(reinterpret_cast<const unsigned char*>(v), &len);
          if (!b) return Status::IOError("out of memory decoding a bytea of table " + table_);
          cell.s.assign(reinterpret_cast<const char*>(b), len);
          PQfreemem(b);
          break;
        }
        default:
          cell.kind = Cell::Kind::kText;
          cell.s.assign(v, static_cast<std::size_t>(PQgetlength(r, i, c)));
      }
    }
    return true;
  }

 private:
  pg::Connection& conn_;
  std::string name_, table_;
  std::size_t columns_;
  std::string fetch_;
  std::unique_ptr<PGresult, void (*)(PGresult*)> batch_;
  int at_ = 0;
  bool done_ = false;
};

class PgTables final : public TableAccess {
 public:
  explicit PgTables(std::unique_ptr<PgStore> store) : store_(std::move(store)) {}
  ~PgTables() override {
    if (conn().in_transaction()) (void)conn().exec("ROLLBACK");
  }

  std::string backend() const override { return "postgresql"; }

  Result<std::string> identity() override {
    auto r = conn().query(
        "SELECT (SELECT system_identifier::text FROM pg_control_system()) || '/' || "
        "current_database()");
    if (!r.ok()) {
      // pg_control_system() may be withheld from this role: the server's address instead.
      r = conn().query(
          "SELECT coalesce(host(inet_server_addr()), 'local') || ':' || "
          "coalesce(inet_server_port(), 0)::text || '/' || current_database()");
    }
    if (!r.ok()) return r.status();
    return "postgresql:" + r->text(0, 0);
  }

  Result<std::vector<TableInfo>> tables() override {
    auto names = conn().query(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() "
        "AND table_type = 'BASE TABLE' ORDER BY table_name COLLATE \"C\"");
    if (!names.ok()) return names.status();
    std::vector<TableInfo> out;
    for (int i = 0; i < names->size(); ++i) {
      TableInfo t;
      t.name = names->text(i, 0);
      auto cols = conn().query(
          "SELECT column_name, data_type, is_identity FROM information_schema.columns "
          "WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position",
          {t.name});
      if (!cols.ok()) return cols.status();
      for (int c = 0; c < cols->size(); ++c) {
        t.columns.push_back({cols->text(c, 0), pg_class_of(cols->text(c, 1))});
        if (cols->text(c, 2) == "YES") t.identity = cols->text(c, 0);
      }
      auto pk = conn().query(
          "SELECT k.column_name FROM information_schema.table_constraints c "
          "JOIN information_schema.key_column_usage k ON k.constraint_schema = "
          "c.constraint_schema AND k.constraint_name = c.constraint_name AND k.table_name = "
          "c.table_name WHERE c.table_schema = current_schema() AND c.table_name = $1 AND "
          "c.constraint_type = 'PRIMARY KEY' ORDER BY k.ordinal_position",
          {t.name});
      if (!pk.ok()) return pk.status();
      for (int c = 0; c < pk->size(); ++c) t.primary_key.push_back(pk->text(c, 0));
      auto fk = conn().query(
          "SELECT DISTINCT p.relname::text FROM pg_constraint k JOIN pg_class r ON r.oid = "
          "k.conrelid JOIN pg_class p ON p.oid = k.confrelid WHERE k.contype = 'f' AND "
          "r.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema()) AND "
          "r.relname = $1",
          {t.name});
      if (!fk.ok()) return fk.status();
      for (int c = 0; c < fk->size(); ++c)
        if (fk->text(c, 0) != t.name) t.parents.push_back(fk->text(c, 0));
      out.push_back(std::move(t));
    }
    return out;
  }

  Status begin_read() override {
    if (reading_) return Status::Ok();
    Status s = conn().exec("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    if (s.ok()) reading_ = true;
    return s;
  }
  void end_read() override {
    if (!reading_) return;
    reading_ = false;
    if (conn().in_transaction()) (void)conn().exec("ROLLBACK");
  }

  Result<std::int64_t> count(const std::string& table) override {
    auto r = conn().query("SELECT count(*) FROM " + quote_identifier(table));
    if (!r.ok()) return r.status();
    return r->int64(0, 0);
  }

  // A cursor inside the read (or write) transaction, fetched kFetchRows at a time; text
  // ordered bytewise (COLLATE "C"), as SQLite's BINARY orders it.
  Result<std::unique_ptr<Cursor>> open_scan(const std::string& table,
                                            const std::vector<std::string>& columns,
                                            const std::vector<std::string>& order_by) override {
    if (!conn().in_transaction())
      return Status::Internal("table scan outside a transaction (begin_read first)");
    auto info = column_classes(table);
    if (!info.ok()) return info.status();
    const std::string name = "adj_scan_" + std::to_string(++cursors_);
    std::string sql = "DECLARE " + name + " NO SCROLL CURSOR FOR SELECT ";
    for (std::size_t i = 0; i < columns.size(); ++i)
      sql += (i ? ", " : "") + quote_identifier(columns[i]);
    sql += " FROM " + quote_identifier(table);
    for (std::size_t i = 0; i < order_by.size(); ++i) {
      sql += (i ? ", " : " ORDER BY ") + quote_identifier(order_by[i]);
      auto it = info->find(order_by[i]);
      if (it != info->end() && it->second == ColumnClass::kText) sql += " COLLATE \"C\"";
    }
    if (Status s = conn().exec(sql); !s.ok()) return s;
    return std::unique_ptr<Cursor>(std::make_unique<PgCursor>(conn(), name, table, columns.size()));
  }

  Status begin_write() override { return conn().exec("BEGIN"); }

  Status insert(const TableInfo& table, const std::vector<std::string>& columns,
                const std::vector<Cell>& row) override {
    std::string sql = "INSERT INTO " + quote_identifier(table.name) + " (";
    for (std::size_t i = 0; i < columns.size(); ++i)
      sql += (i ? ", " : "") + quote_identifier(columns[i]);
    sql += ") OVERRIDING SYSTEM VALUE VALUES (";
    for (std::size_t i = 0; i < columns.size(); ++i)
      sql += (i ? ", $" : "$") + std::to_string(i + 1);
    sql += ")";
    std::vector<pg::Param> params;
    params.reserve(columns.size());
    for (std::size_t i = 0; i < columns.size(); ++i) {
      const Cell& c = row[i];
      ColumnClass cls = ColumnClass::kOther;
      for (const auto& col : table.columns)
        if (col.name == columns[i]) cls = col.type;
      switch (c.kind) {
        case Cell::Kind::kNull:
          params.emplace_back();
          break;
        case Cell::Kind::kInt:
          params.emplace_back(c.i);
          break;
        case Cell::Kind::kReal:
          params.emplace_back(c.d);
          break;
        default:
          params.push_back(cls == ColumnClass::kBytes ? pg::Param::bytes(std::string_view(c.s))
                                                      : pg::Param(std::string_view(c.s)));
      }
    }
    auto r = conn().query(sql, params);
    return r.ok() ? Status::Ok() : r.status();
  }

  Status clear(const std::string& table) override {
    return conn().exec("DELETE FROM " + quote_identifier(table));
  }

  Status finish_identities(const std::vector<TableInfo>& copied) override {
    for (const auto& t : copied) {
      if (t.identity.empty()) continue;
      const std::string col = quote_identifier(t.identity), tbl = quote_identifier(t.name);
      // The next id is past the largest copied one (1 for an empty table).
      auto r = conn().query("SELECT setval(pg_get_serial_sequence($1, $2), coalesce((SELECT max(" +
                                col + ") FROM " + tbl + "), 1), (SELECT max(" + col + ") FROM " +
                                tbl + ") IS NOT NULL)",
                            {tbl, t.identity});
      if (!r.ok()) return r.status();
    }
    return Status::Ok();
  }
  Status commit() override { return conn().exec("COMMIT"); }
  void rollback() override {
    if (conn().in_transaction()) (void)conn().exec("ROLLBACK");
  }
  Status rebuild_derived(const std::vector<std::string>& games) override {
    return store_->rebuild_open_state_indexes(games);
  }

 private:
  pg::Connection& conn() { return store_->connection(); }

  Result<std::map<std::string, ColumnClass>> column_classes(const std::string& table) {
    auto cols = conn().query(
        "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = "
        "current_schema() AND table_name = $1",
        {table});
    if (!cols.ok()) return cols.status();
    std::map<std::string, ColumnClass> out;
    for (int c = 0; c < cols->size(); ++c) out[cols->text(c, 0)] = pg_class_of(cols->text(c, 1));
    return out;
  }

  std::unique_ptr<PgStore> store_;
  bool reading_ = false;
  int cursors_ = 0;
};

}  // namespace

std::unique_ptr<TableAccess> pg_table_access(std::unique_ptr<PgStore> store) {
  return std::make_unique<PgTables>(std::move(store));
}

}  // namespace adj
