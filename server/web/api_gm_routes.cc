// The GM's JSON API routes (api_routes.cc has the contract), behind the GM token
// (Authorization: Bearer <GM token>, or the GM cookie from this site's own pages; gm_only):
//   POST /api/games                              (create; 201 with Location, new secrets once)
//   POST /api/scenarios/check                    (a scenario's errors, warnings; creates nothing)
//   GET  /api/games/{g}/submissions
//   POST /api/games/{g}/turns/preview | turns/run  ({"turn": N}: 409 when another is open)
//   GET/PUT /api/games/{g}/engine-script         (a Lua game's script versions; PUT a new one)
//   POST /api/games/{g}/rollback | deadline | pause | resume,  PUT /api/games/{g}/schedule
//   GET/PUT /api/games/{g}/players/{p}/orders    (the orders on file; entered as if sent)
//   POST /api/games/{g}/players/{p}/reset        (new secret and/or link token, answered once)
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>

#include "base/escape.h"
#include "rules/game/json_schema.h"
#include "rules/game/scenario.h"
#include "rules/game/scenario_lint.h"
#include "rules/world/world_generator.h"
#include "server/app/engine_catalog.h"
#include "server/app/gm_orders.h"
#include "server/app/secrets.h"
#include "server/app/turn_guard.h"
#include "server/app/world_request.h"
#include "server/web/api_internal.h"
#include "server/web/route_util.h"
#include "server/web/routes.h"

namespace adj::web {

using http::Params;
using http::Request;
using http::Response;

// This file's helpers, in a namespace of their own so that the unity batches may compile the
// route files together.
namespace {
namespace api_gm_local {

using api_detail::error_response;
using api_detail::errors_json;
using api_detail::fail;
using api_detail::kGmActor;
using api_detail::optional_time;
using api_detail::parse_body;
using api_detail::schedule_answer;
using api_detail::summary_json;
using api_detail::token_answer;
using route::json_response;
using route::upper;

// One error of a world request ("/players: must be ...") as the API's error list, its path under
// `prefix`.
Json errors_json_of(const Status& st, const std::string& prefix) {
  const std::string& m = st.message();
  const std::size_t colon = m.find(": ");
  if (m.empty() || m[0] != '/' || colon == std::string::npos)
    return Json::array({{{"path", prefix}, {"message", m}}});
  return Json::array({{{"path", prefix + m.substr(0, colon)}, {"message", m.substr(colon + 2)}}});
}

// 429 with Retry-After: another engine script is being checked (engine_catalog check_script).
Response script_check_busy(const Status& s) {
  Response r = error_response(429, s.message());
  r.headers.emplace_back("Retry-After", std::to_string(kScriptCheckRetrySeconds));
  return r;
}

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

// The game's summary with its deadline, as answered by create/pause/resume/rollback.
Response summary_response(WebContext& ctx, const std::string& game, int status = 200) {
  auto sum = ctx.services().game_summary(game);
  if (!sum.ok()) return fail(sum.status());
  auto sched = ctx.admin().schedule(game);
  return json_response(summary_json(*sum, sched.ok() ? sched->deadline : std::nullopt), status);
}

// ---- GM ----

// The body of POST /api/games and /api/scenarios/check: a scenario document itself, or the
// wrapper naming one inline, bundled or as a generated world, with the wrapper's id and name
// applied to it; or the 400/404 answer.
struct ScenarioRequest {
  Json doc;       // the body as parsed (the wrapper's other fields: seed, signup, ...)
  Json scenario;  // what it names
  bool wrapper = false;
};
std::variant<ScenarioRequest, Response> read_scenario_request(const Request& req) {
  ScenarioRequest r;
  r.doc = Json::parse(req.body, nullptr, false);
  const Json& doc = r.doc;
  if (doc.is_discarded()) return error_response(400, "the request body is not valid JSON");
  r.wrapper = doc.is_object() &&
              (doc.contains("scenario") || doc.contains("bundled") || doc.contains("world"));
  if (!r.wrapper) {
    r.scenario = doc;
    return r;
  }
  const auto errors = validate_against_schema(doc, "schemas/api/create_game.request.schema.json");
  if (!errors.empty())
    return error_response(400,
                          "invalid request: " + errors.front().path + ": " + errors.front().message,
                          errors_json(errors));
  if (doc.contains("bundled")) {
    auto b = bundled_scenario(doc["bundled"].get<std::string>());
    if (!b.ok()) return error_response(404, "no bundled scenario " + doc["bundled"].dump());
    r.scenario = std::move(b).value();
  } else if (doc.contains("world")) {  // a generated world (docs/worlds.md)
    auto w = world_from_request(doc["world"]);
    if (!w.ok())
      return error_response(400, "invalid request: /world" + w.status().message(),
                            errors_json_of(w.status(), "/world"));
    r.scenario = std::move(w).value();
  } else {
    r.scenario = doc["scenario"];
  }
  if (doc.contains("id")) r.scenario["id"] = doc["id"];
  if (doc.contains("name")) r.scenario["name"] = doc["name"];
  return r;
}

Response create_game(WebContext& ctx, const Request& req) {
  auto read = read_scenario_request(req);
  if (auto* answer = std::get_if<Response>(&read)) return std::move(*answer);
  auto& [doc, scenario, wrapper] = std::get<ScenarioRequest>(read);
  std::optional<Seed> seed;
  if (wrapper && doc.contains("seed")) {
    const Json& s = doc["seed"];
    try {
      seed = s.is_string() ? std::stoull(s.get<std::string>()) : s.get<Seed>();
    } catch (const std::exception&) {
      return error_response(400, "invalid request: /seed: not a whole number",
                            Json::array({{{"path", "/seed"}, {"message", "not a whole number"}}}));
    }
    scenario["seed"] = std::to_string(*seed);  // the GM's seed wins over the document's
  }
  const auto errors = scenario_errors(scenario);  // validate_scenario's, and unknown words
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
  // Open for sign-ups (secrets come at the start); a world for its sign-ups always is.
  if (wrapper && (doc.value("signup", false) || world::generated_for_signups(scenario))) {
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
  r.headers.emplace_back("Location", "/api/games/" + url_encode(created->id));
  return r;
}

// POST /api/worlds/preview: the world a "world" request would create, and its fairness figures;
// nothing is stored.
Response preview_world(const Request& req) {
  const Json doc = Json::parse(req.body, nullptr, false);
  if (doc.is_discarded()) return error_response(400, "the request body is not valid JSON");
  world::WorldFairness f;
  auto w = world_from_request(doc, &f);
  if (!w.ok())
    return error_response(400, "invalid request: " + w.status().message(),
                          errors_json_of(w.status(), ""));
  return json_response({{"scenario", *w}, {"fairness", world::fairness_json(f)}}, 200);
}

// POST /api/scenarios/check: lint_scenario's findings for a scenario document, or for the
// create request's wrapper ({"scenario": {...}}, {"bundled": NAME} or {"world": {...}}, with its
// id and name); nothing is created. 200 {"errors": [{"path", "message"}], "warnings": [...]},
// paths into the body (an inline wrapper's under "/scenario"); 400 when the body is not JSON or
// not a request.
Response check_scenario(const Request& req) {
  auto read = read_scenario_request(req);
  if (auto* answer = std::get_if<Response>(&read)) return std::move(*answer);
  const auto& [doc, scenario, wrapper] = std::get<ScenarioRequest>(read);
  const std::string prefix =
      wrapper && !doc.contains("bundled") && !doc.contains("world") ? "/scenario" : "";
  Json out = {{"errors", Json::array()}, {"warnings", Json::array()}};
  for (const ScenarioFinding& f : lint_scenario(scenario))
    out[f.severity == ScenarioFinding::Severity::kError ? "errors" : "warnings"].push_back(
        {{"path", prefix + (f.path == "/" ? "" : f.path)}, {"message", f.message}});
  return json_response(out, 200, true);
}

Response submissions(WebContext& ctx, const std::string& game) {
  auto sum = ctx.services().game_summary(game);
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
    auto sum = ctx.services().game_summary(game);
    if (!sum.ok()) return fail(sum.status());
    if (Status stale = stale_turn(body["from_turn"].get<int>(), sum->turn); !stale.ok())
      return fail(stale);
  }
  const Status s = ctx.admin().rollback(game, body["turn"].get<int>(), kGmActor,
                                        body.value("reason", std::string()));
  if (!s.ok()) return fail(s);
  return summary_response(ctx, game);
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
  auto file = ctx.admin().orders_on_file(game, player);
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
  auto out = ctx.admin().enter_orders(game, player, text, kGmActor, turn);
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
  if (Status room = ctx.admin().script_version_room(game); !room.ok()) return fail(room);
  auto stored = ctx.admin().upload_engine_script(game, req.body, kGmActor);
  if (!stored.ok()) {
    if (is_script_check_busy(stored.status())) return script_check_busy(stored.status());
    if (stored.status().code() == StatusCode::kInvalidArgument)
      return error_response(422, stored.status().message());
    return fail(stored.status());
  }
  return json_response({{"game", game}, {"stored", engine_script_json(*stored)}});
}

}  // namespace api_gm_local
}  // namespace

namespace api_detail {

void register_api_gm_routes(http::Router& router, WebContext& ctx) {
  using namespace api_gm_local;
  using H = http::Handler;
  auto add = [&router](const char* method, const char* pattern, H h, const char* name) {
    router.add(method, pattern, std::move(h), name);
  };
  // GM (Authorization: Bearer <GM token>).
  add("POST", "/api/worlds/preview",
      gm_only(ctx, [](const Request& r, const Params&) { return preview_world(r); }),
      "api_preview_world");
  add("POST", "/api/games",
      gm_only(ctx, [&ctx](const Request& r, const Params&) { return create_game(ctx, r); }),
      "api_create_game");
  add("POST", "/api/scenarios/check",
      gm_only(ctx, [](const Request& r, const Params&) { return check_scenario(r); }),
      "api_check_scenario");
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
}

void register_api_gm_player_routes(http::Router& router, WebContext& ctx) {
  using namespace api_gm_local;
  using H = http::Handler;
  auto add = [&router](const char* method, const char* pattern, H h, const char* name) {
    router.add(method, pattern, std::move(h), name);
  };
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

}  // namespace api_detail
}  // namespace adj::web
