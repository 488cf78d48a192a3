// The server-rendered HTML pages (no JavaScript): public game pages with the SVG map and charts,
// a player's private reports and order form, and the GM desk. Handlers build JSON view models
// and render the templates in server/web/templates/ (page_render.h); all markup escaping is the
// templates'. Sessions and CSRF protection are described in web_session.h.
//
// Every handler catches everything: a failure becomes an error page (500 with no detail; the
// detail goes to the log), never an exception out of the router.
// Thread-safety: the handlers run on the server's worker threads and touch only per-thread
// objects (WebContext::services(), admin() and the other services) and thread-safe ones (Metrics).
#include "server/web/html_pages.h"
#include "server/web/routes.h"

namespace adj::web {

void register_html_routes(http::Router& router, WebContext& ctx) {
  html::add_public_routes(router, ctx);
  html::add_player_routes(router, ctx);
  html::add_gm_desk_routes(router, ctx);
  html::add_gm_world_routes(router, ctx);
  html::add_gm_game_routes(router, ctx);
  html::add_gm_orders_routes(router, ctx);
  html::add_gm_end_routes(router, ctx);
}

}  // namespace adj::web
