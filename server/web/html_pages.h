// Helpers the HTML page files of server/web share (html_public_routes.cc, html_player_routes.cc,
// html_gm_routes.cc, html_gm_game_routes.cc, html_gm_orders_routes.cc and the others named
// below; html_routes.cc registers them): the hardened
// answers, the game lookup, sessions, the layout's navigation, the stale-form check and the GM
// guard. Internal to server/web. Thread-safety: as the handlers (per-thread WebContext objects).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "server/app/services.h"
#include "server/web/route_util.h"
#include "server/web/web_session.h"

namespace adj::web::html {

using http::Params;
using http::Request;
using http::Response;

// The audit log's actor for the GM's actions, and the channel of orders sent from a page.
inline constexpr const char* kGmActor = "gm";
inline constexpr const char* kChannel = "web";
// Largest order file a form takes; turns a game's charts show; a player's sign-in cookie's life.
inline constexpr std::size_t kMaxOrderBytes = 64 * 1024;
inline constexpr int kMaxChartTurns = 100;
inline constexpr long kPlayerCookieSeconds = 30L * 24 * 3600;

using Body = std::function<Response(const Request&, const Params&)>;

using route::field;
using route::game_path;
using route::param;
using route::secure;
using route::trim;
using route::upper;

// The game and player of a sign-in cookie.
struct PlayerSession {
  std::string game, player;
};

using route::cached;
using route::public_state;

// A positive whole number, or nullopt.
std::optional<int> positive_int(const std::string& s, int max = 1000000);

// A hardened HTML answer (route::html_page).
Response page(std::string html, int status = 200, bool private_page = false);

// The public error page saying `message`; the page for a failed service call; a 303 redirect.
Response error_page(int status, const std::string& message);

Response status_page(const Status& s);

Response redirect(const std::string& to);

// Wraps a handler so that nothing escapes it.
http::Handler guarded(Body body);

// The game `game`, or nullopt with *error set (NotFound, or the listing's failure).
std::optional<GameSummary> find_game(WebContext& ctx, const std::string& game, Status* error);

// The deadline as a <time> element (time_html: for {{{...}}} in templates), or "none set".
std::string deadline_text(WebContext& ctx, const std::string& game);
// The GM's address of `game` (its own, else the host's); "" for none or when unknown.
std::string gm_address_of(WebContext& ctx, const std::string& game);

// The player whose sign-in cookie the request carries, if any.
std::optional<PlayerSession> player_session(const Request& req, WebContext& ctx);

// The player signed in to `game`, or the answer to give instead: for a GET a redirect to the
// sign-in page, for a POST 401; 403 when the session belongs to another game.
std::variant<PlayerSession, Response> require_player(const Request& req, WebContext& ctx,
                                                     const std::string& game);

// The layout's navigation model. `known`: the request's player session when the caller has
// already looked it up (saves a second lookup).
Json nav(const std::string& game, const std::string& game_name, const Request& req, WebContext& ctx,
         const PlayerSession* known = nullptr);

// A page with forms: its CSRF token goes in the model and, when new, in a cookie.
Response form_page(WebContext& ctx, const CsrfToken& csrf, std::string html, int status = 200);

// The answer to a form whose CSRF check failed.
Response csrf_failed();

// The game list's rows (id, name, turn, status, deadline) for the templates: the games not
// archived, or with `archived` only the archived ones (each with "archived": when).
Json game_rows(WebContext& ctx, const std::vector<GameSummary>& games, bool archived = false);

// One audit entry as people read it (audit_text.h).
Json audit_row(const AuditEntry& e);

// A sign-in form shown again because the limiter refused the attempt: the 429's status and
// Retry-After on the form page.
Response locked_form(Response form, const Response& refusal);

// The sentence saying how long a locked sign-in waits (from the refusal's Retry-After).
std::string locked_message(const Response& refusal);

// The newest audit entry's id (0 when none): forms that issue credentials carry it as `seen`,
// so a reloaded one is recognised (replayed_since).
std::int64_t latest_audit_id(WebContext& ctx, const std::string& game);

// True when the form's `seen` (latest_audit_id when it was rendered) is older than an entry
// `action` about `player` (or by actor "player:<player>") with detail "what" == `what` (any
// when ""): the form was already sent once.
bool replayed_since(WebContext& ctx, const std::string& game, const std::string& seen_text,
                    const std::string& action, const std::string& player, const std::string& what);

// The form's `turn` checked against the open turn (turn_guard.h): nullopt when it may go on,
// else the 409 page (or 400 for a malformed field). A form without the field is not checked.
std::optional<Response> stale_form(WebContext& ctx, const std::map<std::string, std::string>& form,
                                   const std::string& game, const std::string& back);

// Null when the request is the GM's; otherwise the answer: GM pages disabled (403), or for a GET
// a redirect to the GM sign-in page, for a POST 403.
std::optional<Response> gm_denied(const Request& req, WebContext& ctx);

// Messages for the ?done= codes the GM forms redirect with (fixed texts: nothing from the query
// is shown).
std::string done_message(const Request& req);

// New credentials, shown to the GM this once (only their hashes are stored). Each row: code,
// and secret and/or url.
Response credentials_page(WebContext& ctx, const Request& req, const std::string& game,
                          const std::string& name, Json rows);

// "HH:MM" -> seconds after midnight.
std::optional<int> time_of_day(const std::string& s);

// The routes of each area, registered in this order by register_html_routes (html_routes.cc).
void add_public_routes(http::Router& router, WebContext& ctx);
void add_player_routes(http::Router& router, WebContext& ctx);
void add_gm_desk_routes(http::Router& router, WebContext& ctx);
void add_gm_world_routes(http::Router& router, WebContext& ctx);  // html_gm_world_routes.cc
void add_gm_game_routes(http::Router& router, WebContext& ctx);
void add_gm_orders_routes(http::Router& router, WebContext& ctx);  // html_gm_orders_routes.cc
void add_gm_end_routes(http::Router& router, WebContext& ctx);     // html_gm_end_routes.cc

}  // namespace adj::web::html
