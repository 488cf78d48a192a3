#include "server/web/web_session.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <random>

namespace adj::web {

std::string cookie_header(const std::string& name, const std::string& value,
                          const std::string& path, bool secure, long max_age_seconds) {
  std::string c = name + "=" + value + "; Path=" + path + "; HttpOnly; SameSite=Lax";
  if (secure) c += "; Secure";
  if (max_age_seconds >= 0) c += "; Max-Age=" + std::to_string(max_age_seconds);
  return c;
}

std::string random_token() {
  std::random_device rd;
  std::string out;
  for (int i = 0; i < 4; ++i) {
    char b[9];
    std::snprintf(b, sizeof b, "%08x", static_cast<unsigned>(rd()));
    out += b;
  }
  return out;
}

bool is_csrf_token(const std::string& s) {
  if (s.size() != 32) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

bool constant_time_equal(const std::string& a, const std::string& b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  const std::size_t n = std::max(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i) {
    const unsigned char x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0;
    const unsigned char y = i < b.size() ? static_cast<unsigned char>(b[i]) : 0;
    diff |= static_cast<unsigned char>(x ^ y);
  }
  return diff == 0;
}

std::string url_host(const std::string& url) {
  const std::size_t scheme = url.find("://");
  if (scheme == std::string::npos) return "";
  const std::size_t start = scheme + 3;
  const std::size_t end = url.find_first_of("/?#", start);
  std::string host = url.substr(start, end == std::string::npos ? std::string::npos : end - start);
  const std::size_t at = host.rfind('@');
  if (at != std::string::npos) host.erase(0, at + 1);
  for (char& c : host) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return host;
}

bool same_origin(const http::Request& req, const std::string& base_url) {
  std::string source = req.header("origin");
  if (source.empty() || source == "null") {
    if (source == "null") return false;  // opaque origin: sandboxed or privacy-redirected
    source = req.header("referer");
    if (source.empty()) return true;  // not sent by a browser form; the token layer still holds
  }
  const std::string host = url_host(source);
  if (host.empty()) return false;
  std::string own = req.header("host");
  for (char& c : own) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return host == own || host == url_host(base_url);
}

bool csrf_ok(const http::Request& req, const std::map<std::string, std::string>& form,
             const std::string& base_url) {
  const std::string cookie = req.cookie(kCsrfCookie);
  auto it = form.find(kCsrfField);
  if (cookie.empty() || it == form.end() || !constant_time_equal(cookie, it->second)) return false;
  return same_origin(req, base_url);
}

bool api_csrf_ok(const http::Request& req, const std::string& base_url) {
  const std::string cookie = req.cookie(kCsrfCookie);
  if (cookie.empty() || !constant_time_equal(cookie, req.header(kCsrfHeader))) return false;
  return same_origin(req, base_url);
}

CsrfToken csrf_token(const http::Request& req) {
  const std::string have = req.cookie(kCsrfCookie);
  if (is_csrf_token(have)) return {have, false};
  return {random_token(), true};
}

void set_csrf_cookie(http::Response& resp, const CsrfToken& token, bool secure) {
  if (token.fresh)
    resp.headers.emplace_back("Set-Cookie", cookie_header(kCsrfCookie, token.value, "/", secure));
}

}  // namespace adj::web
