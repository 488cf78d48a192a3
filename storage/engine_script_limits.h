// Bounds of EngineScriptStore (storage/engine_script_store.h), shared by both stores and the
// front ends' early checks.
#pragma once

#include <string>

namespace adj {

// The most versions one game keeps (every version stays, for replays).
inline constexpr int kMaxEngineScriptVersions = 200;

// The refusal of a version past kMaxEngineScriptVersions.
inline std::string too_many_script_versions(const std::string& game) {
  return "game " + game + " already has " + std::to_string(kMaxEngineScriptVersions) +
         " engine script versions, the most a game keeps";
}

}  // namespace adj
