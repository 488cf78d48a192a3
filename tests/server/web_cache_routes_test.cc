// Which answers the routes let the page cache keep (route::cached): the kept pages carry their
// game (or "*", or "static"); other spellings of a page (unknown query parameters, a zoom the map
// does not draw, another case of the game id, percent-encoding) are answered but not kept, so
// nobody can fill the cache with copies of one page; and an answer made while the guessing
// limiter refused something is not kept, since the lock ends with the clock.
#include <gtest/gtest.h>

#include "base/escape.h"
#include "tests/server/web_pages_fixture.h"

namespace adj::web {
namespace {

using http::Request;
using http::Response;
using namespace pages_test;

class WebCacheRoutes : public PagesFixture {
 protected:
  Response get_target(const std::string& target, const std::string& cookies = "") {
    const std::size_t q = target.find('?');
    Request r = request("GET", url_decode(target.substr(0, q), false), cookies);
    r.target = target;
    if (q != std::string::npos) {
      std::string rest = target.substr(q + 1);
      while (!rest.empty()) {
        const std::size_t amp = rest.find('&');
        const std::string pair = rest.substr(0, amp);
        const std::size_t eq = pair.find('=');
        r.query[pair.substr(0, eq)] = eq == std::string::npos ? "" : pair.substr(eq + 1);
        rest = amp == std::string::npos ? "" : rest.substr(amp + 1);
      }
    }
    return router_->route(r);
  }
};

TEST_F(WebCacheRoutes, KeptPagesCarryTheirScope) {
  create_britain();
  EXPECT_EQ(get_target("/").cache_scope, "*");
  EXPECT_EQ(get_target("/games/britain-1").cache_scope, "britain-1");
  EXPECT_EQ(get_target("/games/britain-1?zoom=2").cache_scope, "britain-1");
  EXPECT_EQ(get_target("/games/britain-1/map.svg").cache_scope, "britain-1");
  EXPECT_EQ(get_target("/games/britain-1/press").cache_scope, "britain-1");
  EXPECT_EQ(get_target("/api/games/britain-1").cache_scope, "britain-1");
  EXPECT_EQ(get_target("/static/adjutant.css").cache_scope, "static");
  // Not kept: forms, the GM desk, errors.
  EXPECT_EQ(get_target("/games/britain-1/login").cache_scope, "");
  EXPECT_EQ(get_target("/gm").cache_scope, "");
  Response missing = get_target("/games/no-such-game");
  EXPECT_EQ(missing.status, 404);
}

TEST_F(WebCacheRoutes, OtherSpellingsOfAPageAreAnsweredButNotKept) {
  create_britain();
  for (const char* target :
       {"/games/britain-1?x=1", "/games/britain-1?zoom=3", "/games/britain-1?zoom=2&a=b",
        "/games/BRITAIN-1", "/games/britain%2D1", "/api/games/britain-1?turn=01"}) {
    Response r = get_target(target);
    EXPECT_EQ(r.status, 200) << target;
    EXPECT_EQ(r.cache_scope, "") << target;
  }
}

TEST_F(WebCacheRoutes, AnAnswerMadeWhileTheLimiterRefusesIsNotKept) {
  create_britain();
  const std::string gm = std::string(kGmCookie) + "=" + kGmToken;
  Response before = get_target("/games/britain-1", gm);
  EXPECT_EQ(before.cache_scope, "britain-1");
  // Wrong GM cookies from this address until it is locked.
  for (int i = 0; i < 10; ++i)
    get_target("/games/britain-1", std::string(kGmCookie) + "=wrong" + std::to_string(i));
  Response locked = get_target("/games/britain-1", gm);
  EXPECT_EQ(locked.status, 200);
  EXPECT_EQ(locked.body.find("GM desk"), std::string::npos);
  EXPECT_EQ(locked.cache_scope, "");
}

}  // namespace
}  // namespace adj::web
