// A player's HTML pages: signing in (secret or link) and out, the private page with the order
// form, the player's reports, new credentials, and the order upload.
#include "base/escape.h"
#include "server/web/html_pages.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <variant>

#include "base/ascii.h"
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

namespace adj::web::html {

namespace {
namespace player_local {

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
  return cookie_header(kPlayerCookie, url_encode(token), game_path(game), secure(ctx),
                       std::min<long>(kPlayerCookieSeconds,
                                      static_cast<long>(ctx.config().sessions.absolute_seconds)));
}

Response player_cookie(WebContext& ctx, const std::string& game, const std::string& token,
                       const std::string& then) {
  Response r = redirect(then);
  r.headers.emplace_back("Set-Cookie", session_cookie(ctx, game, token));
  return r;
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

// The player's page. `result`: the answer to an order form just sent, shown above the form
// with the text kept in it (`kept_text`); null on a plain GET.
Response me_page(WebContext& ctx, const Request& req, const std::string& game,
                 Json result = nullptr, const std::string& kept_text = "", int status = 200) {
  auto who = require_player(req, ctx, game);
  if (auto* r = std::get_if<Response>(&who)) return *r;
  const PlayerSession& me = std::get<PlayerSession>(who);
  GameState typed;
  auto state = ctx.services().show_game(game, &typed);
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
  auto file = ctx.admin().orders_on_file(game, me.player);
  if (file.ok()) {
    const SubmissionStatus s =
        submission_status_of(me.player, "", file->file ? &*file->file : nullptr);
    submission = {{"has_orders", s.has_orders},
                  {"received", s.received_at ? Json(time_html(*s.received_at)) : Json()},
                  {"accepted_lines", ascii::with_count(s.accepted, "line")},
                  {"rejected", s.rejected}};
  }
  Json on_record = nullptr;
  std::string text = kept_text;
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
              ascii::with_count(on_record.value("accepted", 0), "line") + " accepted, " +
              std::to_string(on_record.value("rejected", 0)) +
              " rejected). Sending a new file replaces them.";
  }
  Json position;
  const Json builder = order_builder_model(st, me.player, engine.get(), &position, &typed);
  Json model = {{"game", game},
                {"flash", flash.empty() ? Json() : Json(flash)},
                {"game_name", st.value("name", game)},
                {"player", me.player},
                {"player_name", player_name},
                {"turn", turn},
                {"status", st.value("status", "")},
                {"deadline", deadline_text(ctx, game)},
                {"gm_address", route::or_null(gm_address_of(ctx, game))},
                {"submission", std::move(submission)},
                {"template", order_skeleton(st, me.player)},
                {"order_data", script_json(builder)},
                {"position", std::move(position)},
                {"orders_text", text},
                {"result", std::move(result)},
                {"on_record", std::move(on_record)},
                {"seen", latest_audit_id(ctx, game)},
                {"csrf", csrf.value},
                {"has_reports", !reports.empty()},
                {"reports", std::move(reports)}};
  // The map of the open turn: the builder picks areas from it (static/orders.js).
  const render::MapModel map = render::map_model_from_state(public_state(st, false));
  model["map"] =
      map_block(map, req.query, game_path(game) + "/me",
                {render::areas_of(map, me.player), "your areas"}, game_path(game) + "/map.svg");
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
  if (const auto next = ctx.admin().deadline_after_report(game, *turn))
    model["next_deadline"] = {{"turn", next->turn},
                              {"at", next->at ? Json(time_html(*next->at)) : Json()},
                              {"sentence", deadline_sentence(next->turn, next->at)}};
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
  if (auto after = ctx.services().load_state(game, *turn + 1); after.ok()) {
    render::MapModel map =
        render::map_model_from_state(public_state(to_json(*after), g->status == "finished"));
    map.arrows = arrows_from_report(rep->json);
    MapFocus focus{render::areas_of(map, player), session ? "your areas" : "the player's areas"};
    for (const render::MapArrow& a : map.arrows)
      focus.areas.insert(focus.areas.end(), {a.from, a.to});
    model["map"] = map_block(map, req.query, base + std::to_string(*turn), focus);
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
                     gm ? "/gm/games/" + url_encode(game) : game_path(game) + "/me",
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

}  // namespace player_local
}  // namespace

void add_player_routes(http::Router& router, WebContext& ctx) {
  using namespace player_local;
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
}

}  // namespace adj::web::html
