// GM controls and the deadline scheduler, over the stores. No sockets, no clock of its own (the
// Clock is passed in), so every decision is testable with a fixed time.
//
// Thread-safety: one GameAdmin per thread (it borrows that thread's stores and Services).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "server/app/services.h"
#include "storage/admin_store.h"

namespace adj {

// Who has sent orders for the open turn.
struct SubmissionStatus {
  std::string player;
  std::string name;
  bool has_orders = false;
  std::optional<UnixTime> received_at;
  int accepted = 0, rejected = 0;  // line counts of the current file
};

// What the scheduler did for one game on one tick.
struct TickAction {
  std::string game;
  std::string action;  // "ran", "held", "extended", "failed", "waiting"
  std::string detail;
};

class GameAdmin {
 public:
  GameAdmin(Services& services, Stores stores, AdminStore& admin, Clock clock)
      : svc_(services), s_(stores), admin_(admin), now_(std::move(clock)) {}

  // Every GM action below is written to the audit log with `actor`.
  Result<GameSummary> create_game(const Json& scenario, Seed seed, const std::string& actor);
  Result<TurnRunOutcome> run_turn(const std::string& game, bool preview, const std::string& actor);
  Status rollback(const std::string& game, int turn, const std::string& actor);
  Status set_schedule(const std::string& game, const Schedule& s, const std::string& actor);
  Status set_deadline(const std::string& game, UnixTime deadline, const std::string& actor);
  Status extend_deadline(const std::string& game, std::int64_t seconds, const std::string& actor);
  Status pause(const std::string& game, const std::string& actor);   // status "paused"
  Status resume(const std::string& game, const std::string& actor);  // status "open"

  Result<Schedule> schedule(const std::string& game);
  Result<std::vector<AuditEntry>> audit_log(const std::string& game);
  Result<std::vector<SubmissionStatus>> submission_status(const std::string& game);
  Result<std::string> player_token(const std::string& game, const std::string& player);
  Result<std::pair<std::string, std::string>> token_owner(const std::string& token);
  // True when `secret` is the player's secret (constant-time compare).
  Result<bool> check_secret(const std::string& game, const std::string& player,
                            const std::string& secret);

  // One scheduler pass over every game: runs due turns (deadline passed, or all orders in when
  // early_when_all_in), applies the guards (NMR spike -> hold; downtime -> extend overdue
  // deadlines), retries failures up to max_attempts then holds the game; advances interval
  // deadlines after a run. Records its own time for the downtime guard. Never throws.
  std::vector<TickAction> tick();

 private:
  Services& svc_;
  Stores s_;
  AdminStore& admin_;
  Clock now_;
};

}  // namespace adj
