// Attendance on the web and in the JSON API (server/app/attendance.h): the standby and takeover
// pages, the player's absence form (/me), the GM desk's attendance section (missed turns,
// absences, civil disorder, standby list, takeover codes, options) and the API routes
//   POST /api/games/{g}/standby {email}                      (202: a confirmation is mailed,
//                                                             server/app/confirmations.h; 429
//                                                             past the request limits)
//   POST /api/games/{g}/standby/remove {email}                (GM)
//   POST /api/games/{g}/takeover {kingdom, code, email}
//   POST /api/games/{g}/players/{p}/absence {from, to}        (the player or the GM)
//   POST /api/games/{g}/players/{p}/takeover-code             (GM; the code is answered once)
//   GET  /api/games/{g}/attendance                            (players; the GM also sees standby,
//                                                             with when each joined)
// The GM removes a standby entry on the GM desk too: POST /gm/games/{g}/standby/remove {email}.
//   GET/PUT /api/games/{g}/options/attendance                 (PUT: GM)
// Takeover-code guesses go through the guessing limiter (auth_guard.h) with the account key
// takeover_throttle_key(game, kingdom). New secrets are mailed through ctx.secrets_issued.
//
// attendance_page_routes.cc holds the HTML routes, attendance_api_routes.cc the API routes
// (attendance_internal.h: what they share); this file the takeover both make, the view models
// and register_attendance_routes.
#include <string>
#include <unordered_map>
#include <utility>
#include <variant>

#include "server/app/attendance.h"
#include "server/app/membership.h"
#include "server/app/time_text.h"
#include "server/web/attendance_internal.h"
#include "server/web/auth_guard.h"
#include "server/web/route_util.h"
#include "server/web/routes.h"

namespace adj::web {

using http::Params;
using http::Request;
using http::Response;

// This file's helpers, in a namespace of their own so that the unity batches may compile the
// route files together.
namespace {
namespace attendance_core_local {

using attendance_detail::attendance_of;
using route::upper;

// Membership::replace over this thread's store: the new address, a new secret, old tokens
// revoked, the old address told.
Replacer replacer_of(WebContext& ctx) {
  return [&ctx](const std::string& game, const std::string& player, const std::string& email,
                const std::string& actor) -> Result<TakeoverOutcome> {
    Membership m = ctx.membership();
    auto r = m.replace(game, player, email, "", actor);
    if (!r.ok()) return r.status();
    return TakeoverOutcome{game, r->player, r->email, r->secret};
  };
}

// Each position by its player's code (for pages of thousands of players: no scan per row).
std::unordered_map<std::string, const PlayerAttendance*> by_code(
    const std::vector<PlayerAttendance>& ps) {
  std::unordered_map<std::string, const PlayerAttendance*> out;
  for (const PlayerAttendance& a : ps) out.emplace(a.player, &a);
  return out;
}

}  // namespace attendance_core_local
}  // namespace

namespace attendance_detail {

std::variant<TakeoverOutcome, Response> do_takeover(WebContext& ctx, const Request& req,
                                                    const std::string& game,
                                                    const std::string& kingdom,
                                                    const std::string& code,
                                                    const std::string& email, bool json) {
  using namespace attendance_core_local;
  const ThrottleKeys keys = guard_keys(req, takeover_throttle_key(game, kingdom));
  if (auto r = guard_check(ctx, keys, json ? "api_takeover" : "web_takeover", json)) return *r;
  auto t = attendance_of(ctx).takeover(game, kingdom, code, email, replacer_of(ctx),
                                       json ? "api" : "web");
  if (!t.ok()) {
    if (t.status().code() == StatusCode::kPermissionDenied)
      guard_record(ctx, keys, json ? "api_takeover" : "web_takeover", false, "wrong_code");
    return json ? api_fail(t.status()) : status_page(t.status());
  }
  guard_record(ctx, keys, json ? "api_takeover" : "web_takeover", true, "");
  ctx.secrets_issued(t->game, {{t->player, t->secret}}, true);  // mailed to the new address only
  return std::move(t).value();
}

}  // namespace attendance_detail

// ---- view models for the shared pages ----

Json attendance_gm_view(WebContext& ctx, const Request& req, const std::string& game,
                        const std::set<std::string>* shown, const GameState* open) {
  using namespace attendance_core_local;
  Attendance att = attendance_of(ctx);
  Json v = Json::object();
  v["saved"] = req.query.count("done") && req.query.at("done") == "attendance";
  auto ps = open ? att.players(game, *open) : att.players(game);
  if (!ps.ok()) return v;
  Json rows = Json::array();
  for (const auto& p : *ps) {
    if (shown && !shown->count(p.player)) continue;
    rows.push_back({{"player", p.player},
                    {"name", p.name},
                    {"missed", p.missed},
                    {"counted", p.counted},
                    {"excused", p.missed > p.counted ? Json(p.missed - p.counted) : Json()},
                    {"absence", p.absence_text()},
                    {"disorder", p.disorder},
                    {"disorder_since", p.disorder_since ? *p.disorder_since : 0}});
  }
  v["rows"] = rows;
  auto o = att.options(game);
  if (o.ok()) v["options"] = to_json(*o);
  Json standby = Json::array();
  if (auto list = att.standby_list(game); list.ok())
    for (const auto& e : *list)
      standby.push_back({{"address", e.address}, {"since", utc_minutes(e.created_at)}});
  v["standby"] = standby;
  v["has_standby"] = !standby.empty();
  return v;
}

Json attendance_me_view(WebContext& ctx, const Request& req, const std::string& game,
                        const std::string& player) {
  using namespace attendance_core_local;
  Attendance att = attendance_of(ctx);
  Json v = Json::object();
  // The state's head and this player only: a big game's whole state is megabytes.
  auto view = ctx.services().load_player(game, upper(player));
  auto ps =
      view.ok() ? att.players(game, *view) : Result<std::vector<PlayerAttendance>>(view.status());
  if (ps.ok())
    for (const auto& p : *ps)
      if (p.player == upper(player)) {
        v["missed"] = p.missed;
        v["disorder"] = p.disorder;
        v["absence"] = p.absence_text().empty() ? Json() : Json(p.absence_text());
      }
  auto o = att.options(game);
  if (o.ok()) {
    v["options"] = to_json(*o);
    v["options"]["disorder_enabled"] = o->civil_disorder_after > 0;
  }
  v["absence_noted"] = req.query.count("done") && req.query.at("done") == "absence";
  return v;
}

void add_attendance_json(WebContext& ctx, const std::string& game, Json& doc) {
  using namespace attendance_core_local;
  auto ps = attendance_of(ctx).players(game);
  if (!ps.ok() || !doc.contains("players") || !doc["players"].is_array()) return;
  const auto by_player = by_code(*ps);
  for (Json& p : doc["players"])
    if (auto it = by_player.find(p.value("code", "")); it != by_player.end()) {
      p["missed"] = it->second->missed;
      p["civil_disorder"] = it->second->disorder;
    }
}

void add_attendance_columns(WebContext& ctx, const std::string& game, Json& rows,
                            const GameState* open) {
  using namespace attendance_core_local;
  Attendance att = attendance_of(ctx);
  auto ps = open ? att.players(game, *open) : att.players(game);
  if (!ps.ok() || !rows.is_array()) return;
  const auto by_player = by_code(*ps);
  for (Json& row : rows)
    if (auto it = by_player.find(row.value("code", "")); it != by_player.end()) {
      row["missed"] = it->second->missed;
      row["disorder"] = it->second->disorder;
      row["absence"] = it->second->absence_text();
    }
}

void register_attendance_routes(http::Router& router, WebContext& ctx) {
  attendance_detail::register_attendance_page_routes(router, ctx);
  attendance_detail::register_attendance_api_routes(router, ctx);
}

}  // namespace adj::web
