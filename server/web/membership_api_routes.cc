// The JSON API half of joining, leaving and replacing (membership_routes.cc has the contract):
//   POST /api/games/{g}/signups {email, preferences}   (anyone; 202: a confirmation is mailed;
//        429 past the request limits)
//   POST /api/games/{g}/confirm {code}                (anyone: confirms a sign-up or standby)
//   POST /api/games/{g}/signups/{id}/remove           (GM)
//   GET  /api/games/{g}/signups                       (GM)
//   POST /api/games/{g}/signups/{id}/approve | start | invite {email} | open-signups (GM)
//   PUT  /api/games/{g}/players/{p}/address {email}   (the player's token, or the GM)
//   POST /api/games/{g}/players/{p}/replace {email, name} (GM)
// Answers are JSON, never stored by caches; errors are {"error": "..."}.
#include <optional>
#include <string>
#include <variant>

#include "base/client_address.h"
#include "base/escape.h"
#include "server/app/confirmations.h"
#include "server/app/mail_delivery.h"
#include "server/app/membership.h"
#include "server/web/auth_guard.h"
#include "server/web/membership_internal.h"
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
namespace membership_api_local {

using membership_detail::confirmations;
using membership_detail::kGmActor;
using membership_detail::membership;
using membership_detail::signup_json;
using route::trim;
using route::upper;

// JSON answers, never stored by caches.
Response json_response(const Json& j, int status = 200) {
  return route::json_response(j, status, true);
}

Response api_error(int status, const std::string& message) {
  return route::json_error(status, message, true);
}

Response api_fail(const Status& s) { return route::api_fail(s, "api_error", true); }

// Null when the request is the GM's and may change state (bearer GM token, or the GM cookie
// from this site's own pages); the refusal otherwise.
std::optional<Response> api_gm_denied(const Request& req, WebContext& ctx) {
  if (ctx.config().gm_token.empty())
    return api_error(403, "the GM API is disabled: no GM token is configured");
  bool gm = false;
  if (auto r = route::check_gm(req, ctx, "api_gm", true, gm)) return r;
  if (!gm) {
    Response r = api_error(401, "this needs the GM token (Authorization: Bearer <token>)");
    r.headers.emplace_back("WWW-Authenticate", "Bearer realm=\"adjutant\"");
    return r;
  }
  const std::string bearer = bearer_token(req);
  const bool by_bearer = !bearer.empty() && constant_time_equal(bearer, ctx.config().gm_token);
  if (req.method != "GET" && !by_bearer && !api_csrf_ok(req, ctx.config().base_url))
    return api_error(403,
                     "with the GM cookie alone this request must come from this site's own pages "
                     "(same Origin and the adj_csrf cookie repeated in header X-CSRF-Token); "
                     "scripts use Authorization: Bearer <GM token>");
  return std::nullopt;
}

// The body as a JSON object, or the 400 to answer.
std::variant<Json, Response> json_body(const Request& req, const std::string& shape) {
  Json j = Json::parse(req.body.empty() ? std::string("{}") : req.body, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return api_error(400, "the request body must be a JSON object: " + shape);
  return j;
}

// A string member of `j` ("" when absent); the 400 when it is there but not a string.
std::variant<std::string, Response> string_member(const Json& j, const std::string& name,
                                                  const std::string& shape) {
  if (!j.contains(name) || j[name].is_null()) return std::string();
  if (!j[name].is_string()) return api_error(400, "\"" + name + "\" must be a string: " + shape);
  return j[name].get<std::string>();
}

// 429 (Retry-After: the window) for a refused request.
Response api_limited(const std::string& text) {
  Response r = api_error(429, text);
  r.headers.emplace_back("Retry-After", std::to_string(Confirmations::kLimits.window));
  return r;
}

Response api_join(WebContext& ctx, const Request& req, const std::string& game) {
  const std::string shape =
      "{\"email\": \"you@example.org\", \"preferences\": [\"<kingdom code>\", ...]}";
  auto body = json_body(req, shape);
  if (auto* r = std::get_if<Response>(&body)) return *r;
  const Json& j = std::get<Json>(body);
  auto email = string_member(j, "email", shape);
  if (auto* r = std::get_if<Response>(&email)) return *r;
  std::string prefs;
  if (j.contains("preferences")) {
    const Json& p = j["preferences"];
    if (p.is_string()) {
      prefs = p.get<std::string>();
    } else if (p.is_array() && p.size() <= 64) {
      for (const Json& x : p) {
        if (!x.is_string()) return api_error(400, "\"preferences\" must hold strings: " + shape);
        prefs += x.get<std::string>() + ",";
      }
    } else if (!p.is_null()) {
      return api_error(400, "\"preferences\" must be a list of kingdom codes: " + shape);
    }
  }
  auto out = confirmations(ctx).ask_signup(game, trim(std::get<std::string>(email)), prefs, "api",
                                           client_key(req.remote));
  if (!out.ok()) return api_fail(out.status());
  if (out->limited) return api_limited(out->text);
  return json_response({{"game", out->game}, {"confirmation", "mailed"}, {"message", out->text}},
                       202);
}

Response api_confirm(WebContext& ctx, const Request& req) {
  const std::string shape = "{\"code\": \"the code from the mail\"}";
  auto body = json_body(req, shape);
  if (auto* r = std::get_if<Response>(&body)) return *r;
  auto code = string_member(std::get<Json>(body), "code", shape);
  if (auto* r = std::get_if<Response>(&code)) return *r;
  auto out = confirmations(ctx).confirm(std::get<std::string>(code), "api");
  if (!out.ok()) return api_fail(out.status());
  return json_response({{"game", out->game},
                        {"kind", out->kind},
                        {"email", out->address},
                        {"confirmed", true},
                        {"message", out->text}});
}

Response api_signups(WebContext& ctx, const std::string& game) {
  auto list = membership(ctx).signups(game);
  if (!list.ok()) return api_fail(list.status());
  Json rows = Json::array();
  for (const auto& s : *list) rows.push_back(signup_json(s));
  auto g = ctx.services().game_summary(game);
  if (!g.ok()) return api_fail(g.status());
  return json_response({{"game", game}, {"status", g->status}, {"signups", std::move(rows)}});
}

Response api_start(WebContext& ctx, const std::string& game) {
  auto out = membership(ctx).start(game, kGmActor);
  if (!out.ok()) return api_fail(out.status());
  ctx.secrets_issued(game, out->secrets, true);
  Json assigned = Json::array();
  for (const auto& a : out->assigned)
    assigned.push_back(
        {{"player", a.player},
         {"email", a.email},
         {"preference_rank", a.preference_rank ? Json(*a.preference_rank) : Json(nullptr)}});
  return json_response({{"game", game},
                        {"status", "open"},
                        {"assigned", std::move(assigned)},
                        {"vacant", out->vacant},
                        {"unassigned", out->unassigned},
                        {"message",
                         "The game has started. Each player's kingdom, secret and sign-in "
                         "link " +
                             mailed_words() + "."}});
}

Response api_address(WebContext& ctx, const Request& req, const std::string& game,
                     const std::string& player_in) {
  const std::string player = upper(player_in);
  std::string actor;
  if (!bearer_token(req).empty() && is_gm(req, ctx.config())) {
    actor = kGmActor;
  } else {
    // The player's link or session token as bearer, or the player cookie from this site's pages.
    std::string token = bearer_token(req);
    const bool by_cookie = token.empty();
    if (by_cookie) token = url_decode(req.cookie(kPlayerCookie), false);
    if (token.empty() || token.size() > 256)
      return api_error(401,
                       "this needs the player's link token or the GM token "
                       "(Authorization: Bearer <token>)");
    const ThrottleKeys keys = guard_keys(req, "");
    if (auto r = guard_check(ctx, keys, "api_bearer", true)) return *r;
    auto owner = ctx.admin().token_owner(token);
    if (!owner.ok()) {
      if (owner.status().code() != StatusCode::kNotFound) return api_fail(owner.status());
      guard_record(ctx, keys, "api_bearer", false, "unknown_token");
      return api_error(401, "unknown token");
    }
    if (owner->first != game) return api_error(403, "this token is for another game");
    if (upper(owner->second) != player)
      return api_error(403, "a player may change only their own address");
    if (by_cookie && !api_csrf_ok(req, ctx.config().base_url))
      return api_error(403,
                       "with the player cookie this request must come from this site's "
                       "own pages (X-CSRF-Token); scripts use the link token as bearer");
    actor = "player:" + player;
  }
  const std::string shape = "{\"email\": \"new@example.org\"}";
  auto body = json_body(req, shape);
  if (auto* r = std::get_if<Response>(&body)) return *r;
  auto email = string_member(std::get<Json>(body), "email", shape);
  if (auto* r = std::get_if<Response>(&email)) return *r;
  const Status s =
      membership(ctx).change_address(game, player, trim(std::get<std::string>(email)), actor);
  if (!s.ok()) return api_fail(s);
  return json_response({{"game", game},
                        {"player", player},
                        {"email", trim(std::get<std::string>(email))},
                        {"message", "Address changed; the old and the new address were told."}});
}

Response api_replace(WebContext& ctx, const Request& req, const std::string& game,
                     const std::string& player) {
  const std::string shape =
      "{\"email\": \"new@example.org\", \"name\": \"optional name\", \"reason\": \"optional, "
      "told to the old address\"}";
  auto body = json_body(req, shape);
  if (auto* r = std::get_if<Response>(&body)) return *r;
  const Json& j = std::get<Json>(body);
  auto email = string_member(j, "email", shape);
  if (auto* r = std::get_if<Response>(&email)) return *r;
  auto name = string_member(j, "name", shape);
  if (auto* r = std::get_if<Response>(&name)) return *r;
  auto reason = string_member(j, "reason", shape);
  if (auto* r = std::get_if<Response>(&reason)) return *r;
  auto out = membership(ctx).replace(game, player, trim(std::get<std::string>(email)),
                                     trim(std::get<std::string>(name)), kGmActor,
                                     trim(std::get<std::string>(reason)));
  if (!out.ok()) return api_fail(out.status());
  ctx.secrets_issued(game, {{out->player, out->secret}}, true);
  return json_response(
      {{"game", game},
       {"player", out->player},
       {"email", out->email},
       {"message", "The position has a new player: their new secret and sign-in link " +
                       mailed_words("were") + " to them; every old token is revoked."}});
}

// GM API routes: the GM check, then `h`.
http::Handler api_gm(WebContext& ctx, http::Handler h) {
  return [&ctx, h = std::move(h)](const Request& req, const Params& p) {
    if (auto denied = api_gm_denied(req, ctx)) return *denied;
    return h(req, p);
  };
}

}  // namespace membership_api_local
}  // namespace

namespace membership_detail {

void register_membership_api_routes(http::Router& router, WebContext& ctx) {
  using namespace membership_api_local;
  router.add(
      "POST", "/api/games/{game}/signups",
      [&ctx](const Request& req, const Params& p) { return api_join(ctx, req, p.at("game")); },
      "api_signup");
  router.add("GET", "/api/games/{game}/signups",
             api_gm(ctx, [&ctx](const Request&,
                                const Params& p) { return api_signups(ctx, p.at("game")); }),
             "api_signups");
  router.add("POST", "/api/games/{game}/signups/{id}/approve",
             api_gm(ctx,
                    [&ctx](const Request&, const Params& p) {
                      const auto id = signup_id(p.at("id"));
                      if (!id) return api_error(404, "there is no such sign-up");
                      const Status s = membership(ctx).approve(p.at("game"), *id, kGmActor);
                      return s.ok() ? api_signups(ctx, p.at("game")) : api_fail(s);
                    }),
             "api_signup_approve");
  router.add("POST", "/api/games/{game}/signups/{id}/remove",
             api_gm(ctx,
                    [&ctx](const Request&, const Params& p) {
                      const auto id = signup_id(p.at("id"));
                      if (!id) return api_error(404, "there is no such sign-up");
                      const Status s = membership(ctx).remove_signup(p.at("game"), *id, kGmActor);
                      return s.ok() ? api_signups(ctx, p.at("game")) : api_fail(s);
                    }),
             "api_signup_remove");
  router.add(
      "POST", "/api/games/{game}/confirm",
      [&ctx](const Request& req, const Params&) { return api_confirm(ctx, req); }, "api_confirm");
  router.add("POST", "/api/games/{game}/open-signups",
             api_gm(ctx,
                    [&ctx](const Request&, const Params& p) {
                      const Status s = membership(ctx).open_signups(p.at("game"), kGmActor);
                      return s.ok() ? api_signups(ctx, p.at("game")) : api_fail(s);
                    }),
             "api_open_signups");
  router.add(
      "POST", "/api/games/{game}/start",
      api_gm(ctx, [&ctx](const Request&, const Params& p) { return api_start(ctx, p.at("game")); }),
      "api_start");
  router.add("POST", "/api/games/{game}/invite",
             api_gm(ctx,
                    [&ctx](const Request& req, const Params& p) {
                      const std::string shape = "{\"email\": \"friend@example.org\"}";
                      auto body = json_body(req, shape);
                      if (auto* r = std::get_if<Response>(&body)) return *r;
                      auto email = string_member(std::get<Json>(body), "email", shape);
                      if (auto* r = std::get_if<Response>(&email)) return *r;
                      const Status s = membership(ctx).invite(
                          p.at("game"), trim(std::get<std::string>(email)), kGmActor);
                      if (!s.ok()) return api_fail(s);
                      return json_response({{"game", p.at("game")},
                                            {"email", trim(std::get<std::string>(email))},
                                            {"message", "Invitation queued for mailing."}},
                                           202);
                    }),
             "api_invite");
  router.add(
      "PUT", "/api/games/{game}/players/{player}/address",
      [&ctx](const Request& req, const Params& p) {
        return api_address(ctx, req, p.at("game"), p.at("player"));
      },
      "api_player_address");
  router.add("POST", "/api/games/{game}/players/{player}/replace",
             api_gm(ctx,
                    [&ctx](const Request& req, const Params& p) {
                      return api_replace(ctx, req, p.at("game"), p.at("player"));
                    }),
             "api_player_replace");
}

}  // namespace membership_detail
}  // namespace adj::web
