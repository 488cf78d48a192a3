// Internal to the attendance routes (attendance_routes.cc, attendance_page_routes.cc,
// attendance_api_routes.cc; not for other files): Attendance over this thread's store, the GM's
// audit actor, the failure answers both halves log as attendance errors, the takeover the page
// and the API share, and the registration of the HTML and API halves, which
// register_attendance_routes calls in this order.
#pragma once

#include <string>
#include <variant>

#include "server/app/attendance.h"
#include "server/http/http_types.h"
#include "server/web/route_util.h"
#include "server/web/web_context.h"

namespace adj::web::attendance_detail {

// The audit log's actor for the GM's actions.
inline constexpr const char* kGmActor = "gm";

inline Attendance attendance_of(WebContext& ctx) { return ctx.attendance(); }

// The private error page for a failed service call (logged as event=attendance_error).
inline http::Response status_page(const Status& s) {
  return route::status_page(s, true, "attendance_error");
}

// The JSON answer for a failed service call (logged as event=attendance_api_error).
inline http::Response api_fail(const Status& s) {
  return route::api_fail(s, "attendance_api_error");
}

// The takeover itself for the web page (`json` false) and the API (attendance_routes.cc): through
// the guessing limiter (channel web_takeover or api_takeover, account takeover_throttle_key);
// the new secret is mailed to the new address only. The answer to give when it fails.
std::variant<TakeoverOutcome, http::Response> do_takeover(WebContext& ctx, const http::Request& req,
                                                          const std::string& game,
                                                          const std::string& kingdom,
                                                          const std::string& code,
                                                          const std::string& email, bool json);

// attendance_page_routes.cc: the standby, takeover and absence pages and the GM desk's forms.
void register_attendance_page_routes(http::Router& router, WebContext& ctx);
// attendance_api_routes.cc: the JSON API.
void register_attendance_api_routes(http::Router& router, WebContext& ctx);

}  // namespace adj::web::attendance_detail
