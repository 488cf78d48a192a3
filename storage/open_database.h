// The one place that turns a database argument (`--db`, env ADJUTANT_DB) into a Store, and the
// only code outside storage/sqlite and storage/postgres that names a backend's classes.
//
// Accepted forms (the first that matches wins):
//   postgresql://[USER[:PASSWORD]@][HOST][:PORT][/DBNAME][?KEY=VALUE&...]
//   postgres://...            PostgreSQL; the whole string is handed to libpq as a connection
//                             URI (libpq's rules: percent-encoding, host=/socket/dir in the
//                             query, PGPASSWORD and ~/.pgpass for a password kept out of it).
//   sqlite:PATH               SQLite, the file PATH (created when missing).
//   PATH                      SQLite, the file PATH: anything else, e.g. "adjutant.db".
// SQLite is the default and the embedded choice for one host; PostgreSQL is for several daemons
// or machines sharing one database.
//
// Secrets: a password in a URL is never part of an error message or of describe_database();
// callers log and print only those.
//
// Thread-safety: every function may be called from any thread; each Store returned belongs to
// the calling thread (storage/store.h).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "rules/core/status.h"
#include "storage/store.h"
#include "storage/table_copy.h"

namespace adj {

enum class DatabaseBackend { kSqlite, kPostgres };

struct DatabaseTarget {
  DatabaseBackend backend = DatabaseBackend::kSqlite;
  // kSqlite: the file path (without "sqlite:"). kPostgres: the URI as given, for libpq.
  std::string location;
};

// Which backend `db` names, and where. InvalidArgument for "" or "sqlite:" without a path.
Result<DatabaseTarget> parse_database(const std::string& db);

// `db` fit for logs and errors: a PostgreSQL URL with its password (in the user part or as a
// password= query parameter) replaced by "***"; a SQLite path as given.
std::string describe_database(const std::string& db);

// Opens the database `db` names (see the forms above), creating a SQLite file when missing, and
// applies the backend's pending migrations. Errors name the database by describe_database() and
// never carry a password. Does not run the C++ upgrade steps of server/app/open_store.h.
Result<std::unique_ptr<Store>> open_database(const std::string& db);

// The SQLite file `db` names, or "" for a database that is not a local file (PostgreSQL). Files
// kept beside the database (the outbox Maildir, the demo's GM token) go beside this one.
std::string database_file(const std::string& db);

// Durability of commits opened after this call: kNormal keeps every commit across a crash of the
// process; kFull also across power loss (SQLite: synchronous=FULL, an fsync per commit).
// PostgreSQL commits are always durable (its own settings decide). Call before opening stores.
enum class Durability { kNormal, kFull };
void set_default_durability(Durability d);

// While on (default off), a SQLite file opened from now on has its write-ahead log copied into
// it on a thread of its own instead of on the thread whose commit filled the log
// (sqlite/checkpointer.h): for a long-running process with many writing threads, the daemon.
// PostgreSQL: nothing changes. Call before opening stores.
void set_background_checkpoints(bool on);

// Marks the calling thread's writes as background work (the daemon's scheduler and mail threads):
// on PostgreSQL the revisions that keep pages valid (Store::revisions) are then not read again
// at once after each of them, only within PgStore::kRevisionsFresh, as another process's writes;
// the web's own writes still show at once. With 200 games due at once those threads wrote
// hundreds of times a second, and the first page request on each HTTP thread after any of those
// writes read the revisions from the server again (docs/performance.md). SQLite: nothing changes.
void set_background_writer_thread();

// Marks the calling thread as the one that reads the revisions (Store::revisions) every
// kRevisionsRefresh or sooner, through a store of its own, for the other threads of the process:
// on PostgreSQL their stores then take its reads as their own (PgStore::set_refresher_thread), so
// a thread that must not wait for the server (the HTTP threads) reads them again only after this
// process wrote. SQLite: nothing changes (its revisions are read without a round trip).
void set_revisions_refresher_thread();
inline constexpr std::chrono::milliseconds kRevisionsRefresh{25};

// Row-level access to the whole database `db` names, for `adjutant copy` (storage/table_copy.h),
// migrated like open_database(). `must_exist`: a SQLite file that is missing is NotFound instead
// of being created (a copy's source).
Result<std::unique_ptr<TableAccess>> open_table_access(const std::string& db, bool must_exist);

// `adjutant backup`: a consistent copy of a live SQLite database into the new file `to` (never
// overwriting; see storage/sqlite/backup.h for the errors). FailedPrecondition for PostgreSQL,
// whose own tools (pg_dump) do this.
struct DatabaseBackup {
  std::int64_t pages = 0;
  std::int64_t bytes = 0;
  int schema_version = 0;  // the highest migration in the copy
};
Result<DatabaseBackup> backup_database(const std::string& db, const std::string& to);

}  // namespace adj
