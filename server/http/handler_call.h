// Calling the router for one request (HttpServer's handler pool) and what a listener answers
// around it: the handler's result, the request log line, the 503 of a full server.
//
// Internal to server/http. Thread-safe: every function may run on any thread.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "server/http/http_types.h"
#include "server/http/response_cache.h"

namespace adj::http {

// What a handler produced, carried back from the pool to the connection.
struct HandlerResult {
  Response response;
  std::string route;
  std::shared_ptr<const CachedAnswer> kept;  // the answer as the cache kept it, if it did
};

// The raw HTTP response a listener writes to a connection it will not serve.
std::string busy_response(const std::string& message, std::chrono::seconds retry_after);

// Runs `router` on `req`. A ServiceUnavailable becomes a 503 with Retry-After `retry_after`, any
// other exception a 500 (both logged); the route is "unknown" when none matched.
HandlerResult invoke(const Router& router, const Request& req, std::chrono::seconds retry_after);

// The log line of a request a handler answered: a warning for a 5xx, else debug. Method, path and
// address come from the client: escaped (a %0A cannot forge a line). `left_behind`: the answer of
// a make its reader stopped waiting for (it was served the page kept before), written when the
// answer comes, with "left_behind=true" at the end of the line.
void log_request(const std::string& route, int status, double ms, const std::string& method,
                 const std::string& path, const std::string& remote, bool left_behind = false);

}  // namespace adj::http
