#include "server/http/handler_call.h"

#include <spdlog/spdlog.h>

#include "base/log_escape.h"

namespace adj::http {

std::string busy_response(const std::string& message, std::chrono::seconds retry_after) {
  const std::string body = message + "\n";
  return "HTTP/1.1 503 Service Unavailable\r\nServer: adjutant\r\n"
         "Content-Type: text/plain; charset=utf-8\r\nX-Content-Type-Options: nosniff\r\n"
         "Retry-After: " +
         std::to_string(retry_after.count()) +
         "\r\nContent-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" +
         body;
}

HandlerResult invoke(const Router& router, const Request& req, std::chrono::seconds retry_after) {
  HandlerResult out;
  const bool api = req.path.rfind("/api/", 0) == 0;
  try {
    out.response = router.route(req, &out.route);
  } catch (const ServiceUnavailable& e) {
    spdlog::error("event=service_unavailable route=\"{}\" what=\"{}\"", log_escape(out.route),
                  log_escape(e.what()));
    out.response = Response::error(503, "service unavailable, try again later", api);
    out.response.headers.emplace_back("Retry-After", std::to_string(retry_after.count()));
  } catch (const std::exception& e) {
    spdlog::error("event=handler_exception route=\"{}\" what=\"{}\"", log_escape(out.route),
                  log_escape(e.what()));
    out.response = Response::error(500, "internal error", api);
  } catch (...) {
    spdlog::error("event=handler_exception route=\"{}\"", log_escape(out.route));
    out.response = Response::error(500, "internal error", api);
  }
  if (out.route.empty()) out.route = "unknown";
  return out;
}

void log_request(const std::string& route, int status, double ms, const std::string& method,
                 const std::string& path, const std::string& remote, bool left_behind) {
  const auto level = status >= 500 ? spdlog::level::warn : spdlog::level::debug;
  spdlog::log(level,
              "event=request route=\"{}\" status={} ms={:.1f} method=\"{}\" path=\"{}\" "
              "remote=\"{}\"{}",
              log_escape(route), status, ms, log_escape(method), log_escape(path),
              log_escape(remote), left_behind ? " left_behind=true" : "");
}

}  // namespace adj::http
