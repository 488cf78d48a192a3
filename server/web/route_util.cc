#include "server/web/route_util.h"

#include <spdlog/spdlog.h>

#include "server/app/log_escape.h"
#include "server/web/page_render.h"
#include "server/web/web_session.h"

namespace adj::web::route {

using http::Response;

std::string param(const http::Params& p, const std::string& name) {
  auto it = p.find(name);
  return it == p.end() ? std::string() : it->second;
}

std::string field(const std::map<std::string, std::string>& form, const std::string& name) {
  auto it = form.find(name);
  return it == form.end() ? std::string() : it->second;
}

std::string game_path(const std::string& game) { return "/games/" + http::url_encode(game); }

std::string gm_path(const std::string& game) { return "/gm/games/" + http::url_encode(game); }

bool secure(const WebContext& ctx) { return ctx.config().base_url.rfind("https://", 0) == 0; }

void harden(Response& r, bool private_page) {
  r.headers.emplace_back("Content-Security-Policy",
                         "default-src 'none'; style-src 'self'; img-src 'self' data:; "
                         "form-action 'self'; frame-ancestors 'none'; base-uri 'none'");
  r.headers.emplace_back("X-Content-Type-Options", "nosniff");
  r.headers.emplace_back("Referrer-Policy", "same-origin");
  r.headers.emplace_back("Cache-Control", private_page ? "no-store" : "no-cache");
}

Response html_page(std::string html, int status, bool private_page) {
  Response r = Response::html(std::move(html), status);
  harden(r, private_page);
  return r;
}

Response error_page(int status, const std::string& message, bool private_page) {
  try {
    return html_page(render_error_page(status, message), status, private_page);
  } catch (const std::exception&) {
    return Response::error(status, message, false);
  }
}

Response status_page(const Status& s, bool private_page, const char* event) {
  const int code = http::http_status(s);
  if (code == 500) {
    spdlog::error("event={} error=\"{}\"", event, log_escape(s.to_string()));
    return error_page(500, kServerFailed, private_page);
  }
  return error_page(code, s.message(), private_page);
}

Response csrf_failed(bool private_page) {
  return error_page(403,
                    "This form has expired or was sent from another site. Reload the page and "
                    "try again.",
                    private_page);
}

Response hardened_redirect(const std::string& to) {
  Response r = Response::redirect(to);
  harden(r, true);
  return r;
}

Response no_store_redirect(const std::string& to) {
  Response r = Response::redirect(to);
  r.headers.emplace_back("Cache-Control", "no-store");
  return r;
}

std::string json_text(const Json& j) {
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

Response json_response(const Json& j, int status, bool no_store) {
  Response r = Response::json(json_text(j), status);
  if (no_store) r.headers.emplace_back("Cache-Control", "no-store");
  return r;
}

Response json_error(int status, const std::string& message, bool no_store) {
  return json_response({{"error", message}}, status, no_store);
}

Response api_fail(const Status& s, const char* event, bool no_store) {
  const int code = http::http_status(s);
  if (code == 500) {
    spdlog::error("event={} error=\"{}\"", event, log_escape(s.to_string()));
    return json_error(500, "internal error", no_store);
  }
  return json_error(code, s.message(), no_store);
}

http::Handler guarded(Body body, GuardStyle style) {
  return
      [body = std::move(body), style](const http::Request& req, const http::Params& p) -> Response {
        try {
          return body(req, p);
        } catch (const http::ServiceUnavailable&) {
          throw;  // the server answers 503 with Retry-After
        } catch (const std::exception& e) {
          if (style.log_method)
            spdlog::error("event={} method=\"{}\" path=\"{}\" error=\"{}\"", style.event,
                          log_escape(req.method), log_escape(req.path), log_escape(e.what()));
          else
            spdlog::error("event={} path=\"{}\" error=\"{}\"", style.event, log_escape(req.path),
                          log_escape(e.what()));
        } catch (...) {
          if (style.log_method)
            spdlog::error("event={} method=\"{}\" path=\"{}\"", style.event, log_escape(req.method),
                          log_escape(req.path));
          else
            spdlog::error("event={} path=\"{}\"", style.event, log_escape(req.path));
        }
        if (style.json) return Response::json(R"({"error": "internal error"})", 500);
        return error_page(500, style.message, style.private_page);
      };
}

std::optional<std::pair<std::string, std::string>> cookie_owner(const http::Request& req,
                                                                WebContext& ctx) {
  const std::string token = http::url_decode(req.cookie(kPlayerCookie), false);
  if (token.empty() || token.size() > 256) return std::nullopt;
  auto owner = ctx.admin().token_owner(token);
  if (!owner.ok()) return std::nullopt;
  return *owner;
}

}  // namespace adj::web::route
