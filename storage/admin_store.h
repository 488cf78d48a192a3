// Storage for running games over time: schedules and deadlines, the GM audit log and turn-run
// attempts (player link tokens: storage/credential_store.h). Implemented by SqliteStore
// (migration 0002).
// Thread-safety: as the other stores, one object per thread.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rules/core/status.h"
#include "storage/records.h"

namespace adj {

// When a game's turns run. kind "none": only by hand; "fixed": at `deadline` (set per turn by the
// GM); "interval": every interval_seconds, at time_of_day (seconds after midnight UTC) if set.
struct Schedule {
  std::string kind = "none";
  std::optional<UnixTime> deadline;            // the open turn's deadline
  std::int64_t interval_seconds = 0;           // "interval": the period (e.g. 172800 for two days)
  std::optional<int> time_of_day;              // "interval": seconds after 00:00 UTC
  bool early_when_all_in = false;              // run as soon as every player has orders
  int max_attempts = 3;                        // failed runs before the game is held for the GM
  double nmr_guard_ratio = 0.5;                // hold when more than this share of players have no
                                               // orders and far more than usual (docs/gm.md)
  std::int64_t downtime_grace_seconds = 3600;  // overdue by more than this after downtime:
                                               // extend instead of running at once
};

struct AuditEntry {
  std::int64_t id = 0;
  std::string game;
  UnixTime at = 0;
  std::string actor;   // "gm", "scheduler", "player:WSX", ...
  std::string action;  // "create", "run", "preview", "rollback", "schedule", "deadline",
                       // "extend", "pause", "resume", "guard", "failed", "hold" (server/app/admin.h
                       // lists each one's detail)
  Json detail = Json::object();
};

class AdminStore {
 public:
  virtual ~AdminStore() = default;
  virtual Result<Schedule> schedule(const std::string& game) = 0;  // default Schedule if unset
  virtual Status set_schedule(const std::string& game, const Schedule& s) = 0;
  virtual Status append_audit(const AuditEntry& e) = 0;
  // Oldest first.
  virtual Result<std::vector<AuditEntry>> audit_log(const std::string& game) = 0;
  // (Player link tokens are in CredentialStore, storage/credential_store.h.)
  // Failed run attempts of the game's open turn (reset when a turn commits).
  virtual Result<int> failed_attempts(const std::string& game) = 0;
  virtual Status record_failed_attempt(const std::string& game, const std::string& why) = 0;
  virtual Status reset_attempts(const std::string& game) = 0;
  // Sets the game's status ("open", "paused", "held", ...). NotFound for an unknown game.
  virtual Status set_game_status(const std::string& game, const std::string& status) = 0;
  // Last time the daemon's scheduler ran (for the downtime guard); 0 when never.
  virtual Result<UnixTime> last_tick() = 0;
  virtual Status set_last_tick(UnixTime t) = 0;
};

}  // namespace adj
