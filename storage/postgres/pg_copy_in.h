// CopyIn: PgSession's sql::BulkInsert (storage/core/sql_session.h): rows sent to PostgreSQL with
// COPY ... FROM STDIN in the binary format, the fastest way in for many rows: each field as its
// length and bytes, nothing for the server to scan for delimiters or unescape (measured against
// the text format on a 10,000-player turn's 210 MB of reports: 1.2-1.3 s against 1.7-1.8 s,
// docs/performance.md). Rows are kept until stream() or finish() starts the COPY, then passed to
// the server in pieces of kCopyChunk bytes. A value is sent as its column's binary form, so the
// columns must have the types the PostgreSQL schema gives them (schemas/migrations, "Types map"):
// an integer into BIGINT, a real into DOUBLE PRECISION, a text into TEXT, bytes into BYTEA; a
// mismatch is the server's error at finish(). Used inside a transaction the caller holds; a
// failed COPY aborts it, and a COPY left unfinished (a row failed a check) is ended with an error
// by the connection's next statement. Its own waits block: the wait limits of
// storage/wait_limit.h do not cut them, the server's statement_timeout and the connection's
// tcp_user_timeout do. Not thread-safe (one connection).
#pragma once

#include <libpq-fe.h>

#include <bit>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "storage/core/sql_session.h"
#include "storage/postgres/pg_database.h"

namespace adj::pg {

class CopyIn final : public sql::BulkInsert {
 public:
  CopyIn(pg::Connection& c, std::string sql) : c_(c), sql_(std::move(sql)) {}

  Status add(std::span<const sql::Param> row) override {
    if (row.size() > 0x7fff) return Status::InvalidArgument("COPY: more than 32767 columns");
    for (const sql::Param& p : row)  // checked before any byte of the row is kept
      if ((p.kind() == sql::Param::Kind::kText || p.kind() == sql::Param::Kind::kBytes) &&
          p.as_text().size() > 0x7fffffffu)
        return Status::InvalidArgument("COPY: a value over 2 GiB");
    put_be(static_cast<std::uint16_t>(row.size()), 2);
    for (const sql::Param& p : row) {
      switch (p.kind()) {
        case sql::Param::Kind::kNull:
          put_be(0xffffffffu, 4);  // -1: NULL
          break;
        case sql::Param::Kind::kInt:
          put_be(8, 4);
          put_be(static_cast<std::uint64_t>(p.as_int()), 8);
          break;
        case sql::Param::Kind::kReal:
          put_be(8, 4);
          put_be(std::bit_cast<std::uint64_t>(p.as_real()), 8);
          break;
        case sql::Param::Kind::kText:
        case sql::Param::Kind::kBytes: {
          const std::string_view v = p.as_text();
          put_be(v.size(), 4);
          buf_ += v;
          break;
        }
      }
    }
    return started_ && buf_.size() >= kCopyChunk ? send() : Status::Ok();
  }
  Status stream() override { return started_ ? Status::Ok() : start(); }
  // Ends the COPY (starting it first when start() was not called); the server's verdict on the
  // rows (e.g. a duplicate key) comes here.
  Status finish() override {
    if (!started_) ADJ_RETURN_IF_ERROR(start());
    put_be(0xffff, 2);  // the trailer: -1 fields
    ADJ_RETURN_IF_ERROR(send());
    if (PQputCopyEnd(c_.handle(), nullptr) != 1) return error(nullptr);
    Status out = Status::Ok();
    while (pg_result* r = PQgetResult(c_.handle())) {
      if (PQresultStatus(r) != PGRES_COMMAND_OK && out.ok()) out = error(r);
      PQclear(r);
    }
    if (!c_.in_transaction()) note_write();  // rows that went in without a transaction
    return out;
  }

 private:
  Status start() {
    pg_result* r = PQexec(c_.handle(), sql_.c_str());
    const bool ok = r && PQresultStatus(r) == PGRES_COPY_IN;
    Status s = ok ? Status::Ok() : error(r);
    if (r) PQclear(r);
    started_ = s.ok();
    return s;
  }
  // `n` bytes of `v`, most significant first.
  void put_be(std::uint64_t v, int n) {
    for (int shift = 8 * (n - 1); shift >= 0; shift -= 8) buf_ += static_cast<char>(v >> shift);
  }
  static constexpr std::size_t kCopyChunk = 1u << 20;

  Status send() {
    if (buf_.empty()) return Status::Ok();
    if (PQputCopyData(c_.handle(), buf_.data(), static_cast<int>(buf_.size())) != 1)
      return error(nullptr);
    buf_.clear();
    return Status::Ok();
  }
  Status error(pg_result* r) { return pg::result_status(c_.handle(), r, sql_); }

  pg::Connection& c_;
  std::string sql_;
  // The header (signature, no flags, no extension), then rows as they are added.
  std::string buf_{"PGCOPY\n\377\r\n\0\0\0\0\0\0\0\0\0", 19};
  bool started_ = false;
};

}  // namespace adj::pg
