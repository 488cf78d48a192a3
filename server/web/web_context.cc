// WebContext: the web's borrowing of the application runtime (server/app/app_runtime.h).
#include "server/web/web_context.h"

namespace adj::web {
namespace {

AppConfig app_config(const WebConfig& c) {
  AppConfig a;
  a.db_path = c.db_path;
  a.throttle = c.throttle;
  a.sessions = c.sessions;
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

Store& thread_store(WebContext& ctx) {
  return or_unavailable([&]() -> Store& { return ctx.app().store(); });
}

}  // namespace adj::web
