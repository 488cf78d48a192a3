#include "storage/postgres/pg_session.h"

#include <algorithm>
#include <string>

#include "base/log_escape.h"
#include "storage/postgres/pg_copy_in.h"

namespace adj::pg {
namespace {

// DECLARE ... NO SCROLL CURSOR, then FETCH; closed on destruction while the transaction lasts.
class PgCursor final : public sql::Cursor {
 public:
  PgCursor(Connection& conn, std::string name) : conn_(conn), name_(std::move(name)) {}
  ~PgCursor() override {
    if (conn_.in_transaction()) (void)conn_.exec("CLOSE " + name_);
  }
  PgCursor(const PgCursor&) = delete;
  PgCursor& operator=(const PgCursor&) = delete;
  Result<sql::Rows> next(int max_rows) override {
    ADJ_TRY(Rows r, conn_.query("FETCH " + std::to_string(max_rows) + " FROM " + name_));
    return sql::Rows(std::make_unique<Rows>(std::move(r)));
  }

 private:
  Connection& conn_;
  std::string name_;
};

}  // namespace

Result<std::unique_ptr<sql::BulkInsert>> PgSession::bulk_insert(std::string_view table,
                                                                std::string_view columns) {
  return std::unique_ptr<sql::BulkInsert>(std::make_unique<CopyIn>(
      conn_,
      "COPY " + std::string(table) + "(" + std::string(columns) + ") FROM STDIN (FORMAT binary)"));
}

Result<std::unique_ptr<sql::Cursor>> PgSession::open_cursor(std::string_view select) {
  if (!conn_.in_transaction()) return Status::Internal("a cursor outside a transaction");
  std::string name = "adj_cursor_" + std::to_string(++cursors_);
  ADJ_RETURN_IF_ERROR(
      conn_.exec("DECLARE " + name + " NO SCROLL CURSOR FOR " + std::string(select)));
  return std::unique_ptr<sql::Cursor>(std::make_unique<PgCursor>(conn_, std::move(name)));
}

std::string storable_text(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const std::size_t n = c == 0 ? 0 : c < 0x80 ? 1 : utf8_sequence_length(s, i);
    out.append(n ? s.substr(i, n) : "\xEF\xBF\xBD");  // U+FFFD for a NUL or a stray byte
    i += n ? n : 1;
  }
  return out;
}

sql::Param PgSession::outside_text(std::string_view s) const {
  return sql::Param(storable_text(s));
}

std::string numbered_placeholders(std::string_view sql) {
  std::string out;
  out.reserve(sql.size() + 16);
  int n = 0;
  char quote = 0;
  for (std::size_t i = 0; i < sql.size(); ++i) {
    const char c = sql[i];
    if (quote) {
      if (c == quote) quote = 0;  // a doubled quote closes and reopens: same result
      out += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      out += c;
    } else if (c == '?') {
      out += '$';
      std::size_t digits = 0;
      while (i + 1 + digits < sql.size() && sql[i + 1 + digits] >= '0' &&
             sql[i + 1 + digits] <= '9')
        ++digits;
      if (digits == 0) {
        out += std::to_string(++n);
      } else {  // ?N: as SQLite, a later plain ? is one more than the largest number so far
        const std::string_view number = sql.substr(i + 1, digits);
        out += number;
        n = std::max(n, std::stoi(std::string(number)));
        i += digits;
      }
    } else {
      out += c;
    }
  }
  return out;
}

Result<Rows> PgSession::pg_query(std::string_view sql, std::span<const sql::Param> params) {
  return conn_.query(numbered_placeholders(sql), params);
}

Result<sql::Rows> PgSession::query(std::string_view sql, std::span<const sql::Param> params) {
  ADJ_TRY(Rows r, pg_query(sql, params));
  return sql::Rows(std::make_unique<Rows>(std::move(r)));
}

Result<std::int64_t> PgSession::run(std::string_view sql, std::span<const sql::Param> params) {
  ADJ_TRY(const Rows r, pg_query(sql, params));
  return r.affected();
}

bool PgSession::retryable(const Status& s) const {
  return s.message().find("(SQLSTATE 40001)") != std::string::npos ||
         s.message().find("(SQLSTATE 40P01)") != std::string::npos;
}

Status PgSession::begin_write() {
  if (writing_) return Status::Internal("postgresql: a write transaction is already open");
  ADJ_RETURN_IF_ERROR(conn_.exec("BEGIN"));
  writing_ = true;
  return Status::Ok();
}

Status PgSession::commit() {
  if (!writing_) return Status::Internal("postgresql: commit without a transaction");
  writing_ = false;  // a failed COMMIT has ended the transaction too
  Status s = conn_.exec("COMMIT");
  if (!s.ok() && conn_.in_transaction()) (void)conn_.exec("ROLLBACK");
  return s;
}

Status PgSession::rollback() {
  if (!writing_) return Status::Ok();
  writing_ = false;
  return conn_.exec("ROLLBACK");
}

}  // namespace adj::pg
