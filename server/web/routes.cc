// The route table: /healthz and /metrics here, then the JSON API and the HTML pages; and the GM
// token check both halves share.
#include "server/web/routes.h"

#include <algorithm>
#include <map>

#include "server/app/host_desk.h"
#include "server/app/mail_delivery.h"
#include "server/http/metrics.h"
#include "server/web/auth_guard.h"
#include "server/web/web_context.h"
#include "server/web/web_session.h"
#include "storage/wait_limit.h"

namespace adj::web {

// The token of "Authorization: Bearer <token>", or "". Also used by the API routes.
std::string bearer_token(const http::Request& req) {
  const std::string auth = req.header("authorization");
  if (auth.size() < 7) return "";
  std::string scheme = auth.substr(0, 7);
  for (char& c : scheme) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (scheme != "bearer ") return "";
  std::string token = auth.substr(7);
  while (!token.empty() && token.front() == ' ') token.erase(0, 1);
  while (!token.empty() && (token.back() == ' ' || token.back() == '\t')) token.pop_back();
  return token;
}

bool is_gm(const http::Request& req, const WebConfig& config) {
  if (config.gm_token.empty()) return false;
  const std::string bearer = bearer_token(req);
  if (!bearer.empty() && constant_time_equal(bearer, config.gm_token)) return true;
  const std::string cookie = req.cookie("adj_gm");
  return !cookie.empty() && constant_time_equal(cookie, config.gm_token);
}

namespace {

// How long /healthz waits for the database before answering 503.
constexpr std::chrono::milliseconds kHealthWait{2000};

}  // namespace

void register_routes(http::Router& router, WebContext& ctx) {
  router.add(
      "GET", "/healthz",
      [&ctx](const http::Request&, const http::Params&) {
        // Within kHealthWait even when the database stalls (storage/wait_limit.h).
        const ScopedWaitCap cap(kHealthWait);
        const auto unavailable = [] {
          auto r = http::Response::json(R"({"status": "unavailable", "error": "database"})", 503);
          r.headers.emplace_back("Cache-Control", "no-store");
          return r;
        };
        Result<std::vector<GameSummary>> games = Status::Unavailable("");
        try {
          games = ctx.services().list_games();
        } catch (const http::ServiceUnavailable&) {
          return unavailable();  // this thread could not connect
        }
        if (!games.ok()) return unavailable();
        // How outgoing mail leaves (server/app/mail_delivery.h) and how much waits: -1 when
        // the count cannot be read.
        HostDesk desk = ctx.host_desk();
        const auto queued = desk.pending_count();
        const auto failing = desk.failing_count();
        const std::string mail = std::string(R"({"delivery": ")") +
                                 mail_delivery_name(mail_delivery().mode()) + R"(", "queued": )" +
                                 std::to_string(queued.ok() ? *queued : -1) + R"(, "failing": )" +
                                 std::to_string(failing.ok() ? *failing : -1) + "}";
        auto r =
            http::Response::json(R"({"status": "ok", "games": )" + std::to_string(games->size()) +
                                     R"(, "mail": )" + mail + "}",
                                 200);
        r.headers.emplace_back("Cache-Control", "no-store");
        return r;
      },
      "healthz");

  router.add(
      "GET", "/metrics",
      [&ctx](const http::Request& req, const http::Params&) {
        // The figures (byte counts per game, lockouts, mail queues) are the host's: the GM
        // token (Authorization: Bearer, as Prometheus' `authorization` sends it) or the GM's
        // cookie, through the guessing limiter.
        if (!is_gm_limited(ctx, req, "metrics")) {
          auto denied =
              http::Response::text("/metrics needs the GM token (Authorization: Bearer)\n", 401);
          denied.headers.emplace_back("WWW-Authenticate", "Bearer realm=\"adjutant metrics\"");
          return denied;
        }
        ctx.metrics().set_gauge("adjutant_auth_locked_keys",
                                static_cast<double>(ctx.throttle().locked(ctx.clock()())));
        {
          HostDesk desk = ctx.host_desk();
          if (auto n = desk.pending_count(); n.ok())
            ctx.metrics().set_gauge("adjutant_mail_queue", *n);
          if (auto n = desk.failing_count(); n.ok())
            ctx.metrics().set_gauge("adjutant_mail_failing", *n);
        }
        std::string out = ctx.metrics().render();
        out +=
            "# HELP adjutant_mail_delivery How outgoing mail leaves (1 for the mode in use).\n"
            "# TYPE adjutant_mail_delivery gauge\n";
        for (const auto mode :
             {MailDeliveryMode::kRelay, MailDeliveryMode::kMaildir, MailDeliveryMode::kOff})
          out += std::string("adjutant_mail_delivery{mode=\"") + mail_delivery_name(mode) + "\"} " +
                 (mail_delivery().mode() == mode ? "1" : "0") + "\n";
        auto games = ctx.services().list_games();
        if (games.ok()) {
          std::map<std::string, int> by_status;
          for (const auto& g : *games) ++by_status[g.status];
          out += "# HELP adjutant_games Games by status.\n# TYPE adjutant_games gauge\n";
          for (const auto& [status, n] : by_status)
            out += "adjutant_games{status=\"" + http::prometheus_label(status) + "\"} " +
                   std::to_string(n) + "\n";
        }
        if (auto sizes = ctx.host_desk().storage_by_game(); sizes.ok()) {
          out +=
              "# HELP adjutant_game_bytes Bytes stored per game, by kind.\n"
              "# TYPE adjutant_game_bytes gauge\n";
          for (const auto& g : *sizes)
            for (const auto& [kind, n] :
                 {std::pair<const char*, std::int64_t>{"submissions", g.submissions},
                  {"reports", g.reports},
                  {"mail", g.mail}})
              out += "adjutant_game_bytes{game=\"" + http::prometheus_label(g.game) + "\",kind=\"" +
                     kind + "\"} " + std::to_string(n) + "\n";
        }
        auto r = http::Response::text(std::move(out));
        r.content_type = "text/plain; version=0.0.4; charset=utf-8";
        return r;
      },
      "metrics");

  // Game ids are compared regardless of case, one way: a {game} in a path becomes the stored id
  // it names (unknown ids are left as given; their handlers answer 404).
  router.set_params_filter([&ctx](http::Params& p) {
    auto it = p.find("game");
    if (it == p.end()) return;
    auto stored = ctx.services().stored_game_id(it->second);
    if (stored.ok()) it->second = *stored;
  });
  // A change that succeeded may have queued mail (press, sign-ups, notices): delivery looks now.
  router.set_answered([&ctx](const http::Request& req, const http::Response& r) {
    if (req.method != "GET" && req.method != "HEAD" && r.status < 400) ctx.app().mail_queued();
  });
  register_api_routes(router, ctx);
  register_html_routes(router, ctx);
  register_outbox_routes(router, ctx);
  register_attendance_routes(router, ctx);
  register_membership_routes(router, ctx);
  register_press_routes(router, ctx);
  register_press_gm_routes(router, ctx);
  register_archive_routes(router, ctx);
}

}  // namespace adj::web
