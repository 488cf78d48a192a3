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
#include <spdlog/spdlog.h>

#include <variant>

#include "base/client_address.h"
#include "base/log_escape.h"
#include "server/app/attendance.h"
#include "server/app/confirmations.h"
#include "server/app/mail_delivery.h"
#include "server/app/membership.h"
#include "server/app/time_text.h"
#include "server/web/auth_guard.h"
#include "server/web/page_render.h"
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
namespace attendance_local {

constexpr const char* kGmActor = "gm";
constexpr std::size_t kMaxBody = 16 * 1024;

using route::game_path;
using route::param;
using route::secure;
using route::trim;
using route::upper;

// The form field `name`, trimmed; "" when absent.
std::string field(const std::map<std::string, std::string>& form, const std::string& name) {
  return trim(route::field(form, name));
}

// HTML answers (route_util.h); private unless said otherwise.
Response page(std::string html, int status = 200, bool private_page = true) {
  return route::html_page(std::move(html), status, private_page);
}

Response error_page(int status, const std::string& message) {
  return route::error_page(status, message, true);
}

Response status_page(const Status& s) { return route::status_page(s, true, "attendance_error"); }

Response redirect(const std::string& to) { return route::no_store_redirect(to); }

Response csrf_failed() { return route::csrf_failed(true); }

Json json_error(const std::string& message) { return {{"error", message}}; }

using route::json_response;

Response api_fail(const Status& s) { return route::api_fail(s, "attendance_api_error"); }

http::Handler guarded(route::Body body) {
  return route::guarded(std::move(body), {"attendance_exception", false, false, true});
}

Attendance attendance_of(WebContext& ctx) {
  Store& s = thread_store(ctx);
  return Attendance(ctx.services(), Stores{s, s, s, s, s, s}, s, s, ctx.clock(),
                    ctx.config().base_url);
}

// Membership::replace over this thread's store: the new address, a new secret, old tokens
// revoked, the old address told.
Replacer replacer_of(WebContext& ctx) {
  return [&ctx](const std::string& game, const std::string& player, const std::string& email,
                const std::string& actor) -> Result<TakeoverOutcome> {
    Store& s = thread_store(ctx);
    Membership m(ctx.services(), Stores{s, s, s, s, s, s}, s, s, ctx.clock(),
                 ctx.config().base_url);
    auto r = m.replace(game, player, email, "", actor);
    if (!r.ok()) return r.status();
    return TakeoverOutcome{game, r->player, r->email, r->secret};
  };
}

// The signed-in player of `game` (cookie), or "".
std::string session_player(const Request& req, WebContext& ctx, const std::string& game) {
  auto owner = route::cookie_owner(req, ctx);
  if (!owner || owner->first != game) return "";
  return upper(owner->second);
}

// The game summary; NotFound with a readable message otherwise.
Result<GameSummary> game_of(WebContext& ctx, const std::string& game) {
  auto g = thread_store(ctx).game_summary(game);
  if (!g.ok() && g.status().code() == StatusCode::kNotFound)
    return Status::NotFound("There is no game \"" + game + "\" on this server.");
  return g;
}

Json nav_of(WebContext& ctx, const Request& req, const GameSummary& g) {
  Json n = {{"game", g.id}, {"game_name", g.name}};
  const std::string me = session_player(req, ctx, g.id);
  if (!me.empty()) n["player"] = me;
  n["gm"] = is_gm_limited(ctx, req, "web_gm");
  return n;
}

// ---- public pages: standby and takeover ----

Response standby_page(WebContext& ctx, const Request& req, const std::string& game) {
  auto g = game_of(ctx, game);
  if (!g.ok()) return status_page(g.status());
  const CsrfToken csrf = csrf_token(req);
  const bool done = req.query.count("done") > 0;
  Json model = {{"game", g->id},      {"name", g->name}, {"turn", g->turn},
                {"csrf", csrf.value}, {"done", done},    {"finished", g->status == "finished"}};
  model["mailed_has_been"] = mailed_words("has been");
  Response r = page(
      render_page("Stand by for " + g->name, "attendance_standby", model, nav_of(ctx, req, *g)));
  set_csrf_cookie(r, csrf, secure(ctx));
  return r;
}

Response standby_post(WebContext& ctx, const Request& req, const std::string& game) {
  const auto form = req.form();
  if (!csrf_ok(req, form, ctx.config().base_url)) return csrf_failed();
  Confirmations confirm(ctx.services(), thread_store(ctx), ctx.clock(), ctx.config().base_url);
  auto out = confirm.ask_standby(game, field(form, "email"), "web", client_key(req.remote));
  if (!out.ok()) return status_page(out.status());
  if (out->limited) return error_page(429, out->text);
  return redirect(game_path(game) + "/standby?done=1");
}

Response takeover_page(WebContext& ctx, const Request& req, const std::string& game) {
  auto g = game_of(ctx, game);
  if (!g.ok()) return status_page(g.status());
  auto st = thread_store(ctx).load_state(game, std::nullopt);
  if (!st.ok()) return status_page(st.status());
  Json kingdoms = Json::array();
  const std::string chosen = upper(req.query.count("kingdom") ? req.query.at("kingdom") : "");
  for (const Player& p : st->players)
    kingdoms.push_back({{"code", p.code}, {"name", p.name}, {"selected", p.code == chosen}});
  const CsrfToken csrf = csrf_token(req);
  std::string done;
  if (auto it = req.query.find("done"); it != req.query.end())
    done = upper(it->second.substr(0, 8));
  Json model = {{"game", g->id},        {"name", g->name},
                {"turn", g->turn},      {"csrf", csrf.value},
                {"kingdoms", kingdoms}, {"done", !done.empty()},
                {"player", done},       {"finished", g->status == "finished"}};
  model["mailed_was"] = mailed_words("was");
  Response r = page(render_page("Take over a position in " + g->name, "attendance_takeover", model,
                                nav_of(ctx, req, *g)));
  set_csrf_cookie(r, csrf, secure(ctx));
  return r;
}

// The takeover itself for the web page and the API: through the guessing limiter.
std::variant<TakeoverOutcome, Response> do_takeover(WebContext& ctx, const Request& req,
                                                    const std::string& game,
                                                    const std::string& kingdom,
                                                    const std::string& code,
                                                    const std::string& email, bool json) {
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

Response takeover_post(WebContext& ctx, const Request& req, const std::string& game) {
  const auto form = req.form();
  if (!csrf_ok(req, form, ctx.config().base_url)) return csrf_failed();
  auto t = do_takeover(ctx, req, game, upper(field(form, "kingdom")), field(form, "code"),
                       field(form, "email"), false);
  if (auto* r = std::get_if<Response>(&t)) return *r;
  return redirect(game_path(game) +
                  "/takeover?done=" + http::url_encode(std::get<TakeoverOutcome>(t).player));
}

// ---- the player's absence form (/me) ----

Response absence_post(WebContext& ctx, const Request& req, const std::string& game) {
  const std::string me = session_player(req, ctx, game);
  if (me.empty()) return error_page(401, "Sign in first.");
  const auto form = req.form();
  if (!csrf_ok(req, form, ctx.config().base_url)) return csrf_failed();
  auto a = attendance_of(ctx).declare_absence(game, me, field(form, "from"), field(form, "to"),
                                              "player:" + me);
  if (!a.ok()) return status_page(a.status());
  return redirect(game_path(game) + "/me?done=absence");
}

// ---- GM desk ----

bool gm_ok(WebContext& ctx, const Request& req) { return is_gm_limited(ctx, req, "web_gm"); }

Response gm_standby_remove_post(WebContext& ctx, const Request& req, const std::string& game) {
  if (!gm_ok(ctx, req)) return error_page(403, "This page is for the GM; sign in at /gm/login.");
  const auto form = req.form();
  if (!csrf_ok(req, form, ctx.config().base_url)) return csrf_failed();
  if (Status s = attendance_of(ctx).remove_standby(game, field(form, "email"), kGmActor); !s.ok())
    return status_page(s);
  return redirect("/gm/games/" + http::url_encode(game) + "?done=standby-removed#attendance");
}

Response gm_options_post(WebContext& ctx, const Request& req, const std::string& game) {
  if (!gm_ok(ctx, req)) return error_page(403, "This page is for the GM; sign in at /gm/login.");
  const auto form = req.form();
  if (!csrf_ok(req, form, ctx.config().base_url)) return csrf_failed();
  Attendance att = attendance_of(ctx);
  auto o = att.options(game);
  if (!o.ok()) return status_page(o.status());
  const auto number = [&](const char* name, int& target) -> Status {
    const std::string v = field(form, name);
    if (v.empty()) return Status::Ok();
    if (v.size() > 6 || v.find_first_not_of("0123456789") != std::string::npos)
      return Status::InvalidArgument(std::string(name) + " must be a whole number, not \"" + v +
                                     "\"");
    target = std::stoi(v);
    return Status::Ok();
  };
  for (const auto& [name, target] :
       {std::pair<const char*, int*>{"civil_disorder_after", &o->civil_disorder_after},
        {"absence_max_days", &o->absence_max_days},
        {"absence_max_per_game", &o->absence_max_per_game},
        {"takeover_code_days", &o->takeover_code_days}})
    if (Status s = number(name, *target); !s.ok()) return status_page(s);
  o->absence_extends = field(form, "absence_extends") == "1";
  if (Status s = att.set_options(game, *o, kGmActor); !s.ok()) return status_page(s);
  return redirect("/gm/games/" + http::url_encode(game) + "?done=attendance");
}

Response gm_code_post(WebContext& ctx, const Request& req, const std::string& game,
                      const std::string& player) {
  if (!gm_ok(ctx, req)) return error_page(403, "This page is for the GM; sign in at /gm/login.");
  const auto form = req.form();
  if (!csrf_ok(req, form, ctx.config().base_url)) return csrf_failed();
  auto g = game_of(ctx, game);
  if (!g.ok()) return status_page(g.status());
  Attendance att = attendance_of(ctx);
  auto code = att.issue_code(game, player, kGmActor);
  if (!code.ok()) return status_page(code.status());
  auto o = att.options(game);
  Json model = {{"game", g->id},
                {"name", g->name},
                {"player", upper(player)},
                {"code", *code},
                {"days", o.ok() ? o->takeover_code_days : 0},
                {"mail", "TAKEOVER " + g->id + " " + upper(player) + " " + *code},
                {"url", ctx.config().base_url + game_path(game) +
                            "/takeover?kingdom=" + http::url_encode(upper(player))}};
  return page(render_page("Takeover code for " + upper(player), "attendance_code", model,
                          nav_of(ctx, req, *g)));
}

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
    token = http::url_decode(req.cookie(kPlayerCookie), false);
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
  Confirmations confirm(ctx.services(), thread_store(ctx), ctx.clock(), ctx.config().base_url);
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

}  // namespace attendance_local
}  // namespace

// ---- view models for the shared pages ----

Json attendance_gm_view(WebContext& ctx, const Request& req, const std::string& game) {
  using namespace attendance_local;
  Attendance att = attendance_of(ctx);
  Json v = Json::object();
  v["saved"] = req.query.count("done") && req.query.at("done") == "attendance";
  auto ps = att.players(game);
  if (!ps.ok()) return v;
  Json rows = Json::array();
  for (const auto& p : *ps)
    rows.push_back({{"player", p.player},
                    {"name", p.name},
                    {"missed", p.missed},
                    {"counted", p.counted},
                    {"excused", p.missed > p.counted ? Json(p.missed - p.counted) : Json()},
                    {"absence", p.absence_text()},
                    {"disorder", p.disorder},
                    {"disorder_since", p.disorder_since ? *p.disorder_since : 0}});
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
  using namespace attendance_local;
  Attendance att = attendance_of(ctx);
  Json v = Json::object();
  auto ps = att.players(game);
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
  using namespace attendance_local;
  auto ps = attendance_of(ctx).players(game);
  if (!ps.ok() || !doc.contains("players") || !doc["players"].is_array()) return;
  for (Json& p : doc["players"])
    for (const auto& a : *ps)
      if (p.value("code", "") == a.player) {
        p["missed"] = a.missed;
        p["civil_disorder"] = a.disorder;
      }
}

void add_attendance_columns(WebContext& ctx, const std::string& game, Json& rows) {
  using namespace attendance_local;
  auto ps = attendance_of(ctx).players(game);
  if (!ps.ok() || !rows.is_array()) return;
  for (Json& row : rows)
    for (const auto& a : *ps)
      if (row.value("code", "") == a.player) {
        row["missed"] = a.missed;
        row["disorder"] = a.disorder;
        row["absence"] = a.absence_text();
      }
}

void register_attendance_routes(http::Router& router, WebContext& ctx) {
  using namespace attendance_local;
  const auto g = [](const Params& p) { return param(p, "game"); };
  router.add("GET", "/games/{game}/standby",
             guarded([&ctx, g](const Request& req, const Params& p) {
               return standby_page(ctx, req, g(p));
             }),
             "html_standby");
  router.add("POST", "/games/{game}/standby",
             guarded([&ctx, g](const Request& req, const Params& p) {
               return standby_post(ctx, req, g(p));
             }),
             "html_standby_post");
  router.add("GET", "/games/{game}/takeover",
             guarded([&ctx, g](const Request& req, const Params& p) {
               return takeover_page(ctx, req, g(p));
             }),
             "html_takeover");
  router.add("POST", "/games/{game}/takeover",
             guarded([&ctx, g](const Request& req, const Params& p) {
               return takeover_post(ctx, req, g(p));
             }),
             "html_takeover_post");
  router.add("POST", "/games/{game}/me/absence",
             guarded([&ctx, g](const Request& req, const Params& p) {
               return absence_post(ctx, req, g(p));
             }),
             "html_absence");
  router.add("POST", "/gm/games/{game}/attendance",
             guarded([&ctx, g](const Request& req, const Params& p) {
               return gm_options_post(ctx, req, g(p));
             }),
             "html_gm_attendance");
  router.add("POST", "/gm/games/{game}/standby/remove",
             guarded([&ctx, g](const Request& req, const Params& p) {
               return gm_standby_remove_post(ctx, req, g(p));
             }),
             "html_gm_standby_remove");
  router.add("POST", "/gm/games/{game}/players/{player}/takeover-code",
             guarded([&ctx, g](const Request& req, const Params& p) {
               return gm_code_post(ctx, req, g(p), param(p, "player"));
             }),
             "html_gm_takeover_code");

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

}  // namespace adj::web
