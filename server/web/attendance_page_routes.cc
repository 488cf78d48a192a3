// The HTML half of attendance (attendance_routes.cc has the contract): the standby and takeover
// pages (GET/POST /games/{g}/standby, /games/{g}/takeover; anyone), the player's absence form
// (POST /games/{g}/me/absence) and the GM desk's forms (POST /gm/games/{g}/attendance,
// /gm/games/{g}/standby/remove, /gm/games/{g}/players/{p}/takeover-code: the code is shown once).
// Answers are private (never stored by caches) unless said otherwise.
#include <map>
#include <string>
#include <utility>
#include <variant>

#include "base/client_address.h"
#include "base/escape.h"
#include "server/app/attendance.h"
#include "server/app/confirmations.h"
#include "server/app/mail_delivery.h"
#include "server/web/attendance_internal.h"
#include "server/web/auth_guard.h"
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
namespace attendance_page_local {

using attendance_detail::attendance_of;
using attendance_detail::do_takeover;
using attendance_detail::kGmActor;
using attendance_detail::status_page;

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

Response redirect(const std::string& to) { return route::no_store_redirect(to); }

Response csrf_failed() { return route::csrf_failed(true); }

http::Handler guarded(route::Body body) {
  return route::guarded(std::move(body), {"attendance_exception", false, false, true});
}

// The signed-in player of `game` (cookie), or "".
std::string session_player(const Request& req, WebContext& ctx, const std::string& game) {
  auto owner = route::cookie_owner(req, ctx);
  if (!owner || owner->first != game) return "";
  return upper(owner->second);
}

// The game summary; NotFound with a readable message otherwise.
Result<GameSummary> game_of(WebContext& ctx, const std::string& game) {
  auto g = ctx.services().game_summary(game);
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
  Confirmations confirm = ctx.confirmations();
  auto out = confirm.ask_standby(game, field(form, "email"), "web", client_key(req.remote));
  if (!out.ok()) return status_page(out.status());
  if (out->limited) return error_page(429, out->text);
  return redirect(game_path(game) + "/standby?done=1");
}

Response takeover_page(WebContext& ctx, const Request& req, const std::string& game) {
  auto g = game_of(ctx, game);
  if (!g.ok()) return status_page(g.status());
  auto st = ctx.services().load_state(game);
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

Response takeover_post(WebContext& ctx, const Request& req, const std::string& game) {
  const auto form = req.form();
  if (!csrf_ok(req, form, ctx.config().base_url)) return csrf_failed();
  auto t = do_takeover(ctx, req, game, upper(field(form, "kingdom")), field(form, "code"),
                       field(form, "email"), false);
  if (auto* r = std::get_if<Response>(&t)) return *r;
  return redirect(game_path(game) +
                  "/takeover?done=" + url_encode(std::get<TakeoverOutcome>(t).player));
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
  return redirect("/gm/games/" + url_encode(game) + "?done=standby-removed#attendance");
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
  return redirect("/gm/games/" + url_encode(game) + "?done=attendance");
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
                            "/takeover?kingdom=" + url_encode(upper(player))}};
  return page(render_page("Takeover code for " + upper(player), "attendance_code", model,
                          nav_of(ctx, req, *g)));
}

}  // namespace attendance_page_local
}  // namespace

namespace attendance_detail {

void register_attendance_page_routes(http::Router& router, WebContext& ctx) {
  using namespace attendance_page_local;
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
}

}  // namespace attendance_detail
}  // namespace adj::web
