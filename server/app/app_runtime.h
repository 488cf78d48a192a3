// The application's runtime: per-thread Stores (database connections) with the Services and
// GameAdmin over them, the clock, the guessing limiter, and the event hooks ("a turn ran",
// "secrets were issued", "a player was locked out"). The composition root (`adjutant serve`, the
// command line, a test) owns one; the web, the mail flows and the daemon's loops borrow it.
//
// Thread-safety: every method may be called from any thread. services(), admin() and store()
// return objects owned by the calling thread (each thread opens its own Store on first use);
// membership(), confirmations(), attendance(), press() and host_desk() return objects over
// them, for use on the calling thread only.
// The hook setters are not synchronised: set them before other threads use the runtime; the
// hooks themselves must be thread-safe and quick.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>

#include "server/app/admin.h"
#include "server/app/auth_throttle.h"
#include "server/app/services.h"

namespace adj {

class Store;
class Membership;
class Confirmations;
class Attendance;
class Press;
class HostDesk;

struct AppConfig {
  // The database argument (storage/open_database.h): a SQLite file path (the default) or a
  // postgresql:// URL. Log it only through describe_database(): a URL may hold a password.
  std::string db_path = "adjutant.db";
  ThrottleConfig throttle;  // guessing limits of every secret and token check (auth_guard.h)
  SessionLimits sessions;   // server-side expiry of sign-in sessions (Services::token_owner)
  // The GM's address of games that set none (`--gm-address`): messages to the GM are forwarded
  // there and mail and pages name it. "" for none.
  std::string gm_address;
};

// Thrown by services(), admin() and store() when this thread cannot open the database (out of
// file descriptors, the PostgreSQL server down); the message names the database without its
// password. Front ends answer "try later" (HTTP 503, SMTP 451); a later call tries again.
class StoreUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class AppRuntime {
 public:
  AppRuntime(AppConfig config, Clock clock);
  ~AppRuntime();
  AppRuntime(const AppRuntime&) = delete;
  AppRuntime& operator=(const AppRuntime&) = delete;

  const AppConfig& config() const { return config_; }
  const Clock& clock() const { return clock_; }

  // This thread's services, admin and store (the store for what the services do not expose).
  // Throw StoreUnavailable, after logging why, when the database cannot be opened.
  Services& services();
  GameAdmin& admin();
  Store& store();
  // The sign-up, confirmation, attendance and press services over this thread's store, with
  // `base_url` (no trailing /) in the links their mail carries; and the host's view of the mail
  // queues. Cheap to make. Throw StoreUnavailable as services() does.
  Membership membership(const std::string& base_url);
  Confirmations confirmations(const std::string& base_url);
  Attendance attendance(const std::string& base_url);
  Press press();
  HostDesk host_desk();
  // Opens the database once from the calling thread; an error to report at startup.
  Status open_check();

  // The guessing limiter of every channel that checks a secret or token (thread-safe).
  AuthThrottle& throttle() { return throttle_; }

  // Called after every committed turn run (GM runs through the web and API, and the scheduler)
  // with the game and the turn resolved, from the running thread. `recovery`: not a run, but the
  // scheduler asking again for the reports of a turn whose queueing was never recorded.
  using TurnRunHook = std::function<void(const std::string& game, int turn, bool recovery)>;
  void set_on_turn_run(TurnRunHook hook) { on_turn_run_ = std::move(hook); }
  void turn_ran(const std::string& game, int turn, bool recovery = false) const {
    if (on_turn_run_) on_turn_run_(game, turn, recovery);
  }
  // Called with new player secrets in clear (code -> secret) when a game is created with fresh
  // secrets or the GM resets one, so they can be mailed to the players. With `with_link` each
  // mail also carries a new sign-in link (a player given a position).
  using SecretsHook = std::function<void(
      const std::string& game, const std::map<std::string, std::string>& secrets, bool with_link)>;
  void set_on_secrets_issued(SecretsHook hook) { on_secrets_issued_ = std::move(hook); }
  void secrets_issued(const std::string& game, const std::map<std::string, std::string>& secrets,
                      bool with_link = false) const {
    if (on_secrets_issued_ && !secrets.empty()) on_secrets_issued_(game, secrets, with_link);
  }
  // Called when failed checks lock a player's key (a new lockout), to tell the player.
  using LockoutHook = std::function<void(const std::string& game, const std::string& player,
                                         const ThrottleState& account)>;
  void set_on_auth_lockout(LockoutHook hook) { on_auth_lockout_ = std::move(hook); }
  void auth_lockout(const std::string& game, const std::string& player,
                    const ThrottleState& account) const {
    if (on_auth_lockout_) on_auth_lockout_(game, player, account);
  }
  // Called when mail may have been queued (a player's or the GM's change through the web or the
  // API: press, sign-ups, notices), so delivery looks now rather than at its next period.
  using MailQueuedHook = std::function<void()>;
  void set_on_mail_queued(MailQueuedHook hook) { on_mail_queued_ = std::move(hook); }
  void mail_queued() const {
    if (on_mail_queued_) on_mail_queued_();
  }

 private:
  struct PerThread;
  PerThread& local();
  AppConfig config_;
  Clock clock_;
  AuthThrottle throttle_;
  TurnRunHook on_turn_run_;
  SecretsHook on_secrets_issued_;
  LockoutHook on_auth_lockout_;
  MailQueuedHook on_mail_queued_;
};

}  // namespace adj
