// Press on the web and in the JSON API (server/app/press.h has the rules):
//   GET  /games/{g}/me/press            the player's inbox (received and sent, newest first) and
//                                       the compose form press-form (to, body, anonymous, turn)
//   POST /games/{g}/me/press            sends; 303 back to the inbox; errors keep the text
//   GET  /games/{g}/press               public press; every message once the game is finished
//   GET/POST /api/games/{g}/press       the player's mailbox / send; with the GM token the GM's
//                                       view (gm_view) / the GM's press (send_as_gm)
//   GET  /api/games/{g}/press/archive   public press (every message after the end)
//   GET/PUT /api/games/{g}/options/press  anyone reads; the GM sets
// The GM's pages and inbox are in press_gm_routes.cc.
// Thread-safety: as html_routes.cc (per-thread stores and services).
#include <spdlog/spdlog.h>

#include <variant>

#include "base/escape.h"
#include "base/log_escape.h"
#include "server/app/press.h"
#include "server/app/time_text.h"
#include "server/web/auth_guard.h"
#include "server/web/page_render.h"
#include "server/web/pages_view.h"
#include "server/web/press_internal.h"
#include "server/web/route_util.h"
#include "server/web/routes.h"
#include "server/web/web_session.h"

namespace adj::web {

using http::Params;
using http::Request;
using http::Response;

namespace press_detail {

using route::game_path;
using route::upper;

// ---- HTML helpers (route_util.h) ----

Response page(std::string html, int status, bool private_page) {
  return route::html_page(std::move(html), status, private_page);
}

Response error_page(int status, const std::string& message) {
  return route::error_page(status, message, true);
}

Response status_page(const Status& s) { return route::status_page(s, true, "press_error"); }

Response redirect(const std::string& to) { return route::hardened_redirect(to); }

http::Handler guarded(Body body, bool json) {
  return route::guarded(std::move(body), {"press_exception", false, json, true});
}

// The player signed in to `game` by the page cookie; nullopt when none.
std::optional<std::string> session_player(const Request& req, WebContext& ctx,
                                          const std::string& game) {
  auto owner = route::cookie_owner(req, ctx);
  if (!owner || owner->first != game) return std::nullopt;
  return upper(owner->second);
}

Json nav(const std::string& game, const std::string& game_name, const std::string& player,
         WebContext& ctx, const Request& req) {
  Json n = {{"game", game}, {"game_name", game_name.empty() ? game : game_name}};
  if (!player.empty()) n["player"] = player;
  n["gm"] = is_gm_limited(ctx, req, "web_gm");
  return n;
}

// Every value of form field `name` (checkboxes repeat it) of a urlencoded body.
std::vector<std::string> form_values(const Request& req, const std::string& name) {
  std::vector<std::string> out;
  const std::string& b = req.body;
  std::size_t start = 0;
  while (start <= b.size()) {
    std::size_t amp = b.find('&', start);
    if (amp == std::string::npos) amp = b.size();
    const std::string pair = b.substr(start, amp - start);
    const std::size_t eq = pair.find('=');
    if (eq != std::string::npos && url_decode(pair.substr(0, eq), true) == name)
      out.push_back(url_decode(pair.substr(eq + 1), true));
    if (out.size() > 100) break;
    start = amp + 1;
  }
  return out;
}

using route::field;

Json message_json(const PressView& v) {
  Json to = Json::array();
  for (const auto& r : v.message.recipients) to.push_back(r);
  return {{"id", v.message.id},
          {"turn", v.message.turn},
          {"sent_at", v.message.sent_at},
          {"sent_at_iso", utc_iso(v.message.sent_at)},
          {"from", v.message.sender.empty() ? Json() : Json(v.message.sender)},
          {"from_label", v.from},
          {"to", v.message.to_all ? Json("ALL") : Json(to)},
          {"to_label", v.to},
          {"anonymous", v.message.anonymous},
          {"sent", v.sent},
          {"body", v.message.body}};
}

Json messages_view(const std::vector<PressView>& vs) {
  Json out = Json::array();
  for (const auto& v : vs) {
    Json m = message_json(v);
    m["time"] = time_html(v.message.sent_at);
    out.push_back(std::move(m));
  }
  return out;
}

std::optional<Response> gm_refused(const Request& req, WebContext& ctx) {
  if (ctx.config().gm_token.empty())
    return error_page(403, "GM pages are disabled: the server has no GM token.");
  if (is_gm_limited(ctx, req, "web_gm")) return std::nullopt;
  if (req.method == "GET") return redirect("/gm/login");
  return error_page(403, "This needs the GM's sign-in.");
}

route::ApiCaller identify(const Request& req, WebContext& ctx, const std::string& game) {
  route::ApiCaller c;
  const std::string token = bearer_token(req);
  const ThrottleKeys token_keys = guard_keys(req, "");
  if (!token.empty())
    if (auto r = guard_check(ctx, token_keys, "api_bearer", true)) {
      c.denied = std::move(r);
      return c;
    }
  if (is_gm(req, ctx.config())) {
    if (!token.empty() || api_csrf_ok(req, ctx.config().base_url) || req.method == "GET") {
      c.gm = true;
      return c;
    }
  }
  if (route::identify_player(req, ctx, game, token, token_keys, c)) return c;
  if (auto me = session_player(req, ctx, game)) {
    if (req.method != "GET" && !api_csrf_ok(req, ctx.config().base_url)) {
      c.denied =
          route::json_error(403,
                            "with the page cookie alone this request must come from this site's "
                            "pages (X-CSRF-Token); scripts use Authorization: Bearer <link token>");
      return c;
    }
    c.player = *me;
  }
  return c;
}

std::variant<PressDraft, Response> draft_from_form(WebContext& ctx, const Request& req,
                                                   std::map<std::string, std::string>* form) {
  if (req.body.size() > kMaxFormBytes)
    return error_page(413, "The form is too large; a press message may be at most 8 KiB.");
  *form = req.form();
  if (!csrf_ok(req, *form, ctx.config().base_url))
    return error_page(403,
                      "This form has expired or was sent from another site. Reload the page and "
                      "try again.");
  PressDraft d;
  d.to = form_values(req, "to");
  if (d.to.empty() && !route::field(*form, "to").empty()) d.to = {route::field(*form, "to")};
  d.body = route::field(*form, "body");
  d.anonymous = !route::field(*form, "anonymous").empty();
  d.source = "web";
  return d;
}

std::variant<PressDraft, Response> draft_from_json(const Request& req) {
  using route::json_error;
  if (req.body.size() > kMaxFormBytes)
    return json_error(413, "the request is too large; a press message may be at most 8 KiB");
  const Json j = Json::parse(req.body, nullptr, false);
  if (!j.is_object())
    return json_error(400,
                      "the body must be a JSON object {\"to\": [codes] or \"ALL\", "
                      "\"body\": text, \"anonymous\": false}");
  PressDraft d;
  if (!j.contains("to"))
    return json_error(400, "\"to\" is missing: a list of kingdom codes, \"GM\", or \"ALL\"");
  if (j["to"].is_string()) {
    d.to.push_back(j["to"].get<std::string>());
  } else if (j["to"].is_array()) {
    for (const Json& t : j["to"]) {
      if (!t.is_string())
        return json_error(400, "\"to\" must hold kingdom codes as strings, or be \"ALL\"");
      d.to.push_back(t.get<std::string>());
    }
  } else {
    return json_error(400, "\"to\" must be a list of kingdom codes, or \"ALL\"");
  }
  if (!j.contains("body") || !j["body"].is_string())
    return json_error(400, "\"body\" is missing or not a string: the message text");
  d.body = j["body"].get<std::string>();
  if (j.contains("anonymous")) {
    if (!j["anonymous"].is_boolean()) return json_error(400, "\"anonymous\" must be true or false");
    d.anonymous = j["anonymous"].get<bool>();
  }
  d.source = "api";
  return d;
}

}  // namespace press_detail

// This file's helpers, in a namespace of their own so that the unity batches may compile the
// route files together.
namespace {
namespace press_local {

using namespace press_detail;
using route::field;
using route::game_path;
using route::upper;

// ---- player pages ----

Response inbox_page(WebContext& ctx, const Request& req, const std::string& game,
                    const std::string& player, const std::string& error, const std::string& flash,
                    const std::string& kept_body, const std::vector<std::string>& kept_to,
                    bool kept_anonymous, int status) {
  auto state = ctx.services().show_game(game);
  if (!state.ok()) return status_page(state.status());
  Press press = press_of(ctx);
  auto opts = press.options(game);
  if (!opts.ok()) return status_page(opts.status());
  auto box = press.mailbox(game, player);
  if (!box.ok()) return status_page(box.status());
  const bool is_kept = [&] {
    for (const auto& t : kept_to)
      if (upper(t) == "ALL") return true;
    return false;
  }();
  Json kingdoms = Json::array();
  std::string example;  // "PRESS TO" with this game's own codes
  for (const Json& p : (*state)["players"]) {
    const std::string code = p.value("code", "");
    if (code == player) continue;
    if (kingdoms.size() < 2) example += (example.empty() ? "" : ",") + code;
    bool checked = false;
    for (const auto& t : kept_to) checked = checked || upper(t) == code;
    kingdoms.push_back(
        {{"code", code}, {"label", Press::label(*state, code)}, {"checked", checked}});
  }
  const std::string level = opts->press;
  const bool over = state->value("status", "") == "finished";
  const std::string gm_address = effective_gm_address(*opts, ctx.app().config().gm_address);
  const CsrfToken csrf = csrf_token(req);
  Json model = {{"game", game},
                {"game_name", state->value("name", game)},
                {"player", player},
                {"player_label", Press::label(*state, player)},
                {"turn", state->value("turn", 1)},
                {"csrf", csrf.value},
                {"rules", Press::describe(*opts)},
                {"can_send", !over},
                {"press_on", level != "none"},
                {"gm_checked", std::find(kept_to.begin(), kept_to.end(), "GM") != kept_to.end()},
                {"gm_reads_private", opts->gm_reads_private},
                {"gm_address", route::or_null(gm_address)},
                {"example_to", example.empty() ? std::string("ALL") : example},
                {"mail_address", route::or_null(ctx.config().mail_address)},
                {"over", over},
                {"private", level == "private" || level == "anonymous"},
                {"anonymous_ok", level == "anonymous"},
                {"kingdoms", std::move(kingdoms)},
                {"all_checked", is_kept || level == "public"},
                {"anonymous_checked", kept_anonymous},
                {"body", kept_body},
                {"max_bytes", press.limits().max_body_bytes},
                {"error", error.empty() ? Json() : Json(error)},
                {"flash", flash.empty() ? Json() : Json(flash)},
                {"messages", messages_view(*box)},
                {"has_messages", !box->empty()}};
  Response r = page(render_page("Press: " + Press::label(*state, player), "press", model,
                                nav(game, state->value("name", game), player, ctx, req)),
                    status, true);
  set_csrf_cookie(r, csrf, ctx.config().base_url.rfind("https://", 0) == 0);
  return r;
}

Response inbox_get(WebContext& ctx, const Request& req, const std::string& game) {
  auto me = session_player(req, ctx, game);
  if (!me) return redirect(game_path(game) + "/login");
  // ?sent=<id>: the flash describes that message when this player sent it (never text taken
  // from the link itself).
  std::string flash;
  if (auto it = req.query.find("sent"); it != req.query.end()) {
    auto box = press_of(ctx).mailbox(game, *me);
    if (box.ok())
      for (const auto& v : *box)
        if (v.sent && std::to_string(v.message.id) == it->second)
          flash = "Your message was sent to " + v.to + ".";
  }
  return inbox_page(ctx, req, game, *me, "", flash, "", {}, false, 200);
}

Response inbox_post(WebContext& ctx, const Request& req, const std::string& game) {
  auto me = session_player(req, ctx, game);
  if (!me) return error_page(401, "Sign in first: your session has ended.");
  std::map<std::string, std::string> form;
  auto draft = draft_from_form(ctx, req, &form);
  if (auto* r = std::get_if<Response>(&draft)) return *r;
  const PressDraft& d = std::get<PressDraft>(draft);
  auto state = ctx.services().show_game(game);
  if (!state.ok()) return status_page(state.status());
  const int open = state->value("turn", 1);
  const std::string turn = field(form, "turn");
  if (!turn.empty() && turn != std::to_string(open))
    return inbox_page(ctx, req, game, *me,
                      "Turn " + turn + " already ran; the game is at turn " + std::to_string(open) +
                          ". Nothing was sent. Check your message and send it again.",
                      "", d.body, d.to, d.anonymous, 409);
  auto sent = press_of(ctx).send(game, *me, d);
  if (!sent.ok()) {
    const int code = http::http_status(sent.status());
    if (code == 500) return status_page(sent.status());
    return inbox_page(ctx, req, game, *me, "Not sent: " + sent.status().message() + ".", "", d.body,
                      d.to, d.anonymous, code);
  }
  return redirect(game_path(game) + "/me/press?sent=" + std::to_string(sent->message.id));
}

// ---- public and GM pages ----

Response public_page(WebContext& ctx, const Request& req, const std::string& game) {
  auto state = ctx.services().show_game(game);
  if (!state.ok()) return status_page(state.status());
  auto list = press_of(ctx).archive(game);
  if (!list.ok()) return status_page(list.status());
  const bool over = state->value("status", "") == "finished";
  Json model = {{"game", game},
                {"game_name", state->value("name", game)},
                {"over", over},
                {"messages", messages_view(*list)},
                {"has_messages", !list->empty()}};
  const auto me = session_player(req, ctx, game);
  return page(
      render_page((over ? "Press archive: " : "Public press: ") + state->value("name", game),
                  "press_public", model,
                  nav(game, state->value("name", game), me.value_or(""), ctx, req)),
      200, false);
}

// ---- JSON API ----

Response json(const Json& j, int status = 200) { return route::json_response(j, status); }

using route::json_error;

Response json_fail(const Status& s) { return route::api_fail(s); }

using route::ApiCaller;

Response api_press_get(WebContext& ctx, const Request& req, const std::string& game) {
  ApiCaller c = identify(req, ctx, game);
  if (c.denied) return *c.denied;
  Press press = press_of(ctx);
  Result<std::vector<PressView>> list = Status::Internal("unset");
  if (c.gm)
    list = press.gm_view(game);
  else if (!c.player.empty())
    list = press.mailbox(game, c.player);
  else
    return json_error(401,
                      "this needs the player's link token (Authorization: Bearer <token>) or "
                      "Basic <code>:<secret>; public press is at /api/games/" +
                          game + "/press/archive");
  if (!list.ok()) return json_fail(list.status());
  Json out = Json::array();
  for (const auto& v : *list) out.push_back(message_json(v));
  return json({{"game", game}, {"messages", std::move(out)}});
}

Response api_press_post(WebContext& ctx, const Request& req, const std::string& game) {
  ApiCaller c = identify(req, ctx, game);
  if (c.denied) return *c.denied;
  if (!c.gm && c.player.empty())
    return json_error(401,
                      "this needs the player's link token or Basic <code>:<secret>, or the GM "
                      "token");
  auto draft = draft_from_json(req);
  if (auto* r = std::get_if<Response>(&draft)) return *r;
  const PressDraft& d = std::get<PressDraft>(draft);
  auto sent = c.gm ? press_of(ctx).send_as_gm(game, d) : press_of(ctx).send(game, c.player, d);
  if (!sent.ok()) return json_fail(sent.status());
  if (c.gm) ctx.app().mail_queued();  // the players' digests
  return json(message_json(*sent), 201);
}

Response api_archive(WebContext& ctx, const std::string& game) {
  auto list = press_of(ctx).archive(game);
  if (!list.ok()) return json_fail(list.status());
  Json out = Json::array();
  for (const auto& v : *list) out.push_back(message_json(v));
  return json({{"game", game}, {"messages", std::move(out)}});
}

Json options_json(const PressOptions& o) {
  return {{"press", o.press},
          {"gm_reads_private", o.gm_reads_private},
          {"new_holder_reads_earlier", o.new_holder_reads_earlier},
          {"gm_address", o.gm_address},
          {"description", Press::describe(o)}};
}

Response api_options_get(WebContext& ctx, const std::string& game) {
  auto o = press_of(ctx).options(game);
  if (!o.ok()) return json_fail(o.status());
  return json(options_json(*o));
}

Response api_options_put(WebContext& ctx, const Request& req, const std::string& game) {
  ApiCaller c = identify(req, ctx, game);
  if (c.denied) return *c.denied;
  if (!c.gm) return json_error(c.player.empty() ? 401 : 403, "this needs the GM token");
  const Json j = Json::parse(req.body, nullptr, false);
  if (!j.is_object())
    return json_error(400,
                      "the body must be a JSON object {\"press\": \"none\" | \"public\" | "
                      "\"private\" | \"anonymous\", \"gm_reads_private\": true | false, "
                      "\"new_holder_reads_earlier\": true | false}");
  auto cur = press_of(ctx).options(game);
  if (!cur.ok()) return json_fail(cur.status());
  PressOptions o = *cur;
  for (const auto& [k, v] : j.items())
    if (k != "press" && k != "gm_reads_private" && k != "new_holder_reads_earlier" &&
        k != "gm_address")
      return json_error(400, "unknown field \"" + k.substr(0, 40) +
                                 "\"; the fields are press, gm_reads_private, "
                                 "new_holder_reads_earlier and gm_address");
  if (j.contains("press")) {
    if (!j["press"].is_string())
      return json_error(400, "\"press\" must be one of none, public, private, anonymous");
    o.press = j["press"].get<std::string>();
  }
  if (j.contains("gm_reads_private")) {
    if (!j["gm_reads_private"].is_boolean())
      return json_error(400, "\"gm_reads_private\" must be true or false");
    o.gm_reads_private = j["gm_reads_private"].get<bool>();
  }
  if (j.contains("new_holder_reads_earlier")) {
    if (!j["new_holder_reads_earlier"].is_boolean())
      return json_error(400, "\"new_holder_reads_earlier\" must be true or false");
    o.new_holder_reads_earlier = j["new_holder_reads_earlier"].get<bool>();
  }
  if (j.contains("gm_address")) {
    if (!j["gm_address"].is_string())
      return json_error(400, "\"gm_address\" must be an address, or \"\" for the host's");
    o.gm_address = j["gm_address"].get<std::string>();
  }
  const Status s = press_of(ctx).set_options(game, o, kGmActor);
  if (!s.ok()) return json_fail(s);
  return json(options_json(o));
}

}  // namespace press_local
}  // namespace

void register_press_routes(http::Router& router, WebContext& ctx) {
  using namespace press_local;
  router.add(
      "GET", "/games/{game}/me/press",
      guarded([&ctx](const Request& r, const Params& p) { return inbox_get(ctx, r, p.at("game")); },
              false),
      "press_inbox");
  router.add("POST", "/games/{game}/me/press",
             guarded([&ctx](const Request& r,
                            const Params& p) { return inbox_post(ctx, r, p.at("game")); },
                     false),
             "press_send");
  router.add(
      "GET", "/games/{game}/press",
      route::cached(guarded(
          [&ctx](const Request& r, const Params& p) { return public_page(ctx, r, p.at("game")); },
          false)),
      "press_public");
  router.add("GET", "/api/games/{game}/press",
             guarded([&ctx](const Request& r,
                            const Params& p) { return api_press_get(ctx, r, p.at("game")); },
                     true),
             "api_press");
  router.add("POST", "/api/games/{game}/press",
             guarded([&ctx](const Request& r,
                            const Params& p) { return api_press_post(ctx, r, p.at("game")); },
                     true),
             "api_press_send");
  router.add(
      "GET", "/api/games/{game}/press/archive",
      guarded([&ctx](const Request&, const Params& p) { return api_archive(ctx, p.at("game")); },
              true),
      "api_press_archive");
  router.add("GET", "/api/games/{game}/options/press",
             guarded([&ctx](const Request&,
                            const Params& p) { return api_options_get(ctx, p.at("game")); },
                     true),
             "api_press_options");
  router.add("PUT", "/api/games/{game}/options/press",
             guarded([&ctx](const Request& r,
                            const Params& p) { return api_options_put(ctx, r, p.at("game")); },
                     true),
             "api_press_options_put");
}

}  // namespace adj::web
