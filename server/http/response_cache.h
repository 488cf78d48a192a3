// Answers made once and served many times: the cache between the HTTP listener and the handlers.
//
// A handler opts in per answer with Response::cache_scope. A kept answer is found again by its
// key: the request target as sent, the Host, and the credentials (the cookies that identify a
// client and the Authorization header, compared byte for byte, never hashed), so an answer made for
// one player's credentials is only ever served to a request carrying the very same credentials; and
// with credentials also the client's address, so that an address the guessing limiter has locked
// cannot learn from a kept answer what the limiter would not tell it. With a CredentialCheck only
// credentials the server issued count: a made-up cookie value is left out of the key (the request
// shares the answer of one without it), so random values neither miss nor push real readers'
// answers out.
// It stays valid while its scope's revision is the one read *before* the handler ran: the
// revisions come from the database (Store::revisions(), storage/store.h), bumped by triggers on
// every write to the scope's rows, whoever wrote, so a commit, a rollback, a deadline change or a
// submission makes every page of that game again, and nothing else.
//
// Each kept answer carries a strong ETag (a 64-bit hash of its bytes) and its gzip and brotli
// forms, compressed once when kept (each dropped when it does not save at least 10%).
// The cache holds at most `max_bytes`, least recently used answers dropped first.
//
// One make at a time per key: when a kept answer's scope changed, the first request that finds it
// out of date makes it again (find() returns Lookup::making), and until that request calls
// made() (at most kMakeClaim), others with the same key are served the answer kept before, at
// most one make's time old. A request after made() finds the new answer. So a page many read
// while its game's turn is committed is made once, not once per reader. The making request is
// given the old answer too (Lookup::stale), for a listener that would rather not wait long.
//
// Thread-safety: every member may be called from any thread (one mutex, held only for map
// operations, never while compressing or reading revisions). No Asio, no SQLite.
#pragma once

#include <chrono>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "server/http/http_types.h"

namespace adj::http {

// scope -> revision; a scope not listed is at revision 0.
using Revisions = std::unordered_map<std::string, std::int64_t>;
// The revisions as committed now, or nullptr when they cannot be read (then nothing is served
// from the cache or kept in it). Called on the listener's I/O thread: must be cheap.
using RevisionSource = std::function<std::shared_ptr<const Revisions>()>;

// What a credential cookie's value is, for the key.
enum class CredentialKind {
  kIssued,    // one the server issued: in the key, with the client's address
  kMadeUp,    // not one it issued: left out of the key (answered as a request without it)
  kUncached,  // the request is neither served from the cache nor kept (a guess to be counted)
};
// Judges a credential cookie (name, value as sent, client address). Called from any thread, on
// every lookup and keep of a request carrying the cookie: must be thread-safe and cheap.
using CredentialCheck = std::function<CredentialKind(std::string_view name, std::string_view value,
                                                     std::string_view remote)>;

struct CacheOptions {
  std::size_t max_bytes = 64u << 20;        // all forms of all kept answers
  std::size_t max_answer_bytes = 8u << 20;  // a bigger answer is served but not kept
  bool brotli = true;
  // 0..11. On the 46 KB game page: quality 5 takes 1.3 ms (6.7 KB), 9 takes 9 ms (6.6 KB), 11
  // takes 52 ms (5.9 KB); gzip level 9 takes 0.8 ms (7.2 KB).
  int brotli_quality = 5;
  // The cookies that identify a client (the only ones an answer may depend on); empty: the whole
  // Cookie header is part of the key.
  std::vector<std::string> credential_cookies;
  // When set, each credential cookie is judged by it (CredentialKind), and the companion cookies
  // (values a page may embed, e.g. the CSRF token in its forms) are keyed only beside an issued
  // credential; an answer whose body holds a value left out of its key is not kept. When unset,
  // credential and companion cookies are all keyed as sent.
  CredentialCheck check;
  std::vector<std::string> companion_cookies;
};

enum class Encoding { kIdentity, kGzip, kBrotli };

// One kept answer. Immutable once made; shared by the requests that serve it.
struct CachedAnswer {
  std::string route;  // for metrics
  std::string content_type;
  std::vector<std::pair<std::string, std::string>> headers;  // the handler's (never Set-Cookie)
  std::string scope;
  std::int64_t revision = 0;
  std::string tag;  // 16 hex digits; the ETag is "<tag>", "<tag>-gz" or "<tag>-br"
  std::string identity, gzip, brotli;  // gzip / brotli empty when not worth it
  bool credentials = false;            // made for a request carrying Cookie or Authorization
  // The whole response head (status line to the blank line) of a 200 for each form, for
  // HTTP/1.1 keep-alive GETs, made once by the cache's head writer; empty when there is none.
  std::string head[3];

  std::size_t bytes() const;
  const std::string& body(Encoding e) const;
  std::string etag(Encoding e) const;  // quoted
};

// The best form of `answer` that Accept-Encoding allows (brotli, then gzip; "q=0" refuses one).
Encoding choose_encoding(const std::string& accept_encoding, const CachedAnswer& answer);

// True when an If-None-Match value lists `etag` (weak comparison, RFC 9110 13.1.2) or is "*".
bool etag_matches(const std::string& if_none_match, const std::string& etag);

// 16 hex digits of FNV-1a 64 over `bytes` (an ETag, not a secret).
std::string content_tag(const std::string& bytes);

class ResponseCache {
 public:
  explicit ResponseCache(RevisionSource source, CacheOptions options = {});

  // How long one request's claim to make an answer again holds (a handler that never ends).
  static constexpr std::chrono::seconds kMakeClaim{30};

  struct Lookup {
    std::shared_ptr<const CachedAnswer> answer;  // a valid kept answer, or null
    std::shared_ptr<const Revisions> revisions;  // read now; pass to keep()
    // Non-empty: this request makes the out-of-date answer of this key again and must call
    // made(making) after its handler, kept or not.
    std::string making;
    // With `making`: the answer kept before, out of date, which the caller may serve instead of
    // waiting for the make (the make still runs and keeps its answer).
    std::shared_ptr<const CachedAnswer> stale;
  };
  // For GET and HEAD requests (others: an empty Lookup).
  Lookup find(const Request& req);
  // The same by key (see key()), for a caller that has not built a Request.
  Lookup find(const std::string& key);

  // Makes CachedAnswer::head for a form of a new answer (Encoding, then the answer with its
  // other fields set). Set before serving; called from any thread.
  using HeadWriter = std::function<std::string(const CachedAnswer&, Encoding)>;
  void set_head_writer(HeadWriter writer) { head_writer_ = std::move(writer); }

  // After the handler ran for `req`: keeps `resp` if it may be kept (GET, 200, a cache_scope, no
  // Set-Cookie, not too big, revisions known) and returns the kept answer; else null. `revisions`
  // must be what find() returned before the handler ran.
  std::shared_ptr<const CachedAnswer> keep(const Request& req, const Response& resp,
                                           const std::string& route,
                                           const std::shared_ptr<const Revisions>& revisions);

  // Ends the claim find() gave in Lookup::making. `stale` is that Lookup's stale answer and
  // `status` the make's: when the make kept nothing in its place (an answer keep() refused: not
  // 200, too big, a Set-Cookie, a HEAD) and was not a server error, the out-of-date answer is
  // dropped, so that no reader is served it again. After a 5xx it stays, to be served out of date
  // while the next make is tried.
  void made(const std::string& key, const std::shared_ptr<const CachedAnswer>& stale = nullptr,
            int status = 200);
  // A Lookup with `stale` is not counted by find(); its caller counts it once it knows: the old
  // answer served while the key is being made (Stats::stale), or the request waited for the make
  // (Stats::misses). So every counter only grows (they are exported as counters).
  void served_stale();
  void waited_for_make();

  // Each request find() looked up is counted once: a hit, a miss (answered by its handler) or
  // stale.
  struct Stats {
    std::uint64_t hits = 0, misses = 0, kept = 0, evicted = 0;
    std::uint64_t stale = 0;  // answers served out of date while their key was being made again
    std::size_t answers = 0, bytes = 0;
  };
  Stats stats() const;

  // The key of a request: target, Host, the credential cookies (in the order sent; with a check,
  // the issued ones and then their companions), Authorization, and the address when there are
  // credentials. Empty when a credential is CredentialKind::kUncached (find() then finds
  // nothing and counts nothing, keep() keeps nothing).
  std::string key(const Request& req) const;
  std::string key(std::string_view target, std::string_view host, std::string_view cookie,
                  std::string_view authorization, std::string_view remote) const;

 private:
  struct Slot {
    std::string key;
    std::shared_ptr<const CachedAnswer> answer;
  };
  // The credential cookies of a Cookie header for the key (all of it when none are configured);
  // `dropped` gets the values left out (made up, or companions without an issued credential);
  // `uncached` is set for a kUncached credential. key(): `with_credentials` says whether the key
  // holds any.
  std::string credential_cookies(std::string_view header, std::string_view remote,
                                 std::vector<std::string>* dropped, bool* uncached) const;
  std::string key(std::string_view target, std::string_view host, std::string_view cookie,
                  std::string_view authorization, std::string_view remote,
                  std::vector<std::string>* dropped, bool* with_credentials) const;

  const RevisionSource source_;
  HeadWriter head_writer_;
  const CacheOptions options_;
  mutable std::mutex mu_;
  std::list<Slot> lru_;  // most recently used first
  std::unordered_map<std::string, std::list<Slot>::iterator> index_;
  // Keys being made again (Lookup::making), with when the claim was given.
  std::unordered_map<std::string, std::chrono::steady_clock::time_point> making_;
  Stats stats_;
};

}  // namespace adj::http
