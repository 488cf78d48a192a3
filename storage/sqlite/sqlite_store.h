// The SQLite implementation of the storage interfaces (storage/game_store.h), over one database
// file whose schema is schemas/migrations/*.sql (their @sqlite fragments).
//
// Thread-safety: one SqliteStore per thread. Several stores (threads or processes) may open the
// same file: SQLite's WAL mode lets readers run alongside the one writer, and every write is a
// BEGIN IMMEDIATE transaction that waits up to 5 s for the lock (then IOError).
//
// What both backends share (checks, error texts, the details the interfaces leave open) is
// SqlStore's (storage/core/sql_store.h); this class adds opening, migrations, revisions, the
// throttle's own connection and the unchecked bulk writes of a turn's commit.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "storage/core/sql_store.h"
#include "storage/sqlite/database.h"

namespace adj {

namespace sqlite {
class RevisionWatch;
}

class SqliteStore final : public SqlStore {
 public:
  ~SqliteStore() override;
  // Opens `path`, creating the file if missing, and applies any pending migrations.
  // FailedPrecondition when the file was written by a newer schema than this binary knows.
  static Result<std::unique_ptr<SqliteStore>> open(const std::string& path);

  // ---- Store ----
  std::string backend() const override { return "sqlite"; }
  // Through a RevisionWatch on the same file, opened on first use.
  Result<std::shared_ptr<const RevisionMap>> revisions() override;

  // ---- Not part of the interfaces ----
  // The C++ step of migration 0005, run once per database (while 'hash_credentials' is in
  // pending_upgrades), in one transaction: secrets in the scenario copies and turn states are
  // removed from them and stored hashed (a player's newest turn wins; a player that already has
  // a hash keeps it); link tokens in clear become hashes (the same links keep working); stored
  // order files get their PLAYER secret masked. Returns how many secrets it hashed (0 when the
  // step had already run). On error nothing is changed and the step stays pending.
  Result<int> upgrade_credentials(const SecretHasher& hash_secret, const TokenHasher& hash_token,
                                  UnixTime now) override;
  // The connection, for the backend's own tools (table copy, tests). Not for front ends.
  sqlite::Database& database() { return db_; }

 private:
  SqliteStore(sqlite::Database db, std::string path);

  Result<int> upgrade_credentials_step(const SecretHasher& hash_secret,
                                       const TokenHasher& hash_token, UnixTime now);
  // The bulk mark of migration 0016 around rollback's deletes (one revision bump for them all).
  Status mark_bulk_writes(const std::string& game, bool on) override;
  // A turn's battles and reports without CHECKs or per-row triggers (sqlite_store_turns.cc).
  Result<std::unique_ptr<TurnRows>> begin_turn_rows(const std::string& game) override;

  sql::Session& session() override { return db_; }
  // A second connection to the same file (migrated as open() does), opened on first use.
  Result<sql::Session*> throttle_session() override;

  sqlite::Database db_;
  std::string path_;
  std::unique_ptr<sqlite::RevisionWatch> watch_;
  std::optional<sqlite::Database> throttle_db_;
};

}  // namespace adj
