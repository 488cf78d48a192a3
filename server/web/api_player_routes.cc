// The JSON API routes a player calls (api_routes.cc has the contract), with their link token
// (Authorization: Bearer) or HTTP Basic <code>:<secret>; the GM token opens them too:
//   POST /api/games/{g}/orders                  (the order file, or {"text", "player", "secret"};
//        ?check=1 checks without storing; 422 when refused)
//   GET  /api/games/{g}/reports/{p}[?turn=N]    (the player's own reports)
//   POST /api/games/{g}/players/{p}/token       (the GM issues a new link token; the player
//        rotates theirs; answered once)
//   PUT  /api/games/{g}/players/{p}/secret      (the player changes their secret)
// Guessing of tokens and secrets goes through the limiter (auth_guard.h).
#include <optional>
#include <string>
#include <variant>

#include "base/ascii.h"
#include "rules/orders/parser.h"
#include "server/app/secrets.h"
#include "server/web/api_internal.h"
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
namespace api_player_local {

using api_detail::Caller;
using api_detail::cookie_refused;
using api_detail::error_response;
using api_detail::fail;
using api_detail::gm_denied;
using api_detail::gm_may_change_state;
using api_detail::identify;
using api_detail::kGmActor;
using api_detail::parse_body;
using api_detail::token_answer;
using route::cached;
using route::json_response;
using route::upper;

// The channel of orders sent through the API.
constexpr const char* kChannel = "web";

// ---- player ----

Response post_orders(WebContext& ctx, const Request& req, const std::string& game) {
  const auto check_it = req.query.find("check");
  const bool check_only = check_it != req.query.end() && check_it->second != "0" &&
                          ascii::lower(check_it->second) != "false";
  std::string text, body_player, body_secret;
  if (ascii::lower(req.header("content-type")).rfind("application/json", 0) == 0) {
    auto doc = parse_body(req, "orders.request.schema.json");
    if (auto* r = std::get_if<Response>(&doc)) return *r;
    const Json& j = std::get<Json>(doc);
    text = j["text"].get<std::string>();
    body_player = upper(j.value("player", ""));
    body_secret = j.value("secret", "");
  } else {
    text = req.body;
  }

  Caller caller = identify(req, ctx, game);
  if (caller.denied) return *caller.denied;
  if (caller.gm && !gm_may_change_state(req, ctx.config())) return cookie_refused();
  const ParsedOrderFile parsed = parse_order_file(text);
  if (!caller.gm && !caller.player.empty() && parsed.player &&
      upper(*parsed.player) != caller.player)
    return error_response(403, "this token belongs to player " + caller.player +
                                   "; the file is for player " + upper(*parsed.player));

  // A token holder (or a JSON body with player and secret) may leave out the header lines
  // (Services::submit_as puts them before the file).
  // A token holder is vouched for (no secret); a JSON body's secret is checked.
  std::string code;
  std::optional<std::string> secret;
  if (!parsed.player) {
    if (!caller.gm && !caller.player.empty()) {
      code = caller.player;
    } else if (!body_player.empty()) {
      code = body_player;
      secret = body_secret;
    }
  }
  // Guessing limit on a secret the caller gave (the file's PLAYER line or the JSON body's), not
  // on one the server filled in for a token holder (auth_guard.h).
  const bool filled_in = !parsed.player && !caller.gm && !caller.player.empty();
  const std::string named = parsed.player ? upper(*parsed.player) : filled_in ? "" : code;
  const ThrottleKeys keys = guard_keys(req, named.empty() ? "" : throttle_key_player(game, named));
  if (!named.empty())
    if (auto r = guard_check(ctx, keys, "api_orders", true)) return *r;
  auto out = ctx.services().submit_as(game, code, secret, text, kChannel, check_only);
  if (!out.ok()) return fail(out.status());
  OrderAck& ack = out->ack;
  if (!named.empty()) {
    switch (secret_check_of(ack)) {
      case SecretVerdict::kWrong:
        guard_record(ctx, keys, "api_orders", false, "wrong_secret", game, named);
        break;
      case SecretVerdict::kUnknownPlayer:
        guard_record(ctx, guard_keys(req, ""), "api_orders", false, "unknown_player");
        break;
      case SecretVerdict::kRight:
        guard_record(ctx, keys, "api_orders", true, "");
        break;
      case SecretVerdict::kNotChecked:
        break;
    }
  }
  if (!check_only) ctx.metrics().submission(kChannel, !ack.refused);
  Json j = to_json(ack);
  j["accepted"] = ack.accepted_count();
  j["rejected"] = ack.rejected_count();
  j["checked_only"] = check_only;
  if (out->submission_id) j["submission_id"] = *out->submission_id;
  if (!out->note.empty()) j["note"] = out->note;  // the open turn changed while it arrived
  j["ack_text"] = out->text();
  return json_response(j, ack.refused ? 422 : 200);
}

Response get_report(WebContext& ctx, const Request& req, const std::string& game,
                    const std::string& player_arg) {
  const std::string player = upper(player_arg);
  Caller caller = identify(req, ctx, game);
  if (caller.denied) return *caller.denied;
  if (!caller.gm && caller.player.empty()) {
    Response r = error_response(
        401,
        "this needs the player's link token (Authorization: Bearer <token>) or Basic "
        "<code>:<secret>");
    r.headers.emplace_back("WWW-Authenticate", "Bearer realm=\"adjutant\"");
    return r;
  }
  if (!caller.gm && caller.player != player)
    return error_response(403, "a player may read only their own reports");
  std::optional<int> turn;
  if (auto it = req.query.find("turn"); it != req.query.end()) {
    try {
      std::size_t used = 0;
      turn = std::stoi(it->second, &used);
      if (used != it->second.size() || *turn < 1) throw std::invalid_argument("turn");
    } catch (const std::exception&) {
      return error_response(400, "turn must be a positive whole number");
    }
  }
  auto rep = ctx.services().report(game, player, turn);
  if (!rep.ok()) return fail(rep.status());
  const auto next = ctx.admin().deadline_after_report(game, rep->turn);
  return json_response(
      {{"game", game},
       {"player", rep->player},
       {"turn", rep->turn},
       {"next_deadline", api_detail::optional_time(next ? next->at : std::nullopt)},
       {"text", rep->text},
       {"report", rep->json}});
}

// POST .../players/{player}/token: the GM issues a new link token (the old link stops working);
// the player themself (link token or Basic) rotates theirs (every token and session revoked).
// Shown once: only its hash is stored.
Response post_player_token(WebContext& ctx, const Request& req, const std::string& game,
                           const std::string& player) {
  Caller caller = identify(req, ctx, game);
  if (caller.denied) return *caller.denied;
  if (caller.gm) {
    auto token = ctx.admin().issue_player_token(game, player, kGmActor);
    if (!token.ok()) return fail(token.status());
    return token_answer(ctx, game, player, *token);
  }
  if (caller.player.empty()) return gm_denied(req, ctx);
  if (caller.player != upper(player))
    return error_response(403, "a player may change only their own token");
  auto token = ctx.admin().player_update(game, player, "token", "");
  if (!token.ok()) return fail(token.status());
  return token_answer(ctx, game, player, *token);
}

// PUT .../players/{player}/secret {"secret": "<new>"}: the player changes their secret.
Response put_player_secret(WebContext& ctx, const Request& req, const std::string& game,
                           const std::string& player) {
  Caller caller = identify(req, ctx, game);
  if (caller.denied) return *caller.denied;
  if (caller.player.empty())
    return error_response(401, "this needs the player's link token or Basic <code>:<secret>");
  if (caller.player != upper(player))
    return error_response(403, "a player may change only their own secret");
  Json j = Json::parse(req.body, nullptr, false);
  if (!j.is_object() || !j.contains("secret") || !j["secret"].is_string())
    return error_response(400, "the body must be {\"secret\": \"<new secret>\"}");
  // Every sign-in session of the player ends but the one this request came with, if any.
  auto out = ctx.admin().player_update(game, player, "secret", j["secret"].get<std::string>(),
                                       bearer_token(req));
  if (!out.ok()) return fail(out.status());
  return token_answer(ctx, game, player, "");
}

}  // namespace api_player_local
}  // namespace

namespace api_detail {

void register_api_player_routes(http::Router& router, WebContext& ctx) {
  using namespace api_player_local;
  using H = http::Handler;
  auto add = [&router](const char* method, const char* pattern, H h, const char* name) {
    router.add(method, pattern, std::move(h), name);
  };
  // Players (their link token, or code and secret).
  add(
      "POST", "/api/games/{game}/orders",
      [&ctx](const Request& r, const Params& p) { return post_orders(ctx, r, p.at("game")); },
      "api_orders");
  add("GET", "/api/games/{game}/reports/{player}",
      cached([&ctx](const Request& r, const Params& p) {
        return get_report(ctx, r, p.at("game"), p.at("player"));
      }),
      "api_report");
}

void register_api_player_token_routes(http::Router& router, WebContext& ctx) {
  using namespace api_player_local;
  using H = http::Handler;
  auto add = [&router](const char* method, const char* pattern, H h, const char* name) {
    router.add(method, pattern, std::move(h), name);
  };
  add(
      "POST", "/api/games/{game}/players/{player}/token",
      [&ctx](const Request& r, const Params& p) {
        return post_player_token(ctx, r, p.at("game"), p.at("player"));
      },
      "api_player_token");
  add(
      "PUT", "/api/games/{game}/players/{player}/secret",
      [&ctx](const Request& r, const Params& p) {
        return put_player_secret(ctx, r, p.at("game"), p.at("player"));
      },
      "api_player_secret");
}

}  // namespace api_detail
}  // namespace adj::web
