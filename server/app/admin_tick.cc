#include "server/app/admin.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cassert>
#include <exception>
#include <map>
#include <set>

#include "base/log_escape.h"
#include "rules/game/victory.h"
#include "server/app/admin_internal.h"
#include "server/app/attendance.h"
#include "server/app/time_text.h"

// GameAdmin's scheduler (GameAdmin::tick) and the recovery of runs a dead process left
// unfinished; the rest of GameAdmin is in admin.cc.

namespace adj {

using admin_internal::guarded;
using admin_internal::int_field;
using admin_internal::log_error;

std::optional<double> GameAdmin::usual_nmr_share(const std::string& game, int turn,
                                                 std::size_t players) {
  if (players == 0) return std::nullopt;
  double sum = 0;
  int n = 0;
  for (int t = std::max(1, turn - kNmrHistoryTurns); t < turn; ++t) {
    Result<Json> rec = s_.games.turn_record(game, t);
    if (!rec.ok()) continue;  // not resolved here (e.g. a scenario starting later)
    const Json* summary =
        rec->is_object() && rec->contains("summary") ? &(*rec)["summary"] : nullptr;
    if (!summary || !summary->is_object()) continue;
    auto it = summary->find("players_without_orders");
    if (it == summary->end() || !it->is_array()) continue;
    sum += std::min(1.0, static_cast<double>(it->size()) / static_cast<double>(players));
    ++n;
  }
  if (n == 0) return std::nullopt;
  return sum / n;
}

bool GameAdmin::guard_waived(const std::string& game, int turn) {
  Result<std::vector<AuditEntry>> log = admin_.audit_log(game);
  if (!log.ok()) return false;
  return std::any_of(log->begin(), log->end(), [turn](const AuditEntry& e) {
    if (e.action != "resume" || !e.detail.is_object()) return false;
    const auto from = e.detail.find("from");
    return from != e.detail.end() && *from == "held" && int_field(e.detail, "turn") == turn;
  });
}

// Every committed turn is looked at, not only the last: the next turn may run (on another
// process) before the grace of a turn whose process died before queueing its reports has passed.
std::vector<int> GameAdmin::turns_missing_reports(const std::vector<AuditEntry>& log, int open_turn,
                                                  UnixTime now, std::int64_t grace) {
  std::map<int, UnixTime> last_run, last_reports;
  for (const AuditEntry& e : log) {
    if (e.action != "run" && e.action != "reports") continue;
    const int t = int_field(e.detail, "turn");
    if (t < 1 || t >= open_turn) continue;
    UnixTime& at = (e.action == "run" ? last_run : last_reports)[t];
    at = std::max(at, e.at);
  }
  std::vector<int> missing;
  for (const auto& [t, run_at] : last_run) {
    if (now - run_at < grace || now - run_at > kRecoverySeconds) continue;
    const auto reported = last_reports.find(t);
    if (reported == last_reports.end() || reported->second < run_at) missing.push_back(t);
  }
  return missing;
}

std::vector<TickAction> GameAdmin::missing_reports(const GameSummary& g, UnixTime now,
                                                   const std::vector<AuditEntry>& log) {
  std::vector<TickAction> actions;
  for (const int t : turns_missing_reports(log, g.turn, now)) {
    TickAction act{g.id, "reports",
                   "turn " + std::to_string(t) + "'s reports were never recorded as queued"};
    act.turn = t;
    actions.push_back(std::move(act));
  }
  return actions;
}

bool GameAdmin::settled(const GameSummary& g, UnixTime now, const std::vector<AuditEntry>& log,
                        UnixTime ran_at) {
  if (!turns_missing_reports(log, g.turn, now, 0).empty()) return false;
  if (g.turn <= 1 || ran_at == 0 || now - ran_at > kRecoverySeconds) return true;
  // The last run's "run" entry, then its "reports" entry: until both are written, the process
  // that ran it may still be at work (or dead), and this game must be looked at again.
  UnixTime run_at = 0, reports_at = 0;
  for (const AuditEntry& e : log) {
    if (int_field(e.detail, "turn") != g.turn - 1 || e.at < ran_at) continue;
    if (e.action == "run") run_at = std::max(run_at, e.at);
    if (e.action == "reports") reports_at = std::max(reports_at, e.at);
  }
  return run_at != 0 && reports_at >= run_at;
}

std::optional<TickAction> GameAdmin::unfinished_run(const GameSummary& g, UnixTime now,
                                                    const std::vector<AuditEntry>& log) {
  if (g.turn <= 1) return std::nullopt;
  const int turn = g.turn - 1;
  Result<UnixTime> ran = s_.games.turn_ran_at(g.id, turn);  // not the summary: it may be big
  if (!ran.ok()) return std::nullopt;                       // e.g. a scenario starting later
  const UnixTime ran_at = *ran;
  if (now - ran_at > kRecoverySeconds) return std::nullopt;
  const auto finished = [&](const std::vector<AuditEntry>& entries) {
    return std::any_of(entries.begin(), entries.end(), [&](const AuditEntry& e) {
      return e.action == "run" && int_field(e.detail, "turn") == turn && e.at >= ran_at;
    });
  };
  if (finished(log)) return std::nullopt;
  const std::string which = "turn " + std::to_string(turn);
  if (now - ran_at < kBookkeepingGraceSeconds)
    return TickAction{g.id, "waiting", which + " was just committed; its bookkeeping is under way"};
  // The claim on the open turn keeps another scheduler from doing this at the same time.
  if (Status c = s_.games.begin_resolving(g.id, g.turn, now); !c.ok())
    return TickAction{g.id, "waiting", which + ": " + c.message()};
  std::optional<TickAction> act;
  Result<std::vector<AuditEntry>> again = admin_.audit_log(g.id);
  Result<Json> rec = s_.games.turn_record(g.id, turn);
  if (again.ok() && !finished(*again) && rec.ok() && rec->is_object()) {
    TurnRunOutcome out;
    out.turn = turn;
    const Json& summary = (*rec)["summary"];
    if (summary.is_object()) {
      out.digest = summary.value("digest", "");
      if (auto it = summary.find("players_without_orders"); it != summary.end() && it->is_array())
        for (const Json& p : *it)
          if (p.is_string()) out.players_without_orders.push_back(p.get<std::string>());
      if (summary.contains("ending")) out.ending = ending_from_json(summary["ending"]);
    }
    act = TickAction{g.id, "ran",
                     which + " ran (digest " + out.digest +
                         "); its bookkeeping was completed here, after the process that ran it "
                         "stopped before doing it",
                     turn};
    if (Status after = guarded([&]() { return finish_run(g.id, "scheduler", out); }); !after.ok()) {
      act->detail += "; " + after.message();
      log_error(g.id, "after run", after);
    }
  }
  (void)s_.games.end_resolving(g.id, g.turn);
  return act;
}

TickAction GameAdmin::run_due(const GameSummary& g, const Schedule& s) {
  TickAction act{g.id, "ran", ""};
  // For the turn this pass found due only: when another process ran it meanwhile, the next turn
  // is not run on the old deadline.
  Result<TurnRunOutcome> out = guarded([&]() { return svc_.run_turn(g.id, false, g.turn); });
  if (!out.ok()) {
    // Another process (another daemon, or the GM) is resolving this turn or has resolved it:
    // not a failure of this game.
    Result<GameSummary> now_g = s_.games.game_summary(g.id);
    const bool moved = now_g.ok() && (now_g->turn != g.turn || now_g->status != g.status);
    if (out.status().code() == StatusCode::kUnavailable || moved) {
      act.action = "waiting";
      act.detail = "turn " + std::to_string(g.turn) +
                   " is run by another process: " + out.status().message();
      return act;
    }
  }
  if (out.ok()) {
    act.turn = out->turn;
    act.detail = "turn " + std::to_string(out->turn) + " ran (digest " + out->digest + ")";
    Status after = guarded([&]() { return finish_run(g.id, "scheduler", *out); });
    if (!after.ok()) {
      act.detail += "; " + after.message();
      log_error(g.id, "after run", after);
    }
    return act;
  }

  // Failed: count it, and hold the game once max_attempts is reached.
  const std::string error = out.status().to_string();
  Status rec = admin_.record_failed_attempt(g.id, error);
  Result<int> attempts = admin_.failed_attempts(g.id);
  const int n = attempts.ok() ? *attempts : s.max_attempts;  // unreadable: hold to be safe
  if (!rec.ok()) log_error(g.id, "record attempt", rec);
  const std::string turn_text = "turn " + std::to_string(g.turn);
  const std::string message = turn_text + " failed to run (attempt " + std::to_string(n) + " of " +
                              std::to_string(s.max_attempts) + "): " + error;
  Status a = audit(g.id, "scheduler", "failed",
                   {{"turn", g.turn},
                    {"attempt", n},
                    {"max_attempts", s.max_attempts},
                    {"error", error},
                    {"message", message}});
  if (!a.ok()) log_error(g.id, "audit", a);
  act.action = "failed";
  act.detail = message;
  if (n < s.max_attempts) return act;

  Status held = admin_.set_game_status(g.id, "held");
  if (!held.ok()) {
    act.detail += "; could not hold the game: " + held.to_string();
    return act;
  }
  const std::string hold_message = turn_text + " held for the GM after " + std::to_string(n) +
                                   " failed attempts; last error: " + error;
  Status h = audit(g.id, "scheduler", "hold",
                   {{"turn", g.turn},
                    {"reason", "failed"},
                    {"attempts", n},
                    {"error", error},
                    {"message", hold_message}});
  if (!h.ok()) log_error(g.id, "audit", h);
  act.action = "held";
  act.detail = hold_message;
  return act;
}

TickAction GameAdmin::tick_game(const GameSummary& g, UnixTime now, UnixTime last) {
  TickAction act{g.id, "waiting", ""};
  Result<Schedule> sched = admin_.schedule(g.id);
  if (!sched.ok()) {
    act.action = "failed";
    act.detail = "cannot read the schedule: " + sched.status().to_string();
    return act;
  }
  Schedule s = *sched;

  // 1. Downtime guard: a deadline that passed while the scheduler was not running is extended
  // instead of run at once, so players can still send (or fix) their orders.
  const std::int64_t grace = s.downtime_grace_seconds;
  if (s.deadline && grace > 0 && last > 0 && now - last > grace && *s.deadline > last &&
      now - *s.deadline > grace) {
    Schedule next = s;
    next.deadline = now + grace;
    Status st = admin_.set_schedule(g.id, next);
    if (!st.ok()) {
      act.action = "failed";
      act.detail = "downtime guard could not extend the deadline: " + st.to_string();
      return act;
    }
    const std::string message = "the scheduler was not running from " + utc_iso(last) + " to " +
                                utc_iso(now) + " and the deadline " + utc_iso(*s.deadline) +
                                " passed meanwhile; deadline extended to " +
                                utc_iso(*next.deadline);
    Status a = audit(g.id, "scheduler", "extend",
                     {{"from", *s.deadline},
                      {"to", *next.deadline},
                      {"reason", "downtime"},
                      {"down_since", last},
                      {"message", message}});
    if (!a.ok()) log_error(g.id, "audit", a);
    act.action = "extended";
    act.detail = message;
    return act;
  }

  // 2. Due?
  bool past_deadline = s.deadline && now >= *s.deadline;
  // A committed run whose bookkeeping is missing (the process that ran it stopped in between):
  // its deadline is the previous turn's, so the open turn is not run on it.
  if (past_deadline || s.early_when_all_in)
    if (Result<std::vector<AuditEntry>> log = admin_.audit_log(g.id); log.ok())
      if (std::optional<TickAction> pending = unfinished_run(g, now, *log)) return *pending;
  if (past_deadline) {
    // Another process may have finished the previous run between the schedule's read above and
    // the audit log's in unfinished_run: finish_run writes the next deadline before its "run"
    // entry, so the schedule read again now has it, and the open turn does not run on the old one.
    Result<Schedule> again = admin_.schedule(g.id);
    if (!again.ok()) {
      act.action = "failed";
      act.detail = "cannot read the schedule: " + again.status().to_string();
      return act;
    }
    s = std::move(again).value();
    past_deadline = s.deadline && now >= *s.deadline;
  }
  if (!past_deadline && !s.early_when_all_in) {
    act.detail = s.deadline ? "deadline " + utc_iso(*s.deadline) : "no deadline";
    return act;
  }
  Result<std::vector<SubmissionStatus>> status = submission_status(g.id);
  if (!status.ok()) {
    if (past_deadline) return run_due(g, s);  // counts the failure, as the run would
    act.detail = "cannot check orders: " + status.status().to_string();
    return act;
  }
  // Positions in civil disorder hold: they count neither as missing nor for the NMR guard.
  std::set<std::string> disorder;
  auto* att = dynamic_cast<AttendanceStore*>(&admin_);
  if (att) {
    auto d = Attendance(svc_, s_, admin_, *att, now_).in_disorder(g.id);
    if (d.ok()) disorder = std::move(d).value();
  }
  std::vector<std::string> without;
  std::size_t active = 0;
  for (const auto& p : *status) {
    if (disorder.count(p.player)) continue;
    ++active;
    if (!p.has_orders) without.push_back(p.player);
  }
  const bool all_in = active > 0 && without.empty();
  if (!past_deadline && !all_in) {
    act.detail = (s.deadline ? "deadline " + utc_iso(*s.deadline) : std::string("no deadline")) +
                 "; waiting for " + std::to_string(without.size()) + " of " +
                 std::to_string(status->size()) + " players";
    return act;
  }

  // Absence: a deadline that passed during a declared absence is extended once per turn.
  if (past_deadline && att) {
    auto extended = Attendance(svc_, s_, admin_, *att, now_).extend_for_absence(g.id, g.turn);
    if (!extended.ok()) log_error(g.id, "absence", extended.status());
    if (extended.ok() && !extended->empty()) {
      act.action = "extended";
      act.detail = *extended;
      return act;
    }
  }

  // 3. NMR-spike guard.
  const double share =
      active == 0 ? 0.0 : static_cast<double>(without.size()) / static_cast<double>(active);
  if (share > s.nmr_guard_ratio) {
    const std::optional<double> usual = usual_nmr_share(g.id, g.turn, status->size());
    if ((!usual || share >= *usual + kNmrSpikeMargin) && !guard_waived(g.id, g.turn)) {
      Status held = admin_.set_game_status(g.id, "held");
      if (!held.ok()) {
        act.action = "failed";
        act.detail = "NMR guard could not hold the game: " + held.to_string();
        return act;
      }
      const std::string message =
          "turn " + std::to_string(g.turn) + " held for the GM: " + std::to_string(without.size()) +
          " of " + std::to_string(status->size()) + " players have no orders" +
          (usual ? " (usually " + std::to_string(static_cast<int>(*usual * 100 + 0.5)) + "%)"
                 : std::string());
      Status a = audit(g.id, "scheduler", "guard",
                       {{"guard", "nmr"},
                        {"turn", g.turn},
                        {"players_without_orders", without},
                        {"share", share},
                        {"usual", usual ? Json(*usual) : Json(nullptr)},
                        {"threshold", s.nmr_guard_ratio},
                        {"message", message}});
      if (!a.ok()) log_error(g.id, "audit", a);
      act.action = "held";
      act.detail = message;
      return act;
    }
  }

  // 4. Run.
  return run_due(g, s);
}

std::vector<TickAction> GameAdmin::tick(bool recover_reports,
                                        const std::function<void(const TickAction&)>& on_action) {
  const TickPass pass = begin_tick_pass();
  bool completed = false;
  std::vector<TickAction> actions = tick_shard(pass, recover_reports, on_action, &completed);
  if (completed) end_tick_pass(pass);
  return actions;
}

GameAdmin::TickPass GameAdmin::begin_tick_pass() {
  TickPass pass;
  pass.now = now_();
  Result<UnixTime> last = admin_.last_tick();
  if (!last.ok()) log_error("", "read last tick", last.status());
  pass.last_tick = last.ok() ? *last : 0;  // unknown: no downtime guard
  return pass;
}

void GameAdmin::end_tick_pass(const TickPass& pass) {
  Status st = admin_.set_last_tick(pass.now);
  if (!st.ok()) log_error("", "record last tick", st);
}

std::vector<TickAction> GameAdmin::tick_shard(
    const TickPass& pass, bool recover_reports,
    const std::function<void(const TickAction&)>& on_action, bool* completed) {
  assert(pass.shards >= 1 && pass.shard >= 0 && pass.shard < pass.shards);
  if (completed) *completed = false;
  std::vector<TickAction> actions;
  std::size_t told = 0;  // actions[0, told) were given to on_action
  const auto tell = [&] {
    for (; told < actions.size(); ++told) {
      if (!on_action) continue;
      // A caller's mistake (it must not throw) costs that action, not the rest of the tick.
      try {
        on_action(actions[told]);
      } catch (const std::exception& e) {
        log_error(actions[told].game, "on_action",
                  Status::Internal(std::string("unexpected exception: ") + e.what()));
      } catch (...) {
        log_error(actions[told].game, "on_action", Status::Internal("unexpected exception"));
      }
    }
  };
  try {
    const UnixTime now = pass.now;
    const UnixTime last_tick = pass.last_tick;
    Result<std::vector<GameSummary>> games = s_.games.list_games();
    if (!games.ok()) {
      log_error("", "list games", games.status());
      return actions;
    }
    for (std::size_t at = 0; at < games->size(); ++at) {
      if (at % static_cast<std::size_t>(pass.shards) != static_cast<std::size_t>(pass.shard))
        continue;
      const GameSummary& g = (*games)[at];
      tell();  // the previous game's
      try {
        // An archived game is passed by as a paused one is (admin.h archive_game).
        if (g.status == "open" && !g.archived_at) {
          {
            std::lock_guard<std::mutex> lock(quiet_mu_);
            quiet_.erase(g.id);
          }
          Result<Schedule> s = admin_.schedule(g.id);
          const bool scheduled =
              !(s.ok() && (s->kind == "none" || (!s->deadline && !s->early_when_all_in)));
          if (scheduled) actions.push_back(tick_game(g, now, last_tick));
          // A game run by hand only: the bookkeeping of a run whose process died is completed
          // after the grace (there is no deadline for the open turn to be run on).
          if (!scheduled || recover_reports)
            if (Result<std::vector<AuditEntry>> log = admin_.audit_log(g.id); log.ok()) {
              if (!scheduled)
                if (auto pending = unfinished_run(g, now, *log)) actions.push_back(*pending);
              if (recover_reports)
                for (TickAction& r : missing_reports(g, now, *log)) actions.push_back(std::move(r));
            }
          continue;
        }
        // A game that finished, or was held or paused, right after a turn whose process died
        // before queueing its reports still gets them.
        if (!recover_reports || g.status == "signup") continue;
        const Result<UnixTime> ran =
            g.turn > 1 ? s_.games.turn_ran_at(g.id, g.turn - 1) : Result<UnixTime>(UnixTime{0});
        const std::pair<int, UnixTime> key{g.turn, ran.ok() ? *ran : UnixTime{0}};
        {
          std::lock_guard<std::mutex> lock(quiet_mu_);
          const auto q = quiet_.find(g.id);
          if (q != quiet_.end() && q->second == key) continue;
        }
        Result<std::vector<AuditEntry>> log = admin_.audit_log(g.id);
        if (!log.ok()) continue;
        // A finished game is never due again: its last run's missing bookkeeping (the "run" and
        // "finish" entries, the notices) is completed once the grace is over.
        if (g.status == "finished")
          if (auto pending = unfinished_run(g, now, *log)) actions.push_back(*pending);
        std::vector<TickAction> reports = missing_reports(g, now, *log);
        if (reports.empty() && settled(g, now, *log, key.second)) {
          std::lock_guard<std::mutex> lock(quiet_mu_);
          quiet_[g.id] = key;
        }
        for (TickAction& r : reports) actions.push_back(std::move(r));
      } catch (const std::exception& e) {
        actions.push_back({g.id, "failed", std::string("unexpected exception: ") + e.what()});
      } catch (...) {
        actions.push_back({g.id, "failed", "unexpected exception"});
      }
    }
    tell();
    if (completed) *completed = true;
  } catch (const std::exception& e) {
    log_error("", "tick", Status::Internal(std::string("unexpected exception: ") + e.what()));
  } catch (...) {
    log_error("", "tick", Status::Internal("unexpected exception"));
  }
  return actions;
}

}  // namespace adj
