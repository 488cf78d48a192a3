// The GM's view of a game's outgoing mail (MailStore::outbox): GET /api/games/{game}/outbox
// (JSON) and GET /games/{game}/outbox (HTML). GM only (is_gm); others get 403. At most the 100
// newest messages. The message bodies are not shown (they may hold report details); the subject
// is read from the stored header block.
#include <ctime>
#include <optional>
#include <string>

#include "rules/game/state.h"
#include "server/app/escape.h"
#include "server/app/time_text.h"
#include "server/web/auth_guard.h"
#include "server/web/routes.h"
#include "server/web/web_context.h"
#include "storage/sqlite/sqlite_store.h"

namespace adj::web {

namespace {

// The Subject header of a stored message (unfolded, not MIME-decoded), or "".
std::string subject_of(const std::string& raw) {
  std::size_t pos = 0;
  while (pos < raw.size()) {
    std::size_t end = raw.find('\n', pos);
    if (end == std::string::npos) end = raw.size();
    std::string line = raw.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) break;  // end of the header block
    if (line.size() > 8 &&
        (line.compare(0, 8, "Subject:") == 0 || line.compare(0, 8, "subject:") == 0)) {
      std::string out = line.substr(8);
      // Folded continuation lines.
      std::size_t next = end + 1;
      while (next < raw.size() && (raw[next] == ' ' || raw[next] == '\t')) {
        std::size_t e = raw.find('\n', next);
        if (e == std::string::npos) e = raw.size();
        std::string cont = raw.substr(next, e - next);
        if (!cont.empty() && cont.back() == '\r') cont.pop_back();
        out += cont;
        next = e + 1;
      }
      while (!out.empty() && out.front() == ' ') out.erase(0, 1);
      return out;
    }
    pos = end + 1;
  }
  return "";
}

}  // namespace

void register_outbox_routes(http::Router& router, WebContext& ctx) {
  auto load = [&ctx](const http::Request& req, bool json) -> std::optional<http::Response> {
    if (!is_gm_limited(ctx, req, json ? "api_gm" : "web_gm"))
      return http::Response::error(403, "GM only", json);
    return std::nullopt;
  };
  router.add(
      "GET", "/api/games/{game}/outbox",
      [&ctx, load](const http::Request& req, const http::Params& p) {
        if (auto denied = load(req, true)) return *denied;
        auto list = thread_store(ctx).outbox(p.at("game"), 100);
        if (!list.ok()) return http::Response::error(500, list.status().message(), true);
        Json arr = Json::array();
        for (const auto& m : *list)
          arr.push_back({{"id", m.id},
                         {"kind", m.kind},
                         {"to", m.to},
                         {"subject", subject_of(m.raw)},
                         {"state", m.state},
                         {"attempts", m.attempts},
                         {"last_error", m.last_error},
                         {"created_at", m.created_at}});
        return http::Response::json(Json{{"game", p.at("game")}, {"outbox", arr}}.dump());
      },
      "api_outbox");
  router.add(
      "GET", "/games/{game}/outbox",
      [&ctx, load](const http::Request& req, const http::Params& p) {
        if (auto denied = load(req, false)) return *denied;
        const std::string game = html_escape(p.at("game"));
        auto list = thread_store(ctx).outbox(p.at("game"), 100);
        if (!list.ok()) return http::Response::error(500, list.status().message(), false);
        std::string h =
            "<!doctype html><html><head><meta charset=\"utf-8\"><title>Outbox - " + game +
            "</title></head><body><h1>Outbox of " + game +
            "</h1><p><a href=\"/gm\">GM desk</a></p><table><thead><tr><th>id</th><th>state</th>"
            "<th>kind</th><th>to</th><th>subject</th><th>tries</th><th>created (UTC)</th>"
            "<th>last error</th></tr></thead><tbody>";
        for (const auto& m : *list)
          h += "<tr><td>" + std::to_string(m.id) + "</td><td>" + html_escape(m.state) +
               "</td><td>" + html_escape(m.kind) + "</td><td>" + html_escape(m.to) + "</td><td>" +
               html_escape(subject_of(m.raw)) + "</td><td>" + std::to_string(m.attempts) +
               "</td><td>" + utc_seconds_or_dash(m.created_at) + "</td><td>" +
               html_escape(m.last_error) + "</td></tr>";
        if (list->empty()) h += "<tr><td colspan=\"8\">The outbox is empty.</td></tr>";
        h += "</tbody></table></body></html>";
        return http::Response::html(h);
      },
      "gm_outbox");
}

}  // namespace adj::web
