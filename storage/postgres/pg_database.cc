#include "storage/postgres/pg_database.h"

#include "base/ascii.h"
#include "storage/core/record_checks.h"

#include <libpq-fe.h>
#include <poll.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <unordered_map>
#include <utility>

#include "storage/wait_limit.h"

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

// libpq's message without its trailing newline ("" for none).
std::string trimmed(const char* s) { return ascii::trim(s ? s : ""); }

// The settings a connection string gives, by keyword; nullopt when it does not parse.
using Settings = std::unordered_map<std::string, std::string>;
std::optional<Settings> conninfo_values(const std::string& conninfo) {
  char* err = nullptr;
  PQconninfoOption* opts = PQconninfoParse(conninfo.c_str(), &err);
  if (err) PQfreemem(err);
  if (!opts) return std::nullopt;
  Settings out;
  for (PQconninfoOption* o = opts; o->keyword; ++o)
    if (o->val) out[o->keyword] = o->val;
  PQconninfoFree(opts);
  return out;
}

// Where a connection string points, for messages: host, port and database, never the password.
std::string describe_target(const std::string& conninfo) {
  auto v = conninfo_values(conninfo);
  if (!v) return "an unparsable connection string";
  const std::string host = !(*v)["host"].empty() ? (*v)["host"] : (*v)["hostaddr"];
  std::string out = "PostgreSQL at " + (host.empty() ? std::string("the default host") : host);
  if (!(*v)["port"].empty()) out += " port " + (*v)["port"];
  if (!(*v)["dbname"].empty()) out += " database " + (*v)["dbname"];
  if (!(*v)["user"].empty()) out += " as " + (*v)["user"];
  return out;
}

}  // namespace

std::string number_text(const Param& p) {
  if (p.kind() == Param::Kind::kInt) return std::to_string(p.as_int());
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", p.as_real());
  return buf;
}

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

// ---- Connection ----

namespace {

using PgWaitClock = std::chrono::steady_clock;

// Waits until `c`'s socket is ready for `events` (POLLIN, POLLOUT) or `deadline` passes:
// 1 ready, 0 the deadline passed, -1 an error (no socket, poll failed). A wait that started at
// `start` ends at start + the stalled limit instead once the database is found stalled
// meanwhile (by this or another thread), so waits already under way fail fast too.
int pg_wait_socket(pg_conn* c, short events, PgWaitClock::time_point start,
                   PgWaitClock::time_point deadline) {
  const int fd = PQsocket(c);
  if (fd < 0) return -1;
  pollfd p{fd, events, 0};
  const auto stalled_end = start + database_wait_limits().stalled;
  for (;;) {
    const auto end = database_stalled() ? std::min(deadline, stalled_end) : deadline;
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(end - PgWaitClock::now());
    if (left.count() <= 0) return 0;
    const int n = ::poll(&p, 1, static_cast<int>(std::min<std::int64_t>(left.count(), 200)));
    if (n > 0) return 1;
    if (n < 0 && errno != EINTR) return -1;
  }
}

std::string pg_millis(std::chrono::milliseconds d) { return std::to_string(d.count()) + " ms"; }

// Runs `sql` (settings, no rows) on a connection still being set up, within `deadline`.
Status pg_setup_session(pg_conn* c, const std::string& sql, PgWaitClock::time_point start,
                        PgWaitClock::time_point deadline) {
  if (PQsendQuery(c, sql.c_str()) != 1) return result_status(c, nullptr, "connection setup");
  Status out = Status::Ok();
  for (;;) {
    if (PQconsumeInput(c) == 0) return result_status(c, nullptr, "connection setup");
    while (!PQisBusy(c)) {
      pg_result* r = PQgetResult(c);
      if (!r) return out;
      if (PQresultStatus(r) != PGRES_COMMAND_OK && out.ok())
        out = result_status(c, r, "connection setup");
      PQclear(r);
    }
    const int w = pg_wait_socket(c, POLLIN, start, deadline);
    if (w == 0)
      return Status::IOError("postgresql: the server did not answer the connection setup");
    if (w < 0) return result_status(c, nullptr, "connection setup");
  }
}

// Connects within the connect limit (storage/wait_limit.h). The keepalive settings go before
// the caller's string (libpq's expand_dbname), so any the string gives win.
Result<pg_conn*> connect(const std::string& conninfo) {
  const DatabaseWaitLimits limits = effective_wait_limits();
  const auto idle_s = std::max<std::int64_t>(1, limits.idle.count() / 1000);
  const std::string idle = std::to_string(idle_s);
  const std::string interval = std::to_string(std::max<std::int64_t>(1, idle_s / 3));
  const std::string user_timeout = std::to_string(limits.idle.count());
  const char* keys[] = {"keepalives",
                        "keepalives_idle",
                        "keepalives_interval",
                        "keepalives_count",
                        "tcp_user_timeout",
                        "dbname",
                        nullptr};
  const char* values[] = {
      "1", idle.c_str(), interval.c_str(), "3", user_timeout.c_str(), conninfo.c_str(), nullptr};
  const auto fail = [&](pg_conn* c, const std::string& why) -> Status {
    PQfinish(c);
    return Status::IOError(
        "cannot connect to " + describe_target(conninfo) + ": " +
        store_checks::redacted(why, conninfo_values(conninfo).value_or(Settings{})["password"]) +
        " (SQLSTATE 08001)");
  };
  pg_conn* c = PQconnectStartParams(keys, values, /*expand_dbname=*/1);
  if (!c) return Status::IOError("postgresql: out of memory connecting");
  if (PQstatus(c) == CONNECTION_BAD) return fail(c, trimmed(PQerrorMessage(c)));
  const auto start = PgWaitClock::now();
  const auto deadline = start + limits.connect;
  // A server that does not even answer a new connection within the stalled limit is stalled
  // (slow statements and lock waits never make a connect wait).
  const bool decisive = limits.connect >= database_wait_limits().stalled;
  // libpq's protocol: wait as PQconnectPoll last asked (writable at first), then poll again.
  for (PostgresPollingStatusType st = PGRES_POLLING_WRITING; st != PGRES_POLLING_OK;) {
    if (st == PGRES_POLLING_FAILED) return fail(c, trimmed(PQerrorMessage(c)));
    const int w =
        pg_wait_socket(c, st == PGRES_POLLING_READING ? POLLIN : POLLOUT, start, deadline);
    if (w == 0) {
      if (decisive) note_database_timeout();
      return fail(c, "no answer within " + pg_millis(limits.connect));
    }
    if (w < 0) return fail(c, trimmed(PQerrorMessage(c)));
    st = PQconnectPoll(c);
  }
  // Notices (e.g. "table exists, skipping") are not errors; keep them off stderr.
  PQsetNoticeProcessor(
      c, [](void*, const char*) {}, nullptr);
  // The server's own limit on a statement, for what the client abandons (it sends no cancel);
  // from PostgreSQL 14 the server also checks every second, during a long statement, whether
  // the client is still there, so an abandoned statement ends soon and frees its locks.
  std::string setup =
      "SET client_encoding = 'UTF8'; SET TimeZone = 'UTC'; "
      "SET statement_timeout = " +
      std::to_string(database_wait_limits().statement.count());
  if (PQserverVersion(c) >= 140000) setup += "; SET client_connection_check_interval = 1000";
  if (Status s = pg_setup_session(c, setup, start, deadline); !s.ok()) {
    if (s.message().find("did not answer") != std::string::npos) {
      if (decisive) note_database_timeout();
      return fail(c, "no answer within " + pg_millis(limits.connect));
    }
    PQfinish(c);
    return s;
  }
  note_database_answered();
  return c;
}

}  // namespace

Result<Connection> Connection::open(const std::string& conninfo) {
  ADJ_TRY(pg_conn * c, connect(conninfo));
  return Connection(c, conninfo);
}

Connection::Connection(pg_conn* c, std::string conninfo)
    : conn_(c), conninfo_(std::move(conninfo)), prepared_(std::make_unique<Prepared>()) {}

void Connection::Finish::operator()(pg_conn* c) const { PQfinish(c); }
Connection::Connection(Connection&& other) noexcept = default;
Connection& Connection::operator=(Connection&& other) noexcept = default;
Connection::~Connection() = default;

bool Connection::in_transaction() const {
  return handle() && PQtransactionStatus(handle()) != PQTRANS_IDLE &&
         PQtransactionStatus(handle()) != PQTRANS_UNKNOWN;
}

bool Connection::healthy() const { return handle() && PQstatus(handle()) == CONNECTION_OK; }

namespace {

bool is_end_of_transaction(std::string_view sql) { return sql == "ROLLBACK" || sql == "COMMIT"; }

}  // namespace

Status Connection::ready_for(std::string_view sql) {
  if (!prepared_) return Status::Internal("postgresql: use of a moved-from connection");
  if (handle() && PQstatus(handle()) == CONNECTION_OK) return Status::Ok();
  // The server went away. Inside a transaction that is final: its statements are lost with the
  // session, and later ones must not quietly run outside it. Else reconnect once (statements
  // prepared on the old session are gone with it).
  if (prepared_ && prepared_->in_tx) {
    if (is_end_of_transaction(sql)) prepared_->in_tx = false;
    return Status::IOError(
        "postgresql: the connection was lost inside a transaction (SQLSTATE 08006)");
  }
  ADJ_TRY(pg_conn * c, connect(conninfo_));
  conn_.reset(c);
  prepared_ = std::make_unique<Prepared>();
  return Status::Ok();
}

void Connection::note_state() {
  // A session that just broke reports no transaction state: keep what was known before.
  if (PQstatus(handle()) != CONNECTION_OK) return;
  const auto t = PQtransactionStatus(handle());
  prepared_->in_tx = t == PQTRANS_INTRANS || t == PQTRANS_INERROR || t == PQTRANS_ACTIVE;
}

Result<Rows> Connection::round_trip(const std::function<int(pg_conn*)>& send,
                                    std::string_view context) {
  const DatabaseWaitLimits limits = effective_wait_limits();
  const auto start = PgWaitClock::now();
  const auto deadline = start + limits.statement;
  const auto abandon = [&](Status why) -> Status {
    close();  // the session is in an unknown state: never reused
    return why;
  };
  const auto lost = [&] { return abandon(result_status(handle(), nullptr, context)); };
  // A send needs a connection with nothing pending. Every round trip reads all of its own, so
  // what is left comes from a COPY its caller abandoned (pg_copy_in.h: a row failed a check half
  // way): that COPY is ended with an error, as PQexec would, and the server's verdict read, all
  // within the deadline; anything else pending means an earlier wait was left half way (a bug).
  if (PQsetnonblocking(handle(), 1) != 0) return lost();
  for (;;) {
    if (PQconsumeInput(handle()) == 0) return lost();
    if (PQisBusy(handle())) {
      const int w = pg_wait_socket(handle(), POLLIN, start, deadline);
      if (w <= 0)
        return abandon(Status::IOError(
            "postgresql: the connection was still busy with an earlier statement (SQLSTATE "
            "08006)"));
      continue;
    }
    pg_result* stale = PQgetResult(handle());
    if (!stale) break;
    const auto st = PQresultStatus(stale);
    PQclear(stale);
    if (st == PGRES_COPY_OUT || st == PGRES_COPY_BOTH)
      return abandon(Status::IOError("postgresql: an earlier COPY was left unfinished"));
    if (st != PGRES_COPY_IN) continue;
    for (int e; (e = PQputCopyEnd(handle(), "abandoned by the client")) != 1;) {
      if (e < 0 || pg_wait_socket(handle(), POLLOUT, start, deadline) <= 0) return lost();
    }
    for (int f; (f = PQflush(handle())) != 0;) {
      if (f < 0 || pg_wait_socket(handle(), POLLOUT, start, deadline) <= 0) return lost();
    }
  }
  // Non-blocking while the statement goes out, so a server that stopped reading cannot hold the
  // send past the deadline. Blocking again afterwards (PQexec users such as COPY expect it).
  if (send(handle()) != 1) {
    Status s = result_status(handle(), nullptr, context);
    if (PQstatus(handle()) != CONNECTION_OK) return abandon(s);
    PQsetnonblocking(handle(), 0);
    return s;
  }
  Rows keep;  // the first failed result, else the last
  const auto failed = [](pg_result* r) {
    const auto st = PQresultStatus(r);
    return st == PGRES_BAD_RESPONSE || st == PGRES_NONFATAL_ERROR || st == PGRES_FATAL_ERROR;
  };
  bool flushed = false;
  for (;;) {
    if (!flushed) {
      const int f = PQflush(handle());
      if (f < 0) return lost();
      flushed = f == 0;
    }
    // Whatever already arrived is read before waiting: a result may be complete in libpq's
    // buffer with nothing more to come on the socket.
    // A connection that broke is no longer busy: its error result is read below.
    if (PQconsumeInput(handle()) == 0 && PQisBusy(handle())) return lost();
    while (flushed && !PQisBusy(handle())) {
      pg_result* r = PQgetResult(handle());
      if (!r) {
        PQsetnonblocking(handle(), 0);
        note_database_answered();
        if (!keep.r_) return result_status(handle(), nullptr, context);
        return keep;
      }
      const auto st = PQresultStatus(r);
      if (keep.r_ && failed(keep.r_.get()))
        PQclear(r);
      else
        keep.r_.reset(r);
      // COPY hands the connection to its caller (pg_copy_in.h) instead of ending the query.
      if (st == PGRES_COPY_IN || st == PGRES_COPY_OUT || st == PGRES_COPY_BOTH) {
        PQsetnonblocking(handle(), 0);
        note_database_answered();
        return keep;
      }
    }
    const int w = pg_wait_socket(handle(), flushed ? POLLIN : POLLIN | POLLOUT, start, deadline);
    if (w == 0) {
      const auto waited =
          std::chrono::duration_cast<std::chrono::milliseconds>(PgWaitClock::now() - start);
      return abandon(
          Status::IOError("postgresql: the server did not answer within " + pg_millis(waited) +
                          " (SQLSTATE 57014) in: " + store_checks::sql_context(context)));
    }
    if (w < 0) return lost();
  }
}

namespace {

std::atomic<std::uint64_t> g_write_epoch{0};
thread_local bool t_quiet_writes = false;

bool is_select(std::string_view sql) {
  return ascii::istarts_with(ascii::trim_view(sql), "SELECT");
}

}  // namespace

std::uint64_t write_epoch() { return g_write_epoch.load(std::memory_order_acquire); }
void note_write() {
  if (!t_quiet_writes) g_write_epoch.fetch_add(1, std::memory_order_acq_rel);
}
void set_quiet_writes(bool on) { t_quiet_writes = on; }

Result<Rows> Connection::answer(Result<Rows> sent, std::string_view sql, bool ran) {
  note_state();
  // After the statement ended: a write it made (or a transaction it closed) is visible to any
  // query that reads the new value first.
  if (!healthy() || (ran && !prepared_->in_tx && !is_select(sql))) note_write();
  if (!sent.ok()) return sent;
  const auto st = PQresultStatus(sent->r_.get());
  if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK && st != PGRES_EMPTY_QUERY)
    return result_status(handle(), sent->r_.get(), sql);
  return sent;
}

Status Connection::exec(std::string_view sql) {
  ADJ_RETURN_IF_ERROR(ready_for(sql));
  const std::string text(sql);
  ADJ_TRY(const Rows r,
          answer(round_trip([&](pg_conn* c) { return PQsendQuery(c, text.c_str()); }, sql), sql));
  // COMMIT of a failed transaction answers ROLLBACK without an error.
  if (sql == "COMMIT" && std::strcmp(PQcmdStatus(r.r_.get()), "ROLLBACK") == 0)
    return Status::IOError(
        "postgresql: the transaction had failed and was rolled back (SQLSTATE 25P02) in: COMMIT");
  return Status::Ok();
}

Result<Rows> Connection::query(std::string_view sql, std::span<const Param> params) {
  // Text-format values as libpq reads them: C strings (a NUL byte would cut one short without a
  // word). Bytes travel in binary, where they are.
  std::vector<std::string> text(params.size());
  std::vector<const char*> values(params.size());
  std::vector<int> lengths(params.size()), formats(params.size());
  for (std::size_t i = 0; i < params.size(); ++i) {
    const Param& p = params[i];
    if (p.kind() == Param::Kind::kText && p.as_text().find('\0') != std::string_view::npos)
      return Status::InvalidArgument("postgresql: parameter $" + std::to_string(i + 1) +
                                     " holds a NUL byte, which PostgreSQL text cannot store");
    if (p.kind() == Param::Kind::kNull) continue;
    const bool binary = p.kind() == Param::Kind::kBytes;
    if (!binary)
      text[i] = p.kind() == Param::Kind::kText ? std::string(p.as_text()) : number_text(p);
    const std::string_view v = binary ? p.as_text() : std::string_view(text[i]);
    values[i] = v.data();
    lengths[i] = static_cast<int>(v.size());
    formats[i] = binary ? 1 : 0;
  }
  ADJ_RETURN_IF_ERROR(ready_for(sql));
  std::string key(sql);
  auto it = prepared_->names.find(key);
  if (it == prepared_->names.end()) {
    const std::string name = "adj_" + std::to_string(prepared_->next++);
    const auto prepare = [&](pg_conn* c) {
      return PQsendPrepare(c, name.c_str(), key.c_str(), 0, nullptr);
    };
    ADJ_RETURN_IF_ERROR(answer(round_trip(prepare, sql), sql, /*ran=*/false).status());
    it = prepared_->names.emplace(std::move(key), name).first;
  }
  const auto send = [&](pg_conn* c) {
    return PQsendQueryPrepared(c, it->second.c_str(), static_cast<int>(params.size()),
                               values.data(), lengths.data(), formats.data(), /*resultFormat=*/0);
  };
  Result<Rows> out = answer(round_trip(send, sql), sql);
  // A statement that no longer exists on the server (e.g. DISCARD ALL by a pooler) is prepared
  // again on the next call.
  if (!out.ok() && out.status().message().find("(SQLSTATE 26000)") != std::string::npos)
    prepared_->names.erase(it);
  return out;
}

}  // namespace adj::pg
