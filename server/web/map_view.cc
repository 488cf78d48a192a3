#include "server/web/map_view.h"

#include <algorithm>

namespace adj::web {

using Json = nlohmann::json;

int map_zoom(const std::map<std::string, std::string>& query) {
  auto it = query.find("zoom");
  if (it == query.end() || it->second.empty() || it->second.size() > 1) return 1;
  const char c = it->second[0];
  return c >= '1' && c <= '0' + kMaxMapZoom ? c - '0' : 1;
}

Json map_block(const render::MapModel& model, int zoom, const std::string& path) {
  zoom = std::clamp(zoom, 1, kMaxMapZoom);
  Json links = Json::array();
  for (int z : {1, 2, 4, 8})
    links.push_back({{"label", std::to_string(z) + "\u00d7"},
                     {"href", path + (z == 1 ? "" : "?zoom=" + std::to_string(z)) + "#map"},
                     {"current", z == zoom}});
  return {{"map_svg", render::render_svg_map(model, {false, static_cast<double>(zoom)})},
          {"map_legend", render::render_map_legend_html(model)},
          {"zoom", zoom},
          {"zoomed", zoom > 1},
          {"zoom_links", std::move(links)}};
}

}  // namespace adj::web
