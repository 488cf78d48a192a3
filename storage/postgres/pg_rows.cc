// Rows of storage/postgres/pg_database.h: the rows of a result, decoded from libpq's text form
// (every query asks for text results).
#include "storage/postgres/pg_database.h"

#include <libpq-fe.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace adj::pg {

// ---- Rows ----

void Rows::Clear::operator()(pg_result* r) const { PQclear(r); }

int Rows::size() const { return r_ ? PQntuples(r_.get()) : 0; }
int Rows::columns() const { return r_ ? PQnfields(r_.get()) : 0; }
sql::Param::Kind Rows::kind(int row, int col) const {
  // PostgreSQL type oids (pg_type.dat).
  constexpr unsigned kBool = 16, kBytea = 17, kInt8 = 20, kInt2 = 21, kInt4 = 23, kFloat4 = 700,
                     kFloat8 = 701;
  if (is_null(row, col)) return sql::Param::Kind::kNull;
  switch (PQftype(r_.get(), col)) {
    case kBool:
    case kInt2:
    case kInt4:
    case kInt8:
      return sql::Param::Kind::kInt;
    case kFloat4:
    case kFloat8:
      return sql::Param::Kind::kReal;
    case kBytea:
      return sql::Param::Kind::kBytes;
    default:
      return sql::Param::Kind::kText;
  }
}
bool Rows::is_null(int row, int col) const { return !r_ || PQgetisnull(r_.get(), row, col); }

std::int64_t Rows::int64(int row, int col) const {
  if (is_null(row, col)) return 0;
  const char* v = PQgetvalue(r_.get(), row, col);
  if (v[0] == 't') return 1;
  if (v[0] == 'f') return 0;
  return std::strtoll(v, nullptr, 10);
}
double Rows::float64(int row, int col) const {
  if (is_null(row, col)) return 0;
  return std::strtod(PQgetvalue(r_.get(), row, col), nullptr);
}
std::string Rows::text(int row, int col) const {
  if (is_null(row, col)) return "";
  return std::string(PQgetvalue(r_.get(), row, col), PQgetlength(r_.get(), row, col));
}
std::vector<std::uint8_t> Rows::bytes(int row, int col) const {
  if (is_null(row, col)) return {};
  std::size_t n = 0;
  unsigned char* raw =
      PQunescapeBytea(reinterpret_cast<const unsigned char*>(PQgetvalue(r_.get(), row, col)), &n);
  if (!raw) return {};
  std::vector<std::uint8_t> out(raw, raw + n);
  PQfreemem(raw);
  return out;
}
std::int64_t Rows::affected() const {
  const char* n = r_ ? PQcmdTuples(r_.get()) : nullptr;
  return n && *n ? std::strtoll(n, nullptr, 10) : 0;
}

}  // namespace adj::pg
