// The map of a game state as a PNG: the web pages' SVG map (server/web/svg_map.h) of the state
// without its secrets (the fields route::public_state drops), rendered by svg_to_png. What
// report mails attach.
//
// Thread-safety: as svg_to_png (several threads at once); pure apart from librsvg's font lookup.
#pragma once

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "server/render/map_png.h"

namespace adj::render {

// `state`: a state document (to_json(GameState), the `game show --json` form). Errors as
// svg_to_png's; InvalidArgument when `state` is not a JSON object. Every "name" is drawn cut to
// 200 bytes and every "code" to 64 (with "…"), which bounds the text layout time.
Result<std::string> state_map_png(const nlohmann::json& state, const PngLimits& limits = {});

// state_map_png with `limits` as a function (the mail layer's MapPainter, report_map.h).
std::function<Result<std::string>(const nlohmann::json&)> map_painter(PngLimits limits = {});

}  // namespace adj::render
