// The HTML half of joining, leaving and replacing (membership_routes.cc has the contract):
//   GET/POST /games/{g}/join                         (anyone; form join-form)
//   GET/POST /games/{g}/confirm?code=...             (anyone; confirm-form: the GET shows one
//        button, the POST confirms a sign-up or standby request)
//   POST /games/{g}/me/address                       (the signed-in player; address-form)
//   POST /gm/games/{g}/open-signups | start | invite (GM; signup-form, start-form, invite-form),
//        /gm/games/{g}/signups/{id}/approve, /gm/games/{g}/players/{p}/replace
//        (replace-form-{P}), /gm/games/{g}/players/{p}/address (gm-address-form-{P}),
//        /gm/games/{g}/signups/{id}/remove (signup-remove-form-{id})
// Every form carries the open turn it was made for; a stale one is answered 409 "Turn N already
// ran" and changes nothing. Answers are private (never stored by caches), with no scripts and no
// framing.
#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "base/client_address.h"
#include "base/escape.h"
#include "server/app/audit_log.h"
#include "server/app/confirmations.h"
#include "server/app/mail_delivery.h"
#include "server/app/membership.h"
#include "server/web/auth_guard.h"
#include "server/web/membership_internal.h"
#include "server/web/page_render.h"
#include "server/web/route_util.h"
#include "server/web/web_session.h"

namespace adj::web {
using http::Params;
using http::Request;
using http::Response;

// This file's helpers, in a namespace of their own so that the unity batches may compile the
// route files together.
namespace {
namespace membership_page_local {

using membership_detail::confirmations;
using membership_detail::membership;
using route::field;
using route::game_path;
using route::gm_path;
using route::secure;
using route::trim;
using route::upper;

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
  auto g = ctx.services().game_summary(game);
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
  auto g = ctx.services().game_summary(game);
  if (!g.ok() && g.status().code() == StatusCode::kNotFound)
    return error_page(404, "There is no game \"" + game.substr(0, 64) +
                               "\" on this server; the list of games is on the home page.");
  if (!g.ok()) return status_page(g.status());
  auto state = ctx.services().load_state(game);
  if (!state.ok()) return status_page(state.status());
  Json kingdoms = Json::array();
  std::string example;  // the preferences field's placeholder: two of this game's codes
  for (const Player& p : state->players) {
    kingdoms.push_back({{"code", p.code}, {"name", p.name}});
    if (kingdoms.size() <= 2) example += (example.empty() ? "e.g. " : " ") + p.code;
  }
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
                {"example", example},
                {"error", error.empty() ? Json() : Json(error)},
                {"done", done.empty() ? Json() : Json(done)}};
  model["mail_address"] = route::or_null(ctx.config().mail_address);
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
  auto g = ctx.services().game_summary(game);
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

// `player`, when not empty: the row acted on, whose stretch of a big game's GM page the
// redirect shows (?player=).
Response gm_post(WebContext& ctx, const Request& req, const std::string& game,
                 const std::string& done,
                 const std::function<Status(const std::map<std::string, std::string>&)>& act,
                 const std::string& player = "") {
  if (auto denied = gm_denied(req, ctx)) return *denied;
  const auto form = req.form();
  if (!csrf_ok(req, form, ctx.config().base_url)) return csrf_failed();
  if (auto stale = stale_turn(ctx, form, game, "the GM page")) return *stale;
  const Status s = act(form);
  if (!s.ok()) return status_page(s);
  const std::string row = player.empty() ? "" : "&player=" + url_encode(upper(player));
  return redirect(gm_path(game) + "?done=" + done + row + "#players");
}

// POST replace without confirm=1: the page that says what a replacement does (the player's
// secret and links stop working, the old address is told) and asks for an optional reason
// (confirm-replace-form, confirm=1). nullopt when confirmed or when the form is wrong in a way
// the replacement itself names (then the caller answers).
std::optional<Response> confirm_replace(WebContext& ctx, const Request& req,
                                        const std::string& game, const std::string& player) {
  if (auto denied = gm_denied(req, ctx)) return *denied;
  const auto form = req.form();
  if (!csrf_ok(req, form, ctx.config().base_url)) return csrf_failed();
  if (field(form, "confirm") == "1") return std::nullopt;
  if (auto stale = stale_turn(ctx, form, game, "the GM page")) return *stale;
  auto g = ctx.services().game_summary(game);
  if (!g.ok()) return status_page(g.status());
  auto contacts = membership(ctx).contacts(game);
  if (!contacts.ok()) return status_page(contacts.status());
  const std::string code = upper(player);
  const auto now = std::find_if(contacts->begin(), contacts->end(),
                                [&](const Contact& c) { return c.player == code; });
  if (now == contacts->end()) return std::nullopt;  // the replacement names the unknown player
  const CsrfToken csrf = csrf_token(req);
  Json model = {{"game", g->id},
                {"name", g->name},
                {"player", code},
                {"turn", g->turn},
                {"old", now->email.empty() ? Json() : Json(now->email)},
                {"email", trim(field(form, "email")).substr(0, 254)},
                {"person", trim(field(form, "name")).substr(0, 100)},
                {"reason", field(form, "reason").substr(0, kMaxGmReason)},
                {"csrf", csrf.value}};
  Response r = page(render_page("Replace " + code + "?", "gm_confirm_replace", model,
                                nav(ctx, req, g->id, g->name)));
  set_csrf_cookie(r, csrf, secure(ctx));
  return r;
}

}  // namespace membership_page_local
}  // namespace

namespace membership_detail {

void register_membership_page_routes(http::Router& router, WebContext& ctx) {
  using namespace membership_page_local;
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
}

void register_membership_gm_form_routes(http::Router& router, WebContext& ctx) {
  using namespace membership_page_local;
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
               return gm_post(
                   ctx, req, game, "address",
                   [&](const auto& form) {
                     return membership(ctx).change_address(game, player, trim(field(form, "email")),
                                                           kGmActor);
                   },
                   player);
             }),
             "html_gm_address");
  router.add("POST", "/gm/games/{game}/players/{player}/replace",
             guarded([&ctx](const Request& req, const Params& p) {
               const std::string game = p.at("game");
               const std::string player = p.at("player");
               if (auto ask = confirm_replace(ctx, req, game, player)) return *ask;
               return gm_post(
                   ctx, req, game, "replaced",
                   [&](const auto& form) {
                     auto out = membership(ctx).replace(game, player, trim(field(form, "email")),
                                                        trim(field(form, "name")), kGmActor,
                                                        trim(field(form, "reason")));
                     if (!out.ok()) return out.status();
                     ctx.secrets_issued(game, {{out->player, out->secret}}, true);
                     return Status::Ok();
                   },
                   player);
             }),
             "html_gm_replace");
}

}  // namespace membership_detail
}  // namespace adj::web
