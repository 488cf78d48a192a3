// Helpers shared by the route files of server/web (html_routes.cc, api_routes.cc and the slices'
// *_routes.cc): text and parameter plumbing, the hardened HTML answers, the JSON answers, the
// handler guard and the page cookie's owner. No Asio; nothing here keeps state.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "base/ascii.h"
#include "server/http/http_types.h"
#include "server/web/auth_guard.h"
#include "server/web/web_context.h"

namespace adj::web::route {

// The message of every 500 page (the detail goes to the log, never to the page).
inline constexpr const char* kServerFailed =
    "The server could not complete this request (the details are in its log).";

// ASCII case folding and trimming (base/ascii.h).
using ascii::trim;
using ascii::upper;
// The path parameter `name`, or "" when absent.
std::string param(const http::Params& p, const std::string& name);
// The form field `name` as sent (not trimmed), or "" when absent.
std::string field(const std::map<std::string, std::string>& form, const std::string& name);
// "/games/{game}" and "/gm/games/{game}" with the id url-encoded.
std::string game_path(const std::string& game);
std::string gm_path(const std::string& game);
// Whether cookies get the Secure attribute (the public base URL is https).
bool secure(const WebContext& ctx);

// Adds the headers every HTML answer carries: no scripts at all, no framing, no MIME sniffing;
// private pages are never stored by caches (no-store), public ones are revalidated (no-cache).
void harden(http::Response& r, bool private_page);
// An HTML answer with harden() applied.
http::Response html_page(std::string html, int status, bool private_page);
// The rendered error page saying `message`; a plain-text answer if rendering fails.
http::Response error_page(int status, const std::string& message, bool private_page);
// The error page for a failed service call: its message, or for a server-side failure (500)
// kServerFailed with the status logged as `event=<event>`.
http::Response status_page(const Status& s, bool private_page, const char* event = "html_error");
// The answer to a form whose CSRF check failed (403, what to do next).
http::Response csrf_failed(bool private_page);
// A 303 redirect with harden(r, true).
http::Response hardened_redirect(const std::string& to);
// A 303 redirect with only "Cache-Control: no-store".
http::Response no_store_redirect(const std::string& to);

// `s`, or null when it is empty: for a {{#...}} section of a template, whose renderer takes an
// empty string as true.
inline Json or_null(const std::string& s) { return s.empty() ? Json() : Json(s); }

// `j` as compact JSON text; invalid UTF-8 is replaced, never thrown on.
std::string json_text(const Json& j);
// A JSON answer; `no_store` adds "Cache-Control: no-store".
http::Response json_response(const Json& j, int status = 200, bool no_store = false);
// {"error": message} with `status`.
http::Response json_error(int status, const std::string& message, bool no_store = false);
// The JSON answer for a failed service call: its message, or for a server-side failure (500)
// "internal error" with the status logged as `event=<event>`.
http::Response api_fail(const Status& s, const char* event = "api_error", bool no_store = false);

// How guarded() logs and answers an exception out of a handler.
struct GuardStyle {
  const char* event;                    // logged as event=<event>
  bool log_method = false;              // also log the request method
  bool json = false;                    // answer {"error": "internal error"} instead of a page
  bool private_page = false;            // the error page's caching
  const char* message = kServerFailed;  // the error page's message
};

using Body = std::function<http::Response(const http::Request&, const http::Params&)>;

// Wraps a handler so that nothing but http::ServiceUnavailable (the server answers 503) escapes
// it: any other exception is logged and answered 500 as `style` says.
http::Handler guarded(Body body, GuardStyle style);

// `h` with its answers marked cacheable (http::Response::cache_scope) under `scope`, or when
// `scope` is empty under the path's {game} ("*", the whole site, for routes without one). Only for
// handlers whose answer depends on nothing but the request target, Host, credentials and the
// stored data of that scope (no clock, no other header); see server/http/response_cache.h.
http::Handler cached(http::Handler h, std::string scope = "");

// The public view of a state document: the game seed (it would let anyone predict the dice) and
// each player's secret, e-mail address and engine-private data removed; and while the game runs
// (`game_over` false) each area's standing defences too, which only its owner and the GM know
// until the end: the defence mode (where the ambushes are), the retreat destination, the ambush
// target, and what the engine keeps placed there ("support": Virtuti Militari DEFEND cards and
// air tokens).
Json public_state(Json st, bool game_over);
// Whether a show_game document (it has "status") is of a finished game.
bool game_over(const Json& shown);

// The token in the request's player cookie (kPlayerCookie), URL-decoded; "" when none.
std::string cookie_token(const http::Request& req);
// The game and player owning the page cookie's token (kPlayerCookie), or nullopt when there is
// no cookie, it is oversized or the token is unknown (or an expired session). Not throttled (a
// cookie is not a guess).
std::optional<std::pair<std::string, std::string>> cookie_owner(const http::Request& req,
                                                                WebContext& ctx);

// The GM check of a request through the guessing limiter (auth_guard.h): when a GM token is
// configured and a GM cookie or bearer token is presented, the attempt is checked under
// `channel` with the GM account key first and recorded after. Returns the limiter's refusal
// (429; JSON when `json`) with `gm` untouched, else nullopt with `gm` = whether it is the GM's.
std::optional<http::Response> check_gm(const http::Request& req, WebContext& ctx,
                                       const char* channel, bool json, bool& gm);

// Who is calling the JSON API about one game.
struct ApiCaller {
  bool gm = false;
  std::string player;                    // upper-case, when a token or code+secret named one
  std::optional<http::Response> denied;  // set when credentials were given but are wrong
};

// Decodes base64 (standard or URL-safe alphabet); padding and any other byte are skipped.
std::string base64_decode(const std::string& in);

// The player part of identifying an API caller for `game`: the link token `token` (from
// "Authorization: Bearer", when not empty), else HTTP Basic <code>:<secret>. Guessing is limited
// (auth_guard.h): a wrong token is recorded under `token_keys` (the caller has already checked
// them), a code+secret under the player's account key. Returns false when neither credential was
// presented (`c` untouched); true otherwise, with c.player set or c.denied the refusal (401 wrong
// credentials, 403 a token of another game, 429 limited, 500 a store failure).
bool identify_player(const http::Request& req, WebContext& ctx, const std::string& game,
                     const std::string& token, const ThrottleKeys& token_keys, ApiCaller& c);

}  // namespace adj::web::route
