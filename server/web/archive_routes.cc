// The end of a game on the web and the API (server/app/ending.h): final standings, the archive
// of resolved turns, the finished games, and a player's own order files.
//
//   GET /games/{game}/standings          standings (final when over), victory conditions
//   GET /games/{game}/archive            every resolved turn
//   GET /games/{game}/archive/{turn}     that turn's map and roundup; after the end also every
//                                        report and order file of the turn
//   GET /finished                        finished games with their winners
//   GET /games/{game}/me/files           the signed-in player's order files with their answers
//   GET /api/games/{game}/standings, /api/games/{game}/archive[/{turn}], /api/finished
//   GET /api/games/{game}/players/{player}/files   that player (link token or sign-in cookie)
//                                                  or the GM
// Who proposed a draw is shown only after the end (a proposal is a player's own business while
// the game goes on). Everything here only reads. Thread-safety: as the other handlers (per-thread
// stores).
#include <spdlog/spdlog.h>

#include <functional>
#include <optional>
#include <variant>

#include "base/log_escape.h"
#include "server/app/ending.h"
#include "server/app/time_text.h"
#include "server/render/svg_map.h"
#include "server/web/auth_guard.h"
#include "server/web/map_view.h"
#include "server/web/page_render.h"
#include "server/web/pages_view.h"
#include "server/web/route_util.h"
#include "server/web/routes.h"
#include "server/web/web_session.h"

namespace adj::web {

using http::Params;
using http::Request;
using http::Response;

// This file's helpers, in a namespace of their own so that the unity batches may compile the
// route files together.
namespace {
namespace archive_local {

// An order file as a page shows it: its time as a <time> element.
Json file_row(const OrderFileView& f) {
  Json j = to_json(f);
  j["received"] = time_html(f.received_at);
  return j;
}

using Body = std::function<Response(const Request&, const Params&)>;

constexpr int kMaxTurnNumber = 1000000;

// The stores the archive's app functions (server/app/ending.h) read.
Stores stores_of(WebContext& ctx) { return ctx.services().stores(); }

using route::game_path;
using route::upper;

std::optional<int> turn_number(const std::string& s) {
  if (s.empty() || s.size() > 7) return std::nullopt;
  for (char c : s)
    if (c < '0' || c > '9') return std::nullopt;
  const int v = std::stoi(s);
  return v >= 1 && v <= kMaxTurnNumber ? std::optional<int>(v) : std::nullopt;
}

// ---- HTML plumbing (route_util.h) ----

Response page(std::string html, bool private_page = false, int status = 200) {
  return route::html_page(std::move(html), status, private_page);
}

Response error_page(int status, const std::string& message) {
  return route::error_page(status, message, false);
}

Response status_page(const Status& s) { return route::status_page(s, false); }

http::Handler guarded(Body body, bool json) {
  return route::guarded(std::move(body), {"archive_exception", false, json, false});
}

struct Session {
  std::string game, player;
};

std::optional<Session> player_session(const Request& req, WebContext& ctx) {
  auto owner = route::cookie_owner(req, ctx);
  if (!owner) return std::nullopt;
  return Session{owner->first, owner->second};
}

Json nav(WebContext& ctx, const Request& req, const std::string& game, const std::string& name) {
  Json n = Json::object();
  if (!game.empty()) {
    n["game"] = game;
    n["game_name"] = name.empty() ? game : name;
    if (auto s = player_session(req, ctx); s && s->game == game) n["player"] = s->player;
  }
  n["gm"] = is_gm_limited(ctx, req, "web_gm");
  return n;
}

using route::public_state;

Json standings_rows(const std::vector<Standing>& table) {
  Json rows = Json::array();
  for (const Standing& s : table) {
    Json r = to_json(s);
    r["won"] = s.result == "won";
    r["drawn"] = s.result == "drawn";
    rows.push_back(std::move(r));
  }
  return rows;
}

Json winners_json(const Ending& e) {
  Json out = Json::array();
  for (const std::string& code : e.winners)
    for (const Standing& s : e.standings)
      if (s.code == code) out.push_back({{"code", s.code}, {"name", s.name}, {"result", s.result}});
  return out;
}

// The standings of `game` now: final when it is over, else from the open turn's state.
struct StandingsNow {
  GameSummary game;
  VictoryConditions victory;
  std::optional<Ending> ending;
  std::vector<Standing> table;
};

Result<StandingsNow> standings_now(WebContext& ctx, const std::string& game) {
  Stores s = stores_of(ctx);
  StandingsNow out;
  Result<GameSummary> g = ctx.services().game_summary(game);
  if (!g.ok()) return g.status();
  out.game = *g;
  Result<GameState> st = ctx.services().load_state(game);
  if (!st.ok()) return st.status();
  out.victory = victory_of(*st);
  if (g->status == "finished") {
    Result<Ending> e = final_standings(s, game);
    if (!e.ok()) return e.status();
    out.table = e->standings;
    out.ending = std::move(e).value();
  } else {
    out.table = rank_players(*st);
  }
  return out;
}

// ---- pages ----

Response standings_page(WebContext& ctx, const Request& req, const std::string& game) {
  auto now = standings_now(ctx, game);
  if (!now.ok()) return status_page(now.status());
  Json model = {{"game", now->game.id},
                {"name", now->game.name},
                {"over", now->ending.has_value()},
                {"turn", now->game.turn},
                {"victory", victory_text(now->victory)},
                {"rows", standings_rows(now->table)}};
  if (now->ending) {
    model["reason"] = now->ending->reason;
    model["last_turn"] = now->ending->turn;
    model["winners"] = winners_json(*now->ending);
  }
  return page(render_page("Standings: " + now->game.name, "ending_standings", model,
                          nav(ctx, req, game, now->game.name)));
}

Response archive_page(WebContext& ctx, const Request& req, const std::string& game) {
  Stores s = stores_of(ctx);
  Result<GameSummary> g = ctx.services().game_summary(game);
  if (!g.ok()) return status_page(g.status());
  auto turns = archive_turns(s, game);
  if (!turns.ok()) return status_page(turns.status());
  Json rows = Json::array();
  const bool over = g->status == "finished";
  for (auto it = turns->rbegin(); it != turns->rend(); ++it)
    rows.push_back({{"turn", it->turn},
                    {"ran", time_html(it->ran_at)},
                    {"without_orders", it->without_orders.size()},
                    {"draw", over ? it->draw.size() : 0},
                    {"ending", it->ending ? Json(it->ending->reason) : Json()}});
  Json model = {{"game", g->id},
                {"name", g->name},
                {"over", over},
                {"has_turns", !rows.empty()},
                {"turns", std::move(rows)}};
  return page(
      render_page("Archive: " + g->name, "ending_archive", model, nav(ctx, req, game, g->name)));
}

Response archive_turn_page(WebContext& ctx, const Request& req, const std::string& game,
                           const std::string& turn_text) {
  const auto turn = turn_number(turn_text);
  if (!turn) return error_page(400, "The turn must be a positive whole number, as in /archive/3.");
  Stores s = stores_of(ctx);
  Result<GameSummary> g = ctx.services().game_summary(game);
  if (!g.ok()) return status_page(g.status());
  auto t = archive_turn(s, game, *turn);
  if (t.ok() && g->status != "finished") t->draw.clear();  // draw proposals: after the end
  if (!t.ok()) {
    if (t.status().code() == StatusCode::kNotFound)
      return error_page(404, "Turn " + std::to_string(*turn) + " of " + g->name +
                                 " has not run yet. The archive lists the turns that have.");
    return status_page(t.status());
  }
  // The map after the turn: the next turn's starting state.
  Result<GameState> after = s.games.load_state(game, *turn + 1);
  if (!after.ok()) return status_page(after.status());
  const bool over = g->status == "finished";
  const Json st = public_state(to_json(*after), over);
  // The turn's battles as arrows; every move too once the game is over (orders are private
  // while it runs).
  render::MapModel map = render::map_model_from_state(st);
  if (auto battles = s.reports.battles(game, *turn); battles.ok()) {
    std::vector<Json> logs;
    for (const BattleRecord& b : *battles) logs.push_back(b.outcome);
    Json actions = Json::array();
    if (auto rec = s.games.turn_record(game, *turn); over && rec.ok() && rec->is_object())
      if (const Json sum = rec->value("summary", Json::object()); sum.is_object())
        actions = sum.value("actions", Json::array());
    map.arrows = arrows_from_turn(logs, actions, over);
  }
  Json model = {
      {"game", g->id},
      {"name", g->name},
      {"turn", *turn},
      {"ran", time_html(t->ran_at)},
      {"over", over},
      {"map", map_block(map, req.query, game_path(game) + "/archive/" + std::to_string(*turn))},
      {"roundup", t->roundup.is_null() ? Json() : roundup_view(t->roundup, st["players"])},
      {"without_orders", t->without_orders},
      {"has_without_orders", !t->without_orders.empty()},
      {"draw", t->draw},
      {"has_draw", !t->draw.empty()},
      {"ending", t->ending ? Json(t->ending->reason) : Json()}};
  if (*turn > 1) model["prev"] = *turn - 1;
  if (*turn + 1 < g->turn) model["next"] = *turn + 1;
  if (over) {
    Json reports = Json::array();
    for (const Player& p : after->players) {
      auto rep = ctx.services().report(game, p.code, *turn);
      if (rep.ok()) reports.push_back({{"code", p.code}, {"name", p.name}, {"text", rep->text}});
    }
    Json files = Json::array();
    auto fs = turn_files(s, game, *turn);
    if (!fs.ok()) return status_page(fs.status());
    for (const auto& f : *fs) files.push_back(file_row(f));
    model["reports"] = std::move(reports);
    model["files"] = std::move(files);
  }
  return page(render_page("Turn " + std::to_string(*turn) + ": " + g->name, "ending_archive_turn",
                          model, nav(ctx, req, game, g->name)));
}

Json finished_rows(const std::vector<FinishedGame>& games) {
  Json rows = Json::array();
  for (const FinishedGame& f : games)
    rows.push_back({{"id", f.game.id},
                    {"name", f.game.name},
                    {"engine", f.game.engine},
                    {"turn", f.ending.turn},
                    {"finished", time_html(f.finished_at)},
                    {"finished_at", f.finished_at},
                    {"kind", f.ending.kind},
                    {"reason", f.ending.reason},
                    {"winners", winners_json(f.ending)}});
  return rows;
}

Response finished_page(WebContext& ctx, const Request& req) {
  auto games = finished_games(stores_of(ctx));
  if (!games.ok()) return status_page(games.status());
  Json rows = finished_rows(*games);
  Json model = {{"has_games", !rows.empty()}, {"games", std::move(rows)}};
  return page(render_page("Finished games", "ending_finished", model, nav(ctx, req, "", "")));
}

Response my_files_page(WebContext& ctx, const Request& req, const std::string& game) {
  auto me = player_session(req, ctx);
  if (!me) {
    Response r = Response::redirect(game_path(game) + "/login");
    r.headers.emplace_back("Cache-Control", "no-store");
    return r;
  }
  if (me->game != game) return error_page(403, "You are signed in to another game.");
  Stores s = stores_of(ctx);
  Result<GameSummary> g = ctx.services().game_summary(game);
  if (!g.ok()) return status_page(g.status());
  auto files = player_files(s, game, me->player);
  if (!files.ok()) return status_page(files.status());
  Json rows = Json::array();
  for (auto it = files->rbegin(); it != files->rend(); ++it) rows.push_back(file_row(*it));
  Json model = {{"game", g->id},
                {"name", g->name},
                {"player", me->player},
                {"has_files", !rows.empty()},
                {"files", std::move(rows)}};
  return page(render_page("Your order files: " + g->name, "ending_files", model,
                          nav(ctx, req, game, g->name)),
              true);
}

// ---- API ----

using route::json_response;

Response api_fail(const Status& s) { return route::api_fail(s); }

Json ending_json(const Ending& e) {
  Json j = to_json(e);
  j["winners"] = winners_json(e);
  return j;
}

Response api_standings(WebContext& ctx, const std::string& game) {
  auto now = standings_now(ctx, game);
  if (!now.ok()) return api_fail(now.status());
  Json standings = Json::array();
  for (const Standing& s : now->table) standings.push_back(to_json(s));
  Json j = {{"game", now->game.id},
            {"status", now->game.status},
            {"over", now->ending.has_value()},
            {"victory", to_json(now->victory)},
            {"standings", std::move(standings)}};
  if (now->ending) j["ending"] = ending_json(*now->ending);
  return json_response(j);
}

Json archive_turn_json(const ArchiveTurn& t) {
  Json j = {{"turn", t.turn},
            {"ran_at", t.ran_at},
            {"roundup", t.roundup},
            {"players_without_orders", t.without_orders},
            {"draw", t.draw}};
  if (t.ending) j["ending"] = ending_json(*t.ending);
  return j;
}

Response api_archive(WebContext& ctx, const std::string& game) {
  Stores s = stores_of(ctx);
  Result<GameSummary> g = ctx.services().game_summary(game);
  if (!g.ok()) return api_fail(g.status());
  auto turns = archive_turns(s, game);
  if (!turns.ok()) return api_fail(turns.status());
  Json list = Json::array();
  for (auto& t : *turns) {
    if (g->status != "finished") t.draw.clear();  // draw proposals: after the end
    list.push_back(archive_turn_json(t));
  }
  return json_response({{"game", g->id},
                        {"status", g->status},
                        {"over", g->status == "finished"},
                        {"turns", std::move(list)}});
}

Response api_archive_turn(WebContext& ctx, const std::string& game, const std::string& text) {
  const auto turn = turn_number(text);
  if (!turn) return json_response({{"error", "turn must be a positive whole number"}}, 400);
  Stores s = stores_of(ctx);
  Result<GameSummary> g = ctx.services().game_summary(game);
  if (!g.ok()) return api_fail(g.status());
  auto t = archive_turn(s, game, *turn);
  if (!t.ok()) return api_fail(t.status());
  if (g->status != "finished") t->draw.clear();  // draw proposals: after the end
  Result<GameState> after = s.games.load_state(game, *turn + 1);
  if (!after.ok()) return api_fail(after.status());
  Json j = archive_turn_json(*t);
  j["game"] = g->id;
  j["state_after"] = public_state(to_json(*after), g->status == "finished");
  if (g->status == "finished") {
    Json reports = Json::array();
    for (const Player& p : after->players) {
      auto rep = ctx.services().report(game, p.code, *turn);
      if (rep.ok()) reports.push_back({{"player", p.code}, {"text", rep->text}});
    }
    Json files = Json::array();
    auto fs = turn_files(s, game, *turn);
    if (!fs.ok()) return api_fail(fs.status());
    for (const auto& f : *fs) files.push_back(to_json(f));
    j["reports"] = std::move(reports);
    j["files"] = std::move(files);
  }
  return json_response(j);
}

Response api_finished(WebContext& ctx) {
  auto games = finished_games(stores_of(ctx));
  if (!games.ok()) return api_fail(games.status());
  Json rows = finished_rows(*games);
  for (std::size_t i = 0; i < rows.size(); ++i)
    rows[i]["standings"] = standings_rows((*games)[i].ending.standings);
  return json_response({{"games", std::move(rows)}});
}

// GET /api/games/{game}/players/{player}/files: the GM, or that player by link token (Bearer)
// or sign-in cookie.
Response api_files(WebContext& ctx, const Request& req, const std::string& game,
                   const std::string& player_arg) {
  const std::string player = upper(player_arg);
  bool allowed = false;
  const std::string bearer = bearer_token(req);
  if (!bearer.empty()) {
    const ThrottleKeys keys = guard_keys(req, "");
    if (auto r = guard_check(ctx, keys, "api_bearer", true)) return *r;
    if (is_gm(req, ctx.config())) {
      allowed = true;
    } else {
      auto owner = ctx.admin().token_owner(bearer);
      if (!owner.ok()) {
        if (owner.status().code() != StatusCode::kNotFound) return api_fail(owner.status());
        guard_record(ctx, keys, "api_bearer", false, "unknown_token");
        return json_response({{"error", "unknown token"}}, 401);
      }
      if (owner->first != game)
        return json_response({{"error", "this token is for another game"}}, 403);
      allowed = upper(owner->second) == player;
    }
  } else if (is_gm_limited(ctx, req, "api_gm")) {
    allowed = true;
  } else if (auto s = player_session(req, ctx)) {
    allowed = s->game == game && upper(s->player) == player;
  } else {
    return json_response(
        {{"error",
          "this needs the player's link token (Authorization: Bearer <token>) or the GM token"}},
        401);
  }
  if (!allowed)
    return json_response({{"error", "a player may read only their own order files"}}, 403);
  Stores s = stores_of(ctx);
  Result<GameState> st = ctx.services().load_state(game);
  if (!st.ok()) return api_fail(st.status());
  if (!st->find_player(player))
    return json_response({{"error", "there is no player " + player + " in game " + game}}, 404);
  auto files = player_files(s, game, player);
  if (!files.ok()) return api_fail(files.status());
  Json list = Json::array();
  for (const auto& f : *files) list.push_back(to_json(f));
  return json_response({{"game", st->game_id}, {"player", player}, {"files", std::move(list)}});
}

}  // namespace archive_local
}  // namespace

using route::cached;
void register_archive_routes(http::Router& router, WebContext& ctx) {
  using namespace archive_local;
  const auto html = [&](const char* path, Body b) {
    router.add("GET", path, guarded(std::move(b), false));
  };
  const auto api = [&](const char* path, Body b, const char* name) {
    router.add("GET", path, guarded(std::move(b), true), name);
  };
  html("/games/{game}/standings", cached([&ctx](const Request& req, const Params& p) {
         return standings_page(ctx, req, p.at("game"));
       }));
  html("/games/{game}/archive", cached([&ctx](const Request& req, const Params& p) {
         return archive_page(ctx, req, p.at("game"));
       }));
  html("/games/{game}/archive/{turn}", cached([&ctx](const Request& req, const Params& p) {
         return archive_turn_page(ctx, req, p.at("game"), p.at("turn"));
       }));
  html("/finished",
       cached([&ctx](const Request& req, const Params&) { return finished_page(ctx, req); }));
  html("/games/{game}/me/files", [&ctx](const Request& req, const Params& p) {
    return my_files_page(ctx, req, p.at("game"));
  });
  api("/api/games/{game}/standings",
      cached([&ctx](const Request&, const Params& p) { return api_standings(ctx, p.at("game")); }),
      "api_standings");
  api("/api/games/{game}/archive",
      cached([&ctx](const Request&, const Params& p) { return api_archive(ctx, p.at("game")); }),
      "api_archive");
  api("/api/games/{game}/archive/{turn}", cached([&ctx](const Request&, const Params& p) {
        return api_archive_turn(ctx, p.at("game"), p.at("turn"));
      }),
      "api_archive_turn");
  api("/api/finished", cached([&ctx](const Request&, const Params&) { return api_finished(ctx); }),
      "api_finished");
  api(
      "/api/games/{game}/players/{player}/files",
      [&ctx](const Request& req, const Params& p) {
        return api_files(ctx, req, p.at("game"), p.at("player"));
      },
      "api_files");
}

}  // namespace adj::web
