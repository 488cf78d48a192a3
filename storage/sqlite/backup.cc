#include "storage/sqlite/backup.h"

#include <sqlite3.h>

#include <filesystem>
#include <system_error>

#include "storage/sqlite/database.h"

namespace adj::sqlite {

namespace {

namespace fs = std::filesystem;

// Copies `from` into the new file `tmp` in one step and checks the copy; its pages and schema
// version into `info`. The copy is closed (its WAL checkpointed away) on return.
Status copy_checked(const std::string& from, const std::string& tmp, DatabaseBackup& info) {
  {
    ADJ_TRY(Database src, Database::open(from));
    ADJ_RETURN_IF_ERROR(make_private_file(tmp));  // a backup holds every secret: owner only
    sqlite3* dst = nullptr;
    int rc =
        sqlite3_open_v2(tmp.c_str(), &dst, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
    if (rc != SQLITE_OK) {
      Status s = sqlite_status(dst, rc, "open " + tmp);
      sqlite3_close_v2(dst);
      return s;
    }
    sqlite3_backup* b = sqlite3_backup_init(dst, "main", src.handle(), "main");
    if (!b) {
      Status s = sqlite_status(dst, sqlite3_errcode(dst), "backup to " + tmp);
      sqlite3_close_v2(dst);
      return s;
    }
    // All pages in one step: one consistent snapshot (a writer waits at most for this copy).
    rc = sqlite3_backup_step(b, -1);
    info.pages = sqlite3_backup_pagecount(b);
    sqlite3_backup_finish(b);
    const int close_rc = sqlite3_close_v2(dst);
    if (rc != SQLITE_DONE) return sqlite_status(nullptr, rc, "backup of " + from);
    if (close_rc != SQLITE_OK) return sqlite_status(nullptr, close_rc, "close " + tmp);
  }
  ADJ_TRY(Database copy, Database::open(tmp));
  // Each query answers one row: "ok" or the first problem; the highest version.
  auto check = copy.query("PRAGMA integrity_check", {});
  if (!check.ok() || check->text(0, 0) != "ok")
    return Status::Corruption("the copy of " + from + " failed its integrity check: " +
                              (check.ok() ? check->text(0, 0) : check.status().message()));
  auto version = copy.query("SELECT COALESCE(MAX(version), 0) FROM schema_migrations", {});
  if (version.ok()) info.schema_version = version->int32(0, 0);
  // Back to a single file: the copy's WAL is checkpointed and removed when it closes.
  (void)copy.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  return Status::Ok();
}

}  // namespace

Result<DatabaseBackup> backup_database(const std::string& from, const std::string& to) {
  std::error_code ec;
  if (!fs::exists(from, ec)) return Status::NotFound("no database at " + from);
  if (fs::exists(to, ec))
    return Status::AlreadyExists(to + " already exists; a backup never overwrites a file");
  const std::string tmp = to + ".partial";
  fs::remove(tmp, ec);
  DatabaseBackup info;
  Status s = copy_checked(from, tmp, info);
  if (s.ok()) {
    info.bytes = static_cast<std::int64_t>(fs::file_size(tmp, ec));
    fs::rename(tmp, to, ec);
    if (ec) s = Status::IOError("cannot move the backup to " + to + ": " + ec.message());
  }
  if (s.ok()) return info;
  fs::remove(tmp, ec);  // the partial copy
  return s;
}

}  // namespace adj::sqlite
