// Cookies and cross-site request forgery (CSRF) protection for the HTML pages.
//
// Sessions: a player's cookie "adj_player" holds their link token or a sign-in session token
// (Services::new_session_token; both stored hashed), scoped to Path=/games/<game> so a browser may
// hold one per game; the GM's cookie "adj_gm" holds the GM token (checked by is_gm). Both are
// HttpOnly and SameSite=Lax (Secure when the base URL is https), so a browser does not send them
// with a cross-site POST.
//
// CSRF, in two independent layers for every POST form:
//  1. double-submit token: a random value in cookie "adj_csrf" (set by any page showing a form),
//     which the form repeats in hidden field "csrf"; another site can neither read nor set it;
//  2. Origin check: when the request has an Origin header (browsers send it with every POST), its
//     host must be the request's Host or the host of the configured base URL; with no Origin, the
//     Referer, when present, must match the same way.
// Pure functions: no I/O besides std::random_device.
#pragma once

#include <map>
#include <string>

#include "server/http/http_types.h"

namespace adj::web {

inline constexpr const char* kPlayerCookie = "adj_player";
inline constexpr const char* kGmCookie = "adj_gm";
inline constexpr const char* kCsrfCookie = "adj_csrf";
inline constexpr const char* kCsrfField = "csrf";

// A Set-Cookie value: name=value; Path=path; HttpOnly; SameSite=Lax[; Secure][; Max-Age=n].
// max_age_seconds < 0: a session cookie; 0: deletes the cookie.
std::string cookie_header(const std::string& name, const std::string& value,
                          const std::string& path, bool secure, long max_age_seconds = -1);

// 32 hex digits from std::random_device.
std::string random_token();

// True when `s` looks like a token random_token() made (32 lower-case hex digits).
bool is_csrf_token(const std::string& s);

// Constant-time comparison of two strings (time depends on the lengths only).
bool constant_time_equal(const std::string& a, const std::string& b);

// The host[:port] part of an absolute URL ("" when there is none).
std::string url_host(const std::string& url);

// Layer 2 above: the request's Origin (or Referer) names this site.
bool same_origin(const http::Request& req, const std::string& base_url);

// Both layers: same_origin and form[csrf] equal to the adj_csrf cookie (non-empty).
bool csrf_ok(const http::Request& req, const std::map<std::string, std::string>& form,
             const std::string& base_url);

// The header that carries the CSRF token on JSON API requests (a form field cannot).
inline constexpr const char* kCsrfHeader = "x-csrf-token";

// For a JSON API request that changes state with a cookie as its only credential: same_origin,
// and header X-CSRF-Token equal to the adj_csrf cookie (non-empty). A page of another origin can
// neither read the cookie nor add the header without a CORS preflight, which is never granted.
bool api_csrf_ok(const http::Request& req, const std::string& base_url);

// The CSRF token a page should put in its forms: the request's adj_csrf cookie when valid, else a
// new one; `fresh` says whether the response must set the cookie (see set_csrf_cookie).
struct CsrfToken {
  std::string value;
  bool fresh = false;
};
CsrfToken csrf_token(const http::Request& req);
// Adds the Set-Cookie for a fresh token (nothing otherwise).
void set_csrf_cookie(http::Response& resp, const CsrfToken& token, bool secure);

}  // namespace adj::web
