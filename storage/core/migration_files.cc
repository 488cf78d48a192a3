#include "storage/core/migration_files.h"

#include <algorithm>
#include <charconv>

#include "schemas/embedded.h"
#include "storage/core/messages.h"

namespace adj {

std::string dialect_fragment(std::string_view file, Dialect dialect) {
  std::string out;
  bool on = true;
  while (!file.empty()) {
    const auto nl = file.find('\n');
    const std::string_view line =
        file.substr(0, nl == std::string_view::npos ? file.size() : nl + 1);
    file.remove_prefix(line.size());
    std::string_view bare = line;
    while (!bare.empty() && (bare.back() == '\n' || bare.back() == '\r' || bare.back() == ' '))
      bare.remove_suffix(1);
    if (bare == "-- @both")
      on = true;
    else if (bare == "-- @sqlite")
      on = dialect == Dialect::kSqlite;
    else if (bare == "-- @postgres")
      on = dialect == Dialect::kPostgres;
    else if (on)
      out += line;
  }
  return out;
}

Result<Migration> migration_from_file(std::string_view path, std::string_view sql) {
  const auto slash = path.rfind('/');
  std::string_view file = slash == std::string_view::npos ? path : path.substr(slash + 1);
  const auto bad = [&] {
    return Status::InvalidArgument("migration file name must look like 0001_name.sql: " +
                                   std::string(path));
  };
  constexpr std::string_view kExt = ".sql";
  if (file.size() <= kExt.size() || !file.ends_with(kExt)) return bad();
  file.remove_suffix(kExt.size());
  const auto underscore = file.find('_');
  if (underscore == std::string_view::npos || underscore < 4) return bad();
  Migration m;
  const auto digits = file.substr(0, underscore);
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), m.version);
  if (ec != std::errc() || end != digits.data() + digits.size() || m.version < 1) return bad();
  m.name = std::string(file.substr(underscore + 1));
  if (m.name.empty() || !std::all_of(m.name.begin(), m.name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
      }))
    return bad();
  m.sql = std::string(sql);
  return m;
}

Status check_sequence(const std::vector<Migration>& migrations) {
  for (std::size_t i = 0; i < migrations.size(); ++i) {
    if (migrations[i].version != static_cast<int>(i) + 1)
      return Status::InvalidArgument("migrations must be numbered 1, 2, 3, ...; found " +
                                     std::to_string(migrations[i].version) + " (" +
                                     migrations[i].name + ") at position " + std::to_string(i + 1));
  }
  return Status::Ok();
}

Result<std::vector<Migration>> bundled_migrations(Dialect dialect) {
  std::vector<Migration> out;
  for (const auto& path : embedded_files("schemas/migrations/")) {
    auto m = migration_from_file(path, dialect_fragment(embedded_file(path).value_or(""), dialect));
    if (!m.ok()) return Status::Internal(m.status().message());
    out.push_back(std::move(m).value());
  }
  std::sort(out.begin(), out.end(),
            [](const Migration& a, const Migration& b) { return a.version < b.version; });
  if (auto s = check_sequence(out); !s.ok()) return Status::Internal(s.message());
  return out;
}

namespace {

// Applies `m` unless it is already recorded: re-checked inside the transaction, so two
// processes migrating one database do not both apply it.
Status apply(sql::Session& s, const Migration& m) {
  ADJ_TRY(auto tx, sql::WriteTx::begin(s));
  ADJ_TRY(const sql::Rows seen,
          s.query("SELECT 1 FROM schema_migrations WHERE version = ?", {m.version}));
  if (!seen.empty()) return Status::Ok();  // the destructor rolls back the empty transaction
  const std::string where = "migration " + std::to_string(m.version) + "_" + m.name + ": ";
  if (auto st = s.exec(m.sql); !st.ok()) return Status(st.code(), where + st.message());
  const bool lite = s.dialect() == Dialect::kSqlite;
  ADJ_RETURN_IF_ERROR(
      s.write(std::string("INSERT INTO schema_migrations(version, name, "
                          "applied_at) VALUES (?, ?, ") +
                  (lite ? "unixepoch())" : "CAST(extract(epoch FROM now()) AS BIGINT))"),
              {m.version, m.name}));
  if (lite) ADJ_RETURN_IF_ERROR(s.exec("PRAGMA user_version = " + std::to_string(m.version)));
  return tx.commit();
}

}  // namespace

Result<int> migrate(sql::Session& s, const std::vector<Migration>& migrations,
                    const std::function<Status()>& before) {
  ADJ_RETURN_IF_ERROR(check_sequence(migrations));
  const bool lite = s.dialect() == Dialect::kSqlite;
  {
    // In a write transaction taken up front: on SQLite an autocommit write that first reads would
    // fail at once (SQLITE_BUSY_SNAPSHOT, no busy wait) when another process migrates the same new
    // file.
    ADJ_TRY(auto tx, sql::WriteTx::begin(s));
    ADJ_RETURN_IF_ERROR(s.exec(lite ? "CREATE TABLE IF NOT EXISTS schema_migrations (version "
                                      "INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at "
                                      "INTEGER NOT NULL) STRICT"
                                    : "CREATE TABLE IF NOT EXISTS schema_migrations (version "
                                      "BIGINT PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT "
                                      "NOT NULL)"));
    ADJ_RETURN_IF_ERROR(tx.commit());
  }
  if (before) ADJ_RETURN_IF_ERROR(before());
  const int known = static_cast<int>(migrations.size());
  int recorded = 0, stamped = 0;
  {
    // One snapshot for both: between two statements another process may commit a migration.
    ADJ_TRY(const sql::ReadTx read, sql::ReadTx::begin(s));
    ADJ_TRY(const sql::Rows rows,
            s.query("SELECT coalesce(max(version), 0) FROM schema_migrations", {}));
    recorded = rows.int32(0, 0);
    ADJ_TRY(stamped, lite ? schema_version(s) : Result<int>(recorded));
  }
  const int newest = std::max(stamped, recorded);
  if (newest > known) return Status::FailedPrecondition(schema_too_new(newest, known));
  if (stamped != recorded)
    return Status::Corruption("database user_version is " + std::to_string(stamped) +
                              " but schema_migrations records version " + std::to_string(recorded));
  for (const auto& m : migrations)
    if (m.version > recorded) ADJ_RETURN_IF_ERROR(apply(s, m));
  return schema_version(s);
}

Result<int> schema_version(sql::Session& s) {
  if (s.dialect() == Dialect::kSqlite) {
    ADJ_TRY(const sql::Rows r, s.query("PRAGMA user_version", {}));
    return r.empty() ? 0 : r.int32(0, 0);
  }
  ADJ_TRY(const sql::Rows exists,
          s.query("SELECT to_regclass('schema_migrations') IS NOT NULL", {}));
  if (!exists.boolean(0, 0)) return 0;
  ADJ_TRY(const sql::Rows r,
          s.query("SELECT coalesce(max(version), 0) FROM schema_migrations", {}));
  return r.int32(0, 0);
}

}  // namespace adj
