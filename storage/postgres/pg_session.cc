#include "storage/postgres/pg_session.h"

#include <algorithm>
#include <string>
#include <vector>

namespace adj::pg {
namespace {

class PgRows final : public sql::RowSource {
 public:
  explicit PgRows(Rows r) : r_(std::move(r)) {}
  int size() const override { return r_.size(); }
  int columns() const override { return r_.columns(); }
  bool is_null(int row, int col) const override { return r_.is_null(row, col); }
  std::int64_t int64(int row, int col) const override { return r_.int64(row, col); }
  double float64(int row, int col) const override { return r_.float64(row, col); }
  std::string text(int row, int col) const override { return r_.text(row, col); }
  std::vector<std::uint8_t> bytes(int row, int col) const override { return r_.bytes(row, col); }

 private:
  Rows r_;
};

Param to_pg(const sql::Param& p) {
  switch (p.kind()) {
    case sql::Param::Kind::kNull:
      return Param();
    case sql::Param::Kind::kInt:
      return Param(p.as_int());
    case sql::Param::Kind::kReal:
      return Param(p.as_real());
    case sql::Param::Kind::kText:
      return Param(p.as_text());
    case sql::Param::Kind::kBytes:
      return Param::bytes(std::string_view(p.as_text()));
  }
  return Param();
}

}  // namespace

std::string storable_text(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t n = 0;
    if (c >= 0x01 && c < 0x80)
      n = 1;
    else if (c >= 0xC2 && c <= 0xDF)
      n = 2;
    else if (c >= 0xE0 && c <= 0xEF)
      n = 3;
    else if (c >= 0xF0 && c <= 0xF4)
      n = 4;
    bool ok = n > 0 && i + n <= s.size();
    for (std::size_t k = 1; ok && k < n; ++k)
      ok = (static_cast<unsigned char>(s[i + k]) & 0xC0) == 0x80;
    if (ok && n >= 3) {
      const auto c1 = static_cast<unsigned char>(s[i + 1]);
      if (c == 0xE0 && c1 < 0xA0) ok = false;   // overlong
      if (c == 0xED && c1 >= 0xA0) ok = false;  // surrogates
      if (c == 0xF0 && c1 < 0x90) ok = false;   // overlong
      if (c == 0xF4 && c1 >= 0x90) ok = false;  // past U+10FFFF
    }
    if (ok) {
      out.append(s.substr(i, n));
      i += n;
    } else {
      out += "\xEF\xBF\xBD";
      i += 1;
    }
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
  std::vector<Param> ps;
  ps.reserve(params.size());
  for (const auto& p : params) ps.push_back(to_pg(p));
  return conn_.query(numbered_placeholders(sql), ps);
}

Result<sql::Rows> PgSession::query(std::string_view sql, std::span<const sql::Param> params) {
  ADJ_TRY(Rows r, pg_query(sql, params));
  return sql::Rows(std::make_unique<PgRows>(std::move(r)));
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
  if (tx_) return Status::Internal("postgresql: a write transaction is already open");
  ADJ_TRY(auto tx, Transaction::begin(conn_));
  tx_.emplace(std::move(tx));
  return Status::Ok();
}

Status PgSession::commit() {
  if (!tx_) return Status::Internal("postgresql: commit without a transaction");
  Status s = tx_->commit();  // a failed COMMIT has ended the transaction too
  tx_.reset();
  return s;
}

Status PgSession::rollback() {
  if (!tx_) return Status::Ok();
  Status s = tx_->rollback();
  tx_.reset();
  return s;
}

}  // namespace adj::pg
