// The heads of the HTTP listener's answers, shared by http_server.cc (every answer) and the answers
// kept by the response cache (made once, written as bytes). Beast types: include only from
// server/http/*.cc. Pure functions, thread-safe.
#pragma once

#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "server/http/response_cache.h"

namespace adj::http {

namespace bhttp = boost::beast::http;

// The Content-Security-Policy of HTML answers whose handler set none.
inline constexpr const char* kHtmlCsp =
    "default-src 'none'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
    "script-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

// Header names and values from handlers never carry CR or LF (response splitting).
inline std::string header_safe(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s)
    if (c != '\r' && c != '\n' && c != '\0') out += c;
  return out;
}

// The headers every answer gets: Server, the content type, nosniff, the handler's own (Set-Cookie
// may repeat; any other replaces a default), and for HTML the conservative CSP, X-Frame-Options
// and Referrer-Policy unless the handler set a CSP.
template <class Body>
void set_headers(bhttp::response<Body>& res, const std::string& content_type,
                 const std::vector<std::pair<std::string, std::string>>& headers) {
  res.set(bhttp::field::server, "adjutant");
  res.set(bhttp::field::content_type, header_safe(content_type));
  res.set("X-Content-Type-Options", "nosniff");
  bool has_csp = false;
  for (const auto& [name, value] : headers) {
    const std::string n = header_safe(name);
    if (n.empty()) continue;
    has_csp = has_csp || boost::beast::iequals(n, "content-security-policy");
    if (boost::beast::iequals(n, "set-cookie"))
      res.insert(n, header_safe(value));
    else
      res.set(n, header_safe(value));
  }
  if (!has_csp && content_type.rfind("text/html", 0) == 0) {
    res.set("Content-Security-Policy", kHtmlCsp);
    res.set("X-Frame-Options", "DENY");
    res.set("Referrer-Policy", "no-referrer");
  }
}

// The headers of a kept answer in form `encoding`: set_headers, then its ETag, Vary, the
// handler's Cache-Control or "no-cache" ("private, no-cache" when credentials made it: the ETag
// makes revalidation a 304; never kept by a shared cache), and Content-Encoding.
template <class Body>
void set_cached_headers(bhttp::response<Body>& res, const CachedAnswer& answer, Encoding encoding) {
  set_headers(res, answer.content_type, answer.headers);
  res.set(bhttp::field::etag, answer.etag(encoding));
  res.set(bhttp::field::vary,
          answer.credentials ? "Accept-Encoding, Cookie, Authorization" : "Accept-Encoding");
  bool has_cache_control = false;
  for (const auto& [name, value] : answer.headers)
    has_cache_control = has_cache_control || boost::beast::iequals(name, "cache-control");
  if (!has_cache_control)
    res.set(bhttp::field::cache_control, answer.credentials ? "private, no-cache" : "no-cache");
  if (encoding != Encoding::kIdentity)
    res.set(bhttp::field::content_encoding, encoding == Encoding::kGzip ? "gzip" : "br");
}

// The head of a 200 of a kept answer for an HTTP/1.1 keep-alive GET, as bytes.
inline std::string cached_head(const CachedAnswer& answer, Encoding encoding) {
  bhttp::response<bhttp::empty_body> res{bhttp::status::ok, 11};
  set_cached_headers(res, answer, encoding);
  res.keep_alive(true);
  res.content_length(answer.body(encoding).size());
  std::ostringstream out;
  out << res.base();
  return out.str();
}

}  // namespace adj::http
