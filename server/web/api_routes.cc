// The JSON API under /api/. Requests and answers are described by schemas/api/*.schema.json;
// request bodies are validated against them. Every GM action goes through GameAdmin, so it is
// audited. Errors are {"error": "..."} (plus "errors" with JSON paths for invalid documents) with
// 400/401/403/404/405/409/413/422; 500 answers say only "internal error" (the details go to the
// log). No answer ever contains a stored player secret or link token (they are stored hashed;
// new ones are answered once by the routes that make them), the GM token or the game seed.
//
// Thread-safety: the handlers run on the server's worker threads; everything they touch is
// per-thread (WebContext::services()/admin()) or thread-safe (Metrics, schemas).
//
// This file holds the answers and checks every group shares (api_internal.h), the public routes
// and register_api_routes; api_player_routes.cc the routes a player calls, api_gm_routes.cc the
// GM's.
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "base/escape.h"
#include "rules/game/json_schema.h"
#include "rules/game/scenario.h"
#include "server/app/audit_text.h"
#include "server/app/time_text.h"
#include "server/web/api_internal.h"
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
namespace api_routes_local {

using api_detail::fail;
using api_detail::summary_json;
using route::json_response;

bool changes_state(const Request& req) { return req.method != "GET" && req.method != "HEAD"; }

// ---- public ----

// The games not archived; with ?archived=1 the archived ones.
Response list_games(WebContext& ctx, const Request& req) {
  auto games = ctx.services().list_games();
  if (!games.ok()) return fail(games.status());
  const auto a = req.query.find("archived");
  const bool archived = a != req.query.end() && a->second == "1";
  Json out = Json::array();
  for (const auto& g : *games) {
    if (g.archived_at.has_value() != archived) continue;
    auto sched = ctx.admin().schedule(g.id);
    out.push_back(summary_json(g, sched.ok() ? sched->deadline : std::nullopt));
  }
  return json_response({{"games", std::move(out)}});
}

Response show_game(WebContext& ctx, const std::string& game) {
  auto doc = ctx.services().show_game(game);
  if (!doc.ok()) return fail(doc.status());
  const bool over = route::game_over(*doc);
  Json j = route::public_state(std::move(doc).value(), over);
  auto sched = ctx.admin().schedule(game);
  if (!sched.ok()) return fail(sched.status());
  j["schedule"] = to_json(*sched);
  add_attendance_json(ctx, game, j);  // missed turns, civil disorder
  return json_response(j);
}

Response audit_log(WebContext& ctx, const Request& req, const std::string& game) {
  auto log = ctx.admin().audit_log(game);
  if (!log.ok()) return fail(log.status());
  // The GM sees the entries as stored; everyone else without e-mail addresses.
  const bool gm = is_gm_limited(ctx, req, "api_gm");
  Json entries = Json::array();
  for (const auto& stored : *log) {
    const AuditEntry e = gm ? stored : public_audit_entry(stored);
    entries.push_back({{"id", e.id},
                       {"at", e.at},
                       {"actor", e.actor},
                       {"action", e.action},
                       {"detail", e.detail.is_object() ? e.detail : Json::object()},
                       {"at_text", utc_minutes(e.at)},
                       {"who", audit_actor_text(e.actor)},
                       {"text", audit_action_text(e)}});
  }
  return json_response({{"game", game}, {"entries", std::move(entries)}});
}

}  // namespace api_routes_local
}  // namespace

// ---- shared by the API's route files (api_internal.h) ----

namespace api_detail {

using route::json_response;
using route::upper;

Response error_response(int status, const std::string& message, Json errors) {
  Json j = {{"error", message}};
  if (!errors.is_null()) j["errors"] = std::move(errors);
  return json_response(j, status);
}

Response fail(const Status& s) { return route::api_fail(s); }

Json errors_json(const std::vector<ScenarioError>& errors) {
  Json out = Json::array();
  for (const auto& e : errors) out.push_back({{"path", e.path}, {"message", e.message}});
  return out;
}

// The body as a JSON document checked against schemas/api/<schema>; or the 400 to answer.
std::variant<Json, Response> parse_body(const Request& req, const std::string& schema) {
  Json doc = Json::parse(req.body, nullptr, false);
  if (doc.is_discarded()) return error_response(400, "the request body is not valid JSON");
  const auto errors = validate_against_schema(doc, "schemas/api/" + schema);
  if (!errors.empty())
    return error_response(400,
                          "invalid request: " + errors.front().path + ": " + errors.front().message,
                          errors_json(errors));
  return doc;
}

Json summary_json(const GameSummary& g, const std::optional<UnixTime>& deadline) {
  return {{"id", g.id},
          {"name", g.name},
          {"engine", g.engine},
          {"turn", g.turn},
          {"status", g.status},
          {"created_at", g.created_at},
          {"deadline", optional_time(deadline)},
          {"archived_at", optional_time(g.archived_at)}};
}

// Answer for a GM-only route called without the GM token.
Response gm_denied(const Request& req, WebContext& ctx) {
  if (ctx.config().gm_token.empty())
    return error_response(403, "the GM API is disabled: no GM token is configured");
  const std::string token = bearer_token(req);
  if (token.empty()) {
    Response r = error_response(401, "this needs the GM token (Authorization: Bearer <token>)");
    r.headers.emplace_back("WWW-Authenticate", "Bearer realm=\"adjutant\"");
    return r;
  }
  if (ctx.admin().token_owner(token).ok())
    return error_response(403, "a player's token does not open GM actions");
  Response r = error_response(401, "wrong token");
  r.headers.emplace_back("WWW-Authenticate", "Bearer realm=\"adjutant\", error=\"invalid_token\"");
  return r;
}

// True when the request may change state as the GM it was identified as (is_gm): with the GM
// token as bearer, or with the GM cookie alone from a page of this site (api_csrf_ok).
bool gm_may_change_state(const Request& req, const WebConfig& config) {
  const std::string bearer = bearer_token(req);
  if (!bearer.empty() && constant_time_equal(bearer, config.gm_token)) return true;
  return api_csrf_ok(req, config.base_url);
}

Response cookie_refused() {
  return error_response(403,
                        "with the GM cookie alone this request must come from this site's own "
                        "pages (same Origin and the adj_csrf cookie repeated in header "
                        "X-CSRF-Token); scripts use Authorization: Bearer <GM token>");
}

using api_routes_local::changes_state;

http::Handler gm_only(WebContext& ctx, http::Handler h) {
  return [&ctx, h = std::move(h)](const Request& req, const Params& p) {
    // Guessing limit on the GM token (auth_guard.h), when one is configured and presented.
    bool gm = false;
    if (auto r = route::check_gm(req, ctx, "api_gm", true, gm)) return *r;
    if (!gm) return gm_denied(req, ctx);
    if (changes_state(req) && !gm_may_change_state(req, ctx.config())) return cookie_refused();
    return h(req, p);
  };
}

// GM token, else the player's link token (Bearer) for this game, else HTTP Basic
// <code>:<secret>. A token for another game is refused; no credentials leave both empty.
Caller identify(const Request& req, WebContext& ctx, const std::string& game) {
  Caller c;
  // Guessing limit on bearer tokens (auth_guard.h): by client address only, since a wrong token
  // names no account.
  const ThrottleKeys token_keys = guard_keys(req, "");
  if (!bearer_token(req).empty())
    if (auto r = guard_check(ctx, token_keys, "api_bearer", true)) {
      c.denied = std::move(r);
      return c;
    }
  if (is_gm(req, ctx.config())) {
    c.gm = true;
    return c;
  }
  route::identify_player(req, ctx, game, bearer_token(req), token_keys, c);
  return c;
}

Response schedule_answer(WebContext& ctx, const std::string& game) {
  auto sched = ctx.admin().schedule(game);
  if (!sched.ok()) return fail(sched.status());
  return json_response(to_json(*sched));
}

Response token_answer(WebContext& ctx, const std::string& game, const std::string& player,
                      const std::string& token, std::optional<std::string> secret) {
  Json j = {{"game", game}, {"player", upper(player)}};
  if (!token.empty()) {
    j["token"] = token;
    j["url"] = ctx.config().base_url + "/games/" + url_encode(game) + "/p/" + url_encode(token);
  }
  if (secret) j["secret"] = *secret;
  Response r = json_response(j);
  r.headers.emplace_back("Cache-Control", "no-store");
  return r;
}

}  // namespace api_detail

using route::cached;
void register_api_routes(http::Router& router, WebContext& ctx) {
  using namespace api_detail;
  using namespace api_routes_local;
  using H = http::Handler;
  auto add = [&router](const char* method, const char* pattern, H h, const char* name) {
    router.add(method, pattern, std::move(h), name);
  };
  // Public.
  add("GET", "/api/games",
      cached([&ctx](const Request& r, const Params&) { return list_games(ctx, r); }), "api_games");
  add("GET", "/api/games/{game}",
      cached([&ctx](const Request&, const Params& p) { return show_game(ctx, p.at("game")); }),
      "api_game");
  add("GET", "/api/games/{game}/audit", cached([&ctx](const Request& req, const Params& p) {
        return audit_log(ctx, req, p.at("game"));
      }),
      "api_audit");
  add("GET", "/api/games/{game}/schedule", cached([&ctx](const Request&, const Params& p) {
        return schedule_answer(ctx, p.at("game"));
      }),
      "api_schedule");
  api_detail::register_api_player_routes(router, ctx);
  api_detail::register_api_gm_routes(router, ctx);
  api_detail::register_api_player_token_routes(router, ctx);
  api_detail::register_api_gm_player_routes(router, ctx);
  api_detail::register_api_lifecycle_routes(router, ctx);
}

}  // namespace adj::web
