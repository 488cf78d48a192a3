// The public HTML pages: the game list, a game's page with its SVG map and charts, the map
// itself, the audit log and the static files. Anyone may see them; the kept (cached) ones
// depend on nothing but the request target.
#include "server/web/html_pages.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <unordered_map>
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

namespace adj::web::html {

namespace {
namespace public_local {

Response index_page(WebContext& ctx, const Request& req) {
  auto games = ctx.services().list_games();
  if (!games.ok()) return status_page(games.status());
  Json rows = game_rows(ctx, *games);
  Json archived = game_rows(ctx, *games, /*archived=*/true);  // apart, below the open list
  Json model = {{"has_games", !rows.empty()},
                {"games", std::move(rows)},
                {"has_archived", !archived.empty()},
                {"archived", std::move(archived)}};
  return page(render_page("Games", "index", model, nav("", "", req, ctx)));
}

Json order_of_play(const Json& codes, const Json& players) {
  Json out = Json::array();
  if (!codes.is_array()) return out;
  std::unordered_map<std::string, std::string> names;  // code -> name
  for (const auto& p : players) names[p.value("code", "")] = p.value("name", "");
  for (std::size_t i = 0; i < codes.size(); ++i) {
    const std::string code = codes[i].is_string() ? codes[i].get<std::string>() : "";
    const auto it = names.find(code);
    const std::string name = it == names.end() ? "" : it->second;
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
  auto history = ctx.services().history(game, turn, kMaxChartTurns);
  if (!history.ok()) return status_page(history.status());
  if (!history->roundups.empty()) roundup = roundup_view(history->roundups.back(), players);
  const KingdomHistory kh = history_from_roundups(
      players, history->roundups, history->start_state.is_null() ? nullptr : &history->start_state);
  for (const LineChart& c : kingdom_charts(kh)) charts.push_back({{"svg", render_line_chart(c)}});

  Json model = {
      {"id", st.value("game", game)},
      {"name", st.value("name", game)},
      {"engine", st.contains("engine") ? st["engine"].value("name", "") : ""},
      {"turn", turn},
      {"status", st.value("status", "")},
      {"over", st.value("status", "") == "finished"},  // archive_routes.cc
      {"archived",
       st.contains("archived_at") ? Json(time_html(st["archived_at"].get<UnixTime>())) : Json()},
      {"deadline", deadline_text(ctx, game)},
      {"gm_address", route::or_null(gm_address_of(ctx, game))},
      {"order_of_play", order_of_play(st.value("order_of_play", Json::array()), players)},
      {"map", map_block(map, req.query, game_path(game), {}, game_path(game) + "/map.svg")},
      {"automatic_layout", automatic},
      {"roundup", std::move(roundup)},
      {"charts", std::move(charts)}};
  // The join page (membership); an archived game takes no sign-ups.
  model["signup_open"] = st.value("status", "") == "signup" && !st.contains("archived_at");
  Json n = nav(game, st.value("name", game), req, ctx);
  model["signed_in"] = n.contains("player");  // no "Player sign-in" for a signed-in player
  return page(render_page(st.value("name", game), "game", model, std::move(n)));
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

}  // namespace public_local
}  // namespace

void add_public_routes(http::Router& router, WebContext& ctx) {
  using namespace public_local;
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
}

}  // namespace adj::web::html
