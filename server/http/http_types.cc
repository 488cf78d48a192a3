#include "server/http/http_types.h"

#include "base/escape.h"

namespace adj::http {

namespace {

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : path) {
    if (c == '/') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

std::map<std::string, std::string> parse_urlencoded(const std::string& body) {
  std::map<std::string, std::string> out;
  std::size_t pos = 0;
  while (pos <= body.size()) {
    std::size_t amp = body.find('&', pos);
    if (amp == std::string::npos) amp = body.size();
    const std::string pair = body.substr(pos, amp - pos);
    if (!pair.empty()) {
      const std::size_t eq = pair.find('=');
      const std::string k = url_decode(pair.substr(0, eq), true);
      out[k] = eq == std::string::npos ? "" : url_decode(pair.substr(eq + 1), true);
    }
    pos = amp + 1;
  }
  return out;
}

// Minimal multipart/form-data: each part's name="..." -> its content.
std::map<std::string, std::string> parse_multipart(const std::string& body,
                                                   const std::string& boundary) {
  std::map<std::string, std::string> out;
  const std::string delim = "--" + boundary;
  std::size_t pos = body.find(delim);
  while (pos != std::string::npos) {
    pos += delim.size();
    if (body.compare(pos, 2, "--") == 0) break;
    const std::size_t head_end = body.find("\r\n\r\n", pos);
    if (head_end == std::string::npos) break;
    const std::string head = body.substr(pos, head_end - pos);
    const std::size_t next = body.find("\r\n" + delim, head_end + 4);
    if (next == std::string::npos) break;
    const std::size_t n = head.find("name=\"");
    if (n != std::string::npos) {
      const std::size_t e = head.find('"', n + 6);
      out[head.substr(n + 6, e - n - 6)] = body.substr(head_end + 4, next - head_end - 4);
    }
    pos = next + 2;
  }
  return out;
}

}  // namespace

std::string Request::header(const std::string& name) const {
  auto it = headers.find(name);
  return it == headers.end() ? "" : it->second;
}

std::string Request::cookie(const std::string& name) const {
  const std::string all = header("cookie");
  std::size_t pos = 0;
  while (pos < all.size()) {
    std::size_t end = all.find(';', pos);
    if (end == std::string::npos) end = all.size();
    std::string item = all.substr(pos, end - pos);
    while (!item.empty() && item.front() == ' ') item.erase(0, 1);
    const std::size_t eq = item.find('=');
    if (eq != std::string::npos && item.substr(0, eq) == name) return item.substr(eq + 1);
    pos = end + 1;
  }
  return "";
}

std::map<std::string, std::string> Request::form() const {
  const std::string type = header("content-type");
  if (type.rfind("multipart/form-data", 0) == 0) {
    const std::size_t b = type.find("boundary=");
    if (b == std::string::npos) return {};
    std::string boundary = type.substr(b + 9);
    if (!boundary.empty() && boundary.front() == '"')
      boundary = boundary.substr(1, boundary.find('"', 1) - 1);
    return parse_multipart(body, boundary);
  }
  return parse_urlencoded(body);
}

Response Response::html(std::string body, int status) {
  Response r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

Response Response::json(const std::string& body, int status) {
  Response r;
  r.status = status;
  r.content_type = "application/json";
  r.body = body;
  return r;
}

Response Response::text(std::string body, int status) {
  Response r;
  r.status = status;
  r.content_type = "text/plain; charset=utf-8";
  r.body = std::move(body);
  return r;
}

Response Response::redirect(const std::string& location, int status) {
  Response r;
  r.status = status;
  r.headers.emplace_back("Location", location);
  r.body = "";
  return r;
}

Response Response::error(int status, const std::string& message, bool json_body) {
  if (json_body) {
    std::string escaped;
    for (char c : message) {
      if (c == '"' || c == '\\') escaped += '\\';
      if (static_cast<unsigned char>(c) < 0x20) continue;
      escaped += c;
    }
    return Response::json("{\"error\": \"" + escaped + "\"}", status);
  }
  return Response::html(
      "<!doctype html><html><head><meta charset=\"utf-8\"><meta "
      "name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
      "<title>Error " +
          std::to_string(status) + "</title></head><body><main><h1>Error " +
          std::to_string(status) + "</h1><p>" + html_escape(message) +
          "</p><p><a href=\"/\">Adjutant</a></p></main></body></html>",
      status);
}

void Router::add(const std::string& method, const std::string& pattern, Handler handler,
                 std::string name) {
  routes_.push_back({method, split_path(pattern), std::move(handler),
                     name.empty() ? method + " " + pattern : std::move(name)});
}

Response Router::route(const Request& req, std::string* route_name) const {
  const auto segs = split_path(req.path);
  bool path_matched = false;
  for (const auto& r : routes_) {
    if (r.segments.size() != segs.size()) continue;
    Params params;
    bool ok = true;
    for (std::size_t i = 0; i < segs.size() && ok; ++i) {
      const std::string& p = r.segments[i];
      if (p.size() > 2 && p.front() == '{' && p.back() == '}')
        params[p.substr(1, p.size() - 2)] = segs[i];
      else
        ok = p == segs[i];
    }
    if (!ok) continue;
    path_matched = true;
    if (r.method != req.method && !(r.method == "GET" && req.method == "HEAD")) continue;
    if (route_name) *route_name = r.name;
    if (filter_) filter_(params);
    Response response = r.handler(req, params);
    if (answered_) answered_(req, response);
    return response;
  }
  const bool api = req.path.rfind("/api/", 0) == 0;
  if (route_name) *route_name = path_matched ? "method_not_allowed" : "not_found";
  return path_matched ? Response::error(405, "method " + req.method + " not allowed here", api)
                      : Response::error(404, "no page at " + req.path, api);
}

int http_status(const Status& s) {
  switch (s.code()) {
    case StatusCode::kInvalidArgument:
      return 400;
    case StatusCode::kNotFound:
      return 404;
    case StatusCode::kAlreadyExists:
    case StatusCode::kFailedPrecondition:
    case StatusCode::kUnavailable:
      return 409;
    case StatusCode::kPermissionDenied:
      return 403;
    default:
      return 500;
  }
}

}  // namespace adj::http
