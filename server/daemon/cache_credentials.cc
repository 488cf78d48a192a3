#include "server/daemon/cache_credentials.h"

#include <string>

#include "base/escape.h"
#include "server/web/web_session.h"
#include "storage/wait_limit.h"

namespace adj::daemon {

http::CredentialCheck issued_credential_check(web::WebContext& ctx) {
  return [&ctx](std::string_view name, std::string_view value,
                std::string_view remote) -> http::CredentialKind {
    if (name == web::kPlayerCookie) {
      const std::string token = url_decode(std::string(value), false);
      if (token.empty() || token.size() > 256) return http::CredentialKind::kMadeUp;
      try {
        // On the I/O thread: a database that is slow to answer costs the cache, not the others
        // on this thread (the handler then asks again, with the full limits).
        const ScopedWaitCap capped(std::chrono::milliseconds(500));
        auto owner = ctx.services().credential(token);
        if (owner.ok()) return http::CredentialKind::kIssued;
        return owner.status().code() == StatusCode::kNotFound ? http::CredentialKind::kMadeUp
                                                              : http::CredentialKind::kUncached;
      } catch (const http::ServiceUnavailable&) {  // no database: the handler answers 503
        return http::CredentialKind::kUncached;
      }
    }
    if (name == web::kGmCookie) {
      const std::string& real = ctx.config().gm_token;
      if (real.empty()) return http::CredentialKind::kMadeUp;  // GM pages are off
      if (web::constant_time_equal(std::string(value), real)) return http::CredentialKind::kIssued;
      const ThrottleKeys keys{
          remote.empty() ? std::string() : throttle_key_addr(std::string(remote)), kThrottleKeyGm};
      return ctx.throttle().check(keys, ctx.clock()()).allowed ? http::CredentialKind::kUncached
                                                               : http::CredentialKind::kMadeUp;
    }
    return http::CredentialKind::kIssued;  // a cookie this check does not know: keyed as sent
  };
}

}  // namespace adj::daemon
