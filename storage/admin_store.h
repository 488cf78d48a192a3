// Storage for running games over time: schedules and deadlines, the GM audit log and turn-run
// attempts (player link tokens: storage/credential_store.h). Implemented by SqliteStore
// (migration 0002).
// Thread-safety: as the other stores, one object per thread.
#pragma once

#include <cstdint>
#include <map>
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

// What AdminStore::delete_game removed.
struct GameDeletion {
  std::string game;  // the stored id
  std::string name;
  // Rows removed per table that had any for the game ("games": 1, "signups": 3, ...).
  std::map<std::string, std::int64_t> rows;
  std::int64_t mail_dropped = 0;   // outbox messages for the game not sent yet, dropped
  std::int64_t mail_kept = 0;      // outbox messages for the game sent or tried, kept
  std::int64_t host_audit_id = 0;  // the host audit entry that records the deletion
};

// The FailedPrecondition message of an action refused because `game` is archived: `what` the
// game takes no more, e.g. "orders", "sign-ups", "turn runs".
inline std::string archived_refusal(const std::string& game, const std::string& what) {
  return "game " + game + " is archived: it takes no " + what +
         " until the GM unarchives it; nothing was changed";
}

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
  // Deletes a game that has not started, with every row that belongs to it, in one transaction
  // that also appends `record` to the host audit log (record.game: the stored id; record.detail
  // gains "name", "removed" (rows per table), "mail_dropped", "mail_kept" and "audit", the game's
  // own audit log, which goes with the game). Outbox messages for the game not sent yet are
  // dropped; those sent or tried are kept (the host's record of mail that left). Refused, with
  // nothing changed: NotFound for an unknown game; FailedPrecondition when a turn of the game
  // has run (a turn record exists, or its audit log has a "run" entry: a run rolled back), the
  // message naming the last turn that ran; Unavailable while a turn of it is being resolved;
  // InvalidArgument when the record has no actor or action.
  virtual Result<GameDeletion> delete_game(const std::string& game, const AuditEntry& record) = 0;
  // Archives the game from `at` (nullopt: unarchives it). An archived game keeps every row;
  // put_submission, add_signup and begin_resolving refuse it (FailedPrecondition,
  // archived_refusal). NotFound for an unknown game.
  virtual Status set_archived(const std::string& game, std::optional<UnixTime> at) = 0;
  // The host audit log: entries about the host rather than inside one game (e.g. "delete");
  // e.game names the game an entry is about ("" for none) and need not exist. Append-only.
  // InvalidArgument when actor or action is empty.
  virtual Status append_host_audit(const AuditEntry& e) = 0;
  // The newest `limit` entries, newest first.
  virtual Result<std::vector<AuditEntry>> host_audit_log(int limit) = 0;
  // Last time the daemon's scheduler ran (for the downtime guard); 0 when never.
  virtual Result<UnixTime> last_tick() = 0;
  virtual Status set_last_tick(UnixTime t) = 0;
};

}  // namespace adj
