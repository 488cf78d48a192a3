#include "server/app/admin.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <ctime>
#include <exception>
#include <map>
#include <set>

#include "rules/combat/script_engine.h"
#include "rules/game/victory.h"
#include "server/app/ascii.h"
#include "server/app/attendance.h"
#include "server/app/audit_log.h"
#include "server/app/log_escape.h"
#include "server/app/time_text.h"
#include "server/app/turn_runs.h"

namespace adj {

namespace {

constexpr std::int64_t kDay = 86400;

using ascii::upper;

Json opt_time(const std::optional<UnixTime>& t) { return t ? Json(*t) : Json(nullptr); }

UnixTime day_start(UnixTime t) { return t - (((t % kDay) + kDay) % kDay); }

// The deadline after `base` of an interval schedule: base + interval, put at time_of_day on the
// UTC day it falls on (when set), then moved on by whole intervals until it is after `now`.
// nullopt when the interval is not positive.
std::optional<UnixTime> next_interval_deadline(const Schedule& s, UnixTime base, UnixTime now) {
  if (s.interval_seconds <= 0) return std::nullopt;
  UnixTime next = base + s.interval_seconds;
  if (s.time_of_day) next = day_start(next) + *s.time_of_day;
  if (next <= now) next += ((now - next) / s.interval_seconds + 1) * s.interval_seconds;
  return next;
}

// Problems the scheduler cannot report through its TickActions (the caller logs those).
void log_error(const std::string& game, const char* step, const Status& s) {
  spdlog::error("event=tick_error game={} step=\"{}\" error=\"{}\"", log_escape(game), step,
                log_escape(s.to_string()));
}

int int_field(const Json& j, const char* key) {
  if (!j.is_object()) return 0;
  auto it = j.find(key);
  return it != j.end() && it->is_number_integer() ? it->get<int>() : 0;
}

// Runs `f`, turning an escaping exception into Status::Internal.
template <class F>
auto guarded(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const std::exception& e) {
    return Status::Internal(std::string("unexpected exception: ") + e.what());
  } catch (...) {
    return Status::Internal("unexpected exception");
  }
}

}  // namespace

Status GameAdmin::audit(const std::string& game, const std::string& actor,
                        const std::string& action, Json detail) {
  return record_audit(admin_, game, now_(), actor, action, std::move(detail));
}

// ---- GM actions ----

Result<GameSummary> GameAdmin::create_game(const Json& scenario, Seed seed,
                                           const std::string& actor, bool fresh_secrets,
                                           std::map<std::string, std::string>* issued) {
  Result<GameSummary> g = svc_.create_game(scenario, seed, fresh_secrets, issued);
  if (!g.ok()) return g;
  ADJ_RETURN_IF_ERROR(
      audit(g->id, actor, "create", {{"name", g->name}, {"engine", g->engine}, {"turn", g->turn}}));
  return g;
}

Status GameAdmin::finish_run(const std::string& game, const std::string& actor,
                             const TurnRunOutcome& out) {
  Status first;
  const auto keep = [&first](Status s) {
    if (first.ok() && !s.ok()) first = std::move(s);
  };
  keep(admin_.reset_attempts(game));

  std::optional<UnixTime> next;
  // A re-run of a turn that ran before (after a rollback) does not push an interval deadline
  // again: it keeps the one the first run set, else the current one, while either is still
  // ahead. (A fixed deadline is used up by any run, as the first run used it.)
  Result<std::vector<AuditEntry>> log = admin_.audit_log(game);
  const TurnRuns before = log.ok() ? turn_runs(*log, out.turn) : TurnRuns{};
  if (!log.ok()) keep(log.status());
  Result<Schedule> sched = admin_.schedule(game);
  const UnixTime now = now_();
  if (!sched.ok()) {
    keep(sched.status());
  } else if (out.ending) {  // the game is over: no next deadline
    Schedule s = *sched;
    s.deadline = std::nullopt;
    keep(admin_.set_schedule(game, s));
  } else if (before.runs > 0 && sched->kind == "interval" && before.first_deadline &&
             *before.first_deadline > now) {
    Schedule s = *sched;
    s.deadline = before.first_deadline;
    next = s.deadline;
    keep(admin_.set_schedule(game, s));
  } else if (before.runs > 0 && sched->kind == "interval" && sched->deadline &&
             *sched->deadline > now) {
    next = sched->deadline;
  } else if (sched->kind == "interval" || sched->kind == "fixed") {
    Schedule s = *sched;
    s.deadline = s.kind == "interval" ? next_interval_deadline(s, s.deadline.value_or(now), now)
                                      : std::nullopt;
    next = s.deadline;
    keep(admin_.set_schedule(game, s));
  } else {
    next = sched->deadline;
  }

  bool released = false;
  Result<GameSummary> g = s_.games.game_summary(game);
  if (!g.ok()) {
    keep(g.status());
  } else if (g->status == "held") {
    Status s = admin_.set_game_status(game, "open");
    released = s.ok();
    keep(s);
  }

  keep(audit(game, actor, "run",
             {{"turn", out.turn},
              {"digest", out.digest},
              {"players_without_orders", out.players_without_orders},
              {"deadline", opt_time(next)},
              {"released_hold", released}}));
  if (out.ending)
    keep(audit(game, actor, "finish",
               {{"turn", out.turn},
                {"kind", out.ending->kind},
                {"winners", out.ending->winners},
                {"message", out.ending->reason}}));
  // Attendance (server/app/attendance.h): civil disorder for positions that missed too often.
  if (auto* att = dynamic_cast<AttendanceStore*>(&admin_))
    keep(Attendance(svc_, s_, admin_, *att, now_).after_run(game, out, actor));
  if (!first.ok())
    return Status(first.code(), "turn " + std::to_string(out.turn) + " of " + game +
                                    " ran, but: " + first.message());
  return first;
}

Result<TurnRunOutcome> GameAdmin::run_turn(const std::string& game, bool preview,
                                           const std::string& actor) {
  return run_turn(game, preview, actor, std::nullopt);
}

Result<TurnRunOutcome> GameAdmin::run_turn(const std::string& game, bool preview,
                                           const std::string& actor,
                                           std::optional<int> expected_turn) {
  if (auto g = s_.games.game_summary(game); g.ok() && g->status == "signup")
    return Status::FailedPrecondition(
        "game " + game +
        " has not started: it is open for sign-ups. Assign kingdoms and start it first");
  Result<TurnRunOutcome> out = svc_.run_turn(game, preview, expected_turn);
  if (!out.ok()) {
    // A Lua game's script failed: the audit log keeps the script's message for the GM (the
    // scheduler's failures are audited in run_due).
    if (!preview && out.status().code() != StatusCode::kUnavailable)
      if (auto e = svc_.engine_of(game); e.ok() && script_id_of(**e))
        (void)audit(game, actor, "failed",
                    {{"error", out.status().to_string()},
                     {"message", "the turn failed to run: " + out.status().message()}});
    return out;
  }
  if (preview) {
    ADJ_RETURN_IF_ERROR(
        audit(game, actor, "preview", {{"turn", out->turn}, {"digest", out->digest}}));
  } else {
    ADJ_RETURN_IF_ERROR(finish_run(game, actor, *out));
  }
  return out;
}

Result<EngineScript> GameAdmin::upload_engine_script(const std::string& game,
                                                     std::string_view source,
                                                     const std::string& actor) {
  Result<EngineScript> stored = svc_.upload_engine_script(game, source, actor);
  if (!stored.ok()) return stored;
  ADJ_RETURN_IF_ERROR(audit(game, actor, "engine_script",
                            {{"version", stored->version}, {"sha256", stored->sha256}}));
  return stored;
}

Status GameAdmin::rollback(const std::string& game, int turn, const std::string& actor) {
  Result<GameSummary> before = s_.games.game_summary(game);
  if (!before.ok()) return before.status();
  // Files accepted for the turns after the reopened one stay on file for when those turns open
  // again, and are then checked again from their text; the audit entry names them, so the GM
  // knows whose orders were checked against a state that may come out differently.
  Json later = Json::array();
  for (int t = turn + 1; t <= before->turn; ++t) {
    auto files = s_.submissions.current_submissions(game, t);
    if (!files.ok()) return files.status();
    for (const auto& f : *files)
      later.push_back({{"turn", t}, {"player", f.player}, {"submission", f.id}});
  }
  ADJ_RETURN_IF_ERROR(svc_.rollback(game, turn));
  ADJ_RETURN_IF_ERROR(admin_.reset_attempts(game));
  ADJ_RETURN_IF_ERROR(audit(game, actor, "rollback",
                            {{"turn", turn}, {"from_turn", before->turn}, {"later_files", later}}));
  // Rolling back a finished game's last turn reopens it (the store sets the status back).
  if (before->status == "finished" && turn < before->turn)
    ADJ_RETURN_IF_ERROR(audit(game, actor, "reopen",
                              {{"turn", turn},
                               {"message", "the game was over; rolling back to turn " +
                                               std::to_string(turn) + " reopened it"}}));
  return notify_rollback(game, turn, before->turn);
}

Status GameAdmin::notify_rollback(const std::string& game, int turn, int from_turn) {
  Result<GameState> st = s_.games.load_state(game, std::nullopt);
  if (!st.ok()) return st.status();
  Result<Schedule> sched = admin_.schedule(game);
  if (!sched.ok()) return sched.status();
  Result<std::vector<AuditEntry>> log = admin_.audit_log(game);
  if (!log.ok()) return log.status();
  Notice n;
  n.game = st->game_id;
  n.kind = "rollback";
  for (const Player& p : st->players) n.players.push_back(p.code);
  if (n.players.empty()) return Status::Ok();
  const std::string t = std::to_string(turn);
  const std::string name = st->name.empty() ? st->game_id : st->name;
  n.subject = "turn " + t + " reopened by the game master";  // the mailer adds the game
  const std::string withdrawn =
      from_turn - 1 > turn ? "turns " + t + " to " + std::to_string(from_turn - 1) : "turn " + t;
  n.text = "The game master reopened turn " + t + " of " + name + " (" + st->game_id +
           "). The results of " + withdrawn + " you were sent no longer stand; when turn " + t +
           " runs again you will be sent a corrected report.\n\n"
           "The orders on file for turn " +
           t + " are kept and will be used. To change yours, send a new order file for turn " + t +
           " (TURN " + t +
           "); it replaces the one on file. Send STATUS to see what is on file.\n\n" +
           (sched->deadline ? "The deadline is " + utc_minutes(*sched->deadline) + "."
                            : std::string("There is no deadline: the game master runs the turn.")) +
           "\n";
  n.dedupe_key = "rollback:" + st->game_id + ":" + t + ":" + std::to_string(rollback_count(*log));
  n.thread = "turns:" + st->game_id;
  return svc_.notify(std::move(n));
}

Status GameAdmin::set_schedule(const std::string& game, const Schedule& in,
                               const std::string& actor) {
  Schedule s = in;
  if (s.kind != "none" && s.kind != "fixed" && s.kind != "interval")
    return Status::InvalidArgument("schedule kind must be none, fixed or interval, not '" + s.kind +
                                   "'");
  if (s.kind == "interval" && s.interval_seconds <= 0)
    return Status::InvalidArgument("an interval schedule needs an interval of at least 1 second");
  if (s.interval_seconds < 0)
    return Status::InvalidArgument("schedule interval must not be negative");
  if (s.time_of_day) {
    if (*s.time_of_day < 0 || *s.time_of_day >= kDay)
      return Status::InvalidArgument("time of day must be 0..86399 seconds after 00:00 UTC");
    if (s.kind != "interval") s.time_of_day.reset();  // only interval schedules use it
  }
  if (s.time_of_day && s.interval_seconds % kDay != 0)
    return Status::InvalidArgument(
        "with a time of day the interval must be a whole number of days");
  if (s.kind == "none") s.deadline.reset();  // turns run by hand only
  if (s.max_attempts < 1) return Status::InvalidArgument("max_attempts must be at least 1");
  if (!(s.nmr_guard_ratio >= 0 && s.nmr_guard_ratio <= 1))
    return Status::InvalidArgument("nmr_guard_ratio must be between 0 and 1");
  if (s.downtime_grace_seconds < 0)
    return Status::InvalidArgument("downtime grace must not be negative");

  Result<Schedule> old = admin_.schedule(game);
  if (!old.ok()) return old.status();
  const UnixTime now = now_();
  if (s.deadline && *s.deadline <= now && s.deadline != old->deadline)
    return Status::InvalidArgument("deadline " + utc_iso(*s.deadline) + " is not in the future");
  if (s.kind == "interval" && !s.deadline) s.deadline = next_interval_deadline(s, now, now);
  ADJ_RETURN_IF_ERROR(admin_.set_schedule(game, s));
  return audit(game, actor, "schedule", {{"schedule", to_json(s)}});
}

Status GameAdmin::set_deadline(const std::string& game, UnixTime deadline,
                               const std::string& actor) {
  if (deadline <= now_())
    return Status::InvalidArgument("deadline " + utc_iso(deadline) + " is not in the future");
  Result<Schedule> s = admin_.schedule(game);
  if (!s.ok()) return s.status();
  const std::optional<UnixTime> from = s->deadline;
  if (s->kind == "none") s->kind = "fixed";
  s->deadline = deadline;
  ADJ_RETURN_IF_ERROR(admin_.set_schedule(game, *s));
  return audit(game, actor, "deadline", {{"from", opt_time(from)}, {"to", deadline}});
}

Status GameAdmin::extend_deadline(const std::string& game, std::int64_t seconds,
                                  const std::string& actor) {
  if (seconds <= 0) return Status::InvalidArgument("an extension must be at least 1 second");
  Result<Schedule> s = admin_.schedule(game);
  if (!s.ok()) return s.status();
  if (!s->deadline)
    return Status::FailedPrecondition("game " + game + " has no deadline to extend");
  const UnixTime from = *s->deadline;
  s->deadline = std::max(from, now_()) + seconds;
  ADJ_RETURN_IF_ERROR(admin_.set_schedule(game, *s));
  return audit(game, actor, "extend", {{"from", from}, {"to", *s->deadline}, {"seconds", seconds}});
}

Status GameAdmin::pause(const std::string& game, const std::string& actor) {
  Result<GameSummary> g = s_.games.game_summary(game);
  if (!g.ok()) return g.status();
  if (g->status != "open" && g->status != "held")
    return Status::FailedPrecondition("game " + game + " is " + g->status + ", not open or held");
  Result<Schedule> s = admin_.schedule(game);
  if (!s.ok()) return s.status();
  ADJ_RETURN_IF_ERROR(admin_.set_game_status(game, "paused"));
  Json detail = {{"from", g->status}, {"turn", g->turn}, {"deadline", opt_time(s->deadline)}};
  const UnixTime now = now_();
  if (s->deadline && *s->deadline > now) detail["remaining"] = *s->deadline - now;
  return audit(game, actor, "pause", std::move(detail));
}

Status GameAdmin::resume(const std::string& game, const std::string& actor) {
  Result<GameSummary> g = s_.games.game_summary(game);
  if (!g.ok()) return g.status();
  if (g->status != "paused" && g->status != "held")
    return Status::FailedPrecondition("game " + game + " is " + g->status + ", not paused or held");
  Result<Schedule> s = admin_.schedule(game);
  if (!s.ok()) return s.status();
  if (g->status == "paused") {
    // Give back the time that was left when the game was paused, unless the GM has set a new
    // deadline since.
    Result<std::vector<AuditEntry>> log = admin_.audit_log(game);
    if (!log.ok()) return log.status();
    const auto last_pause = std::find_if(log->rbegin(), log->rend(),
                                         [](const AuditEntry& e) { return e.action == "pause"; });
    if (last_pause != log->rend() && s->deadline) {
      const Json& d = last_pause->detail;
      const auto remaining = d.find("remaining");
      const auto deadline = d.find("deadline");
      if (remaining != d.end() && remaining->is_number_integer() && deadline != d.end() &&
          deadline->is_number_integer() && deadline->get<UnixTime>() == *s->deadline) {
        s->deadline = now_() + remaining->get<std::int64_t>();
        ADJ_RETURN_IF_ERROR(admin_.set_schedule(game, *s));
      }
    }
  }
  ADJ_RETURN_IF_ERROR(admin_.reset_attempts(game));
  ADJ_RETURN_IF_ERROR(admin_.set_game_status(game, "open"));
  return audit(game, actor, "resume",
               {{"from", g->status}, {"turn", g->turn}, {"deadline", opt_time(s->deadline)}});
}

// ---- Queries ----

Result<Schedule> GameAdmin::schedule(const std::string& game) { return admin_.schedule(game); }

Result<std::vector<AuditEntry>> GameAdmin::audit_log(const std::string& game) {
  return admin_.audit_log(game);
}

Result<std::vector<SubmissionStatus>> GameAdmin::submission_status(const std::string& game) {
  Result<GameState> st = s_.games.load_state(game, std::nullopt);
  if (!st.ok()) return st.status();
  auto subs = s_.submissions.current_submissions(game, st->turn);
  if (!subs.ok()) return subs.status();
  std::map<std::string, const SubmissionRecord*> by_player;
  for (const auto& r : *subs) by_player[r.player] = &r;
  std::vector<SubmissionStatus> out;
  for (const Player& p : st->players) {
    SubmissionStatus x;
    x.player = p.code;
    x.name = p.name;
    if (auto it = by_player.find(p.code); it != by_player.end()) {
      x.has_orders = counts_as_orders(*it->second);  // every line rejected: no orders
      x.received_at = it->second->received_at;
      x.accepted = int_field(it->second->ack, "accepted");
      x.rejected = int_field(it->second->ack, "rejected");
    }
    out.push_back(std::move(x));
  }
  return out;
}

Result<std::string> GameAdmin::issue_player_token(const std::string& game,
                                                  const std::string& player,
                                                  const std::string& actor) {
  Result<std::string> token = svc_.issue_link_token(game, player);
  if (!token.ok()) return token;
  ADJ_RETURN_IF_ERROR(audit(game, actor, "token", {{"player", upper(player)}}));
  return token;
}

Result<std::string> GameAdmin::reset_player(const std::string& game, const std::string& player,
                                            const std::string& what, const std::string& actor) {
  if (what != "secret" && what != "token" && what != "both")
    return Status::InvalidArgument("reset needs secret, token or both, not '" + what + "'");
  std::string out;
  if (what != "token") {
    Result<std::string> secret = svc_.reset_secret(game, player);
    if (!secret.ok()) return secret;
    out = *secret;
  }
  if (what != "secret") {
    Result<std::string> token = svc_.rotate_tokens(game, player);
    if (!token.ok()) return token;
    out += (out.empty() ? "" : " ") + *token;
  }
  ADJ_RETURN_IF_ERROR(audit(game, actor, "reset", {{"player", upper(player)}, {"what", what}}));
  return out;
}

Result<std::string> GameAdmin::player_update(const std::string& game, const std::string& player,
                                             const std::string& what,
                                             const std::string& new_secret) {
  std::string out;
  if (what == "secret") {
    ADJ_RETURN_IF_ERROR(svc_.change_secret(game, player, new_secret));
  } else if (what == "token") {
    Result<std::string> token = svc_.rotate_tokens(game, player);
    if (!token.ok()) return token;
    out = *token;
  } else {
    return Status::InvalidArgument("a player may change their secret or token, not '" + what + "'");
  }
  ADJ_RETURN_IF_ERROR(audit(game, "player:" + upper(player), "secret",
                            {{"player", upper(player)}, {"what", what}}));
  return out;
}

Result<std::pair<std::string, std::string>> GameAdmin::token_owner(const std::string& token) {
  return svc_.token_owner(token);
}

Result<bool> GameAdmin::check_secret(const std::string& game, const std::string& player,
                                     const std::string& secret) {
  Status s = svc_.authenticate_player(game, player, secret);
  if (s.ok()) return true;
  if (s.code() == StatusCode::kPermissionDenied) return false;
  return s;
}

// ---- Scheduler ----

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
std::optional<int> GameAdmin::turn_missing_reports(const std::vector<AuditEntry>& log,
                                                   int open_turn, UnixTime now,
                                                   std::int64_t grace) {
  std::map<int, UnixTime> last_run, last_reports;
  for (const AuditEntry& e : log) {
    if (e.action != "run" && e.action != "reports") continue;
    const int t = int_field(e.detail, "turn");
    if (t < 1 || t >= open_turn) continue;
    UnixTime& at = (e.action == "run" ? last_run : last_reports)[t];
    at = std::max(at, e.at);
  }
  for (const auto& [t, run_at] : last_run) {
    if (now - run_at < grace || now - run_at > kRecoverySeconds) continue;
    const auto reported = last_reports.find(t);
    if (reported == last_reports.end() || reported->second < run_at) return t;
  }
  return std::nullopt;
}

std::optional<TickAction> GameAdmin::unfinished_run(const GameSummary& g, UnixTime now, bool due,
                                                    bool due_reports) {
  if (g.turn <= 1) return std::nullopt;
  const int turn = g.turn - 1;
  Result<Json> rec = s_.games.turn_record(g.id, turn);
  if (!rec.ok() || !rec->is_object()) return std::nullopt;  // e.g. a scenario starting later
  const UnixTime ran_at = rec->value("ran_at", UnixTime{0});
  if (now - ran_at > kRecoverySeconds) return std::nullopt;
  const auto logged = [&](const std::vector<AuditEntry>& log, const char* action) {
    return std::any_of(log.begin(), log.end(), [&](const AuditEntry& e) {
      return e.action == action && int_field(e.detail, "turn") == turn && e.at >= ran_at;
    });
  };
  const auto finished = [&](const std::vector<AuditEntry>& log) { return logged(log, "run"); };
  Result<std::vector<AuditEntry>> log = admin_.audit_log(g.id);
  if (!log.ok()) return std::nullopt;
  const std::string which = "turn " + std::to_string(turn);
  if (due_reports)
    if (const std::optional<int> t = turn_missing_reports(*log, g.turn, now)) {
      TickAction act{g.id, "reports",
                     "turn " + std::to_string(*t) + "'s reports were never recorded as queued"};
      act.turn = *t;
      return act;
    }
  if (finished(*log) || !due) return std::nullopt;
  if (now - ran_at < kBookkeepingGraceSeconds)
    return TickAction{g.id, "waiting", which + " was just committed; its bookkeeping is under way"};
  // The claim on the open turn keeps another scheduler from doing this at the same time.
  if (Status c = s_.games.begin_resolving(g.id, g.turn, now); !c.ok())
    return TickAction{g.id, "waiting", which + ": " + c.message()};
  std::optional<TickAction> act;
  if (auto again = admin_.audit_log(g.id); again.ok() && !finished(*again)) {
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
                         "stopped before doing it"};
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
  if (std::optional<TickAction> pending =
          unfinished_run(g, now, past_deadline || s.early_when_all_in, false))
    return *pending;
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

std::vector<TickAction> GameAdmin::tick(bool recover_reports) {
  std::vector<TickAction> actions;
  try {
    const UnixTime now = now_();
    Result<UnixTime> last = admin_.last_tick();
    if (!last.ok()) log_error("", "read last tick", last.status());
    const UnixTime last_tick = last.ok() ? *last : 0;  // unknown: no downtime guard
    Result<std::vector<GameSummary>> games = s_.games.list_games();
    if (!games.ok()) {
      log_error("", "list games", games.status());
      return actions;
    }
    for (const GameSummary& g : *games) {
      if (g.status != "open") {
        // A game that finished, or was held or paused, right after a turn whose process died
        // before queueing its reports still gets them.
        if (recover_reports && g.status != "signup") try {
            std::unique_lock<std::mutex> lock(quiet_mu_);
            const auto q = quiet_.find(g.id);
            if (q != quiet_.end() && q->second == g.turn) continue;
            lock.unlock();
            // A finished game is never due again: its last run's missing bookkeeping (the
            // "run" and "finish" entries, the notices) is completed once the grace is over.
            if (auto reports = unfinished_run(g, now, g.status == "finished", true))
              actions.push_back(*reports);
            else if (Result<std::vector<AuditEntry>> log = admin_.audit_log(g.id);
                     log.ok() && !turn_missing_reports(*log, g.turn, now, 0)) {
              lock.lock();
              quiet_[g.id] = g.turn;
            }
          } catch (const std::exception& e) {
            actions.push_back({g.id, "failed", std::string("unexpected exception: ") + e.what()});
          }
        continue;
      }
      try {
        Result<Schedule> s = admin_.schedule(g.id);
        if (s.ok() && (s->kind == "none" || (!s->deadline && !s->early_when_all_in))) continue;
        actions.push_back(tick_game(g, now, last_tick));
        if (recover_reports)
          if (auto reports = unfinished_run(g, now, false, true)) actions.push_back(*reports);
      } catch (const std::exception& e) {
        actions.push_back({g.id, "failed", std::string("unexpected exception: ") + e.what()});
      } catch (...) {
        actions.push_back({g.id, "failed", "unexpected exception"});
      }
    }
    Status st = admin_.set_last_tick(now);
    if (!st.ok()) log_error("", "record last tick", st);
  } catch (const std::exception& e) {
    log_error("", "tick", Status::Internal(std::string("unexpected exception: ") + e.what()));
  } catch (...) {
    log_error("", "tick", Status::Internal("unexpected exception"));
  }
  return actions;
}

Json to_json(const Schedule& s) {
  return {{"kind", s.kind},
          {"deadline", s.deadline ? Json(*s.deadline) : Json(nullptr)},
          {"interval_seconds", s.interval_seconds},
          {"time_of_day", s.time_of_day ? Json(*s.time_of_day) : Json(nullptr)},
          {"early_when_all_in", s.early_when_all_in},
          {"max_attempts", s.max_attempts},
          {"nmr_guard_ratio", s.nmr_guard_ratio},
          {"downtime_grace_seconds", s.downtime_grace_seconds}};
}

}  // namespace adj
