// The JSON API half of attendance (attendance_routes.cc has the contract):
//   POST /api/games/{g}/standby {email}                      (202: a confirmation is mailed,
//                                                             server/app/confirmations.h; 429
//                                                             past the request limits)
//   POST /api/games/{g}/standby/remove {email}                (GM)
//   POST /api/games/{g}/takeover {kingdom, code, email}
//   POST /api/games/{g}/players/{p}/absence {from, to}        (the player or the GM)
//   POST /api/games/{g}/players/{p}/takeover-code             (GM; the code is answered once)
//   GET  /api/games/{g}/attendance                            (players; the GM also sees standby,
//                                                             with when each joined)
//   GET/PUT /api/games/{g}/options/attendance                 (PUT: GM)
// Errors are {"error": "..."}; an exception out of a handler is logged and answered 500.
#include <spdlog/spdlog.h>

#include <cstddef>
#include <optional>
#include <string>
#include <variant>

#include "base/client_address.h"
#include "base/escape.h"
#include "base/log_escape.h"
#include "server/app/attendance.h"
#include "server/app/confirmations.h"
#include "server/app/mail_delivery.h"
#include "server/web/attendance_internal.h"
#include "server/web/auth_guard.h"
#include "server/web/route_util.h"
#include "server/web/routes.h"
#include "server/web/web_session.h"

namespace adj::web {

using http::Params;
using http::Request;
using http::Response;

// This file's helpers, in a namespace of their own so that the unity batches may compile the
// route files together.
namespace {
namespace attendance_api_local {

using attendance_detail::api_fail;
using attendance_detail::attendance_of;
using attendance_detail::do_takeover;
using attendance_detail::kGmActor;
using route::json_response;
using route::param;
using route::trim;
using route::upper;

constexpr std::size_t kMaxBody = 16 * 1024;

Json json_error(const std::string& message) { return {{"error", message}}; }

// ---- JSON API ----

std::variant<Json, Response> json_body(const Request& req) {
  if (req.body.size() > kMaxBody)
    return json_response(json_error("the request body is too large"), 413);
  Json doc = Json::parse(req.body, nullptr, false);
  if (doc.is_discarded() || !doc.is_object())
    return json_response(json_error("the request body must be a JSON object"), 400);
  return doc;
}

// A string field of `doc`; InvalidArgument naming it when missing or not a string.
Result<std::string> string_field(const Json& doc, const char* name) {
  auto it = doc.find(name);
  if (it == doc.end() || !it->is_string() || it->get<std::string>().size() > 1000)
    return Status::InvalidArgument(std::string("the field \"") + name + "\" (a string) is missing");
  return trim(it->get<std::string>());
}

// GM (bearer token, or cookie from this site's pages) through the limiter.
std::optional<Response> api_gm_denied(WebContext& ctx, const Request& req) {
  if (ctx.config().gm_token.empty())
    return json_response(json_error("the GM API is disabled: no GM token is configured"), 403);
  const ThrottleKeys keys = guard_keys(req, kThrottleKeyGm);
  if (auto r = guard_check(ctx, keys, "api_gm", true)) return *r;
  const bool gm = is_gm(req, ctx.config());
  if (!bearer_token(req).empty() || !req.cookie(kGmCookie).empty())
    guard_record(ctx, keys, "api_gm", gm, "wrong_token");
  if (!gm)
    return json_response(json_error("this needs the GM token (Authorization: Bearer <token>)"),
                         401);
  const std::string bearer = bearer_token(req);
  if (req.method != "GET" &&
      !(!bearer.empty() && constant_time_equal(bearer, ctx.config().gm_token)) &&
      !api_csrf_ok(req, ctx.config().base_url))
    return json_response(json_error("with the GM cookie alone this request must come from this "
                                    "site's own pages (header X-CSRF-Token)"),
                         403);
  return std::nullopt;
}

// The player a link token (bearer, or the cookie with X-CSRF-Token) names in `game`; "" when none.
std::string api_player(WebContext& ctx, const Request& req, const std::string& game) {
  std::string token = bearer_token(req);
  if (token.empty()) {
    if (req.method != "GET" && !api_csrf_ok(req, ctx.config().base_url)) return "";
    token = url_decode(req.cookie(kPlayerCookie), false);
  }
  if (token.empty() || token.size() > 256) return "";
  const ThrottleKeys keys = guard_keys(req, "");
  if (guard_check(ctx, keys, "api_bearer", true)) return "";
  auto owner = ctx.admin().token_owner(token);
  if (!owner.ok()) {
    guard_record(ctx, keys, "api_bearer", false, "unknown_token");
    return "";
  }
  return owner->first == game ? upper(owner->second) : "";
}

Response api_standby(WebContext& ctx, const Request& req, const std::string& game) {
  auto body = json_body(req);
  if (auto* r = std::get_if<Response>(&body)) return *r;
  auto email = string_field(std::get<Json>(body), "email");
  if (!email.ok()) return api_fail(email.status());
  Confirmations confirm = ctx.confirmations();
  auto out = confirm.ask_standby(game, *email, "api", client_key(req.remote));
  if (!out.ok()) return api_fail(out.status());
  if (out->limited) {
    Response r = json_response(json_error(out->text), 429);
    r.headers.emplace_back("Retry-After", std::to_string(Confirmations::kLimits.window));
    return r;
  }
  return json_response({{"game", out->game}, {"confirmation", "mailed"}, {"message", out->text}},
                       202);
}

Response api_attendance(WebContext& ctx, const Request& req, const std::string& game);

Response api_standby_remove(WebContext& ctx, const Request& req, const std::string& game) {
  if (auto denied = api_gm_denied(ctx, req)) return *denied;
  auto body = json_body(req);
  if (auto* r = std::get_if<Response>(&body)) return *r;
  auto email = string_field(std::get<Json>(body), "email");
  if (!email.ok()) return api_fail(email.status());
  Attendance att = attendance_of(ctx);
  if (Status s = att.remove_standby(game, *email, kGmActor); !s.ok()) return api_fail(s);
  return api_attendance(ctx, req, game);
}

Response api_takeover(WebContext& ctx, const Request& req, const std::string& game) {
  auto body = json_body(req);
  if (auto* r = std::get_if<Response>(&body)) return *r;
  const Json& j = std::get<Json>(body);
  auto kingdom = string_field(j, "kingdom");
  auto code = string_field(j, "code");
  auto email = string_field(j, "email");
  for (const auto* f : {&kingdom, &code, &email})
    if (!f->ok()) return api_fail(f->status());
  auto t = do_takeover(ctx, req, game, upper(*kingdom), *code, *email, true);
  if (auto* r = std::get_if<Response>(&t)) return *r;
  const auto& out = std::get<TakeoverOutcome>(t);
  return json_response({{"game", out.game},
                        {"player", out.player},
                        {"email", out.email},
                        {"message", "You now play " + out.player + "; the new secret " +
                                        mailed_words() + " to " + out.email + "."}});
}

Response api_absence(WebContext& ctx, const Request& req, const std::string& game,
                     const std::string& player_arg) {
  const std::string player = upper(player_arg);
  const bool gm = is_gm(req, ctx.config());
  if (gm) {
    if (auto denied = api_gm_denied(ctx, req)) return *denied;
  } else if (api_player(ctx, req, game) != player) {
    return json_response(json_error("this needs the player's own link token (Authorization: "
                                    "Bearer <token>) or the GM token"),
                         401);
  }
  auto body = json_body(req);
  if (auto* r = std::get_if<Response>(&body)) return *r;
  auto from = string_field(std::get<Json>(body), "from");
  auto to = string_field(std::get<Json>(body), "to");
  if (!from.ok()) return api_fail(from.status());
  if (!to.ok()) return api_fail(to.status());
  auto a = attendance_of(ctx).declare_absence(game, player, *from, *to,
                                              gm ? std::string(kGmActor) : "player:" + player);
  if (!a.ok()) return api_fail(a.status());
  return json_response({{"game", game}, {"player", a->player}, {"from", a->from}, {"to", a->to}},
                       201);
}

Response api_code(WebContext& ctx, const Request& req, const std::string& game,
                  const std::string& player) {
  if (auto denied = api_gm_denied(ctx, req)) return *denied;
  Attendance att = attendance_of(ctx);
  auto code = att.issue_code(game, player, kGmActor);
  if (!code.ok()) return api_fail(code.status());
  auto o = att.options(game);
  return json_response({{"game", game},
                        {"player", upper(player)},
                        {"code", *code},
                        {"valid_days", o.ok() ? o->takeover_code_days : 0}},
                       201);
}

Response api_attendance(WebContext& ctx, const Request& req, const std::string& game) {
  Attendance att = attendance_of(ctx);
  auto ps = att.players(game);
  if (!ps.ok()) return api_fail(ps.status());
  // Absence dates are the player's and the GM's: the public list leaves them out.
  const bool gm = is_gm_limited(ctx, req, "api_gm");
  Json players = Json::array();
  for (const auto& p : *ps) {
    players.push_back(to_json(p));
    if (!gm) players.back().erase("absences");
  }
  Json out = {{"game", game}, {"players", players}};
  auto o = att.options(game);
  if (o.ok()) out["options"] = to_json(*o);
  auto list = att.standby_list(game);
  if (list.ok()) {
    out["standby_count"] = list->size();
    if (gm) {
      Json addrs = Json::array(), entries = Json::array();
      for (const auto& e : *list) {
        addrs.push_back(e.address);
        entries.push_back({{"address", e.address}, {"since", e.created_at}});
      }
      out["standby"] = addrs;
      out["standby_entries"] = entries;
    }
  }
  return json_response(out);
}

Response api_options(WebContext& ctx, const Request& req, const std::string& game) {
  Attendance att = attendance_of(ctx);
  auto o = att.options(game);
  if (!o.ok()) return api_fail(o.status());
  if (req.method == "GET") return json_response(to_json(*o));
  if (auto denied = api_gm_denied(ctx, req)) return *denied;
  auto body = json_body(req);
  if (auto* r = std::get_if<Response>(&body)) return *r;
  if (Status s = Attendance::merge_json(std::get<Json>(body), *o); !s.ok()) return api_fail(s);
  if (Status s = att.set_options(game, *o, kGmActor); !s.ok()) return api_fail(s);
  return json_response(to_json(*o));
}

}  // namespace attendance_api_local
}  // namespace

namespace attendance_detail {

void register_attendance_api_routes(http::Router& router, WebContext& ctx) {
  using namespace attendance_api_local;
  const auto g = [](const Params& p) { return param(p, "game"); };
  const auto api = [](auto f) {
    return [f](const Request& req, const Params& p) -> Response {
      try {
        return f(req, p);
      } catch (const http::ServiceUnavailable&) {
        throw;
      } catch (const std::exception& e) {
        spdlog::error("event=attendance_api_exception path=\"{}\" error=\"{}\"",
                      log_escape(req.path), log_escape(e.what()));
      }
      return json_response(json_error("internal error"), 500);
    };
  };
  router.add(
      "POST", "/api/games/{game}/standby",
      api([&ctx, g](const Request& req, const Params& p) { return api_standby(ctx, req, g(p)); }),
      "api_standby");
  router.add("POST", "/api/games/{game}/standby/remove",
             api([&ctx, g](const Request& req, const Params& p) {
               return api_standby_remove(ctx, req, g(p));
             }),
             "api_standby_remove");
  router.add(
      "POST", "/api/games/{game}/takeover",
      api([&ctx, g](const Request& req, const Params& p) { return api_takeover(ctx, req, g(p)); }),
      "api_takeover");
  router.add("POST", "/api/games/{game}/players/{player}/absence",
             api([&ctx, g](const Request& req, const Params& p) {
               return api_absence(ctx, req, g(p), param(p, "player"));
             }),
             "api_absence");
  router.add("POST", "/api/games/{game}/players/{player}/takeover-code",
             api([&ctx, g](const Request& req, const Params& p) {
               return api_code(ctx, req, g(p), param(p, "player"));
             }),
             "api_takeover_code");
  router.add("GET", "/api/games/{game}/attendance",
             api([&ctx, g](const Request& req, const Params& p) {
               return api_attendance(ctx, req, g(p));
             }),
             "api_attendance");
  for (const char* method : {"GET", "PUT"})
    router.add(
        method, "/api/games/{game}/options/attendance",
        api([&ctx, g](const Request& req, const Params& p) { return api_options(ctx, req, g(p)); }),
        "api_attendance_options");
}

}  // namespace attendance_detail
}  // namespace adj::web
