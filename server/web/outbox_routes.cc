// The GM's view of a game's outgoing mail (MailStore::outbox): GET /api/games/{game}/outbox
// (JSON) and GET /games/{game}/outbox (HTML, in the site's layout). GM only (is_gm); others get
// 403. At most the 100 newest messages; the subject is read from the stored header block.
// GET /gm/outbox/{id}: one message's headers and plain text (outbox_view.h: a message that may
// carry a secret shows only its headers, and a secret's text is removed once delivered).
// And the received mail: GET /api/mail (JSON) and GET /gm/mail (HTML): the messages that could
// not be answered ("failed": unreadable, or given up after MailConfig::max_process_attempts
// tries) and those still waiting ("new"), at most 100 newest each, without their bytes; and the
// bytes stored per game (Store::storage_by_game). GM only.
#include <ctime>
#include <optional>
#include <string>

#include "base/escape.h"
#include "rules/game/state.h"
#include "server/app/host_desk.h"
#include "server/app/press.h"
#include "server/app/time_text.h"
#include "server/web/auth_guard.h"
#include "server/web/outbox_view.h"
#include "server/web/page_render.h"
#include "server/web/pages_view.h"
#include "server/web/route_util.h"
#include "server/web/routes.h"
#include "server/web/web_context.h"

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

// A private HTML page with the protective headers of every page (route_util.h).
http::Response styled(const std::string& title, const std::string& tmpl, const Json& model,
                      const Json& nav, int status = 200) {
  return route::html_page(render_page(title, tmpl, model, nav), status, true);
}

Json inbox_view(const std::vector<InboxMessage>& list) {
  Json rows = Json::array();
  for (const auto& m : list)
    rows.push_back({{"id", m.id},
                    {"state", m.state},
                    {"received", m.received_at ? time_html(m.received_at, true) : "-"},
                    {"channel", m.channel},
                    {"from", m.envelope_from},
                    {"peer", m.peer},
                    {"bytes", m.raw_bytes},
                    {"attempts", m.attempts},
                    {"outcome", m.outcome}});
  return rows;
}

}  // namespace

void register_outbox_routes(http::Router& router, WebContext& ctx) {
  router.add(
      "GET", "/api/mail",
      [&ctx](const http::Request& req, const http::Params&) {
        if (!is_gm(req, ctx.config())) return http::Response::error(403, "GM only", true);
        HostDesk desk = ctx.host_desk();
        auto failed = desk.inbox("failed", 100);
        auto waiting = desk.inbox("new", 100);
        auto sizes = desk.storage_by_game();
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
        HostDesk desk = ctx.host_desk();
        auto failed = desk.inbox("failed", 100);
        auto waiting = desk.inbox("new", 100);
        auto sizes = desk.storage_by_game();
        if (!failed.ok() || !waiting.ok() || !sizes.ok())
          return http::Response::error(500, "the mail tables could not be read", false);
        Json games = Json::array();
        for (const auto& g : *sizes)
          games.push_back({{"game", g.game},
                           {"submissions", g.submissions},
                           {"reports", g.reports},
                           {"mail", g.mail}});
        Json model = {
            {"sections",
             Json::array({{{"title", "Failed: not answered"}, {"rows", inbox_view(*failed)}},
                          {{"title", "Waiting to be answered"}, {"rows", inbox_view(*waiting)}}})},
            {"games", std::move(games)}};
        return styled("Received mail", "gm_mail", model, {{"gm", true}});
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
        auto list = ctx.host_desk().outbox(p.at("game"), 100);
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
        const std::string game = p.at("game");
        auto list = ctx.host_desk().outbox(game, 100);
        if (!list.ok()) return http::Response::error(500, list.status().message(), false);
        auto sum = ctx.services().game_summary(game);
        const std::string name = sum.ok() ? sum->name : game;
        Json rows = Json::array();
        for (const auto& m : *list)
          rows.push_back({{"id", m.id},
                          {"state", m.state},
                          {"kind", m.kind},
                          {"to", m.to},
                          {"subject", subject_of(m.raw)},
                          {"attempts", m.attempts},
                          {"created", m.created_at ? time_html(m.created_at, true) : "-"},
                          {"last_error", m.last_error}});
        Json model = {{"game", game}, {"game_name", name}, {"limit", 100}, {"messages", rows}};
        return styled("Outbox: " + name, "outbox", model,
                      {{"game", game}, {"game_name", name}, {"gm", true}});
      },
      "gm_outbox");
  router.add(
      "GET", "/gm/outbox/{id}",
      [&ctx, load](const http::Request& req, const http::Params& p) {
        if (auto denied = load(req, false)) return *denied;
        const std::string id_text = p.at("id");
        std::int64_t id = 0;
        bool digits = !id_text.empty() && id_text.size() <= 15;
        for (char c : id_text) digits = digits && c >= '0' && c <= '9';
        if (digits) id = std::stoll(id_text);
        auto m = digits ? ctx.host_desk().outbox_message(id)
                        : Result<OutboxMessage>(Status::NotFound("no message"));
        if (!m.ok()) {
          if (m.status().code() != StatusCode::kNotFound)
            return http::Response::error(500, "the outbox could not be read", false);
          return http::Response::html(
              render_error_page(404,
                                "There is no such outgoing message. Open the outbox of "
                                "the game and choose one from its list."),
              404);
        }
        MessageView v = message_view(m->raw, m->kind);
        // Press is private to its players unless the game lets the GM read it (fails closed).
        if (m->kind == "press" && !v.withheld) {
          auto opts = m->game.empty() ? Result<PressOptions>(Status::NotFound("no game"))
                                      : ctx.press().options(m->game);
          if (!opts.ok() || !opts->gm_reads_private) {
            v.withheld = true;
            v.body =
                "(press withheld: in this game the GM does not read the players' press. Press "
                "to every kingdom is on the game's public press page.)";
          }
        }
        Json headers = Json::array();
        for (const auto& [k, val] : v.headers) headers.push_back({{"name", k}, {"value", val}});
        const std::string subject = subject_of(m->raw);
        Json model = {{"subject", subject.empty() ? "(no subject)" : subject},
                      {"state", m->state},
                      {"kind", m->kind},
                      {"created", m->created_at ? time_html(m->created_at, true) : "-"},
                      {"attempts", m->attempts},
                      {"last_error", m->last_error.empty() ? Json() : Json(m->last_error)},
                      {"game", m->game.empty() ? Json() : Json(m->game)},
                      {"headers", std::move(headers)},
                      {"withheld", v.withheld},
                      {"body", v.body}};
        Json nav = {{"gm", true}};
        if (!m->game.empty()) nav = {{"game", m->game}, {"game_name", m->game}, {"gm", true}};
        return styled("Message: " + (subject.empty() ? std::string("(no subject)") : subject),
                      "outbox_message", model, nav);
      },
      "gm_outbox_message");
}

}  // namespace adj::web
