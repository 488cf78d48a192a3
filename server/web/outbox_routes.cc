// The GM's view of a game's outgoing mail (MailStore::outbox): GET /api/games/{game}/outbox
// (JSON) and GET /games/{game}/outbox (HTML). GM only (is_gm); others get 403. At most the 100
// newest messages. The message bodies are not shown (they may hold report details); the subject
// is read from the stored header block.
// And the received mail: GET /api/mail (JSON) and GET /gm/mail (HTML): the messages that could
// not be answered ("failed": unreadable, or given up after MailConfig::max_process_attempts
// tries) and those still waiting ("new"), at most 100 newest each, without their bytes; and the
// bytes stored per game (SqliteStore::storage_by_game). GM only.
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

Json inbox_json(const InboxMessage& m) {
  return {{"id", m.id},
          {"message_id", m.message_id},
          {"channel", m.channel},
          {"from", m.envelope_from},
          {"peer", m.peer},
          {"bytes", m.raw_bytes},
          {"received_at", m.received_at},
          {"state", m.state},
          {"attempts", m.attempts},
          {"outcome", m.outcome},
          {"pruned", m.pruned_at.has_value()}};
}

std::string inbox_rows(const std::vector<InboxMessage>& list) {
  std::string h;
  for (const auto& m : list)
    h += "<tr><td>" + std::to_string(m.id) + "</td><td>" + html_escape(m.state) + "</td><td>" +
         utc_seconds_or_dash(m.received_at) + "</td><td>" + html_escape(m.channel) + "</td><td>" +
         html_escape(m.envelope_from) + "</td><td>" + html_escape(m.peer) + "</td><td>" +
         std::to_string(m.raw_bytes) + "</td><td>" + std::to_string(m.attempts) + "</td><td>" +
         html_escape(m.outcome) + "</td></tr>";
  if (list.empty()) h += "<tr><td colspan=\"9\">None.</td></tr>";
  return h;
}

}  // namespace

void register_outbox_routes(http::Router& router, WebContext& ctx) {
  router.add(
      "GET", "/api/mail",
      [&ctx](const http::Request& req, const http::Params&) {
        if (!is_gm(req, ctx.config())) return http::Response::error(403, "GM only", true);
        SqliteStore& store = thread_store(ctx);
        auto failed = store.inbox_list("failed", 100, true);
        auto waiting = store.inbox_list("new", 100, true);
        auto sizes = store.storage_by_game();
        if (!failed.ok() || !waiting.ok() || !sizes.ok())
          return http::Response::error(500, "the mail tables could not be read", true);
        Json out{{"failed", Json::array()}, {"new", Json::array()}, {"games", Json::array()}};
        for (const auto& m : *failed) out["failed"].push_back(inbox_json(m));
        for (const auto& m : *waiting) out["new"].push_back(inbox_json(m));
        for (const auto& g : *sizes)
          out["games"].push_back({{"game", g.game},
                                  {"submissions_bytes", g.submissions},
                                  {"reports_bytes", g.reports},
                                  {"mail_bytes", g.mail}});
        return http::Response::json(out.dump());
      },
      "api_mail");
  router.add(
      "GET", "/gm/mail",
      [&ctx](const http::Request& req, const http::Params&) {
        if (!is_gm(req, ctx.config())) return http::Response::error(403, "GM only", false);
        SqliteStore& store = thread_store(ctx);
        auto failed = store.inbox_list("failed", 100, true);
        auto waiting = store.inbox_list("new", 100, true);
        auto sizes = store.storage_by_game();
        if (!failed.ok() || !waiting.ok() || !sizes.ok())
          return http::Response::error(500, "the mail tables could not be read", false);
        const std::string head =
            "<table><thead><tr><th>id</th><th>state</th><th>received (UTC)</th><th>channel</th>"
            "<th>envelope sender</th><th>client</th><th>bytes</th><th>tries</th><th>outcome</th>"
            "</tr></thead><tbody>";
        std::string h =
            "<!doctype html><html><head><meta charset=\"utf-8\"><title>Received mail</title>"
            "</head><body><h1>Received mail</h1><p><a href=\"/gm\">GM desk</a></p>"
            "<h2>Failed: not answered</h2>" +
            head + inbox_rows(*failed) + "</tbody></table><h2>Waiting to be answered</h2>" + head +
            inbox_rows(*waiting) +
            "</tbody></table><h2>Bytes stored per game</h2><table><thead><tr><th>game</th>"
            "<th>order files</th><th>reports</th><th>mail sent</th></tr></thead><tbody>";
        for (const auto& g : *sizes)
          h += "<tr><td>" + html_escape(g.game) + "</td><td>" + std::to_string(g.submissions) +
               "</td><td>" + std::to_string(g.reports) + "</td><td>" + std::to_string(g.mail) +
               "</td></tr>";
        h += "</tbody></table></body></html>";
        return http::Response::html(h);
      },
      "gm_mail");
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
