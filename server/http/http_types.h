// Plain HTTP request/response values and the route table. No Asio or Beast types: handlers and
// the router are ordinary functions testable without sockets (the Beast "handle_request" idea);
// the transport (server/http/http_server.cc) converts to and from Beast messages. They sit with
// the routes that use them; server/http depends on them and on nothing else of server/web but
// the metrics.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "rules/core/status.h"

namespace adj::http {

struct Request {
  std::string method;  // "GET", "POST", ... (upper case)
  std::string path;    // decoded path without the query, e.g. "/games/britain-1"
  std::string target;  // the request target as sent (path and query, not decoded)
  std::map<std::string, std::string> query;    // decoded query parameters
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;
  std::string remote;  // peer address, for logs

  // Header value or "" (name in lower case).
  std::string header(const std::string& name) const;
  // Cookie value or "".
  std::string cookie(const std::string& name) const;
  // application/x-www-form-urlencoded body fields (or multipart/form-data text fields and files,
  // keyed by field name; a file field holds the file's content).
  std::map<std::string, std::string> form() const;
};

struct Response {
  int status = 200;
  std::string content_type = "text/html; charset=utf-8";
  std::vector<std::pair<std::string, std::string>> headers;  // extra headers (Set-Cookie, Location)
  std::string body;
  // Set by a handler whose answer depends only on the request's target, its credentials (Cookie,
  // Authorization) and Host, and on the stored data of this scope (a game id, or "*" for the whole
  // site; "static" never changes): the answer may then be kept and served again until the
  // scope's revision changes (response_cache.h). Only GET answers with status 200 and no
  // Set-Cookie are kept. Empty: never kept.
  std::string cache_scope;

  static Response html(std::string body, int status = 200);
  static Response json(const std::string& body, int status = 200);
  static Response text(std::string body, int status = 200);
  static Response redirect(const std::string& location, int status = 303);
  // A JSON {"error": message} for /api/ routes, an HTML error page otherwise.
  static Response error(int status, const std::string& message, bool json);
};

// Thrown by a handler (or anything it calls) when a resource the request needs is not available
// right now, e.g. the database cannot be opened because the process is out of file descriptors.
// The HTTP server answers 503 with Retry-After and logs what(); the process goes on.
struct ServiceUnavailable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Path parameters captured by a route pattern such as "/games/{game}/turns/{turn}".
using Params = std::map<std::string, std::string>;
using Handler = std::function<Response(const Request&, const Params&)>;

// (method, pattern) -> handler. Patterns are literal segments and {name} captures (one segment).
// Thread-safety: add() during setup only; route() is const and safe from many threads.
class Router {
 public:
  void add(const std::string& method, const std::string& pattern, Handler handler,
           std::string name = "");
  // The response of the matching handler; 404 when no pattern matches, 405 when the path matches
  // with another method. `route_name` receives the matched route's name (for metrics).
  Response route(const Request& req, std::string* route_name = nullptr) const;
  // Called with the path parameters of every matched route before its handler (e.g. to turn an
  // id into its canonical form). Set before serving; called on the serving threads.
  void set_params_filter(std::function<void(Params&)> filter) { filter_ = std::move(filter); }
  // Called after every matched route's handler returned (not when it threw), with the request and
  // its response (e.g. to act on what a successful change did). Set before serving; called on the
  // serving threads, so it must be thread-safe and quick.
  using Answered = std::function<void(const Request&, const Response&)>;
  void set_answered(Answered hook) { answered_ = std::move(hook); }

 private:
  struct Route {
    std::string method;
    std::vector<std::string> segments;
    Handler handler;
    std::string name;
  };
  std::vector<Route> routes_;
  std::function<void(Params&)> filter_;
  Answered answered_;
};

// The HTTP status for a failed service call: 400 invalid, 404 not found, 409 conflicts with the
// game's state, 403 permission denied, 500 anything else (a server fault, to be logged).
int http_status(const Status& s);

}  // namespace adj::http
