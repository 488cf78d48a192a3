// The parsed Beast request read as the router's view of it (beast_request.h): the Request
// (convert_request) and the client's address behind trusted proxies (client_of). Pure functions
// but for client_of's one warning; thread-safe.
#include "server/http/beast_request.h"

#include <spdlog/spdlog.h>

#include <atomic>
#include <string>
#include <string_view>

#include "base/ascii.h"
#include "base/escape.h"
#include "base/log_escape.h"

namespace adj::http {

namespace {

namespace bhttp = boost::beast::http;

// Every value of the field `f` in `msg`, joined with ", " ("" when absent).
std::string joined(const bhttp::request<bhttp::string_body>& msg, std::string_view name) {
  std::string out;
  for (auto [it, end] = msg.equal_range(name); it != end; ++it)
    out += (out.empty() ? "" : ", ") + std::string(it->value());
  return out;
}

}  // namespace

std::string client_of(const std::string& peer, const bhttp::request<bhttp::string_body>& msg,
                      const TrustedProxies& trusted) {
  if (trusted.empty()) {
    static std::atomic<bool> warned{false};
    if (!warned.load(std::memory_order_relaxed) && msg.find("X-Forwarded-For") != msg.end() &&
        is_private_or_loopback(peer) && !warned.exchange(true))
      spdlog::warn(
          "event=untrusted_forwarding peer=\"{}\" reason=\"requests from a proxy carry "
          "X-Forwarded-For but no --trusted-proxy is set: every client shares the proxy's "
          "address (and its guessing lock); start serve with --trusted-proxy {}\"",
          log_escape(peer), log_escape(peer));
    return peer;
  }
  return client_address(peer, joined(msg, "X-Forwarded-For"), joined(msg, "Forwarded"), trusted);
}

bool convert_request(bhttp::request<bhttp::string_body>& msg, const std::string& remote,
                     Request& req) {
  const std::string_view target = msg.target();
  if (target.empty() || target.front() != '/') return false;
  req.method = std::string(msg.method_string());
  req.target = std::string(target);
  const std::size_t q = target.find('?');
  req.path = url_decode(std::string(target.substr(0, q)), false);
  if (req.path.find('\0') != std::string::npos) return false;
  if (q != std::string_view::npos) {
    const std::string query(target.substr(q + 1));
    std::size_t pos = 0;
    while (pos <= query.size()) {
      std::size_t amp = query.find('&', pos);
      if (amp == std::string::npos) amp = query.size();
      const std::string pair = query.substr(pos, amp - pos);
      if (!pair.empty()) {
        const std::size_t eq = pair.find('=');
        req.query[url_decode(pair.substr(0, eq), true)] =
            eq == std::string::npos ? "" : url_decode(pair.substr(eq + 1), true);
      }
      pos = amp + 1;
    }
  }
  for (const auto& field : msg) {
    std::string name = ascii::lower(std::string(field.name_string()));
    auto [it, inserted] = req.headers.emplace(name, std::string(field.value()));
    if (!inserted) it->second += (name == "cookie" ? "; " : ", ") + std::string(field.value());
  }
  req.body = std::move(msg.body());
  req.remote = remote;
  return true;
}

}  // namespace adj::http
