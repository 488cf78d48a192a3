#include "server/render/state_map.h"

#include "server/web/route_util.h"
#include "server/web/svg_map.h"

namespace adj::render {

Result<std::string> state_map_png(const nlohmann::json& state, const PngLimits& limits) {
  const std::string svg =
      web::render_svg_map(web::map_model_from_state(web::route::public_state(state)));
  return svg_to_png(svg, limits);
}

std::function<Result<std::string>(const nlohmann::json&)> map_painter(PngLimits limits) {
  return [limits](const nlohmann::json& state) { return state_map_png(state, limits); };
}

}  // namespace adj::render
