// The PostgreSQL implementation of Store (storage/store.h), over one database whose schema is
// the @postgres fragments of schemas/migrations/*.sql. Same tables and column names as the SQLite
// schema (types mapped: INTEGER -> BIGINT, BLOB -> BYTEA, times stay Unix seconds), so
// `adjutant copy` moves rows table by table and compares them.
//
// What both backends share (checks, error texts, the details the interfaces leave open) is
// SqlStore's (storage/core/sql_store.h), written once over this connection's sql::Session; the
// storage tests run against both. This class adds opening and migrations and revisions. Where
// several daemons share the database, the claims (begin_resolving, lease_inbox, claim...) are
// single conditional UPDATEs, row locks or SELECT ... FOR UPDATE SKIP LOCKED, so two processes
// never both win one.
//
// Thread-safety: one PgStore per thread (it owns one connection).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "storage/core/sql_store.h"
#include "storage/postgres/pg_database.h"
#include "storage/postgres/pg_session.h"

namespace adj {

class PgStore final : public SqlStore {
 public:
  // Connects with `conninfo` (a postgresql:// URI or libpq key=value string) and applies any
  // pending migrations of schemas/migrations under an advisory lock (several daemons may start at
  // once). FailedPrecondition when the database was written by a newer schema than this binary
  // knows.
  static Result<std::unique_ptr<PgStore>> open(const std::string& conninfo);

  // ---- Store: pg_store.cc ----
  std::string backend() const override { return "postgresql"; }
  // The revisions are read again when this process wrote since the last read (pg::write_epoch)
  // or kRevisionsFresh after it, else the kept map answers without a round trip: a page served
  // after a write of this process shows it; another process's write (a second daemon sharing the
  // database, the command line) shows within kRevisionsFresh. A read by another store of this
  // process on the same conninfo counts as this store's own when it began after this process's
  // last write and within kRevisionsFresh, so one thread that reads them often (the refresher
  // below) spares the others the round trip.
  Result<std::shared_ptr<const RevisionMap>> revisions() override;
  static constexpr std::chrono::milliseconds kRevisionsFresh{100};
  // Marks the calling thread as the refresher: its stores read the revisions again once the
  // freshest read of the process is kRevisionsFresh / 2 old, so that, called every
  // kRevisionsFresh / 4, it keeps a read fresh for the other threads (the HTTP threads, which
  // then never wait for the server unless this process wrote).
  static void set_refresher_thread(bool on);
  // Returns 0: PostgreSQL databases never held secrets in clear.
  Result<int> upgrade_credentials(const SecretHasher&, const TokenHasher&, UnixTime) override {
    return 0;
  }

  // The connection, for the backend's own tools (table copy, tests). Not for front ends.
  pg::Connection& connection() { return conn_; }

 private:
  // The freshest revisions read by the stores of one conninfo in this process.
  struct SharedRevisions;
  PgStore(pg::Connection c, std::shared_ptr<SharedRevisions> shared);

  sql::Session& session() override { return session_; }
  // A turn's rows (migration 0025): the battles' and reports' references to their turn checked
  // at the COMMIT, and the JSON CHECKs off for this game's rows until the transaction ends.
  Result<std::unique_ptr<TurnRows>> begin_turn_rows(const std::string& game) override;

  pg::Connection conn_;
  pg::PgSession session_{conn_};
  // revisions(): the kept map (its "*" is the stamp it was read at), and the write epoch and time
  // at which that stamp was last read (the map is current while the epoch is the same and for
  // kRevisionsFresh after the time).
  std::shared_ptr<const RevisionMap> revisions_;
  std::uint64_t revisions_epoch_ = 0;
  std::chrono::steady_clock::time_point revisions_read_at_{};
  std::shared_ptr<SharedRevisions> shared_;
};

}  // namespace adj
