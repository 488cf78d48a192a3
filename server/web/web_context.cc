// WebContext: the web's borrowing of the application runtime (server/app/app_runtime.h).
#include "server/web/web_context.h"

#include "server/app/attendance.h"
#include "server/app/confirmations.h"
#include "server/app/host_desk.h"
#include "server/app/membership.h"
#include "server/app/press.h"

namespace adj::web {
namespace {

AppConfig app_config(const WebConfig& c) {
  AppConfig a;
  a.db_path = c.db_path;
  a.throttle = c.throttle;
  a.sessions = c.sessions;
  a.gm_address = c.gm_address;
  return a;
}

// `f()`, with the runtime's StoreUnavailable as the transport's "try later".
template <typename F>
auto or_unavailable(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const StoreUnavailable& e) {
    throw http::ServiceUnavailable(e.what());
  }
}

}  // namespace

WebContext::WebContext(WebConfig config, Clock clock)
    : config_(std::move(config)),
      owned_app_(std::make_unique<AppRuntime>(app_config(config_), std::move(clock))),
      owned_metrics_(std::make_unique<http::Metrics>()),
      app_(owned_app_.get()),
      metrics_(owned_metrics_.get()) {}

WebContext::WebContext(AppRuntime& app, http::Metrics& metrics, WebConfig config)
    : config_(std::move(config)), app_(&app), metrics_(&metrics) {}

WebContext::~WebContext() = default;

Services& WebContext::services() {
  return or_unavailable([&]() -> Services& { return app_->services(); });
}

GameAdmin& WebContext::admin() {
  return or_unavailable([&]() -> GameAdmin& { return app_->admin(); });
}

Membership WebContext::membership() {
  return or_unavailable([&] { return app_->membership(config_.base_url); });
}

Confirmations WebContext::confirmations() {
  return or_unavailable([&] { return app_->confirmations(config_.base_url); });
}

Attendance WebContext::attendance() {
  return or_unavailable([&] { return app_->attendance(config_.base_url); });
}

Press WebContext::press() {
  return or_unavailable([&] { return app_->press(); });
}

HostDesk WebContext::host_desk() {
  return or_unavailable([&] { return app_->host_desk(); });
}

}  // namespace adj::web
