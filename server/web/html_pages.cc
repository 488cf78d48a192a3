// The helpers of html_pages.h.
#include "server/web/html_pages.h"

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
#include "server/app/press.h"
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

std::optional<int> positive_int(const std::string& s, int max) {
  if (s.empty() || s.size() > 9) return std::nullopt;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
  const int v = std::stoi(s);
  if (v < 1 || v > max) return std::nullopt;
  return v;
}

Response page(std::string html, int status, bool private_page) {
  return route::html_page(std::move(html), status, private_page);
}

Response error_page(int status, const std::string& message) {
  return route::error_page(status, message, false);
}

Response status_page(const Status& s) { return route::status_page(s, false); }

Response redirect(const std::string& to) { return route::hardened_redirect(to); }

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

std::string deadline_text(WebContext& ctx, const std::string& game) {
  auto s = ctx.admin().schedule(game);
  if (!s.ok() || !s->deadline) return "none set";
  return time_html(*s->deadline);
}

std::string gm_address_of(WebContext& ctx, const std::string& game) {
  auto a = ctx.press().gm_address(game);
  return a.ok() ? *a : std::string();
}

std::optional<PlayerSession> player_session(const Request& req, WebContext& ctx) {
  auto owner = route::cookie_owner(req, ctx);
  if (!owner) return std::nullopt;
  return PlayerSession{owner->first, owner->second};
}

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

Json nav(const std::string& game, const std::string& game_name, const Request& req, WebContext& ctx,
         const PlayerSession* known) {
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

Response form_page(WebContext& ctx, const CsrfToken& csrf, std::string html, int status) {
  Response r = page(std::move(html), status, true);
  set_csrf_cookie(r, csrf, secure(ctx));
  return r;
}

Response csrf_failed() { return route::csrf_failed(false); }

Json game_rows(WebContext& ctx, const std::vector<GameSummary>& games, bool archived) {
  Json rows = Json::array();
  for (const auto& g : games) {
    if (g.archived_at.has_value() != archived) continue;
    Json row = {{"id", g.id},
                {"name", g.name},
                {"engine", g.engine},
                {"turn", g.turn},
                {"status", g.status}};
    if (archived)
      row["archived"] = time_html(*g.archived_at);
    else
      row["deadline"] = deadline_text(ctx, g.id);
    rows.push_back(std::move(row));
  }
  return rows;
}

Json audit_row(const AuditEntry& e) {
  return {{"id", e.id},
          {"at", time_html(e.at)},
          {"who", audit_actor_text(e.actor)},
          {"what", audit_action_text(e)},
          {"action", e.action}};
}

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

std::int64_t latest_audit_id(WebContext& ctx, const std::string& game) {
  auto log = ctx.admin().audit_log(game);
  return log.ok() && !log->empty() ? log->back().id : 0;
}

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

std::string done_message(const Request& req) {
  auto it = req.query.find("done");
  if (it == req.query.end()) return "";
  static const std::map<std::string, std::string> kMessages = {
      {"created", "Game created."},
      {"rolled-back", "Rolled back: the turn is open again."},
      {"engine-script", "Engine script stored: the next turn run uses it."},
      {"deadline", "Deadline set; every player is told."},
      {"extended", "Deadline extended; every player is told."},
      {"schedule", "Schedule saved."},
      {"paused", "Game paused."},
      {"resumed", "Game resumed."},
      {"signups-open", "The game is open for sign-ups."},
      {"approved", "Sign-up approved."},
      {"invited", "Invitation queued for mailing."},
      {"address", "Address changed; the old and the new address were told."},
      {"archived",
       "Game archived: it left the game lists and takes no orders, sign-ups or turn runs; its "
       "pages stay readable."},
      {"unarchived", "Game unarchived: it is back in the game lists."},
      {"deleted", "The game was deleted; the host's audit log below keeps a record of it."}};
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

Response credentials_page(WebContext& ctx, const Request& req, const std::string& game,
                          const std::string& name, Json rows) {
  Json model = {{"id", game}, {"name", name}, {"players", std::move(rows)}};
  Response r = page(
      render_page("New credentials: " + name, "gm_credentials", model, nav(game, name, req, ctx)),
      200, true);
  r.headers.emplace_back("Cache-Control", "no-store");
  return r;
}

std::optional<int> time_of_day(const std::string& s) {
  int h = 0, m = 0;
  char extra = 0;
  if (std::sscanf(s.c_str(), "%d:%d%c", &h, &m, &extra) != 2) return std::nullopt;
  if (h < 0 || h > 23 || m < 0 || m > 59) return std::nullopt;
  return h * 3600 + m * 60;
}

}  // namespace adj::web::html
