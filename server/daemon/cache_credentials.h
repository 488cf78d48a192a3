// The page cache's judge of credential cookies (http::CacheOptions::check) for `adjutant serve`:
// which cookie values are credentials the server issued, so that made-up values share the answer
// of a request without them instead of making (and keeping) pages of their own.
//   adj_player: a link or sign-in token the store knows (Services::credential: an expired session
//               is made up);
//   adj_gm:     the GM token; another value is made up once the guessing limiter has locked the
//               client or the GM account (the page is then the anonymous one either way), and
//               until then it skips the cache, so that the handler counts the guess.
// Thread-safety: the check may be called from any thread (each uses its own WebContext store).
#pragma once

#include "server/http/response_cache.h"
#include "server/web/web_context.h"

namespace adj::daemon {

// `ctx` must outlive the check.
http::CredentialCheck issued_credential_check(web::WebContext& ctx);

}  // namespace adj::daemon
