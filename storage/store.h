// The whole storage of a host behind one object: every narrow interface of storage/*_store.h, plus
// the few operations a composition root needs. One implementation per backend
// (storage/sqlite/sqlite_store.h, storage/postgres/pg_store.h), made by open_database()
// (storage/open_database.h), which is the only code that names a backend's classes.
//
// Front ends hold a Store& (or one of its narrow interfaces) and never a backend type.
// Thread-safety: as every store, one Store per thread; several Stores (threads, processes,
// machines for PostgreSQL) may share one database.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "storage/admin_store.h"
#include "storage/attendance_store.h"
#include "storage/credential_store.h"
#include "storage/engine_script_store.h"
#include "storage/game_store.h"
#include "storage/mail_store.h"
#include "storage/membership_store.h"
#include "storage/notice_store.h"
#include "storage/press_store.h"
#include "storage/throttle_store.h"

namespace adj {

// scope -> revision: a game id, and "*" (the whole site: the sum of every game's revision). A
// scope not in the map is at revision 0. See migration 0013 (SQLite) and its PostgreSQL twin.
using RevisionMap = std::unordered_map<std::string, std::int64_t>;

class Store : public GameStore,
              public SubmissionStore,
              public ReportStore,
              public AdminStore,
              public CredentialStore,
              public MailStore,
              public NoticeStore,
              public MembershipStore,
              public PressStore,
              public AttendanceStore,
              public ThrottleStore,
              public EngineScriptStore {
 public:
  ~Store() override = default;

  // "sqlite" or "postgresql".
  virtual std::string backend() const = 0;
  // The schema version of the open database (the last migration applied for this backend).
  virtual Result<int> schema_version() = 0;

  // Bytes stored per game (every game, by id), for the GM page and /metrics.
  virtual Result<std::vector<GameStorage>> storage_by_game() = 0;
  // One outbox message by id (the GM's message view). NotFound for an unknown id.
  virtual Result<OutboxMessage> outbox_message(std::int64_t id) = 0;

  // The revision counters as committed now (see RevisionMap). Cheap when nothing changed since
  // the last call on this Store (SQLite: PRAGMA data_version; PostgreSQL: one small query).
  // The same shared map is returned until the database changes.
  virtual Result<std::shared_ptr<const RevisionMap>> revisions() = 0;

  // The C++ step of SQLite migration 0005 (hashing secrets stored in clear by old versions).
  // Returns how many secrets it hashed; a backend whose databases never held them returns 0.
  using SecretHasher = std::function<Result<std::string>(std::string_view secret)>;
  using TokenHasher = std::function<std::string(std::string_view token)>;
  virtual Result<int> upgrade_credentials(const SecretHasher& hash_secret,
                                          const TokenHasher& hash_token, UnixTime now) = 0;
};

}  // namespace adj
