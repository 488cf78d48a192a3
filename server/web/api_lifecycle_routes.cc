// The GM's JSON API routes about a game's end (api_routes.cc has the contract), behind the GM
// token (gm_only), each with an optional body {"reason": "..."} (game_end.request.schema.json):
//   DELETE /api/games/{g}             a game that has not started, with every row of it: 200 with
//                                     what was removed (game_deletion.schema.json); 409 once a
//                                     turn has run ("... archive it instead"); 404
//   POST   /api/games/{g}/archive     out of the game lists, readable, takes nothing new: 200 with
//                                     the summary; 409 when archived already
//   POST   /api/games/{g}/unarchive   back: 200 with the summary; 409 when not archived
#include <string>
#include <variant>

#include "server/web/api_internal.h"
#include "server/web/route_util.h"
#include "server/web/routes.h"

namespace adj::web {

using http::Params;
using http::Request;
using http::Response;

namespace {
namespace api_lifecycle_local {

using api_detail::error_response;
using api_detail::fail;
using api_detail::kGmActor;
using api_detail::parse_body;
using api_detail::summary_json;
using route::json_response;

// The request's reason: "" for an empty body; or the 400 to answer.
std::variant<std::string, Response> reason_of(const Request& req) {
  if (req.body.find_first_not_of(" \t\r\n") == std::string::npos) return std::string();
  auto doc = parse_body(req, "game_end.request.schema.json");
  if (auto* r = std::get_if<Response>(&doc)) return *r;
  return std::get<Json>(doc).value("reason", std::string());
}

Response summary_answer(WebContext& ctx, const std::string& game) {
  auto sum = ctx.services().game_summary(game);
  if (!sum.ok()) return fail(sum.status());
  auto sched = ctx.admin().schedule(game);
  return json_response(summary_json(*sum, sched.ok() ? sched->deadline : std::nullopt));
}

Response delete_game(WebContext& ctx, const Request& req, const std::string& game) {
  auto reason = reason_of(req);
  if (auto* r = std::get_if<Response>(&reason)) return *r;
  auto out = ctx.admin().delete_game(game, kGmActor, std::get<std::string>(reason));
  if (!out.ok()) return fail(out.status());
  Response r = json_response({{"game", out->game},
                              {"name", out->name},
                              {"deleted", true},
                              {"removed", out->rows},
                              {"mail_dropped", out->mail_dropped},
                              {"mail_kept", out->mail_kept},
                              {"host_audit_id", out->host_audit_id}});
  r.headers.emplace_back("Cache-Control", "no-store");
  return r;
}

Response set_archived(WebContext& ctx, const Request& req, const std::string& game, bool on) {
  auto reason = reason_of(req);
  if (auto* r = std::get_if<Response>(&reason)) return *r;
  const std::string& why = std::get<std::string>(reason);
  const Status s = on ? ctx.admin().archive_game(game, kGmActor, why)
                      : ctx.admin().unarchive_game(game, kGmActor, why);
  if (!s.ok()) return fail(s);
  return summary_answer(ctx, game);
}

}  // namespace api_lifecycle_local
}  // namespace

namespace api_detail {

void register_api_lifecycle_routes(http::Router& router, WebContext& ctx) {
  using namespace api_lifecycle_local;
  router.add("DELETE", "/api/games/{game}",
             gm_only(ctx, [&ctx](const Request& r,
                                 const Params& p) { return delete_game(ctx, r, p.at("game")); }),
             "api_delete_game");
  router.add(
      "POST", "/api/games/{game}/archive",
      gm_only(ctx, [&ctx](const Request& r,
                          const Params& p) { return set_archived(ctx, r, p.at("game"), true); }),
      "api_archive");
  router.add(
      "POST", "/api/games/{game}/unarchive",
      gm_only(ctx, [&ctx](const Request& r,
                          const Params& p) { return set_archived(ctx, r, p.at("game"), false); }),
      "api_unarchive");
}

}  // namespace api_detail
}  // namespace adj::web
