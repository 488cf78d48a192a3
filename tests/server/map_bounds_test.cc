// The map's work and size bounds against hostile states: city placement, outline points, the
// text the PNG map lays out, the legend's terrain words.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "rules/game/scenario.h"
#include "server/render/map_png.h"
#include "server/render/state_map.h"
#include "server/render/svg_map.h"
#include "tests/support/sanitized.h"

namespace adj::render {
namespace {

using Json = nlohmann::json;

// A circle of `points` points around (cx, cy), as a scenario outline.
Json circle(double cx, double cy, double r, int points) {
  Json o = Json::array();
  for (int k = 0; k < points; ++k) {
    const double a = 2 * std::acos(-1.0) * k / points;
    o.push_back({cx + r * std::cos(a), cy + r * std::sin(a)});
  }
  return o;
}

std::size_t occurrences(const std::string& s, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = s.find(needle); at != std::string::npos; at = s.find(needle, at + 1)) ++n;
  return n;
}

// 9,999 cities in one hinterland outlined by 1,000 points: without bounds every city tries ~180
// points against the whole outline (~3.5e9 point operations).
TEST(MapBounds, CityPlacementWorkIsBounded) {
  Json st = {{"name", "Cities"}, {"players", Json::array()}, {"areas", Json::array()}};
  st["areas"].push_back({{"code", "H"},
                         {"name", "Hinterland"},
                         {"kind", "land"},
                         {"x", 0},
                         {"y", 0},
                         {"outline", circle(0, 0, 100, 1000)}});
  for (int i = 0; i < 9999; ++i)
    st["areas"].push_back({{"code", "C" + std::to_string(i)},
                           {"name", "City " + std::to_string(i)},
                           {"kind", "city"},
                           {"hinterland", "H"},
                           {"x", (i % 100) - 50},
                           {"y", (i / 100) - 50}});
  const MapModel m = map_model_from_state(st);
  ASSERT_EQ(m.areas.size(), 10000u);
  ASSERT_TRUE(m.areas[0].outline);
  MapWork work;
  MapStyle style;
  style.work = &work;
  const std::string svg = render_svg_map(m, style);
  EXPECT_LE(work.placement_ops, kMaxCityPlacementWork);
  EXPECT_GT(work.placement_ops, 0u);
  EXPECT_GE(work.cities_unplaced, 9999 - kMaxCitiesPlacedPerHinterland);
  EXPECT_EQ(occurrences(svg, "class=\"area city\""), 9999u) << "every city is still drawn";

  // A bundled map places every city the usual way.
  for (const std::string& name : bundled_scenarios()) {
    auto doc = bundled_scenario_published(name);
    ASSERT_TRUE(doc.ok());
    auto s = state_from_scenario(*doc, 1);
    ASSERT_TRUE(s.ok());
    MapWork w;
    MapStyle plain;
    plain.work = &w;
    render_svg_map(map_model_from_state(to_json(*s)), plain);
    EXPECT_EQ(w.cities_unplaced, 0u) << name;
  }
}

// 300 areas of 1,000 outline points each: at most kMaxTotalOutlinePoints are kept, and an area
// without its outline keeps the outline's place.
TEST(MapBounds, OutlinePointsHaveATotalBudget) {
  Json st = {{"name", "Outlines"}, {"areas", Json::array()}};
  for (int i = 0; i < 300; ++i)
    st["areas"].push_back(
        {{"code", "A" + std::to_string(i)}, {"outline", circle(i % 100, i / 100, 0.4, 1000)}});
  const MapModel m = map_model_from_state(st);
  ASSERT_EQ(m.areas.size(), 300u);
  std::size_t points = 0, outlined = 0;
  for (const MapArea& a : m.areas) {
    if (a.outline) {
      points += a.outline->size();
      ++outlined;
    }
    ASSERT_TRUE(a.x && a.y) << a.code;
  }
  EXPECT_LE(points, kMaxTotalOutlinePoints);
  EXPECT_EQ(outlined, kMaxTotalOutlinePoints / 1000);
  EXPECT_NEAR(*m.areas.back().x, 99, 1e-6);
  EXPECT_NEAR(*m.areas.back().y, 2, 1e-6);
  EXPECT_FALSE(m.areas.back().outline);
}

// Outlines are drawn at pixel scale: 1,000 points around a territory ~50 pixels across become a
// few hundred, and a tiny outline still gets a territory.
TEST(MapBounds, OutlinesAreSimplifiedToPixels) {
  Json st = {{"name", "Dense"}, {"areas", Json::array()}};
  for (int i = 0; i < 200; ++i)
    st["areas"].push_back(
        {{"code", "A" + std::to_string(i)}, {"outline", circle(i % 20, i / 20, 0.4, 1000)}});
  st["areas"][0]["outline"] = circle(0, 0, 1e-4, 1000);  // under a pixel across
  const MapModel m = map_model_from_state(st);
  const std::string svg = render_svg_map(m);
  for (const char* code : {"A0", "A57"}) {
    const auto at = svg.find("id=\"area-" + std::string(code) + "\"");
    ASSERT_NE(at, std::string::npos) << code;
    const auto d = svg.find(" d=\"M", at);
    ASSERT_NE(d, std::string::npos) << code;
    const std::string path = svg.substr(d, svg.find('"', d + 5) - d);
    const std::size_t sides = occurrences(path, "L");
    EXPECT_GE(sides, 2u) << code;
    EXPECT_LT(sides, 500u) << code;
  }
  EXPECT_LT(svg.size(), 200u * 3 * 500 * 14) << "three paths per area, each simplified";
}

// An unknown terrain word per area: the legend names at most 8 per family, each shortened.
TEST(MapBounds, LegendListsAFewTerrainWordsPerFamily) {
  Json st = {{"name", "Terrains"}, {"areas", Json::array()}};
  for (int i = 0; i < 300; ++i)
    st["areas"].push_back({{"code", "A" + std::to_string(i)},
                           {"x", i % 20},
                           {"y", i / 20},
                           {"terrain", "swampland-" + std::to_string(1000 + i) +
                                           std::string(i == 0 ? 5000 : 0, 'x')}});
  const MapModel m = map_model_from_state(st);
  for (const std::string& legend : {render_map_legend_html(m), render_svg_map(m)}) {
    const auto at = legend.find("lowlands:");
    ASSERT_NE(at, std::string::npos);
    const std::string line = legend.substr(at, legend.find('<', at) - at);
    EXPECT_EQ(occurrences(line, "swampland-"), 8u) << line;
    EXPECT_NE(line.find("\u2026"), std::string::npos) << line;
    EXPECT_LT(line.size(), 400u) << line;
  }
}

// The PNG map lays out every drawn text cut: terrain, kind, owner and hinterland like codes.
TEST(MapBounds, ThePngMapCutsEveryDrawnText) {
  const std::string huge(20000, 'T');
  Json st = {{"name", "Texts"},
             {"players", {{{"code", "P" + huge}, {"name", huge}, {"secret", "s"}}}},
             {"areas",
              {{{"code", "A" + huge},
                {"name", huge},
                {"kind", "land" + huge},
                {"terrain", "forest" + huge},
                {"owner", "P" + huge}},
               {{"code", "C"}, {"kind", "city"}, {"hinterland", "A" + huge}}}}};
  const Json d = render::drawable_state(st);
  EXPECT_FALSE(d["players"][0].contains("secret"));
  for (const Json* v : {&d["players"][0]["code"], &d["players"][0]["name"], &d["areas"][0]["code"],
                        &d["areas"][0]["name"], &d["areas"][0]["kind"], &d["areas"][0]["terrain"],
                        &d["areas"][0]["owner"], &d["areas"][1]["hinterland"]})
    EXPECT_LE(v->get<std::string>().size(), 203u) << v->get<std::string>().substr(0, 20);
  EXPECT_EQ(d["areas"][0]["owner"], d["players"][0]["code"]) << "references still match";
  EXPECT_EQ(d["areas"][1]["hinterland"], d["areas"][0]["code"]);
  const MapModel m = map_model_from_state(d);
  EXPECT_EQ(drawn_as_markers(m), (std::vector<bool>{false, true}));
}

// A 5,000-area map's PNG over the byte budget (half its size here) is drawn with fewer pixels,
// the aspect kept, so that report mails still carry it; the default budget holds too.
TEST(MapBounds, ABigMapsPngIsDrawnSmallerToFitTheMailBudget) {
  if (adj::testing::kSanitized)
    GTEST_SKIP() << "a size test (5,000 areas) for the optimised build; the smaller maps reach the "
                    "same code under the sanitizers";
  Json st = {{"name", "Big"},
             {"players", {{{"code", "AAA"}, {"name", "A"}}, {{"code", "BBB"}, {"name", "B"}}}},
             {"areas", Json::array()}};
  for (int i = 0; i < 5000; ++i)
    st["areas"].push_back({{"code", "A" + std::to_string(i)},
                           {"name", "Area " + std::to_string(i)},
                           {"owner", i % 3 == 0   ? "AAA"
                                     : i % 3 == 1 ? "BBB"
                                                  : ""},
                           {"armies", i % 7},
                           {"terrain", i % 2 ? "forest" : "hills"},
                           {"x", (i % 100) * 40},
                           {"y", (i / 100) * 40}});
  const auto full = render::state_map_png(st, {}, 0);
  ASSERT_TRUE(full.ok()) << full.status().to_string();
  const std::size_t budget = full->size() / 2;
  const auto png = render::state_map_png(st, {}, budget);
  ASSERT_TRUE(png.ok()) << png.status().to_string();
  EXPECT_LE(png->size(), budget);
  const auto a = render::png_size(*full), b = render::png_size(*png);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_LT(b->first, a->first);
  EXPECT_NEAR(static_cast<double>(b->second) / b->first, static_cast<double>(a->second) / a->first,
              0.01);
  const auto by_default = render::state_map_png(st);
  ASSERT_TRUE(by_default.ok());
  EXPECT_LE(by_default->size(), render::kMapPngBudget);
  std::printf("5000 areas: PNG %dx%d %zu bytes -> %dx%d %zu bytes\n", a->first, a->second,
              full->size(), b->first, b->second, png->size());
}

}  // namespace
}  // namespace adj::render
