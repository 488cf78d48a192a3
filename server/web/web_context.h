// What the web handlers share: their settings, the metrics, and the application runtime they
// borrow (per-thread stores and services, the hooks).
// Thread-safety: all methods may be called from any thread; services()/admin() return objects
// owned by the calling thread.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "server/app/app_runtime.h"
#include "server/http/http_types.h"
#include "server/http/metrics.h"

namespace adj {
class Attendance;
class Confirmations;
class HostDesk;
class Membership;
class Press;
}  // namespace adj

namespace adj::web {

struct WebConfig {
  // For a WebContext that owns its runtime: the AppConfig fields (server/app/app_runtime.h).
  std::string db_path = "adjutant.db";
  std::string base_url = "http://127.0.0.1:8080";  // public base URL for links (no trailing /)
  std::string gm_token;      // ADJUTANT_GM_TOKEN; empty disables GM pages and API
  ThrottleConfig throttle;   // guessing limits of every secret and token check (auth_guard.h)
  SessionLimits sessions;    // server-side expiry of sign-in sessions (Services::token_owner)
  std::string gm_address;    // the GM's address of games that set none; "" for none
  std::string mail_address;  // where players mail orders and commands; "" when not known
};

// The web's view of the application: the runtime it borrows (server/app/app_runtime.h), the
// metrics, and the web's own settings. Its services()/admin() are the runtime's, with a database
// that cannot be opened reported as http::ServiceUnavailable (the server answers 503).
class WebContext {
 public:
  // Owns a runtime and metrics of its own, made from `config` (tests, tools that serve alone).
  WebContext(WebConfig config, Clock clock);
  // Borrows `app` and `metrics`, which must outlive it (`adjutant serve`, whose mail flows and
  // loops borrow the same runtime). config.db_path, .throttle and .sessions are app's.
  WebContext(AppRuntime& app, http::Metrics& metrics, WebConfig config);
  ~WebContext();
  const WebConfig& config() const { return config_; }
  http::Metrics& metrics() { return *metrics_; }
  AppRuntime& app() { return *app_; }
  const Clock& clock() const { return app_->clock(); }
  // This thread's services and admin (AppRuntime), or http::ServiceUnavailable after the
  // runtime logged why the database cannot be opened.
  Services& services();
  GameAdmin& admin();
  // The runtime's other services on this thread (AppRuntime), with config().base_url in their
  // links; http::ServiceUnavailable as services().
  Membership membership();
  Confirmations confirmations();
  Attendance attendance();
  Press press();
  HostDesk host_desk();
  Status open_check() { return app_->open_check(); }

  // The runtime's hooks and guessing limiter (AppRuntime says when each is called).
  void turn_ran(const std::string& game, int turn, bool recovery = false) const {
    app_->turn_ran(game, turn, recovery);
  }
  void secrets_issued(const std::string& game, const std::map<std::string, std::string>& secrets,
                      bool with_link = false) const {
    app_->secrets_issued(game, secrets, with_link);
  }
  void auth_lockout(const std::string& game, const std::string& player,
                    const ThrottleState& account) const {
    app_->auth_lockout(game, player, account);
  }
  AuthThrottle& throttle() { return app_->throttle(); }

 private:
  WebConfig config_;
  std::unique_ptr<AppRuntime> owned_app_;
  std::unique_ptr<http::Metrics> owned_metrics_;
  AppRuntime* app_;
  http::Metrics* metrics_;
};

// Registers every route (HTML pages, /api/, /healthz, /metrics) on `router`. The context must
// outlive the router.
void register_routes(http::Router& router, WebContext& ctx);

}  // namespace adj::web
