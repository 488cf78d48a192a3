// The answer cache (server/http/response_cache.h) on its own: what it keeps, that an answer made
// for one set of credentials is never found by another, that a revision change makes an answer
// stale (and that the revisions read before the handler ran are the ones that count), the byte
// budget, the compressed forms and the ETag rules.
#include "server/http/response_cache.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "server/http/compress.h"

namespace adj::http {
namespace {

// The revisions a test sets, read the way the server reads them.
struct Clock {
  Revisions now{{"*", 1}, {"britain", 5}, {"gaul", 7}};
  RevisionSource source() {
    return [this] { return std::make_shared<const Revisions>(now); };
  }
};

Request get_request(const std::string& target, const std::string& cookie = "",
                    const std::string& authorization = "") {
  Request r;
  r.method = "GET";
  r.target = target;
  r.path = target.substr(0, target.find('?'));
  r.headers["host"] = "adjutant.example";
  if (!cookie.empty()) r.headers["cookie"] = cookie;
  if (!authorization.empty()) r.headers["authorization"] = authorization;
  return r;
}

Response page(const std::string& body, const std::string& scope = "britain") {
  Response r = Response::html(body);
  r.cache_scope = scope;
  return r;
}

// Looks up, runs the "handler" on a miss and keeps its answer, as the server does.
std::shared_ptr<const CachedAnswer> serve(ResponseCache& cache, const Request& req,
                                          const Response& made, bool* hit = nullptr) {
  auto found = cache.find(req);
  if (hit) *hit = found.answer != nullptr;
  if (found.answer) return found.answer;
  auto kept = cache.keep(req, made, "test", found.revisions);
  if (!found.making.empty()) cache.made(found.making);
  return kept;
}

// find() for a request whose handler then fails: a claim to make the answer again is given back.
std::shared_ptr<const CachedAnswer> look(ResponseCache& cache, const Request& req) {
  auto found = cache.find(req);
  if (!found.making.empty()) cache.made(found.making);
  return found.answer;
}

TEST(ResponseCache, KeepsOnlyGet200AnswersThatAskForItAndSetNoCookie) {
  Clock clock;
  ResponseCache cache(clock.source());
  auto revisions = std::make_shared<const Revisions>(clock.now);
  EXPECT_EQ(cache.keep(get_request("/a"), Response::html("x"), "r", revisions),
            nullptr);  // no scope
  Response not_found = page("gone");
  not_found.status = 404;
  EXPECT_EQ(cache.keep(get_request("/b"), not_found, "r", revisions), nullptr);
  Response cookie = page("form");
  cookie.headers.emplace_back("Set-Cookie", "adj_csrf=1");
  EXPECT_EQ(cache.keep(get_request("/c"), cookie, "r", revisions), nullptr);
  Request post = get_request("/d");
  post.method = "POST";
  EXPECT_EQ(cache.keep(post, page("done"), "r", revisions), nullptr);
  EXPECT_EQ(cache.keep(get_request("/e"), page("no revisions"), "r", nullptr), nullptr);
  EXPECT_NE(cache.keep(get_request("/f"), page("kept"), "r", revisions), nullptr);
  EXPECT_EQ(cache.stats().kept, 1u);
  EXPECT_NE(look(cache, get_request("/f")), nullptr);
  EXPECT_EQ(look(cache, get_request("/a")), nullptr);
}

TEST(ResponseCache, AnAnswerMadeForOnePlayersCredentialsIsNeverServedToAnother) {
  Clock clock;
  ResponseCache cache(clock.source());
  const std::string path = "/games/britain/me/reports/1";
  serve(cache, get_request(path, "adj_player=tokenEAN"), page("report of EAN"));
  serve(cache, get_request("/api/games/britain/reports/WSX", "", "Bearer tokenWSX"),
        page("report of WSX"));
  bool hit = false;
  auto other = serve(cache, get_request(path, "adj_player=tokenMRC"), page("report of MRC"), &hit);
  EXPECT_FALSE(hit);
  EXPECT_EQ(other->identity, "report of MRC");
  auto none = serve(cache, get_request(path), page("sign in first"), &hit);
  EXPECT_FALSE(hit);
  EXPECT_EQ(none->identity, "sign in first");
  // A cookie that merely starts like another, or carries it among others, is another key.
  EXPECT_EQ(look(cache, get_request(path, "adj_player=tokenEA")), nullptr);
  EXPECT_EQ(look(cache, get_request(path, "adj_player=tokenEAN; x=1")), nullptr);
  EXPECT_EQ(look(cache, get_request("/api/games/britain/reports/WSX", "", "Bearer tokenMRC")),
            nullptr);
  // Moving a header's bytes into another header makes another key too.
  EXPECT_NE(cache.key("/a", "h", "c", "", "r"), cache.key("/a", "h", "", "c", "r"));
  // With credentials, another address is another key (the guessing limiter is per address).
  Request elsewhere = get_request(path, "adj_player=tokenEAN");
  elsewhere.remote = "192.0.2.7";
  EXPECT_EQ(cache.find(elsewhere).answer, nullptr);
  EXPECT_EQ(cache.key("/a", "h", "", "", "r1"), cache.key("/a", "h", "", "", "r2"));
  auto mine = cache.find(get_request(path, "adj_player=tokenEAN"));
  ASSERT_NE(mine.answer, nullptr);
  EXPECT_EQ(mine.answer->identity, "report of EAN");
  EXPECT_TRUE(mine.answer->credentials);
  auto wsx = cache.find(get_request("/api/games/britain/reports/WSX", "", "Bearer tokenWSX"));
  ASSERT_NE(wsx.answer, nullptr);
  EXPECT_EQ(wsx.answer->identity, "report of WSX");
}

TEST(ResponseCache, ARevisionChangeOfItsScopeMakesAnAnswerStaleAndNoOtherDoes) {
  Clock clock;
  ResponseCache cache(clock.source());
  serve(cache, get_request("/games/britain"), page("turn 1"));
  serve(cache, get_request("/"), page("index", "*"));
  serve(cache, get_request("/static/a.css"), page("css", "static"));
  clock.now["gaul"] += 1;
  EXPECT_NE(look(cache, get_request("/games/britain")), nullptr);
  clock.now["britain"] += 1;
  clock.now["*"] += 1;
  EXPECT_EQ(look(cache, get_request("/games/britain")), nullptr);
  EXPECT_EQ(look(cache, get_request("/")), nullptr);
  EXPECT_NE(look(cache, get_request("/static/a.css")), nullptr);  // "static" stays at 0
  bool hit = true;
  auto again = serve(cache, get_request("/games/britain"), page("turn 2"), &hit);
  EXPECT_FALSE(hit);
  EXPECT_EQ(again->identity, "turn 2");
  EXPECT_EQ(look(cache, get_request("/games/britain"))->identity, "turn 2");
}

// While one request makes an out-of-date answer again, others with its key get the answer kept
// before; once it is made, the new one. A claim never given back lapses after kMakeClaim.
TEST(ResponseCache, AnAnswerBeingMadeAgainIsServedAsItWasToTheOthers) {
  Clock clock;
  ResponseCache cache(clock.source());
  serve(cache, get_request("/games/britain"), page("turn 1"));
  clock.now["britain"] += 1;
  auto first = cache.find(get_request("/games/britain"));
  EXPECT_EQ(first.answer, nullptr);
  ASSERT_FALSE(first.making.empty());
  ASSERT_NE(first.stale, nullptr);  // the maker may serve the old answer rather than wait
  EXPECT_EQ(first.stale->identity, "turn 1");
  auto other = cache.find(get_request("/games/britain"));
  ASSERT_NE(other.answer, nullptr);
  EXPECT_EQ(other.answer->identity, "turn 1");
  EXPECT_TRUE(other.making.empty());
  EXPECT_EQ(look(cache, get_request("/games/gaul")), nullptr);  // never kept: nothing to serve
  EXPECT_EQ(cache.stats().stale, 1u);
  cache.keep(get_request("/games/britain"), page("turn 2"), "r", first.revisions);
  cache.made(first.making);
  EXPECT_EQ(look(cache, get_request("/games/britain"))->identity, "turn 2");
  // A claim that is given back without a new answer (the handler failed): the next one makes it.
  clock.now["britain"] += 1;
  EXPECT_EQ(look(cache, get_request("/games/britain")), nullptr);
  EXPECT_EQ(look(cache, get_request("/games/britain")), nullptr);
}

// A make whose answer is not kept in the old one's place (the page went away: 404; too big; a
// cookie) drops the old answer, which would otherwise be served to every maker that does not
// wait; after a server error the old answer stays, served while the next make is tried; an
// answer kept anew is not dropped.
TEST(ResponseCache, AMakeThatKeepsNothingDropsTheOldAnswerUnlessItFailed) {
  Clock clock;
  ResponseCache cache(clock.source());
  const Request req = get_request("/games/britain");
  serve(cache, req, page("turn 1"));
  clock.now["britain"] += 1;
  auto failed = cache.find(req);
  ASSERT_NE(failed.stale, nullptr);
  cache.made(failed.making, failed.stale, 503);
  auto again = cache.find(req);  // still kept, out of date: made again, with the old one at hand
  ASSERT_FALSE(again.making.empty());
  ASSERT_NE(again.stale, nullptr);
  EXPECT_EQ(again.stale->identity, "turn 1");
  cache.made(again.making, again.stale, 404);
  auto gone = cache.find(req);
  EXPECT_EQ(gone.answer, nullptr);
  EXPECT_EQ(gone.stale, nullptr) << "the old answer outlived a make that answered 404";
  EXPECT_TRUE(gone.making.empty());  // nothing kept: a plain miss
  EXPECT_EQ(cache.stats().answers, 0u);

  serve(cache, req, page("turn 2"));
  clock.now["britain"] += 1;
  auto remade = cache.find(req);
  ASSERT_NE(remade.stale, nullptr);
  ASSERT_NE(cache.keep(req, page("turn 3"), "r", remade.revisions), nullptr);
  cache.made(remade.making, remade.stale, 200);
  EXPECT_EQ(look(cache, req)->identity, "turn 3");
}

// A write during the handler: the answer was kept with the revisions read before it ran, so
// the next request makes it again instead of serving what may predate the write for good.
TEST(ResponseCache, TheRevisionsReadBeforeTheHandlerRanAreTheOnesKept) {
  Clock clock;
  ResponseCache cache(clock.source());
  auto found = cache.find(get_request("/games/britain"));
  clock.now["britain"] += 1;  // committed while the page was being made
  ASSERT_NE(cache.keep(get_request("/games/britain"), page("maybe old"), "r", found.revisions),
            nullptr);
  EXPECT_EQ(look(cache, get_request("/games/britain")), nullptr);
}

TEST(ResponseCache, TheLeastRecentlyUsedAnswersGoFirstWhenTheBudgetIsFull) {
  Clock clock;
  CacheOptions options;
  options.max_bytes = 10'000;
  options.max_answer_bytes = 4'000;
  ResponseCache cache(clock.source(), options);
  const std::string body(3'000, 'x');  // compresses: gzip and brotli forms are small
  for (int i = 0; i < 6; ++i) {
    serve(cache, get_request("/p" + std::to_string(i)), page(body + std::to_string(i)));
    cache.find(get_request("/p0"));  // /p0 stays in use
  }
  const auto st = cache.stats();
  EXPECT_LE(st.bytes, options.max_bytes);
  EXPECT_GT(st.evicted, 0u);
  EXPECT_NE(look(cache, get_request("/p0")), nullptr);
  EXPECT_EQ(look(cache, get_request("/p1")), nullptr);
  EXPECT_NE(look(cache, get_request("/p5")), nullptr);
  // Too big to keep: served once, not kept.
  const std::string big(5'000, 'y');
  EXPECT_EQ(serve(cache, get_request("/big"), page(big)), nullptr);
  EXPECT_EQ(look(cache, get_request("/big")), nullptr);
}

TEST(ResponseCache, CompressedFormsAreMadeOnceAndDecodeToTheSameBytes) {
  Clock clock;
  ResponseCache cache(clock.source());
  std::string html;
  for (int i = 0; i < 400; ++i) html += "<tr><td>Area " + std::to_string(i) + "</td></tr>\n";
  auto a = serve(cache, get_request("/games/britain"), page(html));
  ASSERT_NE(a, nullptr);
  ASSERT_FALSE(a->gzip.empty());
  EXPECT_LT(a->gzip.size(), html.size() / 4);
  EXPECT_EQ(gzip_decompress(a->gzip, 1 << 20), html);
  ASSERT_FALSE(a->brotli.empty());
  EXPECT_LT(a->brotli.size(), a->gzip.size());
  // The very same object is served again: nothing is compressed per request.
  EXPECT_EQ(look(cache, get_request("/games/britain")).get(), a.get());
  // Tiny answers are not worth compressing.
  auto tiny = serve(cache, get_request("/tiny"), page("ok"));
  EXPECT_TRUE(tiny->gzip.empty());
  EXPECT_TRUE(tiny->brotli.empty());

  EXPECT_EQ(choose_encoding("gzip, deflate, br", *a), Encoding::kBrotli);
  EXPECT_EQ(choose_encoding("gzip", *a), Encoding::kGzip);
  EXPECT_EQ(choose_encoding("br;q=0, gzip", *a), Encoding::kGzip);
  EXPECT_EQ(choose_encoding("gzip;q=1, br;q=0.5", *a), Encoding::kGzip);
  EXPECT_EQ(choose_encoding("", *a), Encoding::kIdentity);
  EXPECT_EQ(choose_encoding("identity", *a), Encoding::kIdentity);
  EXPECT_EQ(choose_encoding("*", *a), Encoding::kBrotli);
  EXPECT_EQ(choose_encoding("*;q=0, gzip", *a), Encoding::kGzip);
  EXPECT_EQ(choose_encoding("gzip, br", *tiny), Encoding::kIdentity);
}

TEST(ResponseCache, EtagsNameTheBytesAndIfNoneMatchComparesWeakly) {
  Clock clock;
  ResponseCache cache(clock.source());
  std::string html(2'000, 'a');
  auto a = serve(cache, get_request("/x"), page(html));
  const std::string tag = a->etag(Encoding::kIdentity);
  EXPECT_EQ(tag, "\"" + content_tag(html) + "\"");
  EXPECT_NE(a->etag(Encoding::kGzip), tag);
  EXPECT_NE(content_tag(html), content_tag(html + "b"));
  EXPECT_TRUE(etag_matches(tag, tag));
  EXPECT_TRUE(etag_matches("\"other\", W/" + tag, tag));
  EXPECT_TRUE(etag_matches("*", tag));
  EXPECT_FALSE(etag_matches("\"other\"", tag));
  EXPECT_FALSE(etag_matches(a->etag(Encoding::kGzip), tag));
}

TEST(ResponseCache, WithoutRevisionsNothingIsServedOrKept) {
  ResponseCache cache([] { return std::shared_ptr<const Revisions>(); });
  auto found = cache.find(get_request("/games/britain"));
  EXPECT_EQ(found.revisions, nullptr);
  EXPECT_EQ(cache.keep(get_request("/games/britain"), page("x"), "r", found.revisions), nullptr);
  EXPECT_EQ(look(cache, get_request("/games/britain")), nullptr);
}

TEST(Compress, GzipRefusesWhatIsNotGzipAndBoundsWhatItInflates) {
  EXPECT_FALSE(gzip_decompress("not gzip at all", 1 << 20).has_value());
  const std::string zeros(1 << 20, '\0');
  auto gz = gzip_compress(zeros);
  ASSERT_TRUE(gz.has_value());
  EXPECT_LT(gz->size(), 4'000u);
  EXPECT_FALSE(gzip_decompress(*gz, 1 << 16).has_value());  // a bomb stops at the bound
  EXPECT_EQ(gzip_decompress(*gz, 1 << 21), zeros);
}

}  // namespace
}  // namespace adj::http

namespace adj::http {
namespace {

TEST(ResponseCache, OnlyIssuedCredentialsAreInTheKey) {
  CacheOptions options;
  options.credential_cookies = {"adj_player", "adj_gm"};
  options.companion_cookies = {"adj_csrf"};
  options.check = [](std::string_view name, std::string_view value, std::string_view) {
    if (name == "adj_gm")
      return value == "gm" ? CredentialKind::kIssued : CredentialKind::kUncached;
    return value == "issued" ? CredentialKind::kIssued : CredentialKind::kMadeUp;
  };
  ResponseCache cache([] { return std::make_shared<const Revisions>(); }, options);
  const std::string anonymous = cache.key("/g", "h", "", "", "10.0.0.1");
  // Made-up values and a CSRF cookie on its own: the key of a request without them.
  EXPECT_EQ(cache.key("/g", "h", "adj_player=r4nd0m", "", "10.0.0.9"), anonymous);
  EXPECT_EQ(cache.key("/g", "h", "adj_csrf=x", "", "10.0.0.9"), anonymous);
  EXPECT_EQ(cache.key("/g", "h", "adj_csrf=x; adj_player=r4nd0m", "", "10.0.0.9"), anonymous);
  // An issued one keys with its CSRF companion and the address.
  EXPECT_NE(cache.key("/g", "h", "adj_player=issued; adj_csrf=x", "", "a"),
            cache.key("/g", "h", "adj_player=issued; adj_csrf=y", "", "a"));
  EXPECT_NE(cache.key("/g", "h", "adj_player=issued", "", "a"), anonymous);
  // kUncached: no key, so nothing is found (nor counted) and nothing kept.
  EXPECT_EQ(cache.key("/g", "h", "adj_gm=guess", "", "a"), "");
  Request guess;
  guess.method = "GET";
  guess.target = "/g";
  guess.headers["cookie"] = "adj_gm=guess";
  Response page = Response::html(std::string(300, 'p'));
  page.cache_scope = "*";
  EXPECT_EQ(cache.find(guess).answer, nullptr);
  EXPECT_EQ(cache.keep(guess, page, "r", std::make_shared<const Revisions>()), nullptr);
  EXPECT_EQ(cache.stats().misses, 0u);
  // A page showing a value left out of its key (a form with a made-up CSRF token) is not kept.
  Request made_up = guess;
  made_up.headers["cookie"] = "adj_csrf=0123456789abcdef";
  Response form = Response::html(std::string(300, 'p') + "0123456789abcdef");
  form.cache_scope = "*";
  EXPECT_EQ(cache.keep(made_up, form, "r", std::make_shared<const Revisions>()), nullptr);
  EXPECT_NE(cache.keep(made_up, page, "r", std::make_shared<const Revisions>()), nullptr);
  EXPECT_NE(cache.find(made_up).answer, nullptr);  // found again by a request without the cookie
  Request plain = guess;
  plain.headers.erase("cookie");
  EXPECT_NE(cache.find(plain).answer, nullptr);
}

TEST(ResponseCache, OnlyTheCredentialCookiesAreInTheKey) {
  CacheOptions options;
  options.credential_cookies = {"adj_player", "adj_csrf"};
  ResponseCache cache([] { return std::make_shared<const Revisions>(); }, options);
  // Unrelated cookies: the answer of a visitor without credentials, shared, not per address.
  EXPECT_EQ(cache.key("/g", "h", "theme=dark; _ga=1", "", "10.0.0.1"),
            cache.key("/g", "h", "", "", "10.0.0.2"));
  // A credential cookie, wherever it stands among others, keys by its value and the address.
  EXPECT_EQ(cache.key("/g", "h", "theme=dark; adj_player=t1", "", "a"),
            cache.key("/g", "h", "adj_player=t1", "", "a"));
  EXPECT_NE(cache.key("/g", "h", "adj_player=t1", "", "a"),
            cache.key("/g", "h", "adj_player=t2", "", "a"));
  EXPECT_NE(cache.key("/g", "h", "adj_player=t1", "", "a"),
            cache.key("/g", "h", "adj_player=t1", "", "b"));
  // The CSRF cookie is in the key: a kept form carries the token of its own cookie.
  EXPECT_NE(cache.key("/g", "h", "adj_player=t1; adj_csrf=x", "", "a"),
            cache.key("/g", "h", "adj_player=t1; adj_csrf=y", "", "a"));
  // A name that merely contains a credential cookie's name is not one.
  EXPECT_EQ(cache.key("/g", "h", "xadj_player=t1", "", "a"), cache.key("/g", "h", "", "", "a"));
  Request with_theme;
  with_theme.method = "GET";
  with_theme.target = "/g";
  with_theme.headers["cookie"] = "theme=dark";
  Response page = Response::html(std::string(300, 'p'));
  page.cache_scope = "*";
  auto kept = cache.keep(with_theme, page, "r", std::make_shared<const Revisions>());
  ASSERT_NE(kept, nullptr);
  EXPECT_FALSE(kept->credentials);
}

}  // namespace
}  // namespace adj::http
