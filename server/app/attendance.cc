#include "server/app/attendance.h"

#include <algorithm>
#include <cctype>
#include <map>

#include "base/ascii.h"
#include "server/app/audit_log.h"
#include "server/app/membership.h"
#include "server/app/secrets.h"
#include "server/app/time_text.h"

namespace adj {

namespace {

using ascii::lower;
using ascii::upper;

// Days since 1970-01-01 of a civil date (H. Hinnant's algorithm).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

std::int64_t day_of(UnixTime t) { return t >= 0 ? t / kDay : (t - kDay + 1) / kDay; }

}  // namespace

// ---- dates and addresses ----

std::optional<std::int64_t> days_of(const std::string& ymd) {
  if (ymd.size() != 10 || ymd[4] != '-' || ymd[7] != '-') return std::nullopt;
  for (std::size_t i : {0, 1, 2, 3, 5, 6, 8, 9})
    if (!std::isdigit(static_cast<unsigned char>(ymd[i]))) return std::nullopt;
  const int y = std::stoi(ymd.substr(0, 4));
  const unsigned m = static_cast<unsigned>(std::stoi(ymd.substr(5, 2)));
  const unsigned d = static_cast<unsigned>(std::stoi(ymd.substr(8, 2)));
  if (y < 1970 || m < 1 || m > 12 || d < 1) return std::nullopt;
  static constexpr unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  if (d > kDays[m - 1] + (m == 2 && leap ? 1 : 0)) return std::nullopt;
  return days_from_civil(y, m, d);
}

std::string ymd_of_days(std::int64_t days) { return format_utc(days * kDay, "%Y-%m-%d"); }

std::string ymd_of(UnixTime t) { return format_utc(t, "%Y-%m-%d"); }

std::string takeover_throttle_key(const std::string& game, const std::string& kingdom) {
  return "takeover:" + lower(game) + "/" + lower(kingdom);
}

// ---- views ----

std::string PlayerAttendance::absence_text() const {
  std::string out;
  for (const Absence& a : absences)
    out += (out.empty() ? "" : ", ") + (a.from == a.to ? a.from : a.from + " to " + a.to);
  return out;
}

Json to_json(const PlayerAttendance& p) {
  Json abs = Json::array();
  for (const Absence& a : p.absences) abs.push_back({{"from", a.from}, {"to", a.to}});
  return {{"player", p.player},
          {"name", p.name},
          {"missed", p.missed},
          {"missed_counted", p.counted},
          {"civil_disorder", p.disorder},
          {"disorder_since", p.disorder_since ? Json(*p.disorder_since) : Json(nullptr)},
          {"absences", abs}};
}

Json to_json(const AttendanceOptions& o) {
  return {{"civil_disorder_after", o.civil_disorder_after},
          {"absence_extends", o.absence_extends},
          {"absence_max_days", o.absence_max_days},
          {"absence_max_per_game", o.absence_max_per_game},
          {"takeover_code_days", o.takeover_code_days}};
}

// ---- options ----

Status Attendance::validate(const AttendanceOptions& o) {
  const auto range = [](const char* name, int v, int lo, int hi) {
    if (v >= lo && v <= hi) return Status::Ok();
    return Status::InvalidArgument(std::string(name) + " must be a whole number from " +
                                   std::to_string(lo) + " to " + std::to_string(hi) + ", not " +
                                   std::to_string(v));
  };
  ADJ_RETURN_IF_ERROR(range("civil_disorder_after (0 = never)", o.civil_disorder_after, 0, 20));
  ADJ_RETURN_IF_ERROR(range("absence_max_days", o.absence_max_days, 0, 60));
  ADJ_RETURN_IF_ERROR(range("absence_max_per_game (0 = no limit)", o.absence_max_per_game, 0, 50));
  return range("takeover_code_days", o.takeover_code_days, 1, 60);
}

Status Attendance::merge_json(const Json& j, AttendanceOptions& o) {
  if (!j.is_object())
    return Status::InvalidArgument(
        "attendance options must be a JSON object with civil_disorder_after, absence_extends, "
        "absence_max_days, absence_max_per_game and takeover_code_days");
  for (const auto& [key, v] : j.items()) {
    int* target = key == "civil_disorder_after"   ? &o.civil_disorder_after
                  : key == "absence_max_days"     ? &o.absence_max_days
                  : key == "absence_max_per_game" ? &o.absence_max_per_game
                  : key == "takeover_code_days"   ? &o.takeover_code_days
                                                  : nullptr;
    if (key == "absence_extends") {
      if (!v.is_boolean()) return Status::InvalidArgument("absence_extends must be true or false");
      o.absence_extends = v.get<bool>();
    } else if (target) {
      if (!v.is_number_integer() || v.get<std::int64_t>() < -1000000 ||
          v.get<std::int64_t>() > 1000000)
        return Status::InvalidArgument(key + " must be a whole number");
      *target = v.get<int>();
    } else {
      return Status::InvalidArgument(
          "unknown attendance option \"" + key +
          "\"; the options are civil_disorder_after, absence_extends, absence_max_days, "
          "absence_max_per_game and takeover_code_days");
    }
  }
  return Status::Ok();
}

Result<AttendanceOptions> Attendance::options(const std::string& game) {
  return a_.attendance_options(game);
}

Status Attendance::set_options(const std::string& game, const AttendanceOptions& o,
                               const std::string& actor) {
  ADJ_RETURN_IF_ERROR(validate(o));
  ADJ_RETURN_IF_ERROR(a_.set_attendance_options(game, o));
  return audit(game, actor, "attendance", {{"options", to_json(o)}});
}

Result<GameState> Attendance::state_with(const std::string& game, const std::string& code) {
  Result<GameState> st = s_.games.load_state(game, std::nullopt);
  if (!st.ok() || st->find_player(code)) return st;
  std::string kingdoms;
  for (const Player& p : st->players) kingdoms += (kingdoms.empty() ? "" : ", ") + p.code;
  return Status::NotFound("there is no kingdom " + code + " in game " + game +
                          "; the kingdoms are " + kingdoms);
}

Status Attendance::audit(const std::string& game, const std::string& actor,
                         const std::string& action, Json detail) {
  return record_audit(admin_, game, now_(), actor, action, std::move(detail));
}

// ---- missed turns ----

Result<std::vector<PlayerAttendance>> Attendance::players(const std::string& game) {
  Result<GameState> st = s_.games.load_state(game, std::nullopt);
  if (!st.ok()) return st.status();
  return players(game, *st);
}

Result<std::vector<PlayerAttendance>> Attendance::players(const std::string& game,
                                                          const GameState& open) {
  const GameState* st = &open;
  auto records = a_.attendance_records(game);
  if (!records.ok()) return records.status();
  auto absences = a_.absences(game);
  if (!absences.ok()) return absences.status();
  std::map<std::string, AttendanceRecord> rec;
  for (auto& r : *records) rec[r.player] = r;
  const std::int64_t today = day_of(now_());

  // The resolved turns looked at: who missed each, and the UTC day it ran.
  struct TurnSeen {
    std::vector<std::string> missing;
    std::int64_t day = 0;
  };
  std::map<int, TurnSeen> seen;
  const int first = std::max(1, st->turn - kLookback);
  auto turns = a_.turns_without_orders(game, first);
  if (!turns.ok()) return turns.status();
  for (auto& t : *turns) {
    std::sort(t.without_orders.begin(), t.without_orders.end());  // searched once per player
    seen[t.turn] = TurnSeen{std::move(t.without_orders), day_of(t.ran_at)};
  }

  std::vector<PlayerAttendance> out;
  for (const Player& p : st->players) {
    PlayerAttendance pa;
    pa.player = p.code;
    pa.name = p.name;
    const auto r = rec.find(p.code);
    const int from_turn = r == rec.end() ? 1 : r->second.misses_from_turn;
    if (r != rec.end() && r->second.disorder_turn && *r->second.disorder_turn <= st->turn) {
      pa.disorder = true;
      pa.disorder_since = r->second.disorder_turn;
    }
    std::vector<std::pair<std::int64_t, std::int64_t>> away;
    for (const Absence& a : *absences) {
      if (a.player != p.code) continue;
      const auto f = days_of(a.from), t = days_of(a.to);
      if (!f || !t) continue;
      away.emplace_back(*f, *t);
      if (*t >= today) pa.absences.push_back(a);
    }
    for (int t = st->turn - 1; t >= std::max(first, from_turn); --t) {
      const auto it = seen.find(t);
      if (it == seen.end() ||
          !std::binary_search(it->second.missing.begin(), it->second.missing.end(), p.code))
        break;
      ++pa.missed;
      const std::int64_t d = it->second.day;
      const bool excused = std::any_of(away.begin(), away.end(), [d](const auto& range) {
        return d >= range.first && d <= range.second;
      });
      if (!excused) ++pa.counted;
    }
    out.push_back(std::move(pa));
  }
  return out;
}

Result<std::set<std::string>> Attendance::in_disorder(const std::string& game) {
  Result<GameSummary> g = s_.games.game_summary(game);
  if (!g.ok()) return g.status();
  auto records = a_.attendance_records(game);
  if (!records.ok()) return records.status();
  std::set<std::string> out;
  for (const auto& r : *records)
    if (r.disorder_turn && *r.disorder_turn <= g->turn) out.insert(r.player);
  return out;
}

// ---- civil disorder ----

std::string Attendance::takeover_instructions(const std::string& game, const std::string& player,
                                              const std::string& code) const {
  std::string text = "To take it over by mail, send a message whose first line is\n\n  TAKEOVER " +
                     game + " " + player + " " + code +
                     "\n\nThe address you send it from becomes the player's address";
  text += "; or use the form at " +
          (base_url_.empty() ? "the page /games/" + game + "/takeover of the game's web site"
                             : base_url_ + "/games/" + game + "/takeover");
  text +=
      ".\nYou then get the position's new secret in a separate mail. The code works once, for "
      "this position only.\n";
  return text;
}

Result<std::string> Attendance::new_code(const std::string& game, const std::string& player,
                                         const std::string& address, const std::string& actor,
                                         int valid_days) {
  const std::string code = new_secret();
  TakeoverCode c;
  c.game = game;
  c.player = player;
  c.code_hash = hash_token(code);
  c.address = address;
  c.issued_by = actor;
  c.created_at = now_();
  c.expires_at = c.created_at + static_cast<std::int64_t>(valid_days) * kDay;
  auto id = a_.add_takeover_code(c);
  if (!id.ok()) return id.status();
  return code;
}

Status Attendance::after_run(const std::string& game, const TurnRunOutcome& out,
                             const std::string& actor) {
  auto opts = a_.attendance_options(game);
  if (!opts.ok()) return opts.status();
  if (opts->civil_disorder_after <= 0) return Status::Ok();
  // The state a run in this process committed is the open turn's: no second load of a big game.
  // An outcome rebuilt from the turn record (bookkeeping completed later) carries none.
  const GameState& committed = out.result.next_state;
  auto ps = committed.game_id == game && committed.turn == out.turn + 1 ? players(game, committed)
                                                                        : players(game);
  if (!ps.ok()) return ps.status();
  auto summary = s_.games.game_summary(game);
  if (!summary.ok()) return summary.status();
  const int next = out.turn + 1;
  Status first;
  const auto keep = [&first](Status s) {
    if (first.ok() && !s.ok()) first = std::move(s);
  };
  for (const PlayerAttendance& p : *ps) {
    if (p.disorder || p.counted < opts->civil_disorder_after) continue;
    auto records = a_.attendance_records(game);
    if (!records.ok()) return records.status();
    AttendanceRecord r;
    r.player = p.player;
    for (const auto& x : *records)
      if (x.player == p.player) r = x;
    r.disorder_turn = next;
    ADJ_RETURN_IF_ERROR(a_.put_attendance_record(game, r));

    const std::string who = p.name.empty() ? p.player : p.player + " (" + p.name + ")";
    Notice told;
    told.game = game;
    told.kind = "disorder";
    told.players = {p.player};
    told.subject = "Your position " + p.player + " is in civil disorder";
    told.text = "No orders from " + who + " arrived for " + std::to_string(p.counted) +
                " turns in a row in game " + game + " (" + summary->name + "), so from turn " +
                std::to_string(next) +
                " the position is in civil disorder: its areas hold, and players on the standby "
                "list are offered to take it over.\n\nIf you want to go on playing, send your "
                "orders as usual and ask the GM to keep the position for you.\n";
    told.dedupe_key = "disorder:" + game + ":" + p.player + ":" + std::to_string(next);
    told.thread = "attendance:" + game + ":" + p.player;
    keep(svc_.notify(told));

    auto standby = a_.standby_list(game);
    int offers = 0;
    if (!standby.ok()) {
      keep(standby.status());
    } else {
      for (const StandbyEntry& e : *standby) {
        if (offers >= kMaxStandby) break;
        auto code = new_code(game, p.player, e.address, actor, opts->takeover_code_days);
        if (!code.ok()) {
          keep(code.status());
          continue;
        }
        Notice offer;
        offer.game = game;
        offer.kind = "takeover";
        offer.addresses = {e.address};
        offer.subject = "takeover offer for " + p.player;  // the mailer names the game first
        offer.text = "You are on the standby list of game " + game + " (" + summary->name +
                     "). The position " + who + " went into civil disorder at turn " +
                     std::to_string(next) + " and is yours if you want it.\n\n" +
                     takeover_instructions(game, p.player, *code) + "The offer expires on " +
                     utc_minutes(now_() + opts->takeover_code_days * kDay) +
                     "; someone else on the list may take the position first.\n";
        offer.dedupe_key =
            "takeover-offer:" + game + ":" + p.player + ":" + hash_token(*code).substr(0, 16);
        keep(svc_.notify(offer));
        ++offers;
      }
    }
    keep(audit(game, actor, "civil-disorder",
               {{"player", p.player},
                {"turn", next},
                {"missed", p.counted},
                {"offers", offers},
                {"message", who + " missed " + std::to_string(p.counted) +
                                " turns in a row and is in civil disorder from turn " +
                                std::to_string(next) + "; " + std::to_string(offers) +
                                " standby player(s) offered the position"}}));
  }
  return first;
}

// ---- absences ----

Result<std::string> Attendance::extend_for_absence(const std::string& game, int turn) {
  auto opts = a_.attendance_options(game);
  if (!opts.ok()) return opts.status();
  if (!opts->absence_extends || opts->absence_max_days <= 0) return std::string();
  Result<Schedule> sched = admin_.schedule(game);
  if (!sched.ok()) return sched.status();
  if (!sched->deadline) return std::string();
  // Once per turn.
  auto log = admin_.audit_log(game);
  if (!log.ok()) return log.status();
  for (const AuditEntry& e : *log)
    if (e.action == "extend" && e.detail.is_object() && e.detail.value("reason", "") == "absence" &&
        e.detail.value("turn", 0) == turn)
      return std::string();
  auto absences = a_.absences(game);
  if (!absences.ok()) return absences.status();
  if (absences->empty()) return std::string();
  auto disorder = in_disorder(game);
  if (!disorder.ok()) return disorder.status();
  auto subs = s_.submissions.current_submissions(game, turn);
  if (!subs.ok()) return subs.status();
  std::set<std::string> in;
  for (const auto& s : *subs) in.insert(s.player);

  const UnixTime deadline = *sched->deadline;
  const std::int64_t day = day_of(deadline);
  std::int64_t last_away = -1;
  std::vector<std::string> who;
  for (const Absence& a : *absences) {
    const auto f = days_of(a.from), t = days_of(a.to);
    if (!f || !t || day < *f || day > *t) continue;
    if (in.count(a.player) || disorder->count(a.player)) continue;
    last_away = std::max(last_away, *t);
    if (std::find(who.begin(), who.end(), a.player) == who.end()) who.push_back(a.player);
  }
  if (who.empty()) return std::string();
  const std::int64_t days = std::min<std::int64_t>(last_away - day + 1, opts->absence_max_days);
  const UnixTime to = deadline + days * kDay;
  if (days <= 0 || to <= now_()) return std::string();
  Schedule s = *sched;
  s.deadline = to;
  ADJ_RETURN_IF_ERROR(admin_.set_schedule(game, s));
  std::string names;
  for (const auto& p : who) names += (names.empty() ? "" : ", ") + p;
  const std::string message = "deadline " + utc_minutes(deadline) +
                              " fell in the declared absence of " + names + "; extended by " +
                              std::to_string(days) + " day(s) to " + utc_minutes(to);
  ADJ_RETURN_IF_ERROR(audit(game, "scheduler", "extend",
                            {{"from", deadline},
                             {"to", to},
                             {"reason", "absence"},
                             {"turn", turn},
                             {"players", who},
                             {"message", message}}));
  return message;
}

Result<Absence> Attendance::declare_absence(const std::string& game, const std::string& player,
                                            const std::string& from, const std::string& to,
                                            const std::string& actor) {
  const std::string code = upper(player);
  Result<GameState> st = state_with(game, code);
  if (!st.ok()) return st.status();
  auto g = s_.games.game_summary(game);
  if (!g.ok()) return g.status();
  if (g->status == "finished")
    return Status::FailedPrecondition("game " + game +
                                      " is over; there is nothing to be away from");
  const auto f = days_of(from), t = days_of(to);
  if (!f || !t)
    return Status::InvalidArgument("the dates of an absence are written YYYY-MM-DD (for example " +
                                   ymd_of(now_() + 7 * kDay) + "); \"" + (f ? to : from) +
                                   "\" is not a date");
  const std::int64_t today = day_of(now_());
  if (*f > *t)
    return Status::InvalidArgument("the absence ends (" + to + ") before it starts (" + from +
                                   "); give the first day, then the last");
  if (*t < today)
    return Status::InvalidArgument("the absence " + from + " to " + to +
                                   " is over already (today is " + ymd_of(now_()) + ")");
  if (*t - *f + 1 > kMaxAbsenceDays)
    return Status::InvalidArgument("an absence is at most " + std::to_string(kMaxAbsenceDays) +
                                   " days; for a longer one ask the GM for a replacement");
  if (*f > today + 366) return Status::InvalidArgument("an absence may start at most a year ahead");
  auto opts = a_.attendance_options(game);
  if (!opts.ok()) return opts.status();
  auto all = a_.absences(game);
  if (!all.ok()) return all.status();
  const auto mine =
      std::count_if(all->begin(), all->end(), [&](const Absence& a) { return a.player == code; });
  if (opts->absence_max_per_game > 0 && mine >= opts->absence_max_per_game)
    return Status::FailedPrecondition("you have declared " + std::to_string(mine) +
                                      " absences in this game, the most it allows; ask the GM "
                                      "if you need another");
  Absence a;
  a.game = game;
  a.player = code;
  a.from = from;
  a.to = to;
  a.declared_at = now_();
  auto id = a_.add_absence(a);
  if (!id.ok()) return id.status();
  a.id = *id;
  ADJ_RETURN_IF_ERROR(
      audit(game, actor, "absence", {{"player", code}, {"from", from}, {"to", to}}));
  return a;
}

}  // namespace adj
