// The two halves of the route table, registered by register_routes (web_context.h):
// JSON API under /api/ (api_routes.cc, with api_player_routes.cc and api_gm_routes.cc) and the
// server-rendered HTML pages (html_routes.cc).
#pragma once

#include <set>
#include <string>

#include "server/http/http_types.h"
#include "server/web/web_context.h"

namespace adj::web {

void register_api_routes(http::Router& router, WebContext& ctx);
void register_html_routes(http::Router& router, WebContext& ctx);
void register_outbox_routes(http::Router& router, WebContext& ctx);  // outbox_routes.cc
// attendance_routes.cc (pages in attendance_page_routes.cc, API in attendance_api_routes.cc):
// standby, takeover, absence, the GM's attendance section and its API.
void register_attendance_routes(http::Router& router, WebContext& ctx);
// View models for the GM desk (partial _attendance_gm) and /me (partial _attendance_me), and the
// per-player attendance fields (missed, civil_disorder; never absence dates, which are the
// player's and the GM's) added to the public GET /api/games/{g}.
// `shown`: the players whose rows the GM page shows (null: every player). `open`: the game's
// open state when the caller has read it (null: read here); the same for the functions below.
Json attendance_gm_view(WebContext& ctx, const http::Request& req, const std::string& game,
                        const std::set<std::string>* shown = nullptr,
                        const GameState* open = nullptr);
Json attendance_me_view(WebContext& ctx, const http::Request& req, const std::string& game,
                        const std::string& player);
void add_attendance_json(WebContext& ctx, const std::string& game, Json& game_doc);
// Adds missed, disorder and absence to each {code, ...} row of the GM desk's players section.
void add_attendance_columns(WebContext& ctx, const std::string& game, Json& rows,
                            const GameState* open = nullptr);
// Sign-ups, start, invitations, addresses, replacing players (membership_routes.cc; pages in
// membership_page_routes.cc, API in membership_api_routes.cc); and the sections it adds to the GM
// desk and the player page (HTML), and the "open for sign-ups" step of creating a game.
void register_membership_routes(http::Router& router, WebContext& ctx);
// `shown`: the players whose rows the GM page shows (null: every player).
std::string membership_gm_section(WebContext& ctx, const std::string& game, const std::string& csrf,
                                  const std::set<std::string>* shown = nullptr,
                                  const GameState* open = nullptr);
std::string membership_me_section(WebContext& ctx, const std::string& game,
                                  const std::string& player, const std::string& csrf);
Status open_signups_after_create(WebContext& ctx, const std::string& game);
void register_press_routes(http::Router& router, WebContext& ctx);     // press_routes.cc
void register_press_gm_routes(http::Router& router, WebContext& ctx);  // press_gm_routes.cc
void register_archive_routes(http::Router& router, WebContext& ctx);   // archive_routes.cc

// The GM token check shared by both halves: true when the request carries
// "Authorization: Bearer <token>" (API) or the GM cookie set by the GM sign-in page (HTML), and
// a GM token is configured. Constant-time comparison.
bool is_gm(const http::Request& req, const WebConfig& config);

// The token of an "Authorization: Bearer <token>" header, or "".
std::string bearer_token(const http::Request& req);

}  // namespace adj::web
