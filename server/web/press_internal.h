// Helpers shared by the press route files (press_routes.cc: the players' pages and API;
// press_gm_routes.cc: the GM's), and the GM desk's inbox summary (html_gm_game_routes.cc).
// Thread-safety: as the routes (per-thread stores and services); nothing here keeps state.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "server/app/press.h"
#include "server/http/http_types.h"
#include "server/web/route_util.h"
#include "server/web/web_context.h"

namespace adj::web::press_detail {

inline constexpr const char* kGmActor = "gm";
inline constexpr std::size_t kMaxFormBytes = 64 * 1024;

inline Press press_of(WebContext& ctx) { return ctx.press(); }

// Private HTML answers (route_util.h) logged as press_error.
http::Response page(std::string html, int status, bool private_page);
http::Response error_page(int status, const std::string& message);
http::Response status_page(const Status& s);
http::Response redirect(const std::string& to);
using Body = std::function<http::Response(const http::Request&, const http::Params&)>;
http::Handler guarded(Body body, bool json);

// The player signed in to `game` by the page cookie; nullopt when none.
std::optional<std::string> session_player(const http::Request& req, WebContext& ctx,
                                          const std::string& game);
// The navigation model of a press page.
Json nav(const std::string& game, const std::string& game_name, const std::string& player,
         WebContext& ctx, const http::Request& req);
// Every value of form field `name` (checkboxes repeat it) of a urlencoded body (at most 101).
std::vector<std::string> form_values(const http::Request& req, const std::string& name);
// A message as the API answers it, and the list as the pages show it (with "time").
Json message_json(const PressView& v);
Json messages_view(const std::vector<PressView>& vs);
// The caller of a press API route: the GM token, a player's link token (Bearer), HTTP Basic
// <code>:<secret>, or the player's page cookie (state changes then need api_csrf_ok); each
// check through the guessing limiter.
route::ApiCaller identify(const http::Request& req, WebContext& ctx, const std::string& game);
// The answer for a GM page asked without the GM's sign-in; nullopt when signed in.
std::optional<http::Response> gm_refused(const http::Request& req, WebContext& ctx);
// A draft from a press form (to: repeated checkboxes; body; anonymous), after the size and CSRF
// checks; else the 413/403 page. `*form` (not null) gets the form's fields.
std::variant<PressDraft, http::Response> draft_from_form(WebContext& ctx, const http::Request& req,
                                                         std::map<std::string, std::string>* form);
// A draft from an API body {"to": [codes] or "ALL", "body": text, "anonymous": false}, or the
// 400/413 answer naming what is wrong.
std::variant<PressDraft, http::Response> draft_from_json(const http::Request& req);

// The GM desk's summary of the GM inbox: {count, messages: the newest `newest` with from, time
// and the first 300 bytes of the text}; null when the stores cannot tell.
Json gm_inbox_summary(WebContext& ctx, const std::string& game, std::size_t newest = 5);

}  // namespace adj::web::press_detail
