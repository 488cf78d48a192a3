// The server-rendered HTML pages (no JavaScript): public game pages with the SVG map and charts,
// a player's private reports and order form, and the GM desk. Handlers build JSON view models
// and render the templates in server/web/templates/ (page_render.h); all markup escaping is the
// templates'. Sessions and CSRF protection are described in web_session.h.
//
// Every handler catches everything: a failure becomes an error page (500 with no detail; the
// detail goes to the log), never an exception out of the router.
// Thread-safety: the handlers run on the server's worker threads and touch only per-thread
// objects (WebContext::services()/admin()/thread_store) and thread-safe ones (Metrics).
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <variant>

#include "base/log_escape.h"
#include "rules/game/scenario.h"
#include "rules/orders/parser.h"
#include "schemas/embedded.h"
#include "server/app/audit_text.h"
#include "server/app/engine_catalog.h"
#include "server/app/gm_orders.h"
#include "server/app/history.h"
#include "server/app/mail_delivery.h"
#include "server/app/secrets.h"
#include "server/app/time_text.h"
#include "server/app/turn_guard.h"
#include "server/render/svg_map.h"
#include "server/web/auth_guard.h"
#include "server/web/map_view.h"
#include "server/web/order_builder.h"
#include "server/web/orders_view.h"
#include "server/web/page_render.h"
#include "server/web/pages_view.h"
#include "server/web/route_util.h"
#include "server/web/routes.h"
#include "server/web/svg_charts.h"
#include "server/web/web_session.h"
#include "storage/store.h"

namespace adj::web {

using http::Params;
using http::Request;
using http::Response;

// This file's helpers, in a namespace of their own so that the unity batches may compile the
// route files together.
namespace {
namespace html_local {

constexpr const char* kGmActor = "gm";
constexpr const char* kChannel = "web";
constexpr std::size_t kMaxOrderBytes = 64 * 1024;
constexpr int kMaxChartTurns = 100;
constexpr long kPlayerCookieSeconds = 30L * 24 * 3600;

using Body = std::function<Response(const Request&, const Params&)>;

using route::field;
using route::game_path;
using route::param;
using route::secure;
using route::trim;
using route::upper;

// A positive whole number, or nullopt.
std::optional<int> positive_int(const std::string& s, int max = 1000000) {
  if (s.empty() || s.size() > 9) return std::nullopt;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
  const int v = std::stoi(s);
  if (v < 1 || v > max) return std::nullopt;
  return v;
}

Response page(std::string html, int status = 200, bool private_page = false) {
  return route::html_page(std::move(html), status, private_page);
}

Response error_page(int status, const std::string& message) {
  return route::error_page(status, message, false);
}

Response status_page(const Status& s) { return route::status_page(s, false); }

Response redirect(const std::string& to) { return route::hardened_redirect(to); }

// Wraps a handler so that nothing escapes it.
http::Handler guarded(Body body) {
  return route::guarded(std::move(body), {"html_exception", true});
}

std::optional<GameSummary> find_game(WebContext& ctx, const std::string& game, Status* error) {
  auto games = ctx.services().list_games();
  if (!games.ok()) {
    *error = games.status();
    return std::nullopt;
  }
  for (const auto& g : *games)
    if (g.id == game) return g;
  *error = Status::NotFound("no game " + game);
  return std::nullopt;
}

// The deadline as a <time> element (time_html: for {{{...}}} in templates), or "none set".
std::string deadline_text(WebContext& ctx, const std::string& game) {
  auto s = ctx.admin().schedule(game);
  if (!s.ok() || !s->deadline) return "none set";
  return time_html(*s->deadline);
}

// ---- sessions ----

struct PlayerSession {
  std::string game, player;
};

std::optional<PlayerSession> player_session(const Request& req, WebContext& ctx) {
  auto owner = route::cookie_owner(req, ctx);
  if (!owner) return std::nullopt;
  return PlayerSession{owner->first, owner->second};
}

// The player signed in to `game`, or the answer to give instead: for a GET a redirect to the
// sign-in page, for a POST 401; 403 when the session belongs to another game.
std::variant<PlayerSession, Response> require_player(const Request& req, WebContext& ctx,
                                                     const std::string& game) {
  auto s = player_session(req, ctx);
  if (!s) {
    if (req.method == "GET") return redirect(game_path(game) + "/login");
    return error_page(401, "Sign in first.");
  }
  if (s->game != game) return error_page(403, "You are signed in to another game.");
  return *s;
}

// The layout's navigation model. `known`: the request's player session when the caller has
// already looked it up (saves a second lookup).
Json nav(const std::string& game, const std::string& game_name, const Request& req, WebContext& ctx,
         const PlayerSession* known = nullptr) {
  Json n = Json::object();
  if (!game.empty()) {
    n["game"] = game;
    n["game_name"] = game_name.empty() ? game : game_name;
    const auto s = known ? std::optional<PlayerSession>(*known) : player_session(req, ctx);
    if (s && s->game == game) n["player"] = s->player;
  }
  n["gm"] = is_gm_limited(ctx, req, "web_gm");
  return n;
}

// A page with forms: its CSRF token goes in the model and, when new, in a cookie.
Response form_page(WebContext& ctx, const CsrfToken& csrf, std::string html, int status = 200) {
  Response r = page(std::move(html), status, true);
  set_csrf_cookie(r, csrf, secure(ctx));
  return r;
}

Response csrf_failed() { return route::csrf_failed(false); }

// ---- public pages ----

Json game_rows(WebContext& ctx, const std::vector<GameSummary>& games) {
  Json rows = Json::array();
  for (const auto& g : games)
    rows.push_back({{"id", g.id},
                    {"name", g.name},
                    {"engine", g.engine},
                    {"turn", g.turn},
                    {"status", g.status},
                    {"deadline", deadline_text(ctx, g.id)}});
  return rows;
}

Response index_page(WebContext& ctx, const Request& req) {
  auto games = ctx.services().list_games();
  if (!games.ok()) return status_page(games.status());
  Json rows = game_rows(ctx, *games);
  Json model = {{"has_games", !rows.empty()}, {"games", std::move(rows)}};
  return page(render_page("Games", "index", model, nav("", "", req, ctx)));
}

using route::cached;
using route::public_state;

Json order_of_play(const Json& codes, const Json& players) {
  Json out = Json::array();
  if (!codes.is_array()) return out;
  for (std::size_t i = 0; i < codes.size(); ++i) {
    const std::string code = codes[i].is_string() ? codes[i].get<std::string>() : "";
    std::string name;
    for (const auto& p : players)
      if (p.value("code", "") == code) name = p.value("name", "");
    out.push_back({{"position", i + 1}, {"code", code}, {"name", name}});
  }
  return out;
}

Response game_page(WebContext& ctx, const Request& req, const std::string& game) {
  auto state = ctx.services().show_game(game);
  if (!state.ok()) return status_page(state.status());
  const bool over = route::game_over(*state);
  const Json st = public_state(std::move(state).value(), over);
  const Json& players = st["players"];
  const int turn = st.value("turn", 1);

  const render::MapModel map = render::map_model_from_state(st);
  const bool automatic = std::any_of(map.areas.begin(), map.areas.end(),
                                     [](const render::MapArea& a) { return !a.x || !a.y; });

  Json roundup = nullptr;
  Json charts = Json::array();
  auto history = game_history(thread_store(ctx), game, turn, kMaxChartTurns);
  if (!history.ok()) return status_page(history.status());
  if (!history->roundups.empty()) roundup = roundup_view(history->roundups.back(), players);
  const KingdomHistory kh = history_from_roundups(
      players, history->roundups, history->start_state.is_null() ? nullptr : &history->start_state);
  for (const LineChart& c : kingdom_charts(kh)) charts.push_back({{"svg", render_line_chart(c)}});

  Json model = {{"id", st.value("game", game)},
                {"name", st.value("name", game)},
                {"engine", st.contains("engine") ? st["engine"].value("name", "") : ""},
                {"turn", turn},
                {"status", st.value("status", "")},
                {"over", st.value("status", "") == "finished"},  // archive_routes.cc
                {"deadline", deadline_text(ctx, game)},
                {"order_of_play", order_of_play(st.value("order_of_play", Json::array()), players)},
                {"map", map_block(map, map_zoom(req.query), game_path(game))},
                {"automatic_layout", automatic},
                {"roundup", std::move(roundup)},
                {"charts", std::move(charts)}};
  model["signup_open"] = st.value("status", "") == "signup";  // the join page (membership)
  return page(render_page(st.value("name", game), "game", model,
                          nav(game, st.value("name", game), req, ctx)));
}

Response map_svg(WebContext& ctx, const std::string& game) {
  auto state = ctx.services().show_game(game);
  if (!state.ok()) return status_page(state.status());
  Response r;
  r.content_type = "image/svg+xml";
  const bool over = route::game_over(*state);
  r.body = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" +
           render::render_svg_map(
               render::map_model_from_state(public_state(std::move(state).value(), over)));
  r.headers.emplace_back("X-Content-Type-Options", "nosniff");
  r.headers.emplace_back("Content-Security-Policy",
                         "default-src 'none'; style-src 'unsafe-inline'");
  r.headers.emplace_back("Cache-Control", "no-cache");
  return r;
}

// One audit entry as people read it (audit_text.h).
Json audit_row(const AuditEntry& e) {
  return {{"id", e.id},
          {"at", time_html(e.at)},
          {"who", audit_actor_text(e.actor)},
          {"what", audit_action_text(e)},
          {"action", e.action}};
}

Response audit_page(WebContext& ctx, const Request& req, const std::string& game) {
  Status err;
  auto g = find_game(ctx, game, &err);
  if (!g) return status_page(err);
  auto log = ctx.admin().audit_log(game);
  if (!log.ok()) return status_page(log.status());
  // The GM sees the entries as stored; everyone else without e-mail addresses.
  const bool gm = is_gm_limited(ctx, req, "web_gm");
  Json entries = Json::array();
  for (const auto& e : *log) entries.push_back(audit_row(gm ? e : public_audit_entry(e)));
  Json model = {
      {"game_name", g->name}, {"has_entries", !entries.empty()}, {"entries", std::move(entries)}};
  return page(render_page("Audit log: " + g->name, "audit", model, nav(game, g->name, req, ctx)));
}

Response static_file(const std::string& name) {
  if (name.empty() || name.find("..") != std::string::npos || name.find('/') != std::string::npos)
    return error_page(404, "no such file");
  auto data = embedded_file("server/web/static/" + name);
  if (!data) return error_page(404, "no such file");
  Response r;
  r.body = std::string(*data);
  const auto ends = [&](const char* ext) {
    const std::string e = ext;
    return name.size() >= e.size() && name.compare(name.size() - e.size(), e.size(), e) == 0;
  };
  r.content_type = ends(".css")   ? "text/css; charset=utf-8"
                   : ends(".js")  ? "text/javascript; charset=utf-8"
                   : ends(".svg") ? "image/svg+xml"
                   : ends(".png") ? "image/png"
                                  : "application/octet-stream";
  r.headers.emplace_back("Cache-Control", "public, max-age=3600");
  r.headers.emplace_back("X-Content-Type-Options", "nosniff");
  return r;
}

// ---- player pages ----

Response login_form(WebContext& ctx, const Request& req, const std::string& game,
                    const std::string& error, const std::string& player, int status) {
  Status err;
  auto g = find_game(ctx, game, &err);
  if (!g) return status_page(err);
  const CsrfToken csrf = csrf_token(req);
  Json model = {{"game", game},
                {"game_name", g->name},
                {"csrf", csrf.value},
                {"player", player},
                {"error", error.empty() ? Json() : Json(error)}};
  return form_page(ctx, csrf,
                   render_page("Sign in: " + g->name, "login", model, nav(game, g->name, req, ctx)),
                   status);
}

// The Set-Cookie value of a player's sign-in session cookie (it lives as long as the server
// keeps the session at most).
std::string session_cookie(WebContext& ctx, const std::string& game, const std::string& token) {
  return cookie_header(kPlayerCookie, http::url_encode(token), game_path(game), secure(ctx),
                       std::min<long>(kPlayerCookieSeconds,
                                      static_cast<long>(ctx.config().sessions.absolute_seconds)));
}

Response player_cookie(WebContext& ctx, const std::string& game, const std::string& token,
                       const std::string& then) {
  Response r = redirect(then);
  r.headers.emplace_back("Set-Cookie", session_cookie(ctx, game, token));
  return r;
}

// A sign-in form shown again because the limiter refused the attempt: the 429's status and
// Retry-After on the form page.
Response locked_form(Response form, const Response& refusal) {
  form.status = 429;
  for (const auto& h : refusal.headers)
    if (h.first == "Retry-After") form.headers.push_back(h);
  return form;
}

std::string locked_message(const Response& refusal) {
  for (const auto& h : refusal.headers)
    if (h.first == "Retry-After")
      return "Too many failed attempts; try again in " + h.second + " seconds.";
  return "Too many failed attempts; try again later.";
}

Response login_post(WebContext& ctx, const Request& req, const std::string& game) {
  const auto form = req.form();
  if (!csrf_ok(req, form, ctx.config().base_url)) return csrf_failed();
  const std::string player = upper(trim(field(form, "player")));
  const std::string secret = field(form, "secret");
  if (player.empty() || player.size() > 16 || secret.empty())
    return login_form(ctx, req, game, "Give your player code and secret.", player, 400);
  // Guessing limit (auth_guard.h).
  const ThrottleKeys keys = guard_keys(req, throttle_key_player(game, player));
  if (auto r = guard_check(ctx, keys, "web_signin", false))
    return locked_form(login_form(ctx, req, game, locked_message(*r), player, 429), *r);
  auto ok = ctx.admin().check_secret(game, player, secret);
  if (!ok.ok() && ok.status().code() != StatusCode::kNotFound) return status_page(ok.status());
  if (!ok.ok() || !*ok) {
    if (ok.ok())
      guard_record(ctx, keys, "web_signin", false, "wrong_secret", game, player);
    else
      guard_record(ctx, guard_keys(req, ""), "web_signin", false, "unknown_player");
    spdlog::info("event=player_sign_in_failed game=\"{}\" player=\"{}\" remote=\"{}\"",
                 log_escape(game), log_escape(player), log_escape(req.remote));
    return login_form(ctx, req, game, "Unknown player code or wrong secret.", player, 403);
  }
  guard_record(ctx, keys, "web_signin", true, "");
  // A sign-in session of its own (stored hashed): the player's link token is never readable.
  auto token = ctx.services().new_session_token(game, player);
  if (!token.ok()) return status_page(token.status());
  return player_cookie(ctx, game, *token, game_path(game) + "/me");
}

Response link_login(WebContext& ctx, const Request& req, const std::string& game,
                    const std::string& token) {
  // Guessing limit on link tokens, by client address (auth_guard.h).
  const ThrottleKeys keys = guard_keys(req, "");
  if (auto r = guard_check(ctx, keys, "web_link", false)) return *r;
  // Only the link token signs in here (a session token is not a link); the browser gets a sign-in
  // session of its own, which expires on the server (SessionLimits).
  auto owner = token.size() > 256 ? Result<TokenRecord>(Status::NotFound("token"))
                                  : ctx.services().credential(token);
  if (!owner.ok() || owner->session || owner->game != game) {
    if (owner.ok() || owner.status().code() == StatusCode::kNotFound) {
      if (!owner.ok()) guard_record(ctx, keys, "web_link", false, "unknown_token");
      return error_page(404, "This sign-in link is not valid. Ask your GM for a new one.");
    }
    return status_page(owner.status());
  }
  auto session = ctx.services().new_session_token(game, owner->player);
  if (!session.ok()) return status_page(session.status());
  Response r = player_cookie(ctx, game, *session, game_path(game) + "/me");
  r.headers.emplace_back("Referrer-Policy", "no-referrer");
  return r;
}

// Signing out ends every sign-in session of the player (this browser's and any other); a link
// token in the cookie is only forgotten by the browser (rotating it is the player's link form).
Response logout_post(WebContext& ctx, const Request& req, const std::string& game) {
  if (!csrf_ok(req, req.form(), ctx.config().base_url)) return csrf_failed();
  if (auto owner = route::cookie_owner(req, ctx); owner && owner->first == game) {
    const Status ended = ctx.services().end_sessions(owner->first, owner->second);
    if (!ended.ok()) return status_page(ended);
  }
  Response r = redirect(game_path(game));
  r.headers.emplace_back("Set-Cookie",
                         cookie_header(kPlayerCookie, "", game_path(game), secure(ctx), 0));
  return r;
}

// An order file skeleton for the textarea's placeholder.
std::string order_skeleton(const Json& st, const std::string& player) {
  int actions = 8;
  if (st.contains("rules") && st["rules"].is_object())
    actions = st["rules"].value("actions_per_turn", actions);
  std::string t = "GAME " + st.value("game", "") + "\nPLAYER " + player +
                  " <your secret: may be left out here>\nTURN " +
                  std::to_string(st.value("turn", 1)) + "\n";
  for (int i = 1; i <= std::clamp(actions, 1, 32); ++i) t += std::to_string(i) + ".\n";
  return t + "END\n";
}

Stores web_stores(WebContext& ctx) {
  Store& st = thread_store(ctx);
  return Stores{st, st, st, st, st, st};
}

// The newest audit entry's id (0 when none): forms that issue credentials carry it as `seen`,
// so a reloaded one is recognised (replayed_since).
std::int64_t latest_audit_id(WebContext& ctx, const std::string& game) {
  auto log = ctx.admin().audit_log(game);
  return log.ok() && !log->empty() ? log->back().id : 0;
}

// True when the form's `seen` (latest_audit_id when it was rendered) is older than an entry
// `action` about `player` (or by actor "player:<player>") with detail "what" == `what` (any
// when ""): the form was already sent once.
bool replayed_since(WebContext& ctx, const std::string& game, const std::string& seen_text,
                    const std::string& action, const std::string& player, const std::string& what) {
  if (seen_text.empty() || seen_text.size() > 18) return false;
  std::int64_t seen = 0;
  for (char c : seen_text) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    seen = seen * 10 + (c - '0');
  }
  auto log = ctx.admin().audit_log(game);
  if (!log.ok()) return false;
  for (const auto& e : *log)
    if (e.id > seen && e.action == action &&
        (e.actor == "player:" + player || e.detail.value("player", "") == player) &&
        (what.empty() || e.detail.value("what", "") == what))
      return true;
  return false;
}

// The form's `turn` checked against the open turn (turn_guard.h): nullopt when it may go on,
// else the 409 page (or 400 for a malformed field). A form without the field is not checked.
std::optional<Response> stale_form(WebContext& ctx, const std::map<std::string, std::string>& form,
                                   const std::string& game, const std::string& back) {
  auto sent = parse_turn_field(trim(field(form, "turn")));
  if (!sent.ok()) return error_page(400, sent.status().message());
  if (!*sent) return std::nullopt;
  Status err;
  auto g = find_game(ctx, game, &err);
  if (!g) return status_page(err);
  const Status s = stale_turn(**sent, g->turn);
  if (s.ok()) return std::nullopt;
  return page(render_page("Nothing was changed", "stale",
                          {{"message", s.message()}, {"back", back}}, Json::object()),
              409, true);
}

// The player's page. `result`: the answer to an order form just sent, shown above the form
// with the text kept in it (`kept_text`); null on a plain GET.
Response me_page(WebContext& ctx, const Request& req, const std::string& game,
                 Json result = nullptr, const std::string& kept_text = "", int status = 200) {
  auto who = require_player(req, ctx, game);
  if (auto* r = std::get_if<Response>(&who)) return *r;
  const PlayerSession& me = std::get<PlayerSession>(who);
  auto state = ctx.services().show_game(game);
  if (!state.ok()) return status_page(state.status());
  const Json& st = *state;
  const int turn = st.value("turn", 1);
  // Null when the engine cannot be built (a broken script): the builder then offers the
  // common actions only, and the GM sees the script's error where turns are run.
  Result<EngineHandle> found = ctx.services().engine_of(game);
  const EngineHandle engine = found.ok() ? std::move(found).value() : nullptr;
  std::string player_name;
  for (const auto& p : st["players"])
    if (p.value("code", "") == me.player) player_name = p.value("name", "");

  Json submission = nullptr;
  auto subs = ctx.admin().submission_status(game);
  if (subs.ok())
    for (const auto& s : *subs)
      if (s.player == me.player)
        submission = {{"has_orders", s.has_orders},
                      {"received", s.received_at ? Json(time_html(*s.received_at)) : Json()},
                      {"accepted", s.accepted},
                      {"rejected", s.rejected}};
  Json on_record = nullptr;
  std::string text = kept_text;
  auto file = orders_on_file(web_stores(ctx), game, me.player);
  if (file.ok() && file->file) {
    on_record = on_record_view(*file->file);
    if (result.is_null()) text = editable_text(file->file->raw_text);
  }
  Json reports = Json::array();
  for (int t = turn - 1; t >= 1; --t) reports.push_back({{"turn", t}});
  const CsrfToken csrf = csrf_token(req);
  std::string flash;
  if (auto it = req.query.find("done"); it != req.query.end()) {
    if (it->second == "secret") flash = "Your secret is changed. Use the new one from now on.";
    if (it->second == "address")
      flash = "Your address is changed; the old and the new address were told.";
    if (it->second == "orders" && on_record.is_object())
      flash = "Your orders for turn " + std::to_string(turn) + " are on file (" +
              std::to_string(on_record.value("accepted", 0)) + " lines accepted, " +
              std::to_string(on_record.value("rejected", 0)) +
              " rejected). Sending a new file replaces them.";
  }
  Json model = {{"game", game},
                {"flash", flash.empty() ? Json() : Json(flash)},
                {"game_name", st.value("name", game)},
                {"player", me.player},
                {"player_name", player_name},
                {"turn", turn},
                {"status", st.value("status", "")},
                {"deadline", deadline_text(ctx, game)},
                {"submission", std::move(submission)},
                {"template", order_skeleton(st, me.player)},
                {"order_data", script_json(order_builder_model(st, me.player, engine.get()))},
                {"orders_text", text},
                {"result", std::move(result)},
                {"on_record", std::move(on_record)},
                {"seen", latest_audit_id(ctx, game)},
                {"csrf", csrf.value},
                {"has_reports", !reports.empty()},
                {"reports", std::move(reports)}};
  model["attendance"] = attendance_me_view(ctx, req, game, me.player);
  model["membership_html"] = membership_me_section(ctx, game, me.player, csrf.value);
  return form_page(ctx, csrf,
                   render_page(player_name + " in " + st.value("name", game), "me", model,
                               nav(game, st.value("name", game), req, ctx, &me)),
                   status);
}

// The report page of `player` for `turn_text`; the caller has checked who may see it.
Response report_page(WebContext& ctx, const Request& req, const std::string& game,
                     const std::string& player, const std::string& turn_text,
                     const std::string& back, const PlayerSession* session) {
  const auto turn = positive_int(turn_text);
  if (!turn) return error_page(400, "The turn must be a positive whole number.");
  Status err;
  auto g = find_game(ctx, game, &err);
  if (!g) return status_page(err);
  auto rep = ctx.services().report(game, player, *turn);
  if (!rep.ok()) return status_page(rep.status());
  Json model = report_view(rep->json);
  model["text"] = rep->text;
  model["back"] = back;
  const std::string base = back == game_path(game) + "/me"
                               ? back + "/reports/"
                               : game_path(game) + "/players/" + player + "/reports/";
  if (*turn > 1) {
    model["prev"] = base + std::to_string(*turn - 1);
    model["prev_turn"] = *turn - 1;
  }
  if (*turn + 1 < g->turn) {
    model["next"] = base + std::to_string(*turn + 1);
    model["next_turn_link"] = *turn + 1;
  }
  // The map after the turn with the report's moves and battles; no map when that state is gone.
  if (auto after = thread_store(ctx).load_state(game, *turn + 1); after.ok()) {
    render::MapModel map =
        render::map_model_from_state(public_state(to_json(*after), g->status == "finished"));
    map.arrows = arrows_from_report(rep->json);
    model["map"] = map_block(map, map_zoom(req.query), base + std::to_string(*turn));
  }
  return page(render_page("Report, turn " + std::to_string(*turn), "report", model,
                          nav(game, g->name, req, ctx, session)),
              200, true);
}

// The signed-in player changes their secret (the current one is asked again; every other sign-in
// session of the player ends, this one stays) or replaces their sign-in link (every link and
// session revoked; the new link is shown once and this browser gets a new session).
Response me_credentials_post(WebContext& ctx, const Request& req, const std::string& game,
                             bool rotate) {
  auto who = require_player(req, ctx, game);
  if (auto* r = std::get_if<Response>(&who)) return *r;
  const PlayerSession& me = std::get<PlayerSession>(who);
  const auto form = req.form();
  if (!csrf_ok(req, form, ctx.config().base_url)) return csrf_failed();
  if (auto stale = stale_form(ctx, form, game, game_path(game) + "/me")) return *stale;
  if (rotate) {
    if (replayed_since(ctx, game, field(form, "seen"), "secret", me.player, "token"))
      return error_page(409,
                        "You already replaced your sign-in link after this page was shown; "
                        "nothing was changed. Use the newest link, or open your page and ask "
                        "again.");
    auto token = ctx.admin().player_update(game, me.player, "token", "");
    if (!token.ok()) return status_page(token.status());
    auto session = ctx.services().new_session_token(game, me.player);
    if (!session.ok()) return status_page(session.status());
    Json model = {{"game", game},
                  {"player", me.player},
                  {"url", ctx.config().base_url + game_path(game) + "/p/" + *token}};
    Response r =
        page(render_page("Your new sign-in link", "me_link", model, nav(game, game, req, ctx, &me)),
             200, true);
    r.headers.emplace_back("Cache-Control", "no-store");
    r.headers.emplace_back("Set-Cookie", session_cookie(ctx, game, *session));
    return r;
  }
  auto ok = ctx.admin().check_secret(game, me.player, field(form, "current"));
  if (!ok.ok()) return status_page(ok.status());
  if (!*ok) return error_page(403, "Your current secret is not right; nothing was changed.");
  if (field(form, "secret") != field(form, "repeat"))
    return error_page(400, "The two new secrets differ; nothing was changed.");
  auto changed = ctx.admin().player_update(game, me.player, "secret", field(form, "secret"),
                                           route::cookie_token(req));
  if (!changed.ok()) return status_page(changed.status());
  return redirect(game_path(game) + "/me?done=secret");
}

Response my_report(WebContext& ctx, const Request& req, const std::string& game,
                   const std::string& turn) {
  auto who = require_player(req, ctx, game);
  if (auto* r = std::get_if<Response>(&who)) return *r;
  const PlayerSession& me = std::get<PlayerSession>(who);
  return report_page(ctx, req, game, me.player, turn, game_path(game) + "/me", &me);
}

// /games/{game}/players/{player}/reports/{turn}: that player (signed in) or the GM; 403 for
// anyone else, signed in or not.
Response player_report(WebContext& ctx, const Request& req, const std::string& game,
                       const std::string& player_arg, const std::string& turn) {
  const std::string player = upper(player_arg);
  const bool gm = is_gm_limited(ctx, req, "web_gm");
  const auto s = player_session(req, ctx);
  if (!gm && (!s || s->game != game || s->player != player))
    return error_page(403, "A player may read only their own reports.");
  return report_page(ctx, req, game, player, turn,
                     gm ? "/gm/games/" + http::url_encode(game) : game_path(game) + "/me",
                     s ? &*s : nullptr);
}

// The order form: a file accepted as orders (some lines may be rejected) redirects to the
// player's page, which shows it on record with every rejected line marked (PRG). A check, a
// refused file or an error shows the player's page again with the text kept in the form and
// each line marked. A form made for another turn changes nothing (turn_guard.h).
Response orders_post(WebContext& ctx, const Request& req, const std::string& game) {
  auto who = require_player(req, ctx, game);
  if (auto* r = std::get_if<Response>(&who)) return *r;
  const PlayerSession& me = std::get<PlayerSession>(who);
  const auto form = req.form();
  if (!csrf_ok(req, form, ctx.config().base_url)) return csrf_failed();
  const bool check_only = field(form, "action") == "check";
  std::string text = field(form, "file");
  if (trim(text).empty()) text = field(form, "orders");
  if (!check_only)
    if (auto stale = stale_form(ctx, form, game, game_path(game) + "/me")) return *stale;
  auto answer = [&](Json result, int status) {
    if (!result.contains("lines")) result["has_lines"] = false;
    // The text is kept without its PLAYER lines: the secret is never sent back.
    return me_page(ctx, req, game, std::move(result),
                   text.size() > kMaxOrderBytes ? std::string() : editable_text(text), status);
  };
  if (text.size() > kMaxOrderBytes)
    return answer({{"error", "The order file is too long (at most 64 KB). Nothing was stored."}},
                  413);
  if (trim(text).empty())
    return answer({{"error", "Paste your orders or choose a file; nothing was sent."}}, 400);

  // As the API does for a link-token holder: the signed-in player may leave out the header
  // lines; they are put before the text and line numbers are given back as the player sent them.
  const ParsedOrderFile parsed = parse_order_file(text);
  if (parsed.player && upper(*parsed.player) != me.player)
    return answer({{"error", "This order file is for player " + upper(*parsed.player) +
                                 ", but you are signed in as " + me.player +
                                 ". Nothing was stored: correct the PLAYER line or leave it out."}},
                  403);
  // Guessing limit when the file's PLAYER line carries a secret (auth_guard.h).
  const ThrottleKeys keys = guard_keys(req, throttle_key_player(game, me.player));
  if (parsed.player)
    if (auto r = guard_check(ctx, keys, "web_orders", false)) return *r;
  // The session vouches for the player (no secret needed); a file's own PLAYER line is checked.
  auto out = ctx.services().submit_as(game, parsed.player ? "" : me.player, std::nullopt, text,
                                      kChannel, check_only);
  if (!out.ok()) {
    if (http::http_status(out.status()) == 500) return status_page(out.status());
    return answer({{"error", out.status().message() + " Nothing was stored."}},
                  http::http_status(out.status()));
  }
  OrderAck& ack = out->ack;
  if (parsed.player && secret_check_of(ack) == SecretVerdict::kWrong)
    guard_record(ctx, keys, "web_orders", false, "wrong_secret", game, me.player);
  else if (parsed.player && secret_check_of(ack) == SecretVerdict::kRight)
    guard_record(ctx, keys, "web_orders", true, "");
  if (!check_only) ctx.metrics().submission(kChannel, !ack.refused);
  if (!check_only && !ack.refused && out->submission_id)
    return redirect(game_path(game) + "/me?done=orders&turn=" + std::to_string(ack.turn));
  std::string message;
  if (check_only)
    message = ack.refused
                  ? "Checked only: nothing was stored. This file would be refused: " + ack.refusal
                  : "Checked only: nothing was stored. Submit it to put it on record.";
  else
    message = "Your file was refused: " + ack.refusal +
              " Nothing from it is used as orders; any orders you had on file still stand.";
  Json result = {{"message", message},
                 {"note", out->note.empty() ? Json() : Json(out->note)},
                 {"has_lines", !ack.lines.empty()},
                 {"accepted", ack.accepted_count()},
                 {"rejected", ack.rejected_count()},
                 {"lines", marked_lines(mask_player_secret(text), ack)}};
  return answer(std::move(result), ack.refused && !check_only ? 422 : 200);
}

// ---- GM pages ----

// Null when the request is the GM's; otherwise the answer: GM pages disabled (403), or for a GET
// a redirect to the GM sign-in page, for a POST 403.
std::optional<Response> gm_denied(const Request& req, WebContext& ctx) {
  if (ctx.config().gm_token.empty())
    return error_page(403, "GM pages are disabled: the server has no GM token.");
  // Guessing limit on the GM token presented as a cookie or bearer token (auth_guard.h).
  bool gm = false;
  if (auto r = route::check_gm(req, ctx, "web_gm", false, gm)) return r;
  if (gm) return std::nullopt;
  if (req.method == "GET") return redirect("/gm/login");
  return error_page(403, "This needs the GM's sign-in.");
}

Response gm_login_form(WebContext& ctx, const Request& req, const std::string& error, int status) {
  const CsrfToken csrf = csrf_token(req);
  Json model = {{"csrf", csrf.value},
                {"disabled", ctx.config().gm_token.empty()},
                {"error", error.empty() ? Json() : Json(error)}};
  return form_page(ctx, csrf, render_page("GM sign-in", "gm_login", model, nav("", "", req, ctx)),
                   status);
}

Response gm_login_post(WebContext& ctx, const Request& req) {
  const auto form = req.form();
  if (!csrf_ok(req, form, ctx.config().base_url)) return csrf_failed();
  const std::string& real = ctx.config().gm_token;
  if (real.empty()) return gm_login_form(ctx, req, "", 403);
  // Guessing limit on the GM token (auth_guard.h).
  const ThrottleKeys keys = guard_keys(req, kThrottleKeyGm);
  if (auto r = guard_check(ctx, keys, "web_gm_signin", false))
    return locked_form(gm_login_form(ctx, req, locked_message(*r), 429), *r);
  if (!constant_time_equal(field(form, "token"), real)) {
    guard_record(ctx, keys, "web_gm_signin", false, "wrong_token");
    spdlog::info("event=gm_sign_in_failed remote=\"{}\"", log_escape(req.remote));
    return gm_login_form(ctx, req, "Wrong GM token.", 403);
  }
  guard_record(ctx, keys, "web_gm_signin", true, "");
  // is_gm compares the cookie's raw value with the token: it must be a valid cookie value.
  for (char c : real)
    if (c <= ' ' || c == '"' || c == ',' || c == ';' || c == '\\' || c > '~')
      return gm_login_form(ctx, req,
                           "This GM token has characters a cookie cannot hold; use the API "
                           "(Authorization: Bearer) or choose a token of letters and digits.",
                           400);
  Response r = redirect("/gm");
  r.headers.emplace_back("Set-Cookie", cookie_header(kGmCookie, real, "/", secure(ctx)));
  return r;
}

Response gm_logout_post(WebContext& ctx, const Request& req) {
  if (!csrf_ok(req, req.form(), ctx.config().base_url)) return csrf_failed();
  Response r = redirect("/");
  r.headers.emplace_back("Set-Cookie", cookie_header(kGmCookie, "", "/", secure(ctx), 0));
  return r;
}

// Messages for the ?done= codes the GM forms redirect with (fixed texts: nothing from the query
// is shown).
std::string done_message(const Request& req) {
  auto it = req.query.find("done");
  if (it == req.query.end()) return "";
  static const std::map<std::string, std::string> kMessages = {
      {"created", "Game created."},
      {"rolled-back", "Rolled back: the turn is open again."},
      {"engine-script", "Engine script stored: the next turn run uses it."},
      {"deadline", "Deadline set."},
      {"extended", "Deadline extended."},
      {"schedule", "Schedule saved."},
      {"paused", "Game paused."},
      {"resumed", "Game resumed."},
      {"signups-open", "The game is open for sign-ups."},
      {"approved", "Sign-up approved."},
      {"invited", "Invitation queued for mailing."},
      {"address", "Address changed; the old and the new address were told."}};
  auto m = kMessages.find(it->second);
  if (m != kMessages.end()) return m->second;
  if (it->second == "started")
    return "Kingdoms assigned and the game started; each player's secret " + mailed_words() + ".";
  if (it->second == "replaced")
    return "Player replaced; the new player's secret " + mailed_words() + ".";
  // Codes that name a turn (a number from the query, checked).
  auto t = req.query.find("turn");
  const auto turn = t == req.query.end() ? std::nullopt : positive_int(t->second);
  const std::string n = turn ? std::to_string(*turn) : std::string("?");
  if (it->second == "ran")
    return "Resolved turn " + n + ": the reports are on their way to the players, and turn " +
           (turn ? std::to_string(*turn + 1) : std::string("?")) + " is open.";
  if (it->second == "orders")
    return "Orders entered for turn " + n + "; the player is told by mail.";
  return "";
}

// The bundled scenarios for the create form's select, `chosen` selected.
Json bundled_options(const std::string& chosen) {
  Json out = Json::array();
  for (const auto& name : bundled_scenarios())
    out.push_back({{"name", name}, {"selected", name == chosen}});
  return out;
}

Response gm_index(WebContext& ctx, const Request& req, const std::string& error = "",
                  int status = 200, const Json& kept = Json::object()) {
  if (auto denied = gm_denied(req, ctx)) return *denied;
  auto games = ctx.services().list_games();
  if (!games.ok()) return status_page(games.status());
  Json rows = game_rows(ctx, *games);
  const CsrfToken csrf = csrf_token(req);
  const std::string flash = done_message(req);
  Json model = {{"csrf", csrf.value},
                {"has_games", !rows.empty()},
                {"games", std::move(rows)},
                {"bundled", bundled_options(kept.value("bundled", ""))},
                {"kept", kept},
                {"flash", flash.empty() ? Json() : Json(flash)},
                {"error", error.empty() ? Json() : Json(error)}};
  return form_page(ctx, csrf, render_page("GM desk", "gm_index", model, nav("", "", req, ctx)),
                   status);
}

// New credentials, shown to the GM this once (only their hashes are stored). Each row: code,
// and secret and/or url.
Response credentials_page(WebContext& ctx, const Request& req, const std::string& game,
                          const std::string& name, Json rows) {
  Json model = {{"id", game}, {"name", name}, {"players", std::move(rows)}};
  Response r = page(
      render_page("New credentials: " + name, "gm_credentials", model, nav(game, name, req, ctx)),
      200, true);
  r.headers.emplace_back("Cache-Control", "no-store");
  return r;
}

// Game ids as the create form and the API accept them (create_game.request.schema.json).
bool valid_game_id(const std::string& id) {
  if (id.empty() || id.size() > 64 || !std::isalnum(static_cast<unsigned char>(id[0])))
    return false;
  for (char c : id)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '-')
      return false;
  return true;
}

Response gm_create(WebContext& ctx, const Request& req) {
  if (auto denied = gm_denied(req, ctx)) return *denied;
  const auto form = req.form();
  if (!csrf_ok(req, form, ctx.config().base_url)) return csrf_failed();
  Json scenario;
  const std::string bundled = trim(field(form, "bundled"));
  const std::string id = trim(field(form, "id"));
  const std::string name = trim(field(form, "name"));
  std::string text = field(form, "file");
  if (trim(text).empty()) text = field(form, "scenario");
  // Shown again in the form when the game is not created.
  const Json kept = {{"bundled", bundled},
                     {"id", id},
                     {"name", name},
                     {"seed", trim(field(form, "seed"))},
                     {"signup", !field(form, "signup").empty()},
                     {"scenario", text.size() <= kMaxOrderBytes ? text : std::string()}};
  auto again = [&](const std::string& error, int status) {
    return gm_index(ctx, req, error, status, kept);
  };
  if (!bundled.empty()) {
    auto b = bundled_scenario(bundled);
    if (!b.ok())
      return again("There is no bundled scenario " + bundled + "; choose one from the list.", 404);
    scenario = std::move(b).value();
  } else {
    if (trim(text).empty())
      return again("Choose a bundled scenario, paste one or upload one.", 400);
    scenario = Json::parse(text, nullptr, false);
    if (scenario.is_discarded() || !scenario.is_object())
      return again("The scenario is not a JSON object; check it and send it again.", 400);
  }
  if (!id.empty()) {
    if (!valid_game_id(id))
      return again(
          "The game id may have letters, digits and . _ - (at most 64, starting with a "
          "letter or digit), not '" +
              id.substr(0, 70) + "'.",
          400);
    scenario["id"] = id;
  }
  if (!name.empty()) {
    if (name.size() > 200) return again("The game name may be at most 200 characters.", 400);
    scenario["name"] = name;
  }
  Seed seed = new_game_seed();
  const std::string seed_text = trim(field(form, "seed"));
  if (!seed_text.empty()) {
    try {
      std::size_t used = 0;
      seed = std::stoull(seed_text, &used);
      if (used != seed_text.size()) throw std::invalid_argument("seed");
    } catch (const std::exception&) {
      return again("The seed must be a whole number.", 400);
    }
    scenario["seed"] = std::to_string(seed);  // the GM's seed wins over a pasted document's
  }
  // A bundled scenario's secrets are public (docs/scenarios.md): its players get fresh ones, shown once.
  std::map<std::string, std::string> issued;
  const bool fresh = !bundled.empty() && field(form, "demo_secrets").empty();
  auto g = ctx.admin().create_game(scenario, seed, kGmActor, fresh, &issued);
  if (!g.ok()) {
    const int code = is_script_check_busy(g.status()) ? 429 : http::http_status(g.status());
    if (code == 500) return status_page(g.status());
    return again("The game was not created: " + g.status().message(), code);
  }
  if (!field(form, "signup").empty()) {  // open for sign-ups: secrets are issued at the start
    if (Status s = open_signups_after_create(ctx, g->id); !s.ok()) return status_page(s);
    return redirect("/gm/games/" + http::url_encode(g->id) + "?done=signups-open");
  }
  // The credentials page is the POST's answer (its secrets exist only now); sending the form
  // again is refused, as the game id is taken by then.
  if (!issued.empty()) {
    Json rows = Json::array();
    for (const auto& [code, secret] : issued) rows.push_back({{"code", code}, {"secret", secret}});
    ctx.secrets_issued(g->id, issued);  // mailed to the players that have an address
    return credentials_page(ctx, req, g->id, g->name, std::move(rows));
  }
  return redirect("/gm/games/" + http::url_encode(g->id) + "?done=created");
}

std::string schedule_text(const Schedule& s) {
  if (s.kind == "fixed") return "fixed: the turn runs at its deadline";
  if (s.kind == "interval") {
    std::string t = "every " + std::to_string(s.interval_seconds / 3600) + " hours";
    if (s.time_of_day) {
      char b[48];
      std::snprintf(b, sizeof b, " at %02d:%02d UTC", *s.time_of_day / 3600,
                    *s.time_of_day / 60 % 60);
      t += b;
    }
    return t + (s.early_when_all_in ? ", or as soon as every player has orders in" : "");
  }
  return "none: turns run only by hand";
}

Response gm_game(WebContext& ctx, const Request& req, const std::string& game) {
  if (auto denied = gm_denied(req, ctx)) return *denied;
  auto state = ctx.services().show_game(game);
  if (!state.ok()) return status_page(state.status());
  const Json& st = *state;
  const int turn = st.value("turn", 1);
  auto sched = ctx.admin().schedule(game);
  if (!sched.ok()) return status_page(sched.status());
  auto subs = ctx.admin().submission_status(game);
  if (!subs.ok()) return status_page(subs.status());

  std::map<std::string, std::string> addresses;
  for (const auto& p : st["players"]) addresses[p.value("code", "")] = p.value("email", "");
  Json submissions = Json::array();
  int submitted = 0;
  for (const auto& s : *subs) {
    submitted += s.has_orders ? 1 : 0;
    const std::string address = addresses[s.player];
    submissions.push_back({{"player", s.player},
                           {"name", s.name},
                           {"email", address.empty() ? "(none on file)" : address},
                           {"has_orders", s.has_orders},
                           {"received", s.received_at ? time_html(*s.received_at) : "-"},
                           {"accepted", s.accepted},
                           {"rejected", s.rejected},
                           {"orders_url", "/gm/games/" + http::url_encode(game) + "/players/" +
                                              s.player + "/orders"}});
  }
  Json recent = Json::array();
  if (auto log = ctx.admin().audit_log(game); log.ok())
    for (auto it = log->rbegin(); it != log->rend() && recent.size() < 10; ++it)
      recent.push_back(audit_row(*it));
  Json links = Json::array();
  for (const auto& p : st["players"]) {
    const std::string code = p.value("code", "");
    Json row = {{"code", code}, {"name", p.value("name", "")}};
    if (turn > 1) {
      row["report_url"] =
          game_path(game) + "/players/" + code + "/reports/" + std::to_string(turn - 1);
      row["last_turn"] = turn - 1;
    }
    links.push_back(std::move(row));
  }
  Json rollback_turns = Json::array();
  for (int t = turn - 1; t >= 1; --t) rollback_turns.push_back(t);
  const Schedule& s = *sched;
  std::string tod;
  if (s.time_of_day) {
    char b[48];
    std::snprintf(b, sizeof b, "%02d:%02d", *s.time_of_day / 3600, *s.time_of_day / 60 % 60);
    tod = b;
  }
  const CsrfToken csrf = csrf_token(req);
  const std::string flash = done_message(req);
  const std::string status = st.value("status", "");
  Json model = {{"id", game},
                {"name", st.value("name", game)},
                {"turn", turn},
                {"status", status},
                {"paused", status == "paused" || status == "held"},
                {"deadline", s.deadline ? time_html(*s.deadline) : "none set"},
                {"deadline_date", s.deadline ? format_utc(*s.deadline, "%Y-%m-%d") : ""},
                {"deadline_time", s.deadline ? format_utc(*s.deadline, "%H:%M") : ""},
                {"recent_audit", std::move(recent)},
                {"seen", latest_audit_id(ctx, game)},
                {"schedule_text", schedule_text(s)},
                {"schedule",
                 {{"is_none", s.kind != "fixed" && s.kind != "interval"},
                  {"is_fixed", s.kind == "fixed"},
                  {"is_interval", s.kind == "interval"},
                  {"interval_hours", s.interval_seconds > 0 ? s.interval_seconds / 3600 : 48},
                  {"time_of_day", tod},
                  {"early_when_all_in", s.early_when_all_in},
                  {"max_attempts", s.max_attempts}}},
                {"submissions", std::move(submissions)},
                {"submitted", submitted},
                {"players", subs->size()},
                {"can_rollback", turn > 1},
                {"last_turn", turn - 1},
                {"rollback_turns", std::move(rollback_turns)},
                {"links", std::move(links)},
                {"csrf", csrf.value},
                {"flash", flash.empty() ? Json() : Json(flash)}};
  model["attendance"] = attendance_gm_view(ctx, req, game);
  model["membership_html"] = membership_gm_section(ctx, game, csrf.value);
  if (st.contains("engine") && st["engine"].value("name", "") == kScriptEngineName) {
    Json versions = Json::array();
    if (auto v = ctx.services().engine_scripts(game); v.ok())
      for (auto it = v->rbegin(); it != v->rend(); ++it)
        versions.push_back({{"version", it->version},
                            {"sha256", it->sha256.substr(0, 16)},
                            {"at", time_html(it->created_at)},
                            {"by", it->created_by},
                            {"from_turn", it->from_turn}});
    model["script_engine"] = {{"versions", std::move(versions)},
                              {"max_bytes", host_script_limits().source_bytes}};
  }
  return form_page(ctx, csrf,
                   render_page("GM: " + st.value("name", game), "gm_game", model,
                               nav(game, st.value("name", game), req, ctx)));
}

// The GM's POST forms on one game: checks, then `act`; its Status becomes a redirect to the GM
// page with `done` or an error page.
Response gm_action(WebContext& ctx, const Request& req, const std::string& game,
                   const std::string& done,
                   const std::function<Status(const std::map<std::string, std::string>&)>& act) {
  if (auto denied = gm_denied(req, ctx)) return *denied;
  const auto form = req.form();
  if (!csrf_ok(req, form, ctx.config().base_url)) return csrf_failed();
  // (A rollback form from before `to` existed sends the turn to reopen as `turn`.)
  const bool legacy_rollback = done == "rolled-back" && field(form, "to").empty();
  if (!legacy_rollback)
    if (auto stale = stale_form(ctx, form, game, "/gm/games/" + http::url_encode(game)))
      return *stale;
  const Status s = act(form);
  if (is_script_check_busy(s)) {
    Response r = status_page(s);
    r.status = 429;
    r.headers.emplace_back("Retry-After", std::to_string(kScriptCheckRetrySeconds));
    return r;
  }
  if (!s.ok()) return status_page(s);
  return redirect("/gm/games/" + http::url_encode(game) + "?done=" + done);
}

// A turn's result page: the outcome of a preview, or (outcome null) a resolved turn's stored
// reports.
Response gm_turn_page(WebContext& ctx, const Request& req, const std::string& game, int turn,
                      const TurnRunOutcome* out, double seconds) {
  Status err;
  auto g = find_game(ctx, game, &err);
  if (!g) return status_page(err);
  Json reports = Json::array();
  if (out) {
    for (const auto& r : out->reports)
      reports.push_back({{"player", r.player}, {"text", out->full_text(r)}});
  } else {
    auto st = ctx.services().show_game(game);
    if (!st.ok()) return status_page(st.status());
    for (const auto& p : (*st)["players"]) {
      auto rep = ctx.services().report(game, p.value("code", ""), turn);
      if (rep.ok()) reports.push_back({{"player", rep->player}, {"text", rep->text}});
    }
    if (reports.empty())
      return error_page(404, "Turn " + std::to_string(turn) +
                                 " has not been resolved yet, so it has no reports.");
  }
  char ms[32];
  std::snprintf(ms, sizeof ms, "%.1f", seconds * 1000);
  Json model = {{"id", game},
                {"name", g->name},
                {"preview", out != nullptr},
                {"turn", turn},
                {"reports", std::move(reports)}};
  if (out) {
    model["facts"] = {{"digest", out->digest},
                      {"actions", out->result.actions.size()},
                      {"battles", out->result.battles.size()},
                      {"no_orders", out->players_without_orders},
                      {"ms", ms}};
  }
  return page(render_page((out ? "Preview of turn " : "Turn ") + std::to_string(turn), "gm_turn",
                          model, nav(game, g->name, req, ctx)),
              200, true);
}

// GET /gm/games/{game}/preview?turn=N: the preview of the open turn N (nothing stored but the
// audit entry; a stale N answers 409). The preview form redirects here.
Response gm_preview(WebContext& ctx, const Request& req, const std::string& game) {
  if (auto denied = gm_denied(req, ctx)) return *denied;
  auto t = req.query.find("turn");
  auto sent = parse_turn_field(t == req.query.end() ? "" : t->second);
  if (!sent.ok()) return error_page(400, sent.status().message());
  const auto started = std::chrono::steady_clock::now();
  auto out = ctx.admin().run_turn(game, true, kGmActor, *sent);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (!out.ok()) {
    if (out.status().code() == StatusCode::kFailedPrecondition && *sent)
      return page(render_page("Nothing was changed", "stale",
                              {{"message", out.status().message()},
                               {"back", "/gm/games/" + http::url_encode(game)}},
                              Json::object()),
                  409, true);
    return status_page(out.status());
  }
  return gm_turn_page(ctx, req, game, out->turn, &*out, seconds);
}

// POST run (and preview): PRG. The run redirects to the GM page with the result
// (?done=ran&turn=N) and is refused when the form was made for another turn; with players
// missing orders it first answers a confirmation page (confirm-run-form, confirm=1).
Response gm_turn(WebContext& ctx, const Request& req, const std::string& game, bool preview) {
  if (auto denied = gm_denied(req, ctx)) return *denied;
  const auto form = req.form();
  if (!csrf_ok(req, form, ctx.config().base_url)) return csrf_failed();
  const std::string back = "/gm/games/" + http::url_encode(game);
  auto sent = parse_turn_field(trim(field(form, "turn")));
  if (!sent.ok()) return error_page(400, sent.status().message());
  if (preview) {
    Status err;
    auto g = find_game(ctx, game, &err);
    if (!g) return status_page(err);
    return redirect(back + "/preview?turn=" + std::to_string(sent->value_or(g->turn)));
  }
  if (auto stale = stale_form(ctx, form, game, back)) return *stale;
  if (field(form, "confirm") != "1") {
    auto subs = ctx.admin().submission_status(game);
    if (!subs.ok()) return status_page(subs.status());
    auto st = ctx.services().show_game(game);
    if (!st.ok()) return status_page(st.status());
    Json missing = Json::array();
    for (const auto& s : *subs)
      if (!s.has_orders) {
        std::string email;
        for (const auto& p : (*st)["players"])
          if (p.value("code", "") == s.player) email = p.value("email", "");
        missing.push_back({{"player", s.player},
                           {"name", s.name},
                           {"email", email.empty() ? "(none on file)" : email}});
      }
    if (!missing.empty()) {
      const CsrfToken csrf = csrf_token(req);
      const int turn = st->value("turn", 1);
      Json model = {{"id", game},
                    {"name", st->value("name", game)},
                    {"turn", turn},
                    {"players", subs->size()},
                    {"missing_count", missing.size()},
                    {"missing", std::move(missing)},
                    {"csrf", csrf.value}};
      return form_page(ctx, csrf,
                       render_page("Run turn " + std::to_string(turn) + "?", "gm_confirm_run",
                                   model, nav(game, st->value("name", game), req, ctx)));
    }
  }
  const auto started = std::chrono::steady_clock::now();
  auto out = ctx.admin().run_turn(game, false, kGmActor, *sent);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  ctx.metrics().turn_run(seconds, out.ok());
  if (!out.ok()) {
    if (out.status().code() == StatusCode::kFailedPrecondition && *sent)
      if (auto stale = stale_form(ctx, form, game, back)) return *stale;
    return status_page(out.status());
  }
  ctx.turn_ran(game, out->turn);
  return redirect(back + "?done=ran&turn=" + std::to_string(out->turn));
}

// /gm/games/{game}/players/{player}/orders: the player's file on record for the open turn with
// its answer, and the form to enter or replace their orders (gm_orders.h). `result`: the answer
// to that form when it was not accepted (shown with the text kept), else null.
Response gm_orders_page(WebContext& ctx, const Request& req, const std::string& game,
                        const std::string& player_arg, Json result = nullptr,
                        const std::string& kept = "", int status = 200) {
  if (auto denied = gm_denied(req, ctx)) return *denied;
  auto file = orders_on_file(web_stores(ctx), game, player_arg);
  if (!file.ok()) return status_page(file.status());
  auto st = ctx.services().show_game(game);
  if (!st.ok()) return status_page(st.status());
  std::string name, email;
  for (const auto& p : (*st)["players"])
    if (p.value("code", "") == file->player) {
      name = p.value("name", "");
      email = p.value("email", "");
    }
  const CsrfToken csrf = csrf_token(req);
  std::string flash;
  if (auto it = req.query.find("done"); it != req.query.end() && it->second == "orders")
    flash = "Orders entered for " + file->player + " for turn " + std::to_string(file->turn) +
            "; the player is told by mail.";
  Json model = {{"id", game},
                {"name", st->value("name", game)},
                {"player", file->player},
                {"player_name", name},
                {"email", email.empty() ? "(none on file)" : email},
                {"turn", file->turn},
                {"on_record", file->file ? on_record_view(*file->file) : Json()},
                {"orders_text", !result.is_null() ? kept
                                : file->file      ? editable_text(file->file->raw_text)
                                                  : std::string()},
                {"result", std::move(result)},
                {"flash", flash.empty() ? Json() : Json(flash)},
                {"csrf", csrf.value}};
  return form_page(ctx, csrf,
                   render_page("Orders of " + file->player + ": " + st->value("name", game),
                               "gm_orders", model, nav(game, st->value("name", game), req, ctx)),
                   status);
}

Response gm_orders_post(WebContext& ctx, const Request& req, const std::string& game,
                        const std::string& player_arg) {
  if (auto denied = gm_denied(req, ctx)) return *denied;
  const auto form = req.form();
  if (!csrf_ok(req, form, ctx.config().base_url)) return csrf_failed();
  const std::string player = upper(player_arg);
  const std::string back =
      "/gm/games/" + http::url_encode(game) + "/players/" + http::url_encode(player) + "/orders";
  if (auto stale = stale_form(ctx, form, game, back)) return *stale;
  const std::string text = field(form, "orders");
  auto again = [&](Json result, int status) {
    return gm_orders_page(ctx, req, game, player, std::move(result),
                          text.size() > kMaxOrderBytes ? std::string() : text, status);
  };
  if (text.size() > kMaxOrderBytes)
    return again({{"error", "The order file is too long (at most 64 KB). Nothing was stored."}},
                 413);
  if (trim(text).empty())
    return again({{"error", "Write the orders to enter; nothing was stored."}}, 400);
  auto out = enter_orders_for_player(ctx.services(), web_stores(ctx), thread_store(ctx),
                                     ctx.clock()(), game, player, text, kGmActor, std::nullopt);
  if (!out.ok()) {
    if (http::http_status(out.status()) == 500) return status_page(out.status());
    return again({{"error", out.status().message()}}, http::http_status(out.status()));
  }
  if (!out->ack.refused) return redirect(back + "?done=orders");
  return again({{"error", "The file was refused: " + out->ack.refusal + " Nothing was entered."},
                {"lines", marked_lines(text, out->ack)},
                {"has_lines", !out->ack.lines.empty()}},
               422);
}

// "HH:MM" -> seconds after midnight.
std::optional<int> time_of_day(const std::string& s) {
  int h = 0, m = 0;
  char extra = 0;
  if (std::sscanf(s.c_str(), "%d:%d%c", &h, &m, &extra) != 2) return std::nullopt;
  if (h < 0 || h > 23 || m < 0 || m > 59) return std::nullopt;
  return h * 3600 + m * 60;
}

void add_gm_routes(http::Router& router, WebContext& ctx) {
  router.add("GET", "/gm/login", guarded([&ctx](const Request& req, const Params&) {
               return gm_login_form(ctx, req, "", 200);
             }),
             "html_gm_login");
  router.add("POST", "/gm/login",
             guarded([&ctx](const Request& req, const Params&) { return gm_login_post(ctx, req); }),
             "html_gm_login_post");
  router.add("POST", "/gm/logout", guarded([&ctx](const Request& req, const Params&) {
               return gm_logout_post(ctx, req);
             }),
             "html_gm_logout");
  router.add("GET", "/gm",
             guarded([&ctx](const Request& req, const Params&) { return gm_index(ctx, req); }),
             "html_gm");
  router.add("POST", "/gm/games",
             guarded([&ctx](const Request& req, const Params&) { return gm_create(ctx, req); }),
             "html_gm_create");
  router.add("GET", "/gm/games/{game}", guarded([&ctx](const Request& req, const Params& p) {
               return gm_game(ctx, req, param(p, "game"));
             }),
             "html_gm_game");
  router.add("POST", "/gm/games/{game}/preview",
             guarded([&ctx](const Request& req, const Params& p) {
               return gm_turn(ctx, req, param(p, "game"), true);
             }),
             "html_gm_preview");
  router.add("GET", "/gm/games/{game}/preview",
             guarded([&ctx](const Request& req, const Params& p) {
               return gm_preview(ctx, req, param(p, "game"));
             }),
             "html_gm_preview_page");
  router.add("GET", "/gm/games/{game}/turns/{turn}",
             guarded([&ctx](const Request& req, const Params& p) {
               if (auto denied = gm_denied(req, ctx)) return *denied;
               const auto turn = positive_int(param(p, "turn"));
               if (!turn) return error_page(400, "The turn must be a positive whole number.");
               return gm_turn_page(ctx, req, param(p, "game"), *turn, nullptr, 0);
             }),
             "html_gm_turn_page");
  router.add("POST", "/gm/games/{game}/run", guarded([&ctx](const Request& req, const Params& p) {
               return gm_turn(ctx, req, param(p, "game"), false);
             }),
             "html_gm_run");
  router.add("POST", "/gm/games/{game}/rollback",
             guarded([&ctx](const Request& req, const Params& p) {
               const std::string game = param(p, "game");
               return gm_action(ctx, req, game, "rolled-back", [&](const auto& form) {
                 // `to`: the turn to reopen (the form's `turn` is the open turn it was made
                 // for); older clients send only `turn`, the turn to reopen.
                 const std::string to = field(form, "to");
                 const auto turn = positive_int(to.empty() ? field(form, "turn") : to);
                 if (!turn)
                   return Status::InvalidArgument("the turn must be a positive whole number");
                 return ctx.admin().rollback(game, *turn, kGmActor);
               });
             }),
             "html_gm_rollback");
  router.add("POST", "/gm/games/{game}/engine-script",
             guarded([&ctx](const Request& req, const Params& p) {
               const std::string game = param(p, "game");
               return gm_action(ctx, req, game, "engine-script", [&](const auto& form) {
                 const std::string script = field(form, "script");
                 if (script.empty()) return Status::InvalidArgument("paste the Lua script first");
                 ADJ_RETURN_IF_ERROR(script_version_room(thread_store(ctx), game));
                 return ctx.admin().upload_engine_script(game, script, kGmActor).status();
               });
             }),
             "html_gm_engine_script");
  router.add("POST", "/gm/games/{game}/deadline",
             guarded([&ctx](const Request& req, const Params& p) {
               const std::string game = param(p, "game");
               return gm_action(ctx, req, game, "deadline", [&](const auto& form) {
                 // The form's date (YYYY-MM-DD) and 24-hour time (HH:MM), both UTC; or one
                 // `deadline` field as before.
                 const std::string date = trim(field(form, "deadline_date"));
                 const std::string time = trim(field(form, "deadline_time"));
                 const auto t = date.empty() && time.empty()
                                    ? parse_time(field(form, "deadline"))
                                    : parse_time(date + " " + (time.empty() ? "00:00" : time));
                 if (!t)
                   return Status::InvalidArgument(
                       "The deadline must be a date like 2026-11-30 and a 24-hour UTC time like "
                       "18:00; nothing was changed.");
                 return ctx.admin().set_deadline(game, *t, kGmActor);
               });
             }),
             "html_gm_deadline");
  router.add("POST", "/gm/games/{game}/extend",
             guarded([&ctx](const Request& req, const Params& p) {
               const std::string game = param(p, "game");
               return gm_action(ctx, req, game, "extended", [&](const auto& form) {
                 const auto hours = positive_int(field(form, "hours"), 24 * 366);
                 if (!hours) return Status::InvalidArgument("give the extension in whole hours");
                 return ctx.admin().extend_deadline(game, std::int64_t{*hours} * 3600, kGmActor);
               });
             }),
             "html_gm_extend");
  router.add(
      "POST", "/gm/games/{game}/schedule", guarded([&ctx](const Request& req, const Params& p) {
        const std::string game = param(p, "game");
        return gm_action(ctx, req, game, "schedule", [&](const auto& form) {
          auto current = ctx.admin().schedule(game);
          if (!current.ok()) return current.status();
          Schedule s = *current;  // keeps the deadline and the guard settings
          s.kind = field(form, "kind");
          if (s.kind != "none" && s.kind != "fixed" && s.kind != "interval")
            return Status::InvalidArgument("the schedule kind must be none, fixed or interval");
          if (s.kind == "interval") {
            const auto hours = positive_int(field(form, "interval_hours"), 24 * 366);
            if (!hours) return Status::InvalidArgument("give the interval in whole hours");
            s.interval_seconds = std::int64_t{*hours} * 3600;
          }
          const std::string tod = trim(field(form, "time_of_day"));
          s.time_of_day.reset();
          if (!tod.empty()) {
            s.time_of_day = time_of_day(tod);
            if (!s.time_of_day) return Status::InvalidArgument("the time of day must be HH:MM");
          }
          s.early_when_all_in = !field(form, "early_when_all_in").empty();
          if (!field(form, "max_attempts").empty()) {
            const auto n = positive_int(field(form, "max_attempts"), 20);
            if (!n) return Status::InvalidArgument("attempts must be between 1 and 20");
            s.max_attempts = *n;
          }
          return ctx.admin().set_schedule(game, s, kGmActor);
        });
      }),
      "html_gm_schedule");
  router.add("POST", "/gm/games/{game}/players/{player}/reset",
             guarded([&ctx](const Request& req, const Params& p) {
               const std::string game = param(p, "game"), player = upper(param(p, "player"));
               if (auto denied = gm_denied(req, ctx)) return *denied;
               const auto form = req.form();
               if (!csrf_ok(req, form, ctx.config().base_url)) return csrf_failed();
               const std::string what = field(form, "what");
               if (auto stale = stale_form(ctx, form, game, "/gm/games/" + http::url_encode(game)))
                 return *stale;
               if (replayed_since(ctx, game, field(form, "seen"), "reset", player, what))
                 return error_page(
                     409, "A new " + std::string(what == "token" ? "sign-in link" : "secret") +
                              " was already issued for " + player +
                              " after this page was shown; nothing was changed. "
                              "Open the GM page again to issue another.");
               auto out = ctx.admin().reset_player(game, player, what, kGmActor);
               if (!out.ok()) return status_page(out.status());
               Json row = {{"code", player}};
               const std::size_t space = out->find(' ');
               if (what != "token") {
                 row["secret"] = out->substr(0, space);
                 ctx.secrets_issued(game, {{player, out->substr(0, space)}});
               }
               if (what != "secret")
                 row["url"] = ctx.config().base_url + game_path(game) + "/p/" +
                              (what == "token" ? *out : out->substr(space + 1));
               Status err;
               auto g = find_game(ctx, game, &err);
               return credentials_page(ctx, req, game, g ? g->name : game, Json::array({row}));
             }),
             "html_gm_player_reset");
  router.add("GET", "/gm/games/{game}/players/{player}/orders",
             guarded([&ctx](const Request& req, const Params& p) {
               return gm_orders_page(ctx, req, param(p, "game"), param(p, "player"));
             }),
             "html_gm_orders");
  router.add("POST", "/gm/games/{game}/players/{player}/orders",
             guarded([&ctx](const Request& req, const Params& p) {
               return gm_orders_post(ctx, req, param(p, "game"), param(p, "player"));
             }),
             "html_gm_orders_post");
  router.add("POST", "/gm/games/{game}/pause", guarded([&ctx](const Request& req, const Params& p) {
               const std::string game = param(p, "game");
               return gm_action(ctx, req, game, "paused",
                                [&](const auto&) { return ctx.admin().pause(game, kGmActor); });
             }),
             "html_gm_pause");
  router.add("POST", "/gm/games/{game}/resume",
             guarded([&ctx](const Request& req, const Params& p) {
               const std::string game = param(p, "game");
               return gm_action(ctx, req, game, "resumed",
                                [&](const auto&) { return ctx.admin().resume(game, kGmActor); });
             }),
             "html_gm_resume");
}

}  // namespace html_local
}  // namespace

void register_html_routes(http::Router& router, WebContext& ctx) {
  using namespace html_local;
  router.add(
      "GET", "/",
      cached(guarded([&ctx](const Request& req, const Params&) { return index_page(ctx, req); })),
      "html_index");
  router.add(
      "GET", "/static/{name}",
      cached(guarded([](const Request&, const Params& p) { return static_file(param(p, "name")); }),
             "static"),
      "html_static");
  router.add("GET", "/games/{game}", cached(guarded([&ctx](const Request& req, const Params& p) {
               return game_page(ctx, req, param(p, "game"));
             })),
             "html_game");
  router.add("GET", "/games/{game}/map.svg",
             cached(guarded([&ctx](const Request&, const Params& p) {
               return map_svg(ctx, param(p, "game"));
             })),
             "html_map");
  router.add("GET", "/games/{game}/audit", guarded([&ctx](const Request& req, const Params& p) {
               return audit_page(ctx, req, param(p, "game"));
             }),
             "html_audit");
  router.add("GET", "/games/{game}/login", guarded([&ctx](const Request& req, const Params& p) {
               return login_form(ctx, req, param(p, "game"), "", "", 200);
             }),
             "html_login");
  router.add("POST", "/games/{game}/login", guarded([&ctx](const Request& req, const Params& p) {
               return login_post(ctx, req, param(p, "game"));
             }),
             "html_login_post");
  router.add("GET", "/games/{game}/p/{token}", guarded([&ctx](const Request& req, const Params& p) {
               return link_login(ctx, req, param(p, "game"), param(p, "token"));
             }),
             "html_link");
  router.add("POST", "/games/{game}/logout", guarded([&ctx](const Request& req, const Params& p) {
               return logout_post(ctx, req, param(p, "game"));
             }),
             "html_logout");
  router.add("GET", "/games/{game}/me", guarded([&ctx](const Request& req, const Params& p) {
               return me_page(ctx, req, param(p, "game"));
             }),
             "html_me");
  router.add("GET", "/games/{game}/me/reports/{turn}",
             cached(guarded([&ctx](const Request& req, const Params& p) {
               return my_report(ctx, req, param(p, "game"), param(p, "turn"));
             })),
             "html_my_report");
  router.add("POST", "/games/{game}/me/secret",
             guarded([&ctx](const Request& req, const Params& p) {
               return me_credentials_post(ctx, req, param(p, "game"), false);
             }),
             "html_me_secret");
  router.add("POST", "/games/{game}/me/link", guarded([&ctx](const Request& req, const Params& p) {
               return me_credentials_post(ctx, req, param(p, "game"), true);
             }),
             "html_me_link");
  router.add("POST", "/games/{game}/me/orders",
             guarded([&ctx](const Request& req, const Params& p) {
               return orders_post(ctx, req, param(p, "game"));
             }),
             "html_orders");
  router.add("GET", "/games/{game}/players/{player}/reports/{turn}",
             cached(guarded([&ctx](const Request& req, const Params& p) {
               return player_report(ctx, req, param(p, "game"), param(p, "player"),
                                    param(p, "turn"));
             })),
             "html_player_report");
  add_gm_routes(router, ctx);
}

}  // namespace adj::web
