#include "server/app/turn_runs.h"

namespace adj {

TurnRuns turn_runs(const std::vector<AuditEntry>& log, int turn) {
  TurnRuns out;
  for (const AuditEntry& e : log) {
    if (e.action != "run" || !e.detail.is_object()) continue;
    const auto t = e.detail.find("turn");
    if (t == e.detail.end() || !t->is_number_integer() || t->get<int>() != turn) continue;
    if (out.runs++ == 0) {
      const auto d = e.detail.find("deadline");
      if (d != e.detail.end() && d->is_number_integer()) out.first_deadline = d->get<UnixTime>();
    }
  }
  return out;
}

int rollback_count(const std::vector<AuditEntry>& log) {
  int n = 0;
  for (const AuditEntry& e : log) n += e.action == "rollback" ? 1 : 0;
  return n;
}

}  // namespace adj
