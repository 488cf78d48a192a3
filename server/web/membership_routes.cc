// Joining, leaving and replacing on the web and the JSON API (server/app/membership.h):
//   HTML  GET/POST /games/{g}/join                         (anyone; form join-form)
//         GET/POST /games/{g}/confirm?code=...             (anyone; confirm-form: the GET shows
//              one button, the POST confirms a sign-up or standby request)
//         POST /games/{g}/me/address                       (the signed-in player; address-form)
//         POST /gm/games/{g}/open-signups | start | invite (GM; signup-form, start-form,
//              invite-form), /gm/games/{g}/signups/{id}/approve,
//              /gm/games/{g}/players/{p}/replace (replace-form-{P}),
//              /gm/games/{g}/players/{p}/address (gm-address-form-{P}),
//              /gm/games/{g}/signups/{id}/remove (signup-remove-form-{id})
//   API   POST /api/games/{g}/signups {email, preferences}   (anyone; 202: a confirmation is
//              mailed; 429 past the request limits)
//         POST /api/games/{g}/confirm {code}                (anyone: confirms a sign-up or standby)
//         POST /api/games/{g}/signups/{id}/remove           (GM)
//         GET  /api/games/{g}/signups                       (GM)
//         POST /api/games/{g}/signups/{id}/approve | start | invite {email} | open-signups (GM)
//         PUT  /api/games/{g}/players/{p}/address {email}   (the player's token, or the GM)
//         POST /api/games/{g}/players/{p}/replace {email, name} (GM)
// The GM desk and the player page show the sections rendered here (membership_gm_section,
// membership_me_section). Every form carries the open turn it was made for; a stale one is
// answered 409 "Turn N already ran" and changes nothing. New secrets are never shown: they are
// mailed privately with a sign-in link (WebContext::secrets_issued with_link).
//
// Web and API sign-ups record nothing until the address confirms (server/app/confirmations.h):
// the code is mailed to the address, and the answer never says whether it is on the list.
// Requests are bounded per client (client_key of Request::remote) and per address.
#include <spdlog/spdlog.h>

#include <variant>

#include "base/client_address.h"
#include "base/log_escape.h"
#include "server/app/confirmations.h"
#include "server/app/mail_delivery.h"
#include "server/app/membership.h"
#include "server/app/time_text.h"
#include "server/web/auth_guard.h"
#include "server/web/page_render.h"
#include "server/web/pages_view.h"
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
namespace membership_local {

constexpr const char* kGmActor = "gm";

using route::field;
using route::game_path;
using route::gm_path;
using route::secure;
using route::trim;
using route::upper;

Membership membership(WebContext& ctx) {
  Store& s = thread_store(ctx);
  return Membership(ctx.services(), Stores{s, s, s, s, s, s}, s, s, ctx.clock(),
                    ctx.config().base_url);
}

Confirmations confirmations(WebContext& ctx) {
  return Confirmations(ctx.services(), thread_store(ctx), ctx.clock(), ctx.config().base_url);
}

// ---- HTML answers (route_util.h: no scripts, no framing; never stored by caches) ----

Response page(std::string html, int status = 200) {
  return route::html_page(std::move(html), status, true);
}

Response error_page(int status, const std::string& message) {
  return route::error_page(status, message, true);
}

Response status_page(const Status& s) { return route::status_page(s, true); }

Response redirect(const std::string& to) { return route::no_store_redirect(to); }

Response csrf_failed() { return route::csrf_failed(true); }

using Body = std::function<Response(const Request&, const Params&)>;

http::Handler guarded(Body body) {
  return route::guarded(std::move(body),
                        {"html_exception", true, false, true,
                         "Something went wrong on the server (the details are in its log)."});
}

Json nav(WebContext& ctx, const Request& req, const std::string& game, const std::string& name) {
  Json n = Json::object();
  if (!game.empty()) {
    n["game"] = game;
    n["game_name"] = name.empty() ? game : name;
  }
  n["gm"] = is_gm_limited(ctx, req, "web_gm");
  return n;
}

// Null when the request is the GM's (cookie or bearer, within the guessing limit).
std::optional<Response> gm_denied(const Request& req, WebContext& ctx) {
  if (ctx.config().gm_token.empty())
    return error_page(403, "GM pages are disabled: the server has no GM token.");
  bool gm = false;
  if (auto r = route::check_gm(req, ctx, "web_gm", false, gm)) return r;
  if (gm) return std::nullopt;
  return error_page(403, "This needs the GM's sign-in: sign in on the GM page, then try again.");
}

// The 409 for a form made for another turn than the open one; nullopt when it is current (or
// carries no turn).
std::optional<Response> stale_turn(WebContext& ctx, const std::map<std::string, std::string>& form,
                                   const std::string& game, const std::string& back) {
  const std::string t = trim(field(form, "turn"));
  if (t.empty()) return std::nullopt;
  auto g = thread_store(ctx).game_summary(game);
  if (!g.ok()) return status_page(g.status());
  if (t == std::to_string(g->turn)) return std::nullopt;
  int sent = 0;
  for (char c : t.substr(0, 9))
    sent = std::isdigit(static_cast<unsigned char>(c)) ? sent * 10 + (c - '0') : sent;
  Response r = error_page(409, "Turn " + std::to_string(sent) +
                                   " already ran; nothing was changed. Go back to " + back +
                                   ", reload it and try again.");
  return r;
}

// ---- public: the sign-up page ----

Response join_form(WebContext& ctx, const Request& req, const std::string& game,
                   const std::string& error, const std::string& email,
                   const std::string& preferences, int status, const std::string& done = "") {
  auto g = thread_store(ctx).game_summary(game);
  if (!g.ok() && g.status().code() == StatusCode::kNotFound)
    return error_page(404, "There is no game \"" + game.substr(0, 64) +
                               "\" on this server; the list of games is on the home page.");
  if (!g.ok()) return status_page(g.status());
  auto state = thread_store(ctx).load_state(game, std::nullopt);
  if (!state.ok()) return status_page(state.status());
  Json kingdoms = Json::array();
  for (const Player& p : state->players) kingdoms.push_back({{"code", p.code}, {"name", p.name}});
  const CsrfToken csrf = csrf_token(req);
  Json model = {{"game", game},
                {"name", g->name},
                {"open", g->status == "signup"},
                {"status", g->status},
                {"turn", g->turn},
                {"kingdoms", std::move(kingdoms)},
                {"csrf", csrf.value},
                {"email", email},
                {"preferences", preferences},
                {"error", error.empty() ? Json() : Json(error)},
                {"done", done.empty() ? Json() : Json(done)}};
  Response r =
      page(render_page("Join " + g->name, "membership_join", model, nav(ctx, req, game, g->name)),
           status);
  set_csrf_cookie(r, csrf, secure(ctx));
  return r;
}

Response join_post(WebContext& ctx, const Request& req, const std::string& game) {
  const auto form = req.form();
  if (!csrf_ok(req, form, ctx.config().base_url)) return csrf_failed();
  const std::string email = trim(field(form, "email"));
  const std::string prefs = field(form, "preferences");
  if (auto stale = stale_turn(ctx, form, game, "the sign-up page")) return *stale;
  auto out = confirmations(ctx).ask_signup(game, email, prefs, "web", client_key(req.remote));
  if (!out.ok()) {
    const int code = http::http_status(out.status());
    if (code == 500) return status_page(out.status());
    return join_form(ctx, req, game, out.status().message(), email.substr(0, 254),
                     prefs.substr(0, Membership::kMaxPreferencesText), code);
  }
  if (out->limited)
    return join_form(ctx, req, game, out->text, email.substr(0, 254),
                     prefs.substr(0, Membership::kMaxPreferencesText), 429);
  return redirect(game_path(game) + "/join?done=confirm");
}

// ---- public: confirming a sign-up or standby request ----

Response confirm_page(WebContext& ctx, const Request& req, const std::string& game,
                      const std::string& code, const std::string& result, const std::string& error,
                      int status) {
  auto g = thread_store(ctx).game_summary(game);
  if (!g.ok()) return status_page(g.status());
  const CsrfToken csrf = csrf_token(req);
  Json model = {{"game", g->id},
                {"name", g->name},
                {"csrf", csrf.value},
                {"code", code.substr(0, Confirmations::kMaxCode)},
                {"result", result.empty() ? Json() : Json(result)},
                {"error", error.empty() ? Json() : Json(error)}};
  Response r =
      page(render_page("Confirm for " + g->name, "confirm", model, nav(ctx, req, g->id, g->name)),
           status);
  set_csrf_cookie(r, csrf, secure(ctx));
  return r;
}

Response confirm_post(WebContext& ctx, const Request& req, const std::string& game) {
  const auto form = req.form();
  if (!csrf_ok(req, form, ctx.config().base_url)) return csrf_failed();
  const std::string code = trim(field(form, "code"));
  auto out = confirmations(ctx).confirm(code, "web");
  if (!out.ok()) {
    const int status = http::http_status(out.status());
    if (status == 500) return status_page(out.status());
    return confirm_page(ctx, req, game, "", "", out.status().message(), status);
  }
  return confirm_page(ctx, req, out->game, "", out->text, "", 200);
}

// ---- the signed-in player: address ----

Response me_address_post(WebContext& ctx, const Request& req, const std::string& game) {
  auto owner = route::cookie_owner(req, ctx);
  if (!owner) return error_page(401, "Sign in first, then change your address.");
  if (owner->first != game) return error_page(403, "You are signed in to another game.");
  const auto form = req.form();
  if (!csrf_ok(req, form, ctx.config().base_url)) return csrf_failed();
  if (auto stale = stale_turn(ctx, form, game, "your page")) return *stale;
  const std::string player = upper(owner->second);
  const Status s =
      membership(ctx).change_address(game, player, trim(field(form, "email")), "player:" + player);
  if (!s.ok()) return status_page(s);
  return redirect(game_path(game) + "/me?done=address");
}

// ---- GM forms ----

Response gm_post(WebContext& ctx, const Request& req, const std::string& game,
                 const std::string& done,
                 const std::function<Status(const std::map<std::string, std::string>&)>& act) {
  if (auto denied = gm_denied(req, ctx)) return *denied;
  const auto form = req.form();
  if (!csrf_ok(req, form, ctx.config().base_url)) return csrf_failed();
  if (auto stale = stale_turn(ctx, form, game, "the GM page")) return *stale;
  const Status s = act(form);
  if (!s.ok()) return status_page(s);
  return redirect(gm_path(game) + "?done=" + done + "#players");
}

std::optional<std::int64_t> signup_id(const std::string& s) {
  if (s.empty() || s.size() > 15) return std::nullopt;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
  return std::stoll(s);
}

// ---- JSON API ----

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

Json signup_json(const Signup& s) {
  return {{"id", s.id},
          {"email", s.email},
          {"preferences", s.preferences},
          {"state", s.state},
          {"player", s.player.empty() ? Json() : Json(s.player)},
          {"channel", s.channel},
          {"created_at", s.created_at}};
}

// 429 (Retry-After: the window) for a refused request.
Response api_limited(const std::string& text) {
  Response r = api_error(429, text);
  r.headers.emplace_back("Retry-After", std::to_string(Confirmations::kLimits.window));
  return r;
}

Response api_join(WebContext& ctx, const Request& req, const std::string& game) {
  const std::string shape = "{\"email\": \"you@example.org\", \"preferences\": [\"WSX\", ...]}";
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
  auto g = thread_store(ctx).game_summary(game);
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
    if (by_cookie) token = http::url_decode(req.cookie(kPlayerCookie), false);
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
  const std::string shape = "{\"email\": \"new@example.org\", \"name\": \"optional name\"}";
  auto body = json_body(req, shape);
  if (auto* r = std::get_if<Response>(&body)) return *r;
  const Json& j = std::get<Json>(body);
  auto email = string_member(j, "email", shape);
  if (auto* r = std::get_if<Response>(&email)) return *r;
  auto name = string_member(j, "name", shape);
  if (auto* r = std::get_if<Response>(&name)) return *r;
  auto out = membership(ctx).replace(game, player, trim(std::get<std::string>(email)),
                                     trim(std::get<std::string>(name)), kGmActor);
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

}  // namespace membership_local
}  // namespace

// ---- sections of pages rendered elsewhere ----

std::string membership_gm_section(WebContext& ctx, const std::string& game,
                                  const std::string& csrf) {
  using namespace membership_local;
  auto g = thread_store(ctx).game_summary(game);
  if (!g.ok()) return "";
  auto state = thread_store(ctx).load_state(game, std::nullopt);
  if (!state.ok()) return "";
  auto list = membership(ctx).signups(game);
  auto contacts = membership(ctx).contacts(game);
  Json signups = Json::array();
  if (list.ok())
    for (const auto& s : *list) {
      Json row = signup_json(s);
      row["pending"] = s.state == "pending";
      row["removable"] = s.state != "assigned";
      row["when"] = time_html(s.created_at);
      std::string prefs;
      for (const auto& c : s.preferences) prefs += (prefs.empty() ? "" : " ") + c;
      row["preferences_text"] = prefs.empty() ? "any" : prefs;
      signups.push_back(std::move(row));
    }
  auto subs = ctx.admin().submission_status(game);
  Json players = Json::array();
  for (const Player& p : state->players) {
    bool has_orders = false;
    if (subs.ok())
      for (const auto& x : *subs)
        if (x.player == p.code) has_orders = x.has_orders;
    std::string person;
    if (contacts.ok())
      for (const Contact& c : *contacts)
        if (c.player == p.code) person = c.name;
    players.push_back({{"code", p.code},
                       {"kingdom", p.name},
                       {"email", p.email.empty() ? "(vacant)" : p.email},
                       {"has_orders", has_orders},
                       {"person", person}});
  }
  add_attendance_columns(ctx, game, players);  // missed, disorder, absence (attendance_routes.cc)
  const bool signup = g->status == "signup";
  Json model = {
      {"game", game},
      {"turn", g->turn},
      {"csrf", csrf},
      {"signup", signup},
      {"can_open", !signup && g->turn == 1 && (g->status == "open" || g->status == "paused")},
      {"has_signups", !signups.empty()},
      {"signups", std::move(signups)},
      {"places", state->players.size()},
      {"players", std::move(players)}};
  return render_template("membership_gm", model);
}

std::string membership_me_section(WebContext& ctx, const std::string& game,
                                  const std::string& player, const std::string& csrf) {
  using namespace membership_local;
  auto g = thread_store(ctx).game_summary(game);
  if (!g.ok()) return "";
  std::string email;
  if (auto state = thread_store(ctx).load_state(game, std::nullopt); state.ok())
    for (const Player& p : state->players)
      if (p.code == player) email = p.email;
  Json model = {{"game", game}, {"turn", g->turn}, {"csrf", csrf}, {"email", email}};
  return render_template("membership_me", model);
}

Status open_signups_after_create(WebContext& ctx, const std::string& game) {
  using namespace membership_local;
  return membership(ctx).open_signups(game, kGmActor);
}

void register_membership_routes(http::Router& router, WebContext& ctx) {
  using namespace membership_local;
  // Public sign-up page.
  router.add("GET", "/games/{game}/join", guarded([&ctx](const Request& req, const Params& p) {
               std::string done;
               if (req.query.count("done"))
                 done = "If the address can be put on the sign-up list, a confirmation " +
                        mailed_words("has been") + " to it. Follow that mail within " +
                        std::to_string(Confirmations::kValidHours) +
                        " hours: nothing is recorded until then. Once confirmed, the GM "
                        "approves sign-ups and starts the game; you then get your kingdom, your "
                        "secret and your sign-in link by mail.";
               return join_form(ctx, req, p.at("game"), "", "", "", 200, done);
             }),
             "html_join");
  router.add("POST", "/games/{game}/join", guarded([&ctx](const Request& req, const Params& p) {
               return join_post(ctx, req, p.at("game"));
             }),
             "html_join_post");
  router.add("GET", "/games/{game}/confirm", guarded([&ctx](const Request& req, const Params& p) {
               const auto it = req.query.find("code");
               return confirm_page(ctx, req, p.at("game"),
                                   it == req.query.end() ? "" : trim(it->second), "", "", 200);
             }),
             "html_confirm");
  router.add("POST", "/games/{game}/confirm", guarded([&ctx](const Request& req, const Params& p) {
               return confirm_post(ctx, req, p.at("game"));
             }),
             "html_confirm_post");
  router.add("POST", "/games/{game}/me/address",
             guarded([&ctx](const Request& req, const Params& p) {
               return me_address_post(ctx, req, p.at("game"));
             }),
             "html_me_address");
  // GM desk forms.
  router.add(
      "POST", "/gm/games/{game}/open-signups", guarded([&ctx](const Request& req, const Params& p) {
        const std::string game = p.at("game");
        return gm_post(ctx, req, game, "signups-open",
                       [&](const auto&) { return membership(ctx).open_signups(game, kGmActor); });
      }),
      "html_gm_open_signups");
  router.add("POST", "/gm/games/{game}/signups/{id}/approve",
             guarded([&ctx](const Request& req, const Params& p) {
               const std::string game = p.at("game");
               const auto id = signup_id(p.at("id"));
               return gm_post(ctx, req, game, "approved", [&](const auto&) {
                 if (!id) return Status::NotFound("there is no such sign-up");
                 return membership(ctx).approve(game, *id, kGmActor);
               });
             }),
             "html_gm_approve");
  router.add("POST", "/gm/games/{game}/signups/{id}/remove",
             guarded([&ctx](const Request& req, const Params& p) {
               const std::string game = p.at("game");
               const auto id = signup_id(p.at("id"));
               return gm_post(ctx, req, game, "signup-removed", [&](const auto&) {
                 if (!id) return Status::NotFound("there is no such sign-up");
                 return membership(ctx).remove_signup(game, *id, kGmActor);
               });
             }),
             "html_gm_signup_remove");
  router.add("POST", "/gm/games/{game}/invite",
             guarded([&ctx](const Request& req, const Params& p) {
               const std::string game = p.at("game");
               return gm_post(ctx, req, game, "invited", [&](const auto& form) {
                 return membership(ctx).invite(game, trim(field(form, "email")), kGmActor);
               });
             }),
             "html_gm_invite");
  router.add("POST", "/gm/games/{game}/start", guarded([&ctx](const Request& req, const Params& p) {
               const std::string game = p.at("game");
               return gm_post(ctx, req, game, "started", [&](const auto&) {
                 auto out = membership(ctx).start(game, kGmActor);
                 if (!out.ok()) return out.status();
                 ctx.secrets_issued(game, out->secrets, true);
                 return Status::Ok();
               });
             }),
             "html_gm_start");
  router.add("POST", "/gm/games/{game}/players/{player}/address",
             guarded([&ctx](const Request& req, const Params& p) {
               const std::string game = p.at("game");
               const std::string player = p.at("player");
               return gm_post(ctx, req, game, "address", [&](const auto& form) {
                 return membership(ctx).change_address(game, player, trim(field(form, "email")),
                                                       kGmActor);
               });
             }),
             "html_gm_address");
  router.add("POST", "/gm/games/{game}/players/{player}/replace",
             guarded([&ctx](const Request& req, const Params& p) {
               const std::string game = p.at("game");
               const std::string player = p.at("player");
               return gm_post(ctx, req, game, "replaced", [&](const auto& form) {
                 auto out = membership(ctx).replace(game, player, trim(field(form, "email")),
                                                    trim(field(form, "name")), kGmActor);
                 if (!out.ok()) return out.status();
                 ctx.secrets_issued(game, {{out->player, out->secret}}, true);
                 return Status::Ok();
               });
             }),
             "html_gm_replace");
  // JSON API.
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

}  // namespace adj::web
