// Internal to the membership routes (membership_routes.cc, membership_page_routes.cc,
// membership_api_routes.cc; not for other files): the services over this thread's store, the
// GM's audit actor, a sign-up id from a path and a sign-up as JSON, and the registration of the
// HTML and API halves, which register_membership_routes calls in this order.
#pragma once

#include <cctype>
#include <cstdint>
#include <optional>
#include <string>

#include "server/app/confirmations.h"
#include "server/app/membership.h"
#include "server/http/http_types.h"
#include "server/web/web_context.h"

namespace adj::web::membership_detail {

// The audit log's actor for the GM's actions.
inline constexpr const char* kGmActor = "gm";

inline Membership membership(WebContext& ctx) { return ctx.membership(); }

inline Confirmations confirmations(WebContext& ctx) { return ctx.confirmations(); }

// The sign-up id of a path segment: up to 15 digits; nullopt otherwise.
inline std::optional<std::int64_t> signup_id(const std::string& s) {
  if (s.empty() || s.size() > 15) return std::nullopt;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
  return std::stoll(s);
}

inline Json signup_json(const Signup& s) {
  return {{"id", s.id},
          {"email", s.email},
          {"preferences", s.preferences},
          {"state", s.state},
          {"player", s.player.empty() ? Json() : Json(s.player)},
          {"channel", s.channel},
          {"created_at", s.created_at}};
}

// membership_page_routes.cc: the sign-up and confirmation pages and the player's address form;
// then the GM desk's forms.
void register_membership_page_routes(http::Router& router, WebContext& ctx);
void register_membership_gm_form_routes(http::Router& router, WebContext& ctx);
// membership_api_routes.cc: the JSON API.
void register_membership_api_routes(http::Router& router, WebContext& ctx);

}  // namespace adj::web::membership_detail
