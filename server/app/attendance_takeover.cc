// Attendance: the standby list and takeovers (server/app/attendance.h, "Takeover codes").
#include <algorithm>

#include "base/ascii.h"
#include "server/app/attendance.h"
#include "server/app/membership.h"
#include "server/app/secrets.h"
#include "server/app/time_text.h"

namespace adj {

namespace {

using ascii::lower;
using ascii::upper;

// Audit actions on a position that show its player is back or the GM took it in hand: a code
// issued before one of them no longer opens the position.
bool acts_on_position(const std::string& action) {
  static const char* const kActs[] = {"replace", "address", "reset",  "token",
                                      "orders",  "secret",  "absence"};
  return std::any_of(std::begin(kActs), std::end(kActs),
                     [&](const char* a) { return action == a; });
}

}  // namespace

Result<std::string> Attendance::standby(const std::string& game, const std::string& address,
                                        bool notify) {
  ADJ_RETURN_IF_ERROR(Membership::check_address(address));
  auto g = s_.games.game_summary(game);
  if (!g.ok()) return g.status();
  if (g->status == "finished")
    return Status::FailedPrecondition("game " + game + " is over; it needs no standby players");
  auto list = a_.standby_list(game);
  if (!list.ok()) return list.status();
  const std::string addr = lower(address);
  const bool there = std::any_of(list->begin(), list->end(),
                                 [&](const StandbyEntry& e) { return e.address == addr; });
  if (!there && static_cast<int>(list->size()) >= kMaxStandby)
    return Status::FailedPrecondition("the standby list of game " + game + " is full (" +
                                      std::to_string(kMaxStandby) +
                                      " players); try again later or ask the GM");
  auto added = a_.add_standby(game, addr, now_());
  if (!added.ok()) return added.status();
  const std::string text = std::string(*added ? "You are now" : "You were already") +
                           " on the standby list of game " + game + " (" + g->name +
                           "). When a position goes into civil disorder you get an offer "
                           "with a takeover code by mail at " +
                           addr + ".\n";
  if (*added) {
    ADJ_RETURN_IF_ERROR(audit(game, "standby", "standby", {{"address", addr}}));
  }
  if (*added && notify) {
    Notice n;
    n.game = game;
    n.kind = "standby";
    n.addresses = {addr};
    n.subject = "you are on the standby list";  // the mailer names the game first
    n.text = text;
    n.dedupe_key = "standby:" + game + ":" + addr;
    n.thread = "standby:" + game + ":" + addr;
    ADJ_RETURN_IF_ERROR(svc_.notify(n));
  }
  return text;
}

Result<std::vector<StandbyEntry>> Attendance::standby_list(const std::string& game) {
  return a_.standby_list(game);
}

Status Attendance::remove_standby(const std::string& game, const std::string& address,
                                  const std::string& actor) {
  auto list = a_.standby_list(game);
  if (!list.ok()) return list.status();
  const std::string addr = lower(address);
  if (std::none_of(list->begin(), list->end(),
                   [&](const StandbyEntry& e) { return e.address == addr; }))
    return Status::NotFound(address.substr(0, 254) + " is not on the standby list of game " + game);
  ADJ_RETURN_IF_ERROR(a_.remove_standby(game, addr));
  return audit(game, actor, "standby-remove", {{"address", addr}});
}

Result<std::string> Attendance::issue_code(const std::string& game, const std::string& player,
                                           const std::string& actor) {
  const std::string code = upper(player);
  Result<GameState> st = state_with(game, code);
  if (!st.ok()) return st.status();
  auto opts = a_.attendance_options(game);
  if (!opts.ok()) return opts.status();
  auto c = new_code(game, code, "", actor, opts->takeover_code_days);
  if (!c.ok()) return c;
  ADJ_RETURN_IF_ERROR(
      audit(game, actor, "takeover-code",
            {{"player", code}, {"expires", utc_iso(now_() + opts->takeover_code_days * kDay)}}));
  return c;
}

Result<std::string> Attendance::closed_reason(const std::string& game, const TakeoverCode& c,
                                              int open_turn) {
  auto records = a_.attendance_records(game);
  if (!records.ok()) return records.status();
  std::optional<int> since;
  for (const auto& r : *records)
    if (r.player == c.player && r.disorder_turn && *r.disorder_turn <= open_turn)
      since = r.disorder_turn;
  if (!c.address.empty() && !since) return std::string("it is no longer in civil disorder");
  auto subs = s_.submissions.all_submissions(game);
  if (!subs.ok()) return subs.status();
  for (const SubmissionRecord& s : *subs)
    if (s.player == c.player && s.accepted && s.received_at >= c.created_at &&
        (!since || s.turn >= *since))
      return std::string("orders for it arrived after the code was issued");
  auto log = admin_.audit_log(game);
  if (!log.ok()) return log.status();
  for (const AuditEntry& e : *log)
    if (e.at >= c.created_at && acts_on_position(e.action) && e.detail.is_object() &&
        e.detail.value("player", "") == c.player)
      return std::string(e.actor.rfind("player:", 0) == 0 ? "its player is back"
                                                          : "the GM has acted on it") +
             " since the code was issued (" + e.action + ", " + utc_minutes(e.at) + ")";
  return std::string();
}

Result<TakeoverOutcome> Attendance::takeover(const std::string& game, const std::string& kingdom,
                                             const std::string& code, const std::string& email,
                                             const Replacer& replace, const std::string& channel) {
  ADJ_RETURN_IF_ERROR(Membership::check_address(email));
  auto g = s_.games.game_summary(game);
  if (!g.ok()) return g.status();
  if (g->status == "finished")
    return Status::FailedPrecondition("game " + game + " is over; no position can be taken over");
  if (g->status == "signup")
    return Status::FailedPrecondition("game " + game +
                                      " has not started; join it with JOIN instead");
  const std::string player = upper(kingdom);
  Result<GameState> st = state_with(game, player);
  if (!st.ok()) return st.status();
  if (code.empty() || code.size() > 64)
    return Status::PermissionDenied("this takeover code is wrong, used or expired");
  const std::string addr = lower(email);
  const std::string hash = hash_token(code);
  // A genuine code that is still unused checks that the position is open (guesses never get
  // this far, so they learn nothing from it).
  auto codes = a_.takeover_codes(game);
  if (!codes.ok()) return codes.status();
  for (const TakeoverCode& c : *codes) {
    if (c.player != player || c.code_hash != hash || c.used_at || c.expires_at <= now_()) continue;
    auto closed = closed_reason(game, c, st->turn);
    if (!closed.ok()) return closed.status();
    if (!closed->empty())
      return Status::FailedPrecondition("the position " + player + " in game " + game +
                                        " is no longer open for takeover: " + *closed +
                                        "; the code is void");
  }
  auto used = a_.use_takeover_code(game, player, hash, addr, now_());
  if (!used.ok()) return used.status();
  if (!*used)
    return Status::PermissionDenied("this takeover code is wrong, used or expired for " + player +
                                    " in game " + game +
                                    "; check the code in your offer, or ask the GM for a new one");
  auto out = replace(game, player, addr, "takeover:" + addr);
  if (!out.ok()) return out;

  AttendanceRecord r;
  r.player = player;
  r.misses_from_turn = st->turn;  // misses before the takeover were not the new player's
  ADJ_RETURN_IF_ERROR(a_.put_attendance_record(game, r));
  ADJ_RETURN_IF_ERROR(a_.remove_standby(game, addr));
  ADJ_RETURN_IF_ERROR(audit(game, "takeover:" + addr, "takeover",
                            {{"player", player}, {"to", addr}, {"channel", channel}}));
  out->game = game;
  out->player = player;
  out->email = addr;
  return out;
}

}  // namespace adj
