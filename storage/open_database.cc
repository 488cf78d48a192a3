#include "storage/open_database.h"

#include <cctype>
#include <filesystem>
#include <string_view>
#include <utility>
#include <vector>

#include "base/escape.h"
#include "storage/core/record_checks.h"
#include "storage/postgres/pg_store.h"
#include "storage/sqlite/backup.h"
#include "storage/sqlite/checkpointer.h"
#include "storage/sqlite/database.h"
#include "storage/sqlite/sqlite_store.h"

namespace adj {

namespace {

constexpr std::string_view kSqlitePrefix = "sqlite:";
constexpr std::string_view kRedacted = "***";

// The scheme of "SCHEME://...", or "" when `db` does not start like a URL.
std::string url_scheme(const std::string& db) {
  const std::size_t sep = db.find("://");
  if (sep == std::string::npos || sep == 0) return "";
  if (!std::isalpha(static_cast<unsigned char>(db[0]))) return "";
  for (std::size_t i = 0; i < sep; ++i) {
    const unsigned char c = static_cast<unsigned char>(db[i]);
    if (!std::isalnum(c) && c != '+' && c != '-' && c != '.') return "";
  }
  return db.substr(0, sep);
}

// The password spans of a PostgreSQL URL: [begin, end) offsets into `url`. Conservative: the user
// part is taken to end at the last '@' before the query, so a password holding '@' or '/' (which
// libpq would misread anyway) is still covered.
std::vector<std::pair<std::size_t, std::size_t>> password_spans(const std::string& url) {
  std::vector<std::pair<std::size_t, std::size_t>> spans;
  const std::size_t start = url.find("://") + 3;
  const std::size_t query = url.find('?', start);
  const std::size_t before_query = query == std::string::npos ? url.size() : query;
  const std::size_t at = url.rfind('@', before_query == 0 ? 0 : before_query - 1);
  if (at != std::string::npos && at >= start) {
    const std::size_t colon = url.find(':', start);
    if (colon != std::string::npos && colon < at) spans.emplace_back(colon + 1, at);
  }
  if (query != std::string::npos) {
    std::size_t p = query + 1;
    while (p <= url.size()) {
      std::size_t amp = url.find('&', p);
      if (amp == std::string::npos) amp = url.size();
      const std::string_view param(url.data() + p, amp - p);
      constexpr std::string_view key = "password=";
      if (param.starts_with(key)) spans.emplace_back(p + key.size(), amp);
      p = amp + 1;
    }
  }
  return spans;
}

std::string redact_url(const std::string& url) {
  std::string out = url;
  auto spans = password_spans(url);
  // Back to front, so earlier offsets stay valid.
  for (auto it = spans.rbegin(); it != spans.rend(); ++it)
    out.replace(it->first, it->second - it->first, kRedacted);
  return out;
}

// `message` with every password of `url` (as written and percent-decoded) replaced by "***": a
// driver's error may quote parts of the connection string.
std::string scrub(std::string message, const std::string& url) {
  for (const auto& [b, e] : password_spans(url)) {
    const std::string raw = url.substr(b, e - b);
    message = store_checks::redacted(std::move(message), raw);
    message = store_checks::redacted(std::move(message), url_decode(raw, false));
  }
  return message;
}

}  // namespace

Result<DatabaseTarget> parse_database(const std::string& db) {
  if (db.empty()) return Status::InvalidArgument("no database given (--db or ADJUTANT_DB)");
  if (db.starts_with("postgresql://") || db.starts_with("postgres://"))
    return DatabaseTarget{DatabaseBackend::kPostgres, db};
  if (db.starts_with(kSqlitePrefix)) {
    std::string path = db.substr(kSqlitePrefix.size());
    if (path.empty()) return Status::InvalidArgument("database \"sqlite:\" names no file");
    return DatabaseTarget{DatabaseBackend::kSqlite, std::move(path)};
  }
  if (const std::string scheme = url_scheme(db); !scheme.empty())
    return Status::InvalidArgument("database URL scheme \"" + scheme +
                                   "\" is not known: use postgresql://..., sqlite:PATH or a "
                                   "file path");
  return DatabaseTarget{DatabaseBackend::kSqlite, db};
}

std::string describe_database(const std::string& db) {
  if (!url_scheme(db).empty()) return redact_url(db);
  return db;
}

namespace {

// The store `target` (parsed from `db`) names, opened and migrated; errors name the database.
Result<std::unique_ptr<SqlStore>> open_sql_store(const DatabaseTarget& target,
                                                 const std::string& db) {
  if (target.backend == DatabaseBackend::kPostgres) {
    auto store = PgStore::open(target.location);
    if (!store.ok())
      return Status(store.status().code(), "database " + describe_database(db) + ": " +
                                               scrub(store.status().message(), db));
    return std::unique_ptr<SqlStore>(std::move(store).value());
  }
  auto store = SqliteStore::open(target.location);
  if (!store.ok())
    return Status(store.status().code(),
                  "database " + target.location + ": " + store.status().message());
  return std::unique_ptr<SqlStore>(std::move(store).value());
}

}  // namespace

Result<std::unique_ptr<Store>> open_database(const std::string& db) {
  ADJ_TRY(const DatabaseTarget target, parse_database(db));
  ADJ_TRY(auto store, open_sql_store(target, db));
  return std::unique_ptr<Store>(std::move(store));
}

Result<std::unique_ptr<TableAccess>> open_table_access(const std::string& db, bool must_exist) {
  ADJ_TRY(const DatabaseTarget target, parse_database(db));
  const bool sqlite = target.backend == DatabaseBackend::kSqlite;
  std::error_code ec;
  if (sqlite && must_exist && !std::filesystem::exists(target.location, ec))
    return Status::NotFound("database " + target.location + ": no such file");
  ADJ_TRY(auto store, open_sql_store(target, db));
  return std::make_unique<TableAccess>(std::move(store), sqlite ? target.location : "");
}

std::string database_file(const std::string& db) {
  auto target = parse_database(db);
  if (!target.ok() || target->backend != DatabaseBackend::kSqlite) return "";
  return target->location;
}

void set_default_durability(Durability d) {
  sqlite::set_default_synchronous(d == Durability::kFull);
}

void set_background_checkpoints(bool on) { sqlite::set_background_checkpoints(on); }

void set_background_writer_thread() { pg::set_quiet_writes(true); }

void set_revisions_refresher_thread() { PgStore::set_refresher_thread(true); }
static_assert(kRevisionsRefresh <= PgStore::kRevisionsFresh / 4,
              "the refresher's reads must stay fresh for the other threads");

Result<DatabaseBackup> backup_database(const std::string& db, const std::string& to) {
  ADJ_TRY(const DatabaseTarget target, parse_database(db));
  if (target.backend != DatabaseBackend::kSqlite)
    return Status::FailedPrecondition("backup copies SQLite files; for PostgreSQL (" +
                                      describe_database(db) + ") use pg_dump");
  return sqlite::backup_database(target.location, to);
}

}  // namespace adj
