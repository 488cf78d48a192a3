// The map as a PNG (server/render/map_png.h, state_map.h): real librsvg and cairo, the PNG read
// back with cairo. Size limits, hostile and malformed input, the bundled scenarios' maps.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "rules/game/scenario.h"
#include "server/render/map_png.h"
#include "server/render/state_map.h"
#include "server/render/svg_map.h"
#include "tests/server/png_pixels.h"
#include "tests/support/sanitized.h"

namespace adj::render {
namespace {

constexpr unsigned char kSig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

std::string svg(const std::string& attrs, const std::string& body) {
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" " + attrs + ">" + body + "</svg>";
}

// The pixel at (x, y) of a PNG as 0xAARRGGBB, decoded by cairo (not by our png_size).
std::uint32_t pixel(const std::string& png, int x, int y) {
  const test_png::Decoded d = test_png::decode(png);
  return d.px.empty() ? 0 : d.at(x, y);
}

void expect_png(const std::string& png, int w, int h) {
  ASSERT_GE(png.size(), 24u);
  EXPECT_EQ(std::memcmp(png.data(), kSig, 8), 0);
  auto size = png_size(png);
  ASSERT_TRUE(size.ok()) << size.status().to_string();
  EXPECT_EQ(size->first, w);
  EXPECT_EQ(size->second, h);
}

TEST(MapPng, DrawsTheSvgAtItsSize) {
  const auto png = svg_to_png(svg("width=\"200\" height=\"100\"",
                                  "<rect x=\"100\" y=\"0\" width=\"100\" height=\"100\" "
                                  "fill=\"#ff0000\"/>"));
  ASSERT_TRUE(png.ok()) << png.status().to_string();
  expect_png(*png, 200, 100);
  EXPECT_EQ(pixel(*png, 150, 50), 0xffff0000u);  // the red rectangle
  EXPECT_EQ(pixel(*png, 50, 50), 0xffffffffu);   // white under the SVG, not transparent
  PngLimits clear;
  clear.opaque = false;
  const auto transparent = svg_to_png(svg("width=\"200\" height=\"100\"", ""), clear);
  ASSERT_TRUE(transparent.ok());
  EXPECT_EQ(pixel(*transparent, 50, 50), 0u);
}

TEST(MapPng, HugeSizesAreScaledDownToTheLimitKeepingTheAspect) {
  const auto png =
      svg_to_png(svg("width=\"100000\" height=\"50000\"",
                     "<rect x=\"50000\" y=\"0\" width=\"50000\" height=\"50000\" fill=\"blue\"/>"));
  ASSERT_TRUE(png.ok()) << png.status().to_string();
  expect_png(*png, 1600, 800);
  EXPECT_EQ(pixel(*png, 1200, 400), 0xff0000ffu);  // drawn scaled, not cropped
  EXPECT_EQ(pixel(*png, 400, 400), 0xffffffffu);

  PngLimits small;
  small.max_width = 300;
  small.max_height = 300;
  const auto tall = svg_to_png(svg("viewBox=\"0 0 100 1000\"", ""), small);  // viewBox only
  ASSERT_TRUE(tall.ok()) << tall.status().to_string();
  expect_png(*tall, 30, 300);
  // Small images are not scaled up.
  const auto tiny = svg_to_png(svg("width=\"3\" height=\"2\"", ""));
  ASSERT_TRUE(tiny.ok());
  expect_png(*tiny, 3, 2);
}

TEST(MapPng, MalformedInputIsAnErrorNamingWhatIsWrong) {
  const auto expect_error = [](std::string_view in, const std::string& says,
                               const PngLimits& l = {}) {
    const auto r = svg_to_png(in, l);
    ASSERT_FALSE(r.ok()) << in;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << in;
    EXPECT_NE(r.status().message().find(says), std::string::npos) << r.status().message();
  };
  expect_error("", "empty");
  expect_error("not xml at all", "not a readable SVG");
  expect_error("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"10\"><rect",
               "not a readable SVG");
  expect_error(std::string("<svg\0>", 6), "not a readable SVG");
  expect_error("<html><body>hi</body></html>", "");
  expect_error(svg("", "<rect width=\"10\" height=\"10\"/>"), "no usable size");
  expect_error(svg("width=\"0\" height=\"10\" viewBox=\"0 0 0 10\"", ""), "no usable size");
  expect_error(svg("width=\"-5\" height=\"-5\"", ""), "");
  PngLimits small;
  small.max_svg_bytes = 100;
  expect_error(svg("width=\"10\" height=\"10\"", std::string(200, ' ')), "over the limit of 100",
               small);
  PngLimits zero;
  zero.max_width = 0;
  expect_error(svg("width=\"10\" height=\"10\"", ""), "limits", zero);
  EXPECT_FALSE(png_size("GIF89a").ok());
  EXPECT_FALSE(png_size(std::string(30, '\0')).ok());
}

TEST(MapPng, ExternalFilesAndEntitiesAreNotRead) {
  // No base URL: librsvg refuses every external reference.
  const std::string with_image =
      svg("width=\"50\" height=\"50\"",
          "<image href=\"file:///etc/passwd\" width=\"50\" height=\"50\"/>"
          "<image href=\"/usr/share/pixmaps/debian-logo.png\" width=\"50\" height=\"50\"/>");
  const auto a = svg_to_png(with_image);
  ASSERT_TRUE(a.ok()) << a.status().to_string();
  const auto blank = svg_to_png(svg("width=\"50\" height=\"50\"", ""));
  ASSERT_TRUE(blank.ok());
  EXPECT_EQ(*a, *blank);
  // No DTD at all: no external entity, no expansion bomb.
  const std::string xxe =
      "<?xml version=\"1.0\"?><!DOCTYPE svg [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>" +
      svg("width=\"300\" height=\"50\"", "<text x=\"0\" y=\"40\" font-size=\"30\">&x;</text>");
  std::string laughs = "<?xml version=\"1.0\"?><!DOCTYPE svg [<!ENTITY a \"lollollollol\">";
  for (char c = 'b'; c <= 'k'; ++c) {
    laughs += std::string("<!ENTITY ") + c + " \"";
    for (int i = 0; i < 10; ++i) laughs += std::string("&") + static_cast<char>(c - 1) + ";";
    laughs += "\">";
  }
  laughs += "]>" + svg("width=\"100\" height=\"20\"", "<text y=\"10\">&k;</text>");
  for (const std::string& in :
       {xxe, laughs, svg("width=\"9\" height=\"9\"", "<!ENTITY x \"y\">")}) {
    const auto r = svg_to_png(in);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find("DOCTYPE or ENTITY"), std::string::npos);
  }
}

TEST(MapPng, EveryBundledScenarioMapRendersWithinTheLimits) {
  for (const std::string& name : bundled_scenarios()) {
    auto doc = bundled_scenario_published(name);
    ASSERT_TRUE(doc.ok()) << name;
    auto st = state_from_scenario(*doc, 1);
    ASSERT_TRUE(st.ok()) << name;
    const auto png = state_map_png(to_json(*st));
    ASSERT_TRUE(png.ok()) << name << ": " << png.status().to_string();
    const auto size = png_size(*png);
    ASSERT_TRUE(size.ok()) << name;
    EXPECT_LE(size->first, 1600) << name;
    EXPECT_LE(size->second, 1600) << name;
    EXPECT_GT(size->first * size->second, 100 * 100) << name;
    EXPECT_LT(png->size(), kMapPngBudget) << name;
    // Deterministic: the same state gives the same bytes.
    EXPECT_EQ(*png, *state_map_png(to_json(*st))) << name;
    if (const char* keep = std::getenv("ADJ_MAP_PNG_DIR"))  // to look at them
      std::ofstream(std::string(keep) + "/" + name + ".png", std::ios::binary) << *png;
  }
}

TEST(MapPng, HostileStatesRenderOrFailCleanly) {
  auto doc = bundled_scenario_published("dark-age-britain");
  ASSERT_TRUE(doc.ok());
  auto st = state_from_scenario(*doc, 1);
  ASSERT_TRUE(st.ok());
  nlohmann::json j = to_json(*st);
  // Names and codes from outside: markup, entities, control characters, 20 KB names, huge and
  // non-finite coordinates.
  const std::string hostile =
      "</text></svg><!ENTITY x \"y\"><svg onload=alert(1)>&amp;&\x01\x7f" + std::string(20000, 'W');
  j["name"] = hostile;
  for (auto& a : j["areas"]) {
    a["name"] = hostile;
    a["code"] = "<" + a.value("code", "") + "&>";
  }
  j["areas"][0]["x"] = 1e300;
  j["areas"][1]["y"] = -1e300;
  for (auto& p : j["players"]) p["name"] = hostile;
  // Long names are cut before pango lays them out (a 20 KB name took seconds to lay out): a
  // structural check, not a timed one (a timing failed under CI load).
  const nlohmann::json drawn = drawable_state(j);
  EXPECT_LE(drawn["name"].get<std::string>().size(), 203u);
  for (const auto& a : drawn["areas"]) EXPECT_LE(a["name"].get<std::string>().size(), 203u);
  for (const auto& p : drawn["players"]) EXPECT_LE(p["name"].get<std::string>().size(), 203u);
  const auto png = state_map_png(j);
  ASSERT_TRUE(png.ok()) << png.status().to_string();
  const auto size = png_size(*png);
  ASSERT_TRUE(size.ok());
  EXPECT_LE(size->first, 1600);
  EXPECT_LE(size->second, 1600);
  // Not a state at all.
  EXPECT_FALSE(state_map_png(nlohmann::json::array()).ok());
  EXPECT_TRUE(state_map_png(nlohmann::json::object()).ok());  // an empty map, still a picture
}

TEST(MapPng, SeveralThreadsAtOnceGetTheSameBytes) {
  auto doc = bundled_scenario_published("dark-age-britain");
  ASSERT_TRUE(doc.ok());
  auto st = state_from_scenario(*doc, 1);
  ASSERT_TRUE(st.ok());
  const nlohmann::json j = to_json(*st);
  const auto one = state_map_png(j);
  ASSERT_TRUE(one.ok());
  std::vector<std::string> got(4 * 3);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 3; ++i) {
        auto png = state_map_png(j);
        got[static_cast<std::size_t>(t * 3 + i)] = png.ok() ? *png : std::string();
      }
    });
  for (auto& th : threads) th.join();
  for (const std::string& g : got) EXPECT_EQ(g, *one);
}

TEST(MapPng, AFiveThousandAreaMapIsScaledToTheLimit) {
  if (adj::testing::kSanitized)
    GTEST_SKIP() << "a size test (5,000 areas) for the optimised build; the smaller maps reach the "
                    "same code under the sanitizers";
  render::MapModel m;
  m.title = "Big <&> map";
  m.players = {{"AAA", "A"}, {"BBB", "B"}};
  for (int i = 0; i < 5000; ++i) {
    render::MapArea a;
    a.code = "A" + std::to_string(i);
    a.name = "Area \"" + std::to_string(i) + "\" <x>";
    a.owner = i % 3 == 0 ? "AAA" : i % 3 == 1 ? "BBB" : "";
    a.armies = i % 7;
    a.x = (i % 100) * 40.0;
    a.y = (i / 100) * 40.0;
    m.areas.push_back(a);
    if (i > 0) m.edges.emplace_back("A" + std::to_string(i - 1), a.code);
  }
  const std::string s = render::render_svg_map(m);
  const auto t0 = std::chrono::steady_clock::now();
  const auto png = svg_to_png(s);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(png.ok()) << png.status().to_string();
  const auto size = png_size(*png);
  ASSERT_TRUE(size.ok());
  EXPECT_LE(size->first, 1600);
  EXPECT_LE(size->second, 1600);
  RecordProperty("svg_bytes", static_cast<int>(s.size()));
  RecordProperty("png_bytes", static_cast<int>(png->size()));
  RecordProperty("render_ms", static_cast<int>(ms));
  std::printf("5000 areas: SVG %zu bytes -> PNG %dx%d, %zu bytes, %.0f ms\n", s.size(), size->first,
              size->second, png->size(), ms);
}

}  // namespace
}  // namespace adj::render
