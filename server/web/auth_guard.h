// The HTTP channels' side of the guessing limiter (server/app/auth_throttle.h): every place a
// secret or token is checked calls guard_check() just before and guard_record() just after.
//
//   if (auto r = guard_check(ctx, req, keys, "api_basic", true)) return *r;   // 429
//   ... the check ...
//   guard_record(ctx, keys, "api_basic", ok, "wrong_secret");
//
// The client key is the request's client address (http::Request::remote: the peer, or the
// address a trusted proxy forwards; an IPv6 address by its /64). Only the client's own lock
// refuses; a locked account key makes a wrong guess lock its client at once (auth_throttle.h).
// A refused attempt is answered 429 with "Retry-After: <seconds>" and says only that there
// were too many failed attempts, never whether this secret would have been right.
// Metrics: adjutant_auth_refusals_total{channel, reason} counts every failed check and every
// refusal by the limiter (reason "locked"); /metrics also shows adjutant_auth_locked_keys.
// Thread-safety: as WebContext (any thread).
#pragma once

#include <optional>
#include <string>

#include "server/http/http_types.h"
#include "server/web/web_context.h"

namespace adj::web {

// The keys of an attempt from `req` on `account` (throttle_key_player(...), kThrottleKeyGm or "").
ThrottleKeys guard_keys(const http::Request& req, const std::string& account);

// Null when the attempt may go ahead; else the 429 to answer (JSON {"error"} when `json`, an
// HTML page otherwise), counted as a refusal {channel, "locked"}.
std::optional<http::Response> guard_check(WebContext& ctx, const ThrottleKeys& keys,
                                          const std::string& channel, bool json);

// Records the result of a check. A failure is counted under {channel, reason}; when it starts a
// new lockout of a player's key (`game` and `player` given), ctx.auth_lockout is called so the
// player hears of it.
void guard_record(WebContext& ctx, const ThrottleKeys& keys, const std::string& channel, bool ok,
                  const std::string& reason, const std::string& game = "",
                  const std::string& player = "");

// is_gm (routes.h) through the limiter, for pages that show more to the GM without answering a
// refusal: false when no GM token is configured or presented, or the client's address is locked
// (then the token is not compared); a token presented is recorded as right or wrong (key "gm").
bool is_gm_limited(WebContext& ctx, const http::Request& req, const std::string& channel);

// Whether the limiter refused something (a locked key) since begin_limited_request() on this
// thread: an answer made so depends on the lock, which ends with the clock, so route::cached does
// not keep it. Handlers run one request at a time per thread.
void begin_limited_request();
bool limiter_refused();

// The answer for a refused attempt: 429, Retry-After, a clear message.
http::Response too_many_attempts(std::int64_t retry_after, bool json);

}  // namespace adj::web
