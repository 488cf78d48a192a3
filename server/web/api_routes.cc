// The JSON API under /api/. Requests and answers are described by schemas/api/*.schema.json;
// request bodies are validated against them. Every GM action goes through GameAdmin, so it is
// audited. Errors are {"error": "..."} (plus "errors" with JSON paths for invalid documents) with
// 400/401/403/404/405/409/413/422; 500 answers say only "internal error" (the details go to the
// log). No answer ever contains a stored player secret or link token (they are stored hashed;
// new ones are answered once by the routes that make them), the GM token or the game seed.
//
// Thread-safety: the handlers run on the server's worker threads; everything they touch is
// per-thread (WebContext::services()/admin()) or thread-safe (Metrics, schemas).
#include <spdlog/spdlog.h>

#include <chrono>
#include <map>

#include "base/ascii.h"
#include "base/log_escape.h"
#include "rules/game/json_schema.h"
#include "rules/game/scenario.h"
#include "rules/orders/parser.h"
#include "server/app/audit_text.h"
#include "server/app/engine_catalog.h"
#include "server/app/gm_orders.h"
#include "server/app/secrets.h"
#include "server/app/time_text.h"
#include "server/app/turn_guard.h"
#include "server/web/auth_guard.h"
#include "server/web/route_util.h"
#include "server/web/routes.h"
#include "server/web/web_session.h"
#include "storage/store.h"

namespace adj::web {

using http::Params;
using http::Request;
using http::Response;

// This file's helpers, in a namespace of their own so that the unity batches may compile the
// route files together.
namespace {
namespace api_local {

constexpr const char* kGmActor = "gm";
constexpr const char* kChannel = "web";

using route::json_response;

Response error_response(int status, const std::string& message, Json errors = nullptr) {
  Json j = {{"error", message}};
  if (!errors.is_null()) j["errors"] = std::move(errors);
  return json_response(j, status);
}

Response fail(const Status& s) { return route::api_fail(s); }

// 429 with Retry-After: another engine script is being checked (engine_catalog check_script).
Response script_check_busy(const Status& s) {
  Response r = error_response(429, s.message());
  r.headers.emplace_back("Retry-After", std::to_string(kScriptCheckRetrySeconds));
  return r;
}

using route::upper;

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

Json optional_time(const std::optional<UnixTime>& t) { return t ? Json(*t) : Json(nullptr); }

// REQUIRES: j validated against schedule.schema.json. Absent fields keep their defaults.
Schedule schedule_from_json(const Json& j) {
  Schedule s;
  s.kind = j.value("kind", s.kind);
  if (j.contains("deadline") && !j["deadline"].is_null())
    s.deadline = j["deadline"].get<UnixTime>();
  s.interval_seconds = j.value("interval_seconds", s.interval_seconds);
  if (j.contains("time_of_day") && !j["time_of_day"].is_null())
    s.time_of_day = j["time_of_day"].get<int>();
  s.early_when_all_in = j.value("early_when_all_in", s.early_when_all_in);
  s.max_attempts = j.value("max_attempts", s.max_attempts);
  s.nmr_guard_ratio = j.value("nmr_guard_ratio", s.nmr_guard_ratio);
  s.downtime_grace_seconds = j.value("downtime_grace_seconds", s.downtime_grace_seconds);
  return s;
}

Json summary_json(const GameSummary& g, const std::optional<UnixTime>& deadline) {
  return {{"id", g.id},
          {"name", g.name},
          {"engine", g.engine},
          {"turn", g.turn},
          {"status", g.status},
          {"created_at", g.created_at},
          {"deadline", optional_time(deadline)}};
}

// The game's summary with its deadline, as answered by create/pause/resume/rollback.
Response summary_response(WebContext& ctx, const std::string& game, int status = 200) {
  auto sum = thread_store(ctx).game_summary(game);
  if (!sum.ok()) return fail(sum.status());
  auto sched = ctx.admin().schedule(game);
  return json_response(summary_json(*sum, sched.ok() ? sched->deadline : std::nullopt), status);
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

bool changes_state(const Request& req) { return req.method != "GET" && req.method != "HEAD"; }

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

// Who is asking for a player's data in `game`.
using Caller = route::ApiCaller;

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

// ---- public ----

Response list_games(WebContext& ctx) {
  auto games = ctx.services().list_games();
  if (!games.ok()) return fail(games.status());
  Json out = Json::array();
  for (const auto& g : *games) {
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
  return json_response({{"game", game},
                        {"player", rep->player},
                        {"turn", rep->turn},
                        {"text", rep->text},
                        {"report", rep->json}});
}

// ---- GM ----

Response create_game(WebContext& ctx, const Request& req) {
  Json doc = Json::parse(req.body, nullptr, false);
  if (doc.is_discarded()) return error_response(400, "the request body is not valid JSON");
  Json scenario;
  std::optional<Seed> seed;
  const bool wrapper = doc.is_object() && (doc.contains("scenario") || doc.contains("bundled"));
  if (wrapper) {
    const auto errors = validate_against_schema(doc, "schemas/api/create_game.request.schema.json");
    if (!errors.empty())
      return error_response(
          400, "invalid request: " + errors.front().path + ": " + errors.front().message,
          errors_json(errors));
    if (doc.contains("bundled")) {
      auto b = bundled_scenario(doc["bundled"].get<std::string>());
      if (!b.ok()) return error_response(404, "no bundled scenario " + doc["bundled"].dump());
      scenario = std::move(b).value();
    } else {
      scenario = doc["scenario"];
    }
    if (doc.contains("id")) scenario["id"] = doc["id"];
    if (doc.contains("name")) scenario["name"] = doc["name"];
    if (doc.contains("seed")) {
      const Json& s = doc["seed"];
      try {
        seed = s.is_string() ? std::stoull(s.get<std::string>()) : s.get<Seed>();
      } catch (const std::exception&) {
        return error_response(
            400, "invalid request: /seed: not a whole number",
            Json::array({{{"path", "/seed"}, {"message", "not a whole number"}}}));
      }
      scenario["seed"] = std::to_string(*seed);  // the GM's seed wins over the document's
    }
  } else {
    scenario = std::move(doc);
  }
  const auto errors = validate_scenario(scenario);
  if (!errors.empty()) {
    const std::string prefix = wrapper && !doc.contains("bundled") ? "/scenario" : "";
    Json list = Json::array();
    for (const auto& e : errors)
      list.push_back({{"path", prefix + (e.path == "/" ? "" : e.path)}, {"message", e.message}});
    const std::string message =
        "invalid scenario: " + list[0]["path"].get<std::string>() + ": " + errors.front().message;
    return error_response(400, message, std::move(list));
  }
  // A bundled scenario's secrets are public (docs/scenarios.md): its players get fresh ones,
  // answered once.
  std::map<std::string, std::string> issued;
  auto created = ctx.admin().create_game(
      scenario, seed ? *seed : new_game_seed(), kGmActor,
      wrapper && doc.contains("bundled") && !doc.value("demo_secrets", false), &issued);
  if (!created.ok()) {
    if (is_script_check_busy(created.status())) return script_check_busy(created.status());
    return fail(created.status());
  }
  if (wrapper && doc.value("signup", false)) {  // open for sign-ups: secrets come at the start
    if (Status s = open_signups_after_create(ctx, created->id); !s.ok()) return fail(s);
    issued.clear();
  }
  Response r = summary_response(ctx, created->id, 201);
  if (!issued.empty()) {
    Json j = Json::parse(r.body);
    j["secrets"] = issued;
    r.body = j.dump();
    ctx.secrets_issued(created->id, issued);  // mailed to the players that have an address
  }
  r.headers.emplace_back("Cache-Control", "no-store");
  r.headers.emplace_back("Location", "/api/games/" + http::url_encode(created->id));
  return r;
}

Response submissions(WebContext& ctx, const std::string& game) {
  auto sum = thread_store(ctx).game_summary(game);
  if (!sum.ok()) return fail(sum.status());
  auto st = ctx.admin().submission_status(game);
  if (!st.ok()) return fail(st.status());
  Json players = Json::array();
  for (const auto& s : *st)
    players.push_back({{"player", s.player},
                       {"name", s.name},
                       {"has_orders", s.has_orders},
                       {"received_at", optional_time(s.received_at)},
                       {"accepted", s.accepted},
                       {"rejected", s.rejected}});
  return json_response({{"game", game}, {"turn", sum->turn}, {"players", std::move(players)}});
}

// The optional {"turn": N} of a run or preview request: the open turn it is meant for
// (turn_guard.h; 409 when another is open). An empty body is no turn.
std::variant<std::optional<int>, Response> expected_turn(const Request& req) {
  if (req.body.find_first_not_of(" \t\r\n") == std::string::npos) return std::optional<int>();
  Json doc = Json::parse(req.body, nullptr, false);
  if (doc.is_discarded() || !doc.is_object())
    return error_response(400, "the request body must be a JSON object like {\"turn\": 3}");
  if (!doc.contains("turn")) return std::optional<int>();
  if (!doc["turn"].is_number_integer() || doc["turn"].get<std::int64_t>() < 1 ||
      doc["turn"].get<std::int64_t>() > 1000000)
    return error_response(400, "turn must be a positive whole number: the open turn this is for");
  return std::optional<int>(doc["turn"].get<int>());
}

Response run_turn(WebContext& ctx, const Request& req, const std::string& game, bool preview) {
  auto expected = expected_turn(req);
  if (auto* r = std::get_if<Response>(&expected)) return *r;
  const auto start = std::chrono::steady_clock::now();
  auto out = ctx.admin().run_turn(game, preview, kGmActor, std::get<std::optional<int>>(expected));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!preview) ctx.metrics().turn_run(seconds, out.ok());
  if (!out.ok()) return fail(out.status());
  if (!preview) ctx.turn_ran(game, out->turn);
  Json phases = Json::object();
  for (const auto& [name, ms] : out->phase_ms) phases[name] = ms;
  Json j = {{"game", game},
            {"turn", out->turn},
            {"preview", out->preview},
            {"digest", out->digest},
            {"players_without_orders", out->players_without_orders},
            {"phase_ms", std::move(phases)},
            {"actions", out->result.actions.size()},
            {"battles", out->result.battles.size()},
            {"roundup", out->roundup}};
  if (preview) {
    Json reports = Json::array();
    for (const auto& r : out->reports)
      reports.push_back({{"player", r.player}, {"text", out->full_text(r)}});
    j["reports"] = std::move(reports);
  }
  return json_response(j);
}

Response rollback(WebContext& ctx, const Request& req, const std::string& game) {
  auto doc = parse_body(req, "rollback.request.schema.json");
  if (auto* r = std::get_if<Response>(&doc)) return *r;
  const Json& body = std::get<Json>(doc);
  if (body.contains("from_turn")) {  // the open turn the request was made for
    auto sum = thread_store(ctx).game_summary(game);
    if (!sum.ok()) return fail(sum.status());
    if (Status stale = stale_turn(body["from_turn"].get<int>(), sum->turn); !stale.ok())
      return fail(stale);
  }
  const Status s = ctx.admin().rollback(game, body["turn"].get<int>(), kGmActor);
  if (!s.ok()) return fail(s);
  return summary_response(ctx, game);
}

Response schedule_answer(WebContext& ctx, const std::string& game) {
  auto sched = ctx.admin().schedule(game);
  if (!sched.ok()) return fail(sched.status());
  return json_response(to_json(*sched));
}

Response put_schedule(WebContext& ctx, const Request& req, const std::string& game) {
  auto doc = parse_body(req, "schedule.schema.json");
  if (auto* r = std::get_if<Response>(&doc)) return *r;
  const Status s =
      ctx.admin().set_schedule(game, schedule_from_json(std::get<Json>(doc)), kGmActor);
  if (!s.ok()) return fail(s);
  return schedule_answer(ctx, game);
}

Response post_deadline(WebContext& ctx, const Request& req, const std::string& game) {
  auto doc = parse_body(req, "deadline.request.schema.json");
  if (auto* r = std::get_if<Response>(&doc)) return *r;
  const Json& j = std::get<Json>(doc);
  const Status s =
      j.contains("deadline")
          ? ctx.admin().set_deadline(game, j["deadline"].get<UnixTime>(), kGmActor)
          : ctx.admin().extend_deadline(game, j["extend_seconds"].get<std::int64_t>(), kGmActor);
  if (!s.ok()) return fail(s);
  return schedule_answer(ctx, game);
}

Response token_answer(WebContext& ctx, const std::string& game, const std::string& player,
                      const std::string& token, std::optional<std::string> secret = {}) {
  Json j = {{"game", game}, {"player", upper(player)}};
  if (!token.empty()) {
    j["token"] = token;
    j["url"] = ctx.config().base_url + "/games/" + http::url_encode(game) + "/p/" +
               http::url_encode(token);
  }
  if (secret) j["secret"] = *secret;
  Response r = json_response(j);
  r.headers.emplace_back("Cache-Control", "no-store");
  return r;
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

// POST .../players/{player}/reset {"what": "secret" | "token" | "both"} (GM): new credentials,
// answered once.
Response post_player_reset(WebContext& ctx, const Request& req, const std::string& game,
                           const std::string& player) {
  Json j = Json::parse(req.body.empty() ? std::string("{}") : req.body, nullptr, false);
  if (!j.is_object()) return error_response(400, "the request body is not a JSON object");
  const std::string what = j.value("what", "both");
  auto out = ctx.admin().reset_player(game, player, what, kGmActor);
  if (!out.ok()) return fail(out.status());
  const std::size_t space = out->find(' ');
  if (what != "token") ctx.secrets_issued(game, {{upper(player), out->substr(0, space)}});
  if (what == "secret") return token_answer(ctx, game, player, "", *out);
  if (what == "token") return token_answer(ctx, game, player, *out);
  return token_answer(ctx, game, player, out->substr(space + 1), out->substr(0, space));
}

// GET .../players/{player}/orders (GM): the file on record for the open turn with its answer.
Response get_player_orders(WebContext& ctx, const std::string& game, const std::string& player) {
  Store& st = thread_store(ctx);
  auto file = orders_on_file(Stores{st, st, st, st, st, st}, game, player);
  if (!file.ok()) return fail(file.status());
  Json j = {{"game", game}, {"player", file->player}, {"turn", file->turn}, {"orders", nullptr}};
  if (file->file) {
    const SubmissionRecord& f = *file->file;
    j["orders"] = {{"received_at", f.received_at},
                   {"source", f.source.rfind("email:", 0) == 0 ? "email" : f.source},
                   {"text", f.raw_text},
                   {"ack", f.ack}};
  }
  return json_response(j);
}

// PUT .../players/{player}/orders (GM) {"orders": "<text>", "turn": N (optional)}: enters or
// replaces the player's orders as if they had sent them (gm_orders.h). 200 with the answer when
// accepted, 422 when refused; 409 when `turn` is not the open turn.
Response put_player_orders(WebContext& ctx, const Request& req, const std::string& game,
                           const std::string& player) {
  Json doc = Json::parse(req.body, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("orders") ||
      !doc["orders"].is_string())
    return error_response(400,
                          "the body must be {\"orders\": \"<order lines>\"} with an optional "
                          "\"turn\": the open turn they are for");
  std::optional<int> turn;
  if (doc.contains("turn")) {
    if (!doc["turn"].is_number_integer() || doc["turn"].get<std::int64_t>() < 1)
      return error_response(400, "turn must be a positive whole number");
    turn = doc["turn"].get<int>();
  }
  const std::string text = doc["orders"].get<std::string>();
  if (text.size() > 64 * 1024)
    return error_response(413, "the orders are too long (at most 64 KB)");
  Store& st = thread_store(ctx);
  auto out = enter_orders_for_player(ctx.services(), Stores{st, st, st, st, st, st}, st,
                                     ctx.clock()(), game, player, text, kGmActor, turn);
  if (!out.ok()) return fail(out.status());
  ctx.metrics().submission("gm", !out->ack.refused);
  return json_response({{"game", game},
                        {"player", upper(player)},
                        {"stored", !out->ack.refused},
                        {"note", out->note},
                        {"ack", to_json(out->ack)},
                        {"text", out->text()}},
                       out->ack.refused ? 422 : 200);
}

Json engine_script_json(const EngineScript& e) {
  Json conformance = Json::parse(e.conformance, nullptr, false);
  return {{"version", e.version},
          {"sha256", e.sha256},
          {"created_at", e.created_at},
          {"created_by", e.created_by},
          {"from_turn", e.from_turn},
          {"conformance", conformance.is_discarded() ? Json() : conformance}};
}

// GET /api/games/{game}/engine-script: every stored version of a Lua game's script (no text).
Response engine_script_versions(WebContext& ctx, const std::string& game) {
  auto versions = ctx.services().engine_scripts(game);
  if (!versions.ok()) return fail(versions.status());
  Json list = Json::array();
  for (const auto& v : *versions) list.push_back(engine_script_json(v));
  return json_response({{"game", game}, {"versions", std::move(list)}});
}

// PUT /api/games/{game}/engine-script: the body is the Lua text of the next version. Refused
// (422, with the conformance report) when the script fails its checks; used from the open turn's
// run on (a rerun of an earlier turn keeps its version).
Response put_engine_script(WebContext& ctx, const Request& req, const std::string& game) {
  if (req.body.size() > host_script_limits().source_bytes)
    return error_response(413, "the script is too long (at most " +
                                   std::to_string(host_script_limits().source_bytes) + " bytes)");
  if (req.body.empty()) return error_response(400, "the request body must be the Lua script");
  if (Status room = script_version_room(thread_store(ctx), game); !room.ok()) return fail(room);
  auto stored = ctx.admin().upload_engine_script(game, req.body, kGmActor);
  if (!stored.ok()) {
    if (is_script_check_busy(stored.status())) return script_check_busy(stored.status());
    if (stored.status().code() == StatusCode::kInvalidArgument)
      return error_response(422, stored.status().message());
    return fail(stored.status());
  }
  return json_response({{"game", game}, {"stored", engine_script_json(*stored)}});
}

}  // namespace api_local
}  // namespace

using route::cached;
void register_api_routes(http::Router& router, WebContext& ctx) {
  using namespace api_local;
  using H = http::Handler;
  auto add = [&router](const char* method, const char* pattern, H h, const char* name) {
    router.add(method, pattern, std::move(h), name);
  };
  // Public.
  add("GET", "/api/games",
      cached([&ctx](const Request&, const Params&) { return list_games(ctx); }), "api_games");
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
  // GM (Authorization: Bearer <GM token>).
  add("POST", "/api/games",
      gm_only(ctx, [&ctx](const Request& r, const Params&) { return create_game(ctx, r); }),
      "api_create_game");
  add("GET", "/api/games/{game}/submissions",
      gm_only(ctx,
              [&ctx](const Request&, const Params& p) { return submissions(ctx, p.at("game")); }),
      "api_submissions");
  add("POST", "/api/games/{game}/turns/preview",
      gm_only(ctx, [&ctx](const Request& r,
                          const Params& p) { return run_turn(ctx, r, p.at("game"), true); }),
      "api_turn_preview");
  add("POST", "/api/games/{game}/turns/run",
      gm_only(ctx, [&ctx](const Request& r,
                          const Params& p) { return run_turn(ctx, r, p.at("game"), false); }),
      "api_turn_run");
  add("GET", "/api/games/{game}/engine-script",
      gm_only(ctx, [&ctx](const Request&,
                          const Params& p) { return engine_script_versions(ctx, p.at("game")); }),
      "api_engine_scripts");
  add("PUT", "/api/games/{game}/engine-script",
      gm_only(ctx, [&ctx](const Request& r,
                          const Params& p) { return put_engine_script(ctx, r, p.at("game")); }),
      "api_put_engine_script");
  add("POST", "/api/games/{game}/rollback",
      gm_only(ctx,
              [&ctx](const Request& r, const Params& p) { return rollback(ctx, r, p.at("game")); }),
      "api_rollback");
  add("PUT", "/api/games/{game}/schedule",
      gm_only(ctx, [&ctx](const Request& r,
                          const Params& p) { return put_schedule(ctx, r, p.at("game")); }),
      "api_put_schedule");
  add("POST", "/api/games/{game}/deadline",
      gm_only(ctx, [&ctx](const Request& r,
                          const Params& p) { return post_deadline(ctx, r, p.at("game")); }),
      "api_deadline");
  add("POST", "/api/games/{game}/pause",
      gm_only(ctx,
              [&ctx](const Request&, const Params& p) {
                const Status s = ctx.admin().pause(p.at("game"), kGmActor);
                return s.ok() ? summary_response(ctx, p.at("game")) : fail(s);
              }),
      "api_pause");
  add("POST", "/api/games/{game}/resume",
      gm_only(ctx,
              [&ctx](const Request&, const Params& p) {
                const Status s = ctx.admin().resume(p.at("game"), kGmActor);
                return s.ok() ? summary_response(ctx, p.at("game")) : fail(s);
              }),
      "api_resume");
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
  add("GET", "/api/games/{game}/players/{player}/orders",
      gm_only(ctx,
              [&ctx](const Request&, const Params& p) {
                return get_player_orders(ctx, p.at("game"), p.at("player"));
              }),
      "api_player_orders");
  add("PUT", "/api/games/{game}/players/{player}/orders",
      gm_only(ctx,
              [&ctx](const Request& r, const Params& p) {
                return put_player_orders(ctx, r, p.at("game"), p.at("player"));
              }),
      "api_put_player_orders");
  add("POST", "/api/games/{game}/players/{player}/reset",
      gm_only(ctx,
              [&ctx](const Request& r, const Params& p) {
                return post_player_reset(ctx, r, p.at("game"), p.at("player"));
              }),
      "api_player_reset");
}

}  // namespace adj::web
