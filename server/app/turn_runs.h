// What the audit log says about the runs of one turn: how often it ran (a rollback reopens a
// turn, which then runs again) and the deadline its first run set. Used to keep a re-run from
// pushing the deadline again (GameAdmin::finish_run) and to mark re-sent reports as corrections
// (MailIngest::queue_turn_reports). Pure: audit entries in, facts out.
#pragma once

#include <optional>
#include <vector>

#include "storage/admin_store.h"

namespace adj {

struct TurnRuns {
  int runs = 0;  // audit "run" entries for the turn
  // The deadline the first run of the turn set (its audit "deadline"); nullopt when it set none
  // or the turn never ran.
  std::optional<UnixTime> first_deadline;
};

TurnRuns turn_runs(const std::vector<AuditEntry>& log, int turn);

// How many rollbacks the log holds (audit "rollback" entries), for a key unique to each.
int rollback_count(const std::vector<AuditEntry>& log);

}  // namespace adj
