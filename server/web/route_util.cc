#include "server/web/route_util.h"

#include "base/escape.h"
#include "server/web/auth_guard.h"

#include <spdlog/spdlog.h>

#include "base/log_escape.h"
#include "server/web/page_render.h"
#include "server/web/routes.h"
#include "server/web/web_session.h"
#include "storage/wait_limit.h"

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

std::string game_path(const std::string& game) { return "/games/" + url_encode(game); }

std::string gm_path(const std::string& game) { return "/gm/games/" + url_encode(game); }

bool secure(const WebContext& ctx) { return ctx.config().base_url.rfind("https://", 0) == 0; }

void harden(Response& r, bool private_page) {
  r.headers.emplace_back(
      "Content-Security-Policy",
      "default-src 'none'; style-src 'self'; img-src 'self' data:; script-src 'self'; "
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
  if (code == 500 && database_stalled())
    throw http::ServiceUnavailable("the database does not answer: " + s.message());
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
          Response r = body(req, p);
          // A failure while the database does not answer is the database's, for a while.
          if (r.status == 500 && database_stalled())
            throw http::ServiceUnavailable("the database does not answer");
          return r;
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
        if (database_stalled()) throw http::ServiceUnavailable("the database does not answer");
        if (style.json) return Response::json(R"({"error": "internal error"})", 500);
        return error_page(500, style.message, style.private_page);
      };
}

Json public_state(Json st, bool game_over) {
  st.erase("seed");
  if (st.contains("players") && st["players"].is_array())
    for (auto& p : st["players"]) {
      p.erase("secret");
      p.erase("email");
      p.erase("engine_state");
    }
  if (!game_over && st.contains("areas") && st["areas"].is_array())
    for (auto& a : st["areas"]) {
      if (!a.is_object()) continue;
      a.erase("mode");
      a.erase("retreat_to");
      a.erase("ambush_against");
      if (a.contains("engine_state") && a["engine_state"].is_object())
        a["engine_state"].erase("support");
    }
  return st;
}

bool game_over(const Json& shown) {
  return shown.is_object() && shown.value("status", "") == "finished";
}

std::string cookie_token(const http::Request& req) {
  return url_decode(req.cookie(kPlayerCookie), false);
}

std::optional<std::pair<std::string, std::string>> cookie_owner(const http::Request& req,
                                                                WebContext& ctx) {
  const std::string token = cookie_token(req);
  if (token.empty() || token.size() > 256) return std::nullopt;
  auto owner = ctx.admin().token_owner(token);
  if (!owner.ok()) return std::nullopt;
  return *owner;
}

std::optional<Response> check_gm(const http::Request& req, WebContext& ctx, const char* channel,
                                 bool json, bool& gm) {
  const bool presented = !ctx.config().gm_token.empty() &&
                         (!req.cookie(kGmCookie).empty() || !bearer_token(req).empty());
  const ThrottleKeys keys = guard_keys(req, kThrottleKeyGm);
  if (presented)
    if (auto r = guard_check(ctx, keys, channel, json)) return r;
  gm = is_gm(req, ctx.config());
  if (presented) guard_record(ctx, keys, channel, gm, "wrong_token");
  return std::nullopt;
}

std::string base64_decode(const std::string& in) {
  auto val = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+' || c == '-') return 62;
    if (c == '/' || c == '_') return 63;
    return -1;
  };
  std::string out;
  int bits = 0, acc = 0;
  for (char c : in) {
    const int v = val(c);
    if (v < 0) continue;  // padding, whitespace
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xff);
    }
  }
  return out;
}

bool identify_player(const http::Request& req, WebContext& ctx, const std::string& game,
                     const std::string& token, const ThrottleKeys& token_keys, ApiCaller& c) {
  if (!token.empty()) {
    auto owner = ctx.admin().token_owner(token);
    if (!owner.ok()) {
      if (owner.status().code() != StatusCode::kNotFound) {
        c.denied = api_fail(owner.status());
      } else {
        guard_record(ctx, token_keys, "api_bearer", false, "unknown_token");
        c.denied = json_error(401, "unknown token");
      }
      return true;
    }
    if (owner->first != game) {  // both the stored spelling (see register_routes)
      c.denied = json_error(403, "this token is for another game");
      return true;
    }
    c.player = upper(owner->second);
    return true;
  }
  const std::string auth = req.header("authorization");
  if (auth.size() > 6 && ascii::lower(auth.substr(0, 6)) == "basic ") {
    const std::string pair = base64_decode(auth.substr(6));
    const std::size_t colon = pair.find(':');
    if (colon == std::string::npos) {
      c.denied = json_error(401, "Basic credentials must be <player code>:<secret>");
      return true;
    }
    const std::string code = upper(pair.substr(0, colon));
    const ThrottleKeys keys = guard_keys(req, throttle_key_player(game, code));
    if (auto r = guard_check(ctx, keys, "api_basic", true)) {
      c.denied = std::move(r);
      return true;
    }
    auto ok = ctx.admin().check_secret(game, code, pair.substr(colon + 1));
    if (!ok.ok() && ok.status().code() != StatusCode::kNotFound) {
      c.denied = api_fail(ok.status());
    } else if (!ok.ok()) {  // no such game or player: counts against the address only
      guard_record(ctx, guard_keys(req, ""), "api_basic", false, "unknown_player");
      c.denied = json_error(401, "wrong player code or secret");
    } else if (!*ok) {
      guard_record(ctx, keys, "api_basic", false, "wrong_secret", game, code);
      c.denied = json_error(401, "wrong player code or secret");
    } else {
      guard_record(ctx, keys, "api_basic", true, "");
      c.player = code;
    }
    return true;
  }
  return false;
}

namespace {

// True when the request may name a kept answer: every query parameter is one the kept pages read,
// with a value they accept, the raw target has no percent-encoding, and a {game} appears in the
// path as its stored id. Other spellings of the same page are answered but not kept, so that
// nobody can fill the cache with copies of one page.
bool canonical_request(const http::Request& req, const http::Params& p) {
  if (req.target.find('%') != std::string::npos || req.target.find('+') != std::string::npos)
    return false;
  for (const auto& [name, value] : req.query) {
    if (name == "zoom") {
      if (value != "1" && value != "2" && value != "4" && value != "8") return false;
    } else if (name == "archived") {  // GET /api/games?archived=1
      if (value != "1") return false;
    } else if (name == "turn") {
      if (value.empty() || value.size() > 6 || value[0] == '0' ||
          value.find_first_not_of("0123456789") != std::string::npos)
        return false;
    } else {
      return false;
    }
  }
  if (auto it = p.find("game"); it != p.end()) {
    const std::string segment = "/" + it->second;
    const std::size_t at = req.path.find(segment + "/");
    const bool last =
        req.path.size() >= segment.size() &&
        req.path.compare(req.path.size() - segment.size(), segment.size(), segment) == 0;
    if (at == std::string::npos && !last) return false;
  }
  return true;
}

}  // namespace

http::Handler cached(http::Handler h, std::string scope) {
  return [h = std::move(h), scope = std::move(scope)](const http::Request& req,
                                                      const http::Params& p) {
    begin_limited_request();
    http::Response r = h(req, p);
    if (limiter_refused() || !canonical_request(req, p)) return r;
    if (!scope.empty())
      r.cache_scope = scope;
    else if (auto it = p.find("game"); it != p.end())
      r.cache_scope = it->second;
    else
      r.cache_scope = "*";
    return r;
  };
}

}  // namespace adj::web::route
