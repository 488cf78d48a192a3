#pragma once
// Small helpers shared by admin.cc and admin_tick.cc (GameAdmin's two halves). Internal to
// server/app: not for other modules.

#include <spdlog/spdlog.h>

#include <exception>
#include <string>

#include "base/log_escape.h"
#include "rules/core/status.h"
#include "rules/game/state.h"

namespace adj::admin_internal {

// The integer at `key` of a JSON object; 0 when absent or not an integer.
inline int int_field(const Json& j, const char* key) {
  if (!j.is_object()) return 0;
  auto it = j.find(key);
  return it != j.end() && it->is_number_integer() ? it->get<int>() : 0;
}

// Problems the scheduler cannot report through its TickActions (the caller logs those).
inline void log_error(const std::string& game, const char* step, const Status& s) {
  spdlog::error("event=tick_error game={} step=\"{}\" error=\"{}\"", log_escape(game), step,
                log_escape(s.to_string()));
}

// Runs `f`, turning an escaping exception into Status::Internal.
template <class F>
auto guarded(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const std::exception& e) {
    return Status::Internal(std::string("unexpected exception: ") + e.what());
  } catch (...) {
    return Status::Internal("unexpected exception");
  }
}

}  // namespace adj::admin_internal
