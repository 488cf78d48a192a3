// What the web handlers share: configuration, metrics, and per-thread access to the stores and
// services (each handler thread opens its own SQLite connection on first use).
// Thread-safety: all methods may be called from any thread; services()/admin() return objects
// owned by the calling thread.
#pragma once

#include <memory>
#include <string>

#include "server/app/admin.h"
#include "server/http/http_types.h"
#include "server/web/metrics.h"

namespace adj::web {

struct WebConfig {
  std::string db_path = "adjutant.db";
  std::string base_url = "http://127.0.0.1:8080";  // public base URL for links (no trailing /)
  std::string gm_token;  // ADJUTANT_GM_TOKEN; empty disables GM pages and API
};

class WebContext {
 public:
  WebContext(WebConfig config, Clock clock);
  ~WebContext();
  const WebConfig& config() const { return config_; }
  Metrics& metrics() { return metrics_; }
  const Clock& clock() const { return clock_; }
  // This thread's services and admin, over this thread's SqliteStore. Aborts if the database
  // cannot be opened (checked at startup by open_check()).
  Services& services();
  GameAdmin& admin();
  // Opens the database once from the calling thread; an error to report at startup.
  Status open_check();

 private:
  struct PerThread;
  PerThread& local();
  WebConfig config_;
  Clock clock_;
  Metrics metrics_;
};

// Registers every route (HTML pages, /api/, /healthz, /metrics) on `router`. The context must
// outlive the router.
void register_routes(http::Router& router, WebContext& ctx);

}  // namespace adj::web
