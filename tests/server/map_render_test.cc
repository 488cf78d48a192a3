// The map's layers as documents of their own (server/render/map_render.cc: svg_under, svg_over),
// as turn_map.h rasterises them: a bare scene leaves out what only the web's SVG uses (per-area
// groups, titles and ids) and draws the same pixels.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "rules/game/scenario.h"
#include "server/render/map_raster.h"
#include "server/render/map_render_internal.h"
#include "server/render/state_map.h"

namespace adj::render {
namespace {

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (auto at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

raster::Pixels drawn(const std::string& svg, const PngLimits& limits) {
  auto doc = raster::Svg::load(svg, limits);
  EXPECT_TRUE(doc.ok()) << doc.status().message();
  const auto [w, h] = doc->pixel_size(limits);
  auto p = raster::Pixels::blank(w, h, true);
  EXPECT_TRUE(p.ok());
  EXPECT_TRUE(doc->draw(*p).ok());
  return std::move(p).value();
}

TEST(MapRender, ABareSceneLeavesOutTheWebsGroupsAndTitlesAndDrawsTheSamePixels) {
  auto doc = bundled_scenario_published("dark-age-britain");
  ASSERT_TRUE(doc.ok());
  auto st = state_from_scenario(*doc, 1);
  ASSERT_TRUE(st.ok());
  const MapModel model = map_model_from_state(drawable_state(to_json(*st)));
  MapStyle style;
  style.flat = true;
  mapdraw::Scene web = mapdraw::build_scene(model, style);
  mapdraw::Scene bare = mapdraw::build_scene(model, style);
  bare.bare = true;
  const mapdraw::LegendGrid legend =
      mapdraw::legend_grid(mapdraw::legend_items(model, "", true), web.lay.width);
  const double height = mapdraw::legend_height(legend, web.lay.height);
  std::vector<raster::Text> texts;
  const std::string web_under = mapdraw::svg_under(web, height);
  const std::string web_over = mapdraw::svg_over(web, legend, height, &texts);
  const std::string bare_under = mapdraw::svg_under(bare, height);
  const std::string bare_over = mapdraw::svg_over(bare, legend, height, &texts);

  // The web's documents name every area; the bare ones only the map (its one title).
  EXPECT_EQ(count(web_under, "id=\"area-"), model.areas.size());
  EXPECT_GT(count(web_under, "<title>"), model.areas.size() / 2);
  EXPECT_GT(count(web_over, "data-for=\""), 0u);
  EXPECT_EQ(count(bare_under, "id=\"area-"), 0u);
  EXPECT_EQ(count(bare_under, "<title"), 1u);
  EXPECT_EQ(count(bare_over, "data-for=\""), 0u);
  EXPECT_LT(bare_under.size() * 3, web_under.size() * 2) << "a third fewer bytes to parse";

  // The same picture, pixel for pixel.
  PngLimits limits = kMailMapLimits;
  for (const auto& [a, b] : {std::pair{&web_under, &bare_under}, {&web_over, &bare_over}}) {
    const raster::Pixels pa = drawn(*a, limits), pb = drawn(*b, limits);
    ASSERT_EQ(pa.width, pb.width);
    ASSERT_EQ(pa.height, pb.height);
    EXPECT_TRUE(pa.data == pb.data);
  }
}

}  // namespace
}  // namespace adj::render
