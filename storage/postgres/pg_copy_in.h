// CopyIn: PgSession's sql::BulkInsert (storage/core/sql_session.h): rows sent to PostgreSQL with
// COPY ... FROM STDIN (text format), the fastest way in for many rows: fields escaped,
// tab-separated, one row a line, kept until stream() or finish() starts the COPY, then passed to
// the server in pieces of kCopyChunk bytes. Used inside a transaction the caller holds; a failed
// COPY aborts it, and a COPY left unfinished (a row failed a check) is ended with an error by the
// connection's next statement. Its own waits block: the wait limits of storage/wait_limit.h do
// not cut them, the server's statement_timeout and the connection's tcp_user_timeout do.
// Not thread-safe (one connection).
#pragma once

#include <libpq-fe.h>

#include <span>
#include <string>
#include <string_view>

#include "storage/core/sql_session.h"
#include "storage/postgres/pg_database.h"

namespace adj::pg {

class CopyIn final : public sql::BulkInsert {
 public:
  CopyIn(pg::Connection& c, std::string sql) : c_(c), sql_(std::move(sql)) {}

  // Integers and reals as their decimal text, bytes as bytea's hex form.
  Status add(std::span<const sql::Param> row) override {
    for (const sql::Param& p : row) {
      switch (p.kind()) {
        case sql::Param::Kind::kNull:
          separate();
          buf_ += "\\N";
          break;
        case sql::Param::Kind::kInt:
        case sql::Param::Kind::kReal:
          field(number_text(p));
          break;
        case sql::Param::Kind::kText:
          field(p.as_text());
          break;
        case sql::Param::Kind::kBytes: {
          static constexpr char kHex[] = "0123456789abcdef";
          std::string hex = "\\x";
          for (unsigned char c : p.as_text()) {
            hex += kHex[c >> 4];
            hex += kHex[c & 15];
          }
          field(hex);
          break;
        }
      }
    }
    return end_row();
  }
  Status stream() override { return started_ ? Status::Ok() : start(); }
  // Ends the COPY (starting it first when start() was not called); the server's verdict on the
  // rows (e.g. a duplicate key) comes here.
  Status finish() override {
    if (!started_) ADJ_RETURN_IF_ERROR(start());
    ADJ_RETURN_IF_ERROR(send());
    if (PQputCopyEnd(c_.handle(), nullptr) != 1) return error(nullptr);
    Status out = Status::Ok();
    while (pg_result* r = PQgetResult(c_.handle())) {
      if (PQresultStatus(r) != PGRES_COMMAND_OK && out.ok()) out = error(r);
      PQclear(r);
    }
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
  void separate() {
    if (!at_row_start_) buf_ += '\t';
    at_row_start_ = false;
  }
  void field(std::string_view v) {
    separate();
    // Runs without a special byte are appended whole (a JSON text has a backslash every few
    // dozen bytes and no raw control character).
    std::size_t run = 0;
    for (std::size_t i = 0; i < v.size(); ++i) {
      const char c = v[i];
      if (c != '\\' && c != '\n' && c != '\r' && c != '\t') continue;
      buf_.append(v.data() + run, i - run);
      buf_ += '\\';
      buf_ += c == '\n' ? 'n' : c == '\r' ? 'r' : c == '\t' ? 't' : '\\';
      run = i + 1;
    }
    buf_.append(v.data() + run, v.size() - run);
  }
  // Sends a full chunk when started; keeps the rows until finish() when not.
  Status end_row() {
    buf_ += '\n';
    at_row_start_ = true;
    return started_ && buf_.size() >= kCopyChunk ? send() : Status::Ok();
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
  std::string buf_;
  bool at_row_start_ = true;
  bool started_ = false;
};

}  // namespace adj::pg
