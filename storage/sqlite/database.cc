#include "storage/sqlite/database.h"
#include "storage/core/record_checks.h"
#include "storage/sqlite/checkpointer.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <algorithm>
#include <atomic>
#include <cassert>
#include <cctype>
#include <cstdint>
#include <unordered_map>
#include <utility>

namespace adj::sqlite {

using store_checks::sql_context;

// Idle compiled statements of one connection, by SQL text.
struct StatementCache {
  std::unordered_multimap<std::string, sqlite3_stmt*> idle;
  ~StatementCache() {
    for (auto& [sql, stmt] : idle) sqlite3_finalize(stmt);
  }
};

namespace {

// SQLite binds NULL for a null data pointer; empty text and blobs must stay non-NULL.
constexpr char kEmpty[1] = {};

StatusCode code_for(int rc) {
  switch (rc & 0xff) {
    case SQLITE_CONSTRAINT:
      if (rc == SQLITE_CONSTRAINT_PRIMARYKEY || rc == SQLITE_CONSTRAINT_UNIQUE)
        return StatusCode::kAlreadyExists;
      if (rc == SQLITE_CONSTRAINT_FOREIGNKEY) return StatusCode::kFailedPrecondition;
      return StatusCode::kInvalidArgument;
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return StatusCode::kCorruption;
    case SQLITE_ERROR:
    case SQLITE_MISUSE:
    case SQLITE_RANGE:
      return StatusCode::kInternal;
    default:
      return StatusCode::kIOError;
  }
}

}  // namespace

Status sqlite_status(sqlite3* db, int rc, std::string_view context) {
  // The connection's message is the most specific, but only when it describes this code.
  const bool same = db && (sqlite3_extended_errcode(db) & 0xff) == (rc & 0xff);
  const char* msg = same ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  std::string text = std::string("sqlite: ") + msg + " (code " + std::to_string(rc) + ")";
  if (!context.empty()) text += " in: " + sql_context(context);
  return Status(code_for(rc), std::move(text));
}

namespace {
std::atomic<bool> g_synchronous_full{false};

// set_busy_wait's sleeps: kFirstSleepUs doubling kDoublings times, then kLastSleepUs each.
constexpr std::int64_t kFirstSleepUs = 50;
constexpr int kDoublings = 5;
constexpr std::int64_t kLastSleepUs = 1000;

// The handler set_busy_wait installs; `arg` is the budget in milliseconds.
int busy_wait(void* arg, int count) {
  const std::int64_t budget_us = reinterpret_cast<std::intptr_t>(arg) * std::int64_t{1000};
  // The sleeps before this one: the doubling ones (a geometric sum), then the last size.
  const std::int64_t slept =
      kFirstSleepUs * ((std::int64_t{1} << std::min(count, kDoublings)) - 1) +
      kLastSleepUs * std::max(count - kDoublings, 0);
  if (slept >= budget_us) return 0;  // SQLITE_BUSY to the caller
  ::usleep(static_cast<useconds_t>(std::min(busy_sleep_us(count), budget_us - slept)));
  return 1;
}

}  // namespace

std::int64_t busy_sleep_us(int count) {
  assert(count >= 0);
  return count < kDoublings ? kFirstSleepUs << count : kLastSleepUs;
}

void set_busy_wait(sqlite3* db, int timeout_ms) {
  sqlite3_busy_handler(db, busy_wait,
                       reinterpret_cast<void*>(static_cast<std::intptr_t>(timeout_ms)));
}

void set_default_synchronous(bool full) { g_synchronous_full = full; }

// ---- Database ----------------------------------------------------------------------------------

Status make_private_file(const std::string& path) {
  if (path.empty() || path == ":memory:" || path.starts_with("file:")) return Status::Ok();
  // Created 0600 before SQLite opens it; SQLite gives the -wal and -shm files the database's mode.
  // O_EXCL: an existing file is never opened here, because closing any descriptor of a file drops
  // every POSIX lock this process holds on it, those of its open SQLite connections included.
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd >= 0) {
    ::close(fd);
  } else if (errno != EEXIST && errno != EISDIR && errno != ENOENT && errno != ELOOP &&
             errno != EACCES) {  // those SQLite reports in its own words
    return Status::IOError("cannot create " + path + ": " + std::strerror(errno));
  }
  // Files written by an older adjutant (or another umask) are tightened: owner only.
  for (const char* ext : {"", "-wal", "-shm", "-journal"}) {
    const std::string p = path + ext;
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    if ((st.st_mode & 077) != 0 && ::chmod(p.c_str(), st.st_mode & 0700) != 0)
      return Status::IOError("cannot make " + p + " private (chmod): " + std::strerror(errno));
  }
  return Status::Ok();
}

Result<Database> Database::open(const std::string& path) {
  ADJ_RETURN_IF_ERROR(make_private_file(path));
  sqlite3* raw = nullptr;
  const int rc =
      sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  Database db(raw);  // closes `raw` on every return path, even when open failed
  if (rc != SQLITE_OK) return sqlite_status(raw, rc, "open " + path);
  sqlite3_extended_result_codes(raw, 1);
  // Before any statement: switching to WAL, migrating and even reading the schema of a file that
  // another process is creating or migrating wait for its lock instead of failing at once.
  set_busy_wait(raw, kBusyTimeoutMs);

  // A new file gets 16 KB pages (an existing one keeps its own: the pragma only applies before
  // the first write). A report (~4.5 KB at 10,000 players) does not fit a 4 KB page and spills
  // into overflow pages. At 10,000 players the file after a turn is 14% smaller (520 MB
  // against 602 MB) and its commit took 2.5-3.5 s instead of 3.4-4.3 s, run back to back.
  ADJ_RETURN_IF_ERROR(db.exec("PRAGMA page_size=16384"));
  // journal_mode answers with the mode it ended in; anything but WAL on a file is an error.
  ADJ_TRY(Statement mode, db.prepare("PRAGMA journal_mode=WAL"));
  auto row = mode.step();
  // Switching a new file to WAL while another process does the same can answer SQLITE_BUSY
  // without waiting; it is tried again within the busy timeout.
  for (int waited = 0; !row.ok() && (sqlite3_extended_errcode(raw) & 0xff) == SQLITE_BUSY &&
                       waited < kBusyTimeoutMs;
       waited += 20) {
    mode.reset();
    sqlite3_sleep(20);
    row = mode.step();
  }
  if (!row.ok()) return row.status();
  const std::string got = *row ? std::string(mode.column(0).as_text()) : "";
  mode.reset();
  if (got != "wal" && got != "memory")
    return Status::IOError("sqlite: " + path + " could not switch to WAL (journal_mode=" + got +
                           ")");

  if (background_checkpoints() && got == "wal" && !path.empty() && !path.starts_with("file:")) {
    db.checkpointer_ = Checkpointer::for_file(path);
    db.checkpointer_->attach(raw);
  }
  ADJ_RETURN_IF_ERROR(db.exec("PRAGMA foreign_keys=ON"));
  ADJ_RETURN_IF_ERROR(
      db.exec(g_synchronous_full ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL"));
  return db;
}

Database::Database(sqlite3* db) : db_(db), cache_(std::make_unique<StatementCache>()) {}

// sqlite3_close_v2: a connection whose statements are not finalized yet (a move-assignment
// replaces the connection before the cache) closes once the last one is.
void Database::Close::operator()(sqlite3* db) const { sqlite3_close_v2(db); }
Database::Database(Database&& other) noexcept = default;
Database& Database::operator=(Database&& other) noexcept = default;
Database::~Database() = default;

Status Database::exec(std::string_view sql) {
  const std::string text(sql);
  char* err = nullptr;
  const int rc = sqlite3_exec(handle(), text.c_str(), nullptr, nullptr, &err);
  sqlite3_free(err);  // the same text is still available from sqlite3_errmsg
  if (rc != SQLITE_OK) return sqlite_status(handle(), rc, sql);
  return Status::Ok();
}

Result<Statement> Database::prepare(std::string_view sql) {
  std::string text(sql);
  if (cache_) {
    if (auto it = cache_->idle.find(text); it != cache_->idle.end()) {
      sqlite3_stmt* stmt = it->second;
      cache_->idle.erase(it);
      return Statement(stmt, std::move(text), cache_.get());
    }
  }
  sqlite3_stmt* stmt = nullptr;
  const char* tail = nullptr;
  const int rc =
      sqlite3_prepare_v2(handle(), sql.data(), static_cast<int>(sql.size()), &stmt, &tail);
  Statement st(stmt, std::move(text), nullptr);
  if (rc != SQLITE_OK) return sqlite_status(handle(), rc, sql);
  if (!stmt) return Status::Internal("sqlite: no statement in: " + sql_context(sql));
  for (const char* p = tail; p && p < sql.data() + sql.size(); ++p) {
    if (!std::isspace(static_cast<unsigned char>(*p)) && *p != ';')
      return Status::Internal("sqlite: more than one statement in: " + sql_context(sql));
  }
  st.stmt_.get_deleter().cache = cache_.get();  // only a well-formed single statement is reused
  return st;
}

bool Database::in_transaction() const { return sqlite3_get_autocommit(handle()) == 0; }

// ---- Statement ---------------------------------------------------------------------------------

void Statement::Release::operator()(sqlite3_stmt* stmt) {
  if (cache && cache->idle.size() < Database::kMaxIdleStatements) {
    sqlite3_reset(stmt);
    sqlite3_clear_bindings(stmt);
    cache->idle.emplace(std::move(sql), stmt);
  } else {
    sqlite3_finalize(stmt);
  }
}

void Statement::keep_bind_error(int rc) {
  if (rc != SQLITE_OK && bind_error_.ok())
    bind_error_ = sqlite_status(sqlite3_db_handle(stmt()), rc, sql());
}

Statement& Statement::bind(int index, const sql::Param& value, bool in_place) {
  const std::string_view bytes = value.as_text();
  const void* data = bytes.data() ? bytes.data() : kEmpty;
  const auto keep = in_place ? SQLITE_STATIC : SQLITE_TRANSIENT;
  switch (value.kind()) {
    case sql::Param::Kind::kNull:
      keep_bind_error(sqlite3_bind_null(stmt(), index));
      break;
    case sql::Param::Kind::kInt:
      keep_bind_error(sqlite3_bind_int64(stmt(), index, value.as_int()));
      break;
    case sql::Param::Kind::kReal:
      keep_bind_error(sqlite3_bind_double(stmt(), index, value.as_real()));
      break;
    case sql::Param::Kind::kText:
      keep_bind_error(sqlite3_bind_text64(stmt(), index, static_cast<const char*>(data),
                                          bytes.size(), keep, SQLITE_UTF8));
      break;
    case sql::Param::Kind::kBytes:
      keep_bind_error(sqlite3_bind_blob64(stmt(), index, data, bytes.size(), keep));
      break;
  }
  return *this;
}

Result<bool> Statement::step() {
  if (!bind_error_.ok()) return bind_error_;
  const int rc = sqlite3_step(stmt());
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return sqlite_status(sqlite3_db_handle(stmt()), rc, sql());
}

Status Statement::run() {
  for (;;) {
    ADJ_TRY(const bool row, step());
    if (!row) return Status::Ok();
  }
}

void Statement::reset() {
  sqlite3_reset(stmt());
  sqlite3_clear_bindings(stmt());
  bind_error_ = Status::Ok();
}

int Statement::column_count() const { return sqlite3_column_count(stmt()); }

sql::Param Statement::column(int index) const {
  sqlite3_stmt* st = stmt();
  const int type = sqlite3_column_type(st, index);
  if (type == SQLITE_INTEGER) return static_cast<std::int64_t>(sqlite3_column_int64(st, index));
  if (type == SQLITE_FLOAT) return sqlite3_column_double(st, index);
  if (type != SQLITE_TEXT && type != SQLITE_BLOB) return sql::Param();
  // The pointer before the size, per the SQLite docs; an empty BLOB's pointer is NULL.
  const void* p = type == SQLITE_TEXT ? static_cast<const void*>(sqlite3_column_text(st, index))
                                      : sqlite3_column_blob(st, index);
  const std::string_view bytes(p ? static_cast<const char*>(p) : "",
                               static_cast<std::size_t>(sqlite3_column_bytes(st, index)));
  return type == SQLITE_TEXT ? sql::Param(std::string(bytes)) : sql::Param::bytes(bytes);
}

}  // namespace adj::sqlite
