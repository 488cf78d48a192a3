#include "storage/postgres/pg_database.h"
#include "storage/record_checks.h"

#include <libpq-fe.h>

#include <cctype>
#include <cstdio>
#include <cstring>
#include <unordered_map>
#include <utility>

namespace adj::pg {

using store_checks::sql_context;

// Statements prepared on one connection: SQL text -> server-side statement name.
// Also whether the session was inside a transaction after its last statement, which decides
// whether a lost connection may be replaced.
struct Connection::Prepared {
  std::unordered_map<std::string, std::string> names;
  int next = 0;
  bool in_tx = false;
};

namespace {

std::string trimmed(const char* s) {
  std::string out = s ? s : "";
  while (!out.empty() && std::isspace(static_cast<unsigned char>(out.back()))) out.pop_back();
  return out;
}

// Where a connection string points, for messages: host, port and database, never the password.
std::string describe_target(const std::string& conninfo) {
  char* err = nullptr;
  PQconninfoOption* opts = PQconninfoParse(conninfo.c_str(), &err);
  if (!opts) {
    if (err) PQfreemem(err);
    return "an unparsable connection string";
  }
  std::string host, port, db, user;
  for (PQconninfoOption* o = opts; o->keyword; ++o) {
    if (!o->val) continue;
    if (std::strcmp(o->keyword, "host") == 0) host = o->val;
    if (std::strcmp(o->keyword, "hostaddr") == 0 && host.empty()) host = o->val;
    if (std::strcmp(o->keyword, "port") == 0) port = o->val;
    if (std::strcmp(o->keyword, "dbname") == 0) db = o->val;
    if (std::strcmp(o->keyword, "user") == 0) user = o->val;
  }
  PQconninfoFree(opts);
  std::string out = "PostgreSQL at " + (host.empty() ? std::string("the default host") : host);
  if (!port.empty()) out += " port " + port;
  if (!db.empty()) out += " database " + db;
  if (!user.empty()) out += " as " + user;
  return out;
}

// Removes every occurrence of `secret` from `text` (libpq messages may echo parts of conninfo).
std::string without(std::string text, const std::string& secret) {
  if (secret.size() < 1) return text;
  for (auto p = text.find(secret); p != std::string::npos; p = text.find(secret, p))
    text.replace(p, secret.size(), "***");
  return text;
}

std::string password_of(const std::string& conninfo) {
  char* err = nullptr;
  PQconninfoOption* opts = PQconninfoParse(conninfo.c_str(), &err);
  if (!opts) {
    if (err) PQfreemem(err);
    return "";
  }
  std::string pw;
  for (PQconninfoOption* o = opts; o->keyword; ++o)
    if (o->val && std::strcmp(o->keyword, "password") == 0) pw = o->val;
  PQconninfoFree(opts);
  return pw;
}

}  // namespace

Status result_status(pg_conn* c, pg_result* r, std::string_view context) {
  const char* state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : nullptr;
  std::string msg;
  if (r) {
    // The primary message only: the DETAIL quotes row and key values ("Failing row contains
    // (...)", "Key (token_hash)=(...) already exists"), which may be secrets or personal data.
    const char* primary = PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY);
    msg = primary ? primary : trimmed(PQresultErrorMessage(r));
  }
  if (msg.empty()) msg = trimmed(c ? PQerrorMessage(c) : "no connection");
  return pg_status(state ? state : "", msg, context);
}

Status pg_status(std::string_view sqlstate, std::string_view message, std::string_view context) {
  std::string text = "postgresql: " + std::string(message);
  text += " (SQLSTATE " + (sqlstate.empty() ? std::string("none") : std::string(sqlstate)) + ")";
  if (!context.empty()) text += " in: " + sql_context(context);
  StatusCode code = StatusCode::kIOError;
  const std::string_view cls = sqlstate.size() >= 2 ? sqlstate.substr(0, 2) : std::string_view();
  if (sqlstate == "23505")
    code = StatusCode::kAlreadyExists;
  else if (sqlstate == "23503")
    code = StatusCode::kFailedPrecondition;
  else if (cls == "23" || cls == "22")
    code = StatusCode::kInvalidArgument;
  else if (cls == "42")
    code = StatusCode::kInternal;
  else if (sqlstate == "XX001" || sqlstate == "XX002")
    code = StatusCode::kCorruption;
  return Status(code, std::move(text));
}

Param::Param(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  value_ = std::string(buf);
}

Param Param::bytes(std::span<const std::uint8_t> b) {
  Param p;
  p.value_ = std::string(reinterpret_cast<const char*>(b.data()), b.size());
  p.binary_ = true;
  return p;
}

Param Param::bytes(std::string_view b) {
  Param p;
  p.value_ = std::string(b);
  p.binary_ = true;
  return p;
}

// ---- Rows ----

Rows::Rows(Rows&& other) noexcept : r_(std::exchange(other.r_, nullptr)) {}
Rows& Rows::operator=(Rows&& other) noexcept {
  if (this != &other) {
    if (r_) PQclear(r_);
    r_ = std::exchange(other.r_, nullptr);
  }
  return *this;
}
Rows::~Rows() {
  if (r_) PQclear(r_);
}

int Rows::size() const { return r_ ? PQntuples(r_) : 0; }
int Rows::columns() const { return r_ ? PQnfields(r_) : 0; }
std::string Rows::column_name(int col) const {
  const char* n = r_ ? PQfname(r_, col) : nullptr;
  return n ? n : "";
}
bool Rows::is_null(int row, int col) const { return !r_ || PQgetisnull(r_, row, col); }

std::int64_t Rows::int64(int row, int col) const {
  if (is_null(row, col)) return 0;
  const char* v = PQgetvalue(r_, row, col);
  if (v[0] == 't') return 1;
  if (v[0] == 'f') return 0;
  return std::strtoll(v, nullptr, 10);
}
int Rows::int32(int row, int col) const { return static_cast<int>(int64(row, col)); }
double Rows::float64(int row, int col) const {
  if (is_null(row, col)) return 0;
  return std::strtod(PQgetvalue(r_, row, col), nullptr);
}
bool Rows::boolean(int row, int col) const { return int64(row, col) != 0; }
std::string Rows::text(int row, int col) const {
  if (is_null(row, col)) return "";
  return std::string(PQgetvalue(r_, row, col), PQgetlength(r_, row, col));
}
std::vector<std::uint8_t> Rows::bytes(int row, int col) const {
  if (is_null(row, col)) return {};
  if (PQfformat(r_, col) == 1) {
    const auto* v = reinterpret_cast<const std::uint8_t*>(PQgetvalue(r_, row, col));
    return {v, v + PQgetlength(r_, row, col)};
  }
  std::size_t n = 0;
  unsigned char* raw =
      PQunescapeBytea(reinterpret_cast<const unsigned char*>(PQgetvalue(r_, row, col)), &n);
  if (!raw) return {};
  std::vector<std::uint8_t> out(raw, raw + n);
  PQfreemem(raw);
  return out;
}
std::int64_t Rows::affected() const {
  const char* n = r_ ? PQcmdTuples(r_) : nullptr;
  return n && *n ? std::strtoll(n, nullptr, 10) : 0;
}

// ---- Connection ----

namespace {

Result<pg_conn*> connect(const std::string& conninfo) {
  pg_conn* c = PQconnectdb(conninfo.c_str());
  if (!c) return Status::IOError("postgresql: out of memory connecting");
  if (PQstatus(c) != CONNECTION_OK) {
    std::string why = without(trimmed(PQerrorMessage(c)), password_of(conninfo));
    PQfinish(c);
    return Status::IOError("cannot connect to " + describe_target(conninfo) + ": " + why +
                           " (SQLSTATE 08001)");
  }
  // Notices (e.g. "table exists, skipping") are not errors; keep them off stderr.
  PQsetNoticeProcessor(
      c, [](void*, const char*) {}, nullptr);
  const std::string setup =
      "SET client_encoding = 'UTF8'; SET TimeZone = 'UTC'; "
      "SET statement_timeout = " +
      std::to_string(Connection::kStatementTimeoutMs);
  pg_result* r = PQexec(c, setup.c_str());
  const bool ok = r && PQresultStatus(r) == PGRES_COMMAND_OK;
  if (!ok) {
    Status s = result_status(c, r, "connection setup");
    if (r) PQclear(r);
    PQfinish(c);
    return s;
  }
  PQclear(r);
  return c;
}

}  // namespace

Result<Connection> Connection::open(const std::string& conninfo) {
  auto c = connect(conninfo);
  if (!c.ok()) return c.status();
  return Connection(*c, conninfo);
}

Connection::Connection(pg_conn* c, std::string conninfo)
    : conn_(c), conninfo_(std::move(conninfo)), prepared_(std::make_unique<Prepared>()) {}

Connection::Connection(Connection&& other) noexcept
    : conn_(std::exchange(other.conn_, nullptr)),
      conninfo_(std::move(other.conninfo_)),
      prepared_(std::move(other.prepared_)) {}

Connection& Connection::operator=(Connection&& other) noexcept {
  if (this != &other) {
    close();
    conn_ = std::exchange(other.conn_, nullptr);
    conninfo_ = std::move(other.conninfo_);
    prepared_ = std::move(other.prepared_);
  }
  return *this;
}

Connection::~Connection() { close(); }

void Connection::close() {
  if (conn_) PQfinish(conn_);
  conn_ = nullptr;
}

bool Connection::in_transaction() const {
  return conn_ && PQtransactionStatus(conn_) != PQTRANS_IDLE &&
         PQtransactionStatus(conn_) != PQTRANS_UNKNOWN;
}

bool Connection::healthy() const { return conn_ && PQstatus(conn_) == CONNECTION_OK; }

namespace {

bool is_end_of_transaction(std::string_view sql) { return sql == "ROLLBACK" || sql == "COMMIT"; }

}  // namespace

Status Connection::ready_for(std::string_view sql) {
  if (!prepared_) return Status::Internal("postgresql: use of a moved-from connection");
  if (conn_ && PQstatus(conn_) == CONNECTION_OK) return Status::Ok();
  // The server went away. Inside a transaction that is final: its statements are lost with the
  // session, and later ones must not quietly run outside it. Else reconnect once (statements
  // prepared on the old session are gone with it).
  if (prepared_ && prepared_->in_tx) {
    if (is_end_of_transaction(sql)) prepared_->in_tx = false;
    return Status::IOError(
        "postgresql: the connection was lost inside a transaction (SQLSTATE 08006)");
  }
  auto c = connect(conninfo_);
  if (!c.ok()) return c.status();
  close();
  conn_ = *c;
  prepared_ = std::make_unique<Prepared>();
  return Status::Ok();
}

void Connection::note_state() {
  // A session that just broke reports no transaction state: keep what was known before.
  if (PQstatus(conn_) != CONNECTION_OK) return;
  const auto t = PQtransactionStatus(conn_);
  prepared_->in_tx = t == PQTRANS_INTRANS || t == PQTRANS_INERROR || t == PQTRANS_ACTIVE;
}

Status Connection::exec(std::string_view sql) {
  if (auto s = ready_for(sql); !s.ok()) return s;
  const std::string text(sql);
  pg_result* r = PQexec(conn_, text.c_str());
  const auto st = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
  Status out = Status::Ok();
  if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK && st != PGRES_EMPTY_QUERY) {
    out = result_status(conn_, r, sql);
  } else if (sql == "COMMIT" && std::strcmp(PQcmdStatus(r), "ROLLBACK") == 0) {
    // COMMIT of a failed transaction answers ROLLBACK without an error.
    out = Status::IOError(
        "postgresql: the transaction had failed and was rolled back "
        "(SQLSTATE 25P02) in: COMMIT");
  }
  if (r) PQclear(r);
  note_state();
  return out;
}

Result<Rows> Connection::query(std::string_view sql, std::span<const Param> params) {
  // libpq reads a text parameter as a C string: a NUL byte would cut it short without a word.
  for (std::size_t i = 0; i < params.size(); ++i)
    if (!params[i].is_null() && !params[i].is_binary() &&
        params[i].value().find('\0') != std::string::npos)
      return Status::InvalidArgument("postgresql: parameter $" + std::to_string(i + 1) +
                                     " holds a NUL byte, which PostgreSQL text cannot store");
  if (auto s = ready_for(sql); !s.ok()) return s;
  std::string key(sql);
  auto it = prepared_->names.find(key);
  if (it == prepared_->names.end()) {
    const std::string name = "adj_" + std::to_string(prepared_->next++);
    pg_result* r = PQprepare(conn_, name.c_str(), key.c_str(), 0, nullptr);
    if (!r || PQresultStatus(r) != PGRES_COMMAND_OK) {
      Status s = result_status(conn_, r, sql);
      if (r) PQclear(r);
      note_state();
      return s;
    }
    PQclear(r);
    it = prepared_->names.emplace(std::move(key), name).first;
  }
  std::vector<const char*> values(params.size());
  std::vector<int> lengths(params.size());
  std::vector<int> formats(params.size());
  for (std::size_t i = 0; i < params.size(); ++i) {
    if (params[i].is_null()) continue;
    values[i] = params[i].value().data();
    lengths[i] = static_cast<int>(params[i].value().size());
    formats[i] = params[i].is_binary() ? 1 : 0;
  }
  pg_result* r = PQexecPrepared(conn_, it->second.c_str(), static_cast<int>(params.size()),
                                values.data(), lengths.data(), formats.data(), /*resultFormat=*/0);
  const auto st = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
  note_state();
  if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
    Status s = result_status(conn_, r, sql);
    if (r) PQclear(r);
    // A statement that no longer exists on the server (e.g. DISCARD ALL by a pooler) is
    // prepared again on the next call.
    if (s.message().find("(SQLSTATE 26000)") != std::string::npos) prepared_->names.erase(it);
    return s;
  }
  return Rows(r);
}

// ---- Transaction ----

Result<Transaction> Transaction::begin(Connection& c, Isolation iso) {
  const char* sql = "BEGIN";
  if (iso == Isolation::kRepeatableRead) sql = "BEGIN ISOLATION LEVEL REPEATABLE READ";
  if (iso == Isolation::kSerializable) sql = "BEGIN ISOLATION LEVEL SERIALIZABLE";
  if (Status s = c.exec(sql); !s.ok()) return s;
  return Transaction(&c);
}

Transaction::Transaction(Transaction&& other) noexcept : c_(std::exchange(other.c_, nullptr)) {}

Transaction::~Transaction() {
  if (c_) (void)rollback();
}

Status Transaction::commit() {
  if (!c_) return Status::Internal("commit of a finished transaction");
  Connection* c = std::exchange(c_, nullptr);
  Status s = c->exec("COMMIT");
  if (!s.ok() && c->in_transaction()) (void)c->exec("ROLLBACK");
  return s;
}

Status Transaction::rollback() {
  if (!c_) return Status::Ok();
  Connection* c = std::exchange(c_, nullptr);
  return c->exec("ROLLBACK");
}

}  // namespace adj::pg
