#include "server/app/admin.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <ctime>
#include <exception>
#include <map>
#include <set>

#include "base/ascii.h"
#include "base/log_escape.h"
#include "rules/combat/script_engine.h"
#include "rules/game/victory.h"
#include "server/app/admin_internal.h"
#include "server/app/attendance.h"
#include "server/app/audit_log.h"
#include "server/app/engine_catalog.h"
#include "server/app/time_text.h"
#include "server/app/turn_runs.h"

namespace adj {

namespace {

using admin_internal::int_field;
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

Status GameAdmin::script_version_room(const std::string& game) {
  return adj::script_version_room(s_.scripts, game);
}

Result<OrdersOnFile> GameAdmin::orders_on_file(const std::string& game, const std::string& player) {
  return adj::orders_on_file(s_, game, player);
}

Result<SubmitOutcome> GameAdmin::enter_orders(const std::string& game, const std::string& player,
                                              std::string_view text, const std::string& actor,
                                              std::optional<int> expected_turn) {
  return enter_orders_for_player(svc_, s_, admin_, now_(), game, player, text, actor,
                                 expected_turn);
}

Status GameAdmin::rollback(const std::string& game, int turn, const std::string& actor,
                           const std::string& reason) {
  ADJ_RETURN_IF_ERROR(check_gm_reason(reason));
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
  Json detail = {{"turn", turn}, {"from_turn", before->turn}, {"later_files", later}};
  if (!reason.empty()) detail["why"] = reason;
  ADJ_RETURN_IF_ERROR(audit(game, actor, "rollback", std::move(detail)));
  // Rolling back a finished game's last turn reopens it (the store sets the status back).
  if (before->status == "finished" && turn < before->turn)
    ADJ_RETURN_IF_ERROR(audit(game, actor, "reopen",
                              {{"turn", turn},
                               {"message", "the game was over; rolling back to turn " +
                                               std::to_string(turn) + " reopened it"}}));
  return notify_rollback(game, turn, before->turn, reason);
}

Status GameAdmin::notify_rollback(const std::string& game, int turn, int from_turn,
                                  const std::string& reason) {
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
           " runs again you will be sent a corrected report.\n" + gm_reason_paragraph(reason) +
           "\n"
           "The orders on file for turn " +
           t + " are kept and will be used. To change yours, send a new order file for turn " + t +
           " (TURN " + t +
           "); it replaces the one on file. Send STATUS to see what is on file.\n\n" +
           deadline_sentence(turn, sched->deadline) + "\n";
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
  ADJ_RETURN_IF_ERROR(audit(game, actor, "schedule", {{"schedule", to_json(s)}}));
  return notify_deadline(game, old->deadline, s.deadline, "schedule");
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
  ADJ_RETURN_IF_ERROR(audit(game, actor, "deadline", {{"from", opt_time(from)}, {"to", deadline}}));
  return notify_deadline(game, from, deadline, "set");
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
  ADJ_RETURN_IF_ERROR(
      audit(game, actor, "extend", {{"from", from}, {"to", *s->deadline}, {"seconds", seconds}}));
  return notify_deadline(game, from, s->deadline, "extended");
}

std::optional<NextDeadline> GameAdmin::deadline_after_report(const std::string& game,
                                                             int report_turn) {
  Result<GameSummary> g = s_.games.game_summary(game);
  if (!g.ok() || g->status == "finished" || g->turn != report_turn + 1) return std::nullopt;
  Result<Schedule> s = admin_.schedule(game);
  if (!s.ok()) return std::nullopt;
  return NextDeadline{g->turn, s->deadline};
}

Status GameAdmin::notify_deadline(const std::string& game, const std::optional<UnixTime>& from,
                                  const std::optional<UnixTime>& to, const std::string& how) {
  if (from == to) return Status::Ok();
  Result<GameSummary> g = s_.games.game_summary(game);
  if (!g.ok()) return g.status();
  if (g->status == "finished" || g->status == "signup") return Status::Ok();
  Result<GameState> st = s_.games.load_state(game, std::nullopt);
  if (!st.ok()) return st.status();
  Notice n;
  n.game = st->game_id;
  n.kind = "deadline";
  for (const Player& p : st->players) n.players.push_back(p.code);
  if (n.players.empty()) return Status::Ok();
  const std::string t = std::to_string(st->turn);
  const std::string name = st->name.empty() ? st->game_id : st->name;
  // The mailer puts "<game name> (<game>): " before the subject.
  n.subject =
      to ? "turn " + t + " is due by " + utc_minutes(*to) : "turn " + t + " has no deadline";
  const std::string was = from ? " (it was " + utc_minutes(*from) + ")" : "";
  n.text = (how == "extended" ? "The game master extended the deadline for turn " + t + " of " +
                                    name + " (" + st->game_id + ")" + was + ".\n\n"
            : to ? "The game master set the deadline for turn " + t + " of " + name + " (" +
                       st->game_id + ")" + was + ".\n\n"
                 : "The game master removed the deadline for turn " + t + " of " + name + " (" +
                       st->game_id + ")" + was + ".\n\n") +
           deadline_sentence(st->turn, to) +
           "\n\nSend STATUS to see the orders you have on file; a new order file replaces them.\n";
  n.dedupe_key = "deadline:" + st->game_id + ":" + t + ":" + (to ? std::to_string(*to) : "none") +
                 ":" + std::to_string(now_());
  n.thread = "turns:" + st->game_id;
  const Status s = svc_.notify(std::move(n));
  return s.code() == StatusCode::kAlreadyExists ? Status::Ok() : s;
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

SubmissionStatus submission_status_of(const std::string& player, const std::string& name,
                                      const SubmissionRecord* file) {
  SubmissionStatus x;
  x.player = player;
  x.name = name;
  if (file) {
    x.has_orders = counts_as_orders(*file);  // every line rejected: no orders
    x.received_at = file->received_at;
    x.accepted = int_field(file->ack, "accepted");
    x.rejected = int_field(file->ack, "rejected");
  }
  return x;
}

Result<std::vector<SubmissionStatus>> GameAdmin::submission_status(const std::string& game,
                                                                   const GameState* open) {
  std::optional<GameState> read;
  if (!open) {
    Result<GameState> loaded = s_.games.load_state(game, std::nullopt);
    if (!loaded.ok()) return loaded.status();
    read = std::move(loaded).value();
    open = &*read;
  }
  const GameState* st = open;
  auto subs = s_.submissions.current_submissions(game, st->turn);
  if (!subs.ok()) return subs.status();
  std::map<std::string, const SubmissionRecord*> by_player;
  for (const auto& r : *subs) by_player[r.player] = &r;
  std::vector<SubmissionStatus> out;
  for (const Player& p : st->players) {
    const auto it = by_player.find(p.code);
    out.push_back(
        submission_status_of(p.code, p.name, it == by_player.end() ? nullptr : it->second));
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
                                             const std::string& what, const std::string& new_secret,
                                             const std::string& current_token) {
  std::string out;
  if (what == "secret") {
    ADJ_RETURN_IF_ERROR(svc_.change_secret(game, player, new_secret, current_token));
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
