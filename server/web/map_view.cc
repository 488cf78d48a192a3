#include "server/web/map_view.h"

#include <algorithm>
#include <optional>

#include "base/ascii.h"
#include "base/escape.h"
#include "server/http/http_types.h"

namespace adj::web {

using Json = nlohmann::json;

namespace {

// What a region shows, in words.
std::string region_note(std::size_t whole, std::size_t drawn, const std::string& around) {
  const std::string head =
      "This world has " + ascii::with_count(static_cast<long long>(whole), "area");
  if (drawn == 0)
    return head + ", too many to draw on one page: give an area to draw the map around it.";
  return head + ": the map shows the " + std::to_string(drawn) + " nearest " + around + ".";
}

}  // namespace

int map_zoom(const std::map<std::string, std::string>& query) {
  auto it = query.find("zoom");
  if (it == query.end() || it->second.empty() || it->second.size() > 1) return 1;
  const char c = it->second[0];
  return c >= '1' && c <= '0' + kMaxMapZoom ? c - '0' : 1;
}

Json map_block(const render::MapModel& model, const std::map<std::string, std::string>& query,
               const std::string& path, const MapFocus& focus, const std::string& whole_href) {
  const int zoom = map_zoom(query);
  const bool big = model.areas.size() > render::kWholeMapAreas;
  std::string around;  // the query's area, when it names one of a big map
  if (auto it = query.find("around"); big && it != query.end())
    for (const render::MapArea& a : model.areas)
      if (a.code == it->second) around = a.code;
  std::optional<render::MapModel> region;
  if (big) region = render::map_region(model, around.empty() ? focus.areas : std::vector{around});
  const render::MapModel& drawn = region ? *region : model;
  const bool none = region && region->areas.empty();

  const std::string also = around.empty() ? "" : "around=" + url_encode(around);
  Json links = Json::array();
  for (int z : {1, 2, 4, 8}) {
    std::string q = z == 1 ? "" : "zoom=" + std::to_string(z);
    if (!also.empty()) q += (q.empty() ? "" : "&") + also;
    links.push_back({{"label", std::to_string(z) + "\u00d7"},
                     {"href", path + (q.empty() ? "" : "?" + q) + "#map"},
                     {"current", z == zoom}});
  }
  Json out = {
      {"map_svg", none ? "" : render::render_svg_map(drawn, {false, static_cast<double>(zoom)})},
      {"map_legend", none ? "" : render::render_map_legend_html(drawn)},
      {"zoom", zoom},
      {"zoomed", zoom > 1},
      {"zoom_links", std::move(links)},
      {"region", nullptr}};
  if (region)
    out["region"] = {{"note", region_note(model.areas.size(), region->areas.size(),
                                          around.empty() ? focus.words : around)},
                     {"around", around},
                     {"path", path},
                     {"zoom", zoom > 1 ? Json(zoom) : Json()},
                     {"whole_href", whole_href.empty() ? Json() : Json(whole_href)}};
  return out;
}

}  // namespace adj::web
