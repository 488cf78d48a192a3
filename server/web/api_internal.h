// Internal to the JSON API's route files (api_routes.cc, api_player_routes.cc, api_gm_routes.cc;
// not for other files): the answers and checks they share, defined in api_routes.cc, and the
// registration of each group, which register_api_routes calls in this order: public routes,
// register_api_player_routes, register_api_gm_routes, register_api_player_token_routes,
// register_api_gm_player_routes, register_api_lifecycle_routes.
#pragma once

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "rules/game/scenario.h"
#include "server/http/http_types.h"
#include "server/web/route_util.h"
#include "server/web/web_context.h"
#include "storage/records.h"

namespace adj::web::api_detail {

// The audit log's actor for the GM's actions.
inline constexpr const char* kGmActor = "gm";

// {"error": message}, plus "errors" when given, with `status`.
http::Response error_response(int status, const std::string& message, Json errors = nullptr);

// The answer for a failed service call (route::api_fail).
http::Response fail(const Status& s);

Json errors_json(const std::vector<ScenarioError>& errors);

// The body as a JSON document checked against schemas/api/<schema>; or the 400 to answer.
std::variant<Json, http::Response> parse_body(const http::Request& req, const std::string& schema);

inline Json optional_time(const std::optional<UnixTime>& t) { return t ? Json(*t) : Json(nullptr); }

// A game's summary with `deadline`, as GET /api/games lists it and create/pause/resume/rollback
// answer it.
Json summary_json(const GameSummary& g, const std::optional<UnixTime>& deadline);

// Answer for a GM-only route called without the GM token.
http::Response gm_denied(const http::Request& req, WebContext& ctx);

// True when the request may change state as the GM it was identified as (is_gm): with the GM
// token as bearer, or with the GM cookie alone from a page of this site (api_csrf_ok).
bool gm_may_change_state(const http::Request& req, const WebConfig& config);

// The 403 for a state change made with the GM cookie from elsewhere than this site's pages.
http::Response cookie_refused();

// `h` behind the GM check: the guessing limit, the GM token or cookie, and for a state change
// gm_may_change_state.
http::Handler gm_only(WebContext& ctx, http::Handler h);

// Who is asking for a player's data in `game`.
using Caller = route::ApiCaller;

// GM token, else the player's link token (Bearer) for this game, else HTTP Basic
// <code>:<secret>. A token for another game is refused; no credentials leave both empty.
Caller identify(const http::Request& req, WebContext& ctx, const std::string& game);

// The game's schedule (GET and PUT /api/games/{g}/schedule, POST .../deadline).
http::Response schedule_answer(WebContext& ctx, const std::string& game);

// A player's new credentials, answered once and never stored by caches: the link token with
// its URL when `token` is not empty, the secret when given.
http::Response token_answer(WebContext& ctx, const std::string& game, const std::string& player,
                            const std::string& token, std::optional<std::string> secret = {});

// api_player_routes.cc: POST /orders and GET /reports/{p}; POST .../players/{p}/token and
// PUT .../players/{p}/secret.
void register_api_player_routes(http::Router& router, WebContext& ctx);
void register_api_player_token_routes(http::Router& router, WebContext& ctx);
// api_gm_routes.cc: the GM's routes about the game; those about one player
// (.../players/{p}/orders, .../players/{p}/reset).
void register_api_gm_routes(http::Router& router, WebContext& ctx);
void register_api_gm_player_routes(http::Router& router, WebContext& ctx);
// api_lifecycle_routes.cc: DELETE /api/games/{g}, POST .../archive and .../unarchive (GM).
void register_api_lifecycle_routes(http::Router& router, WebContext& ctx);

}  // namespace adj::web::api_detail
