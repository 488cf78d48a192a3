// What the web handlers share: configuration, metrics, and per-thread access to the stores and
// services (each handler thread opens its own Store, a connection to the database, on first use).
// Thread-safety: all methods may be called from any thread; services()/admin() return objects
// owned by the calling thread.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "server/app/admin.h"
#include "server/app/auth_throttle.h"
#include "server/http/http_types.h"
#include "server/http/metrics.h"

namespace adj {
class Store;
}  // namespace adj

namespace adj::web {

struct WebConfig {
  // The database argument (storage/open_database.h): a SQLite file path (the default) or a
  // postgresql:// URL. Log it only through describe_database(): a URL may hold a password.
  std::string db_path = "adjutant.db";
  std::string base_url = "http://127.0.0.1:8080";  // public base URL for links (no trailing /)
  std::string gm_token;     // ADJUTANT_GM_TOKEN; empty disables GM pages and API
  ThrottleConfig throttle;  // guessing limits of every secret and token check (auth_guard.h)
  SessionLimits sessions;   // server-side expiry of sign-in sessions (Services::token_owner)
};

class WebContext {
 public:
  WebContext(WebConfig config, Clock clock);
  ~WebContext();
  const WebConfig& config() const { return config_; }
  http::Metrics& metrics() { return metrics_; }
  const Clock& clock() const { return clock_; }
  // This thread's services and admin, over this thread's Store. Throws
  // http::ServiceUnavailable if the database cannot be opened (e.g. out of file descriptors, or
  // the PostgreSQL server is down; the HTTP server answers 503, the SMTP store thread 451) after
  // logging why (without secrets); the process goes on and a later call tries again.
  Services& services();
  GameAdmin& admin();
  // Opens the database once from the calling thread; an error to report at startup.
  Status open_check();
  // A hook called after every committed turn run (GM runs through the web and API, and the
  // scheduler in `adjutant serve`) with the game and the turn resolved, from the running thread.
  // Set before serving starts (not synchronised); the hook must be thread-safe and quick.
  // `recovery`: not a run, but the scheduler asking again for the reports of a turn whose
  // queueing was never recorded (GameAdmin::tick, "reports").
  using TurnRunHook = std::function<void(const std::string& game, int turn, bool recovery)>;
  void set_on_turn_run(TurnRunHook hook) { on_turn_run_ = std::move(hook); }
  void turn_ran(const std::string& game, int turn, bool recovery = false) const {
    if (on_turn_run_) on_turn_run_(game, turn, recovery);
  }
  // A hook called with new player secrets in clear (code -> secret) when a game is created with
  // fresh secrets or the GM resets one, so `adjutant serve` can mail them to the players. Same
  // rules as set_on_turn_run. With `with_link` each mail also carries a new sign-in link (a
  // player given a position: membership start and replace).
  using SecretsHook = std::function<void(
      const std::string& game, const std::map<std::string, std::string>& secrets, bool with_link)>;
  void set_on_secrets_issued(SecretsHook hook) { on_secrets_issued_ = std::move(hook); }
  void secrets_issued(const std::string& game, const std::map<std::string, std::string>& secrets,
                      bool with_link = false) const {
    if (on_secrets_issued_ && !secrets.empty()) on_secrets_issued_(game, secrets, with_link);
  }
  // The guessing limiter of the HTTP channels (thread-safe; see auth_guard.h).
  AuthThrottle& throttle() { return throttle_; }
  // A hook called when failed checks lock a player's key (a new lockout), to tell the player
  // (`adjutant serve` queues a mail). Set before serving starts; must be thread-safe and quick.
  using LockoutHook = std::function<void(const std::string& game, const std::string& player,
                                         const ThrottleState& account)>;
  void set_on_auth_lockout(LockoutHook hook) { on_auth_lockout_ = std::move(hook); }
  void auth_lockout(const std::string& game, const std::string& player,
                    const ThrottleState& account) const {
    if (on_auth_lockout_) on_auth_lockout_(game, player, account);
  }

 private:
  struct PerThread;
  PerThread& local();
  WebConfig config_;
  Clock clock_;
  http::Metrics metrics_;
  TurnRunHook on_turn_run_;
  SecretsHook on_secrets_issued_;
  AuthThrottle throttle_;
  LockoutHook on_auth_lockout_;
};

// The calling thread's store, for what Services does not expose (stored turn records for the
// charts).
// Owned by the calling thread, like services().
Store& thread_store(WebContext& ctx);

// Registers every route (HTML pages, /api/, /healthz, /metrics) on `router`. The context must
// outlive the router.
void register_routes(http::Router& router, WebContext& ctx);

}  // namespace adj::web
