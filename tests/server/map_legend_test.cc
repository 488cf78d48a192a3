// The legend inside the map's SVG (server/render/map_legend.cc): its lines written escaped, or
// set apart for cairo in the flat map (draw_legend's `texts`).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "server/render/map_render_internal.h"

namespace adj::render {
namespace {

mapdraw::LegendGrid grid_of(const std::vector<std::string>& labels) {
  std::vector<mapstyle::LegendItem> items;
  for (const std::string& l : labels)
    items.push_back({"<rect width=\"14\" height=\"14\"/>", l, ""});
  return mapdraw::legend_grid(std::move(items), 1000);
}

// A line cairo draws alike goes to `texts` as it is (a hostile name is then only pixels); one it
// cannot (Hebrew: no shaping, no fallback font) stays in the SVG, escaped. Lines before `first`
// (drawn by an earlier layer) are in neither.
TEST(MapLegend, SetsDrawableLinesApartAndEscapesTheRest) {
  const std::string latin = "<img src=x onerror=alert(1)> & co (IMG)";
  const std::string hebrew = "<b>\xd7\x90\xd7\x91</b> (HEB)";  // alef bet
  const mapdraw::LegendGrid g = grid_of({"before", latin, hebrew});
  std::string s;
  std::vector<raster::Text> texts;
  mapdraw::draw_legend(g, 500, s, 1, &texts);
  ASSERT_EQ(texts.size(), 1u);
  EXPECT_EQ(texts[0].text, latin);
  EXPECT_FALSE(texts[0].middle) << "legend lines start at their x";
  EXPECT_EQ(texts[0].size, 11.0);
  EXPECT_EQ(s.find("<img"), std::string::npos);
  EXPECT_EQ(s.find("<b>"), std::string::npos);
  EXPECT_NE(s.find(">&lt;b&gt;\xd7\x90\xd7\x91&lt;/b&gt; (HEB)</text>"), std::string::npos) << s;
  EXPECT_EQ(s.find("before"), std::string::npos);
  EXPECT_EQ(s.find("IMG"), std::string::npos) << "set apart, not drawn twice";
  // Without `texts` (the web's SVG, the full style), every line is in the SVG, escaped.
  std::string all;
  mapdraw::draw_legend(g, 500, all);
  EXPECT_NE(all.find(">before</text>"), std::string::npos);
  EXPECT_NE(all.find(">&lt;img src=x onerror=alert(1)&gt; &amp; co (IMG)</text>"),
            std::string::npos)
      << all;
  EXPECT_EQ(all.find("<img"), std::string::npos);
}

}  // namespace
}  // namespace adj::render
