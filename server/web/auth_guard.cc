#include "server/web/auth_guard.h"

#include <spdlog/spdlog.h>

#include "server/web/routes.h"
#include "server/web/web_session.h"

namespace adj::web {

namespace {

// A key for a log line: quotes, backslashes and control characters escaped (a key holds a game
// id and player code from the request).
std::string log_escape(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c == 0x7f) {
      static const char* hex = "0123456789abcdef";
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

}  // namespace

ThrottleKeys guard_keys(const http::Request& req, const std::string& account) {
  return ThrottleKeys{req.remote.empty() ? std::string() : throttle_key_addr(req.remote), account};
}

http::Response too_many_attempts(std::int64_t retry_after, bool json) {
  const std::string message = "too many failed attempts; try again in " +
                              std::to_string(retry_after) +
                              (retry_after == 1 ? " second" : " seconds");
  http::Response r = http::Response::error(429, message, json);
  r.headers.emplace_back("Retry-After", std::to_string(retry_after));
  return r;
}

namespace {
thread_local bool refused_this_request = false;
}  // namespace

void begin_limited_request() { refused_this_request = false; }
bool limiter_refused() { return refused_this_request; }

std::optional<http::Response> guard_check(WebContext& ctx, const ThrottleKeys& keys,
                                          const std::string& channel, bool json) {
  const ThrottleVerdict v = ctx.throttle().check(keys, ctx.clock()());
  if (v.allowed) return std::nullopt;
  refused_this_request = true;
  ctx.metrics().auth_refusal(channel, "locked");
  return too_many_attempts(v.retry_after, json);
}

void guard_record(WebContext& ctx, const ThrottleKeys& keys, const std::string& channel, bool ok,
                  const std::string& reason, const std::string& game, const std::string& player) {
  const ThrottleEvent e = ctx.throttle().record(keys, ok, ctx.clock()());
  if (ok) return;
  ctx.metrics().auth_refusal(channel, reason);
  if (e.client_locked)
    spdlog::warn("event=auth_lockout key=\"{}\" channel={}", log_escape(keys.client), channel);
  if (e.account_locked) {
    spdlog::warn("event=auth_lockout key=\"{}\" channel={} lockouts={}", log_escape(keys.account),
                 channel, e.account.lockouts);
    if (!game.empty() && !player.empty()) ctx.auth_lockout(game, player, e.account);
  }
}

bool is_gm_limited(WebContext& ctx, const http::Request& req, const std::string& channel) {
  if (ctx.config().gm_token.empty()) return false;
  if (req.cookie(kGmCookie).empty() && bearer_token(req).empty()) return false;
  const ThrottleKeys keys = guard_keys(req, kThrottleKeyGm);
  if (!ctx.throttle().check(keys, ctx.clock()()).allowed) {
    refused_this_request = true;
    ctx.metrics().auth_refusal(channel, "locked");
    return false;
  }
  const bool gm = is_gm(req, ctx.config());
  guard_record(ctx, keys, channel, gm, "wrong_token");
  return gm;
}

}  // namespace adj::web
