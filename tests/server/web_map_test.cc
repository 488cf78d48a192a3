// The map as a map (issue 13): outlines, arrows, labels by zoom, the HTML legend, the 5,000-area
// scale, and the page helpers of server/web/map_view.h. Pure functions, no server.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>

#include "rules/game/scenario.h"
#include "server/render/svg_map.h"
#include "server/web/map_view.h"
#include "tests/server/web_test_util.h"
#include "tests/support/sanitized.h"

namespace adj::web {
namespace {

using ::adj::testing::check_balanced;
using ::adj::testing::count;
using Json = nlohmann::json;

Json map_state_of(const std::string& scenario) {
  auto doc = bundled_scenario_published(scenario);
  EXPECT_TRUE(doc.ok()) << doc.status().to_string();
  auto st = state_from_scenario(*doc, 1);
  EXPECT_TRUE(st.ok()) << st.status().to_string();
  return to_json(*st);
}

// n areas on a jittered grid with coordinates, owned in turn by four players.
render::MapModel big_model(std::size_t n) {
  render::MapModel m;
  m.title = "Big";
  for (const char* p : {"AAA", "BBB", "CCC", "DDD"})
    m.players.push_back({p, std::string(p) + " land"});
  const auto cols = static_cast<std::size_t>(std::sqrt(static_cast<double>(n)) * 1.3);
  for (std::size_t i = 0; i < n; ++i) {
    const double jx = std::sin(static_cast<double>(i) * 12.9898) * 0.3;
    const double jy = std::cos(static_cast<double>(i) * 78.233) * 0.3;
    render::MapArea a;
    a.code = "A" + std::to_string(i);
    a.name = "Province " + std::to_string(i);
    a.owner = i % 5 == 4 ? "" : m.players[i % 4].code;
    a.armies = static_cast<int>(i % 7);
    a.terrain = i % 3 ? "forest" : "lowlands";
    a.kind = i % 17 == 0 ? "sea" : "land";
    a.x = static_cast<double>(i % cols) + jx;
    a.y = static_cast<double>(i / cols) + jy;
    m.areas.push_back(std::move(a));
  }
  return m;
}

TEST(MapRender, FiveThousandAreasRenderWithLabelsOnlyWhenZoomed) {
  if (adj::testing::kSanitized)
    GTEST_SKIP() << "a size test (5,000 areas) for the optimised build; the smaller maps reach the "
                    "same code under the sanitizers";
  const render::MapModel m = big_model(5000);
  const auto t0 = std::chrono::steady_clock::now();
  const std::string svg = render::render_svg_map(m);
  const auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0);
  std::printf("[ figure   ] 5000 areas: render %.0f ms, SVG %zu bytes (zoom 1, legend inside)\n",
              ms.count(), svg.size());
  EXPECT_EQ(check_balanced(svg), "");
  EXPECT_EQ(count(svg, "<g class=\"area "), 5000);
  EXPECT_EQ(count(svg, " class=\"name\""), 0);  // too small for names at zoom 1
  const auto t1 = std::chrono::steady_clock::now();
  const std::string zoomed = render::render_svg_map(m, {false, 8});
  const auto ms8 = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t1);
  std::printf("[ figure   ] 5000 areas: render %.0f ms, SVG %zu bytes (zoom 8)\n", ms8.count(),
              zoomed.size());
  EXPECT_GT(count(zoomed, " class=\"name\""), 4000);
}

TEST(MapRender, ScenarioOutlinesAreDrawnAndInvalidOnesIgnored) {
  // Through the scenario (its schema allows "outline") and the stored state's JSON form.
  Json doc = *bundled_scenario_published("crt-river-crossing");
  // West Ford gets a square outline; East Ford a broken one (a string in it).
  for (auto& a : doc["areas"]) {
    if (a["code"] == "WFD") a["outline"] = Json::parse("[[60,60],[140,60],[140,140],[60,140]]");
    if (a["code"] == "EFD") a["outline"] = Json::parse("[[0,0],[\"x\",1],[5,5]]");
  }
  auto state = state_from_scenario(doc, 1);
  ASSERT_TRUE(state.ok()) << state.status().to_string();
  Json st = to_json(*state);
  ASSERT_TRUE(state_from_json(st).ok());
  EXPECT_EQ(to_json(*state_from_json(st)), st);  // the outline round-trips
  const render::MapModel m = render::map_model_from_state(st);
  const render::MapArea& wfd = *std::find_if(
      m.areas.begin(), m.areas.end(), [](const render::MapArea& a) { return a.code == "WFD"; });
  const render::MapArea& efd = *std::find_if(
      m.areas.begin(), m.areas.end(), [](const render::MapArea& a) { return a.code == "EFD"; });
  ASSERT_TRUE(wfd.outline);
  EXPECT_EQ(wfd.outline->size(), 4u);
  EXPECT_FALSE(efd.outline);
  const std::string svg = render::render_svg_map(m);
  EXPECT_EQ(check_balanced(svg), "");
  // WFD's territory is its square: a path of four points.
  const std::size_t g = svg.find("id=\"area-WFD\"");
  const std::size_t d = svg.find("<path d=\"M", g);
  const std::string path = svg.substr(d, svg.find('"', d + 9) - d);
  EXPECT_EQ(count(path, "L"), 3) << path;
  EXPECT_NE(svg.find("id=\"area-EFD\""), std::string::npos);  // still drawn, as a cell
  // An area with only an outline (no x, y) is placed at its centroid.
  for (auto& a : st["areas"])
    if (a["code"] == "WFD") {
      a.erase("x");
      a.erase("y");
    }
  const render::MapModel m2 = render::map_model_from_state(st);
  const auto& w2 = *std::find_if(m2.areas.begin(), m2.areas.end(),
                                 [](const render::MapArea& a) { return a.code == "WFD"; });
  EXPECT_DOUBLE_EQ(*w2.x, 100);
  EXPECT_DOUBLE_EQ(*w2.y, 100);
}

TEST(MapRender, TerrainFortsFeaturesAndRiversAreDrawnAndExplained) {
  const render::MapModel vm = render::map_model_from_state(map_state_of("virtuti-militari-1939"));
  const std::string svg = render::render_svg_map(vm, {true, 2});
  EXPECT_EQ(check_balanced(svg), "");
  EXPECT_EQ(count(svg, "fill=\"#3b3b3b\""), 1 + 5);     // the legend, DAN EPR KRK MIN WAR
  EXPECT_NE(svg.find(">2</text>"), std::string::npos);  // Warsaw's fort level
  EXPECT_NE(svg.find("mud (weather)"), std::string::npos);
  EXPECT_NE(svg.find("frozen ground (weather)"), std::string::npos);
  // Every river border is shown: on the shared side, or as a blue dashed link.
  EXPECT_EQ(count(svg, "class=\"river\"") + count(svg, "stroke=\"#3f7fc4\" stroke-width=\"1.2\""),
            static_cast<int>(vm.rivers.size()));
  EXPECT_GE(count(svg, "class=\"river\""), 1);
  EXPECT_NE(svg.find(">river</text>"), std::string::npos);
  const render::MapModel pw = render::map_model_from_state(map_state_of("path-of-war-ardennes"));
  const std::string ardennes = render::render_svg_map(pw);
  for (const char* key : {">castle</text>", ">road</text>", ">railway</text>"})
    EXPECT_NE(ardennes.find(key), std::string::npos) << key;
}

TEST(MapRender, ArrowsInThePlayersColourWithResultsEscaped) {
  render::MapModel m = render::map_model_from_state(map_state_of("dark-age-britain"));
  m.arrows = {{"HAM", "SUS", "attack", "WSX", "Battle at <Sussex> & co"},
              {"WIL", "OXF", "move", "WSX", "MOVE WIL OXF 2"},
              {"SUS", "KNT", "retreat", "", "fell back"},
              {"HAM", "NOWHERE", "move", "WSX", "unknown area: not drawn"},
              {"HAM", "HAM", "move", "WSX", "no distance: not drawn"}};
  const std::string svg = render::render_svg_map(m);
  EXPECT_EQ(check_balanced(svg), "");
  EXPECT_EQ(count(svg, "<g class=\"arrow "), 3);
  EXPECT_EQ(count(svg, "<g class=\"arrow attack\""), 1);
  EXPECT_NE(svg.find("<title>Battle at &lt;Sussex&gt; &amp; co</title>"), std::string::npos);
  EXPECT_EQ(svg.find("<Sussex>"), std::string::npos);
  // Wessex's colour (index 4), bolder for the attack; retreats dashed and grey without a player.
  const std::size_t at = svg.find("<g class=\"arrow attack\"");
  const std::string attack = svg.substr(at, svg.find("</g>", at) - at);
  EXPECT_NE(attack.find("stroke=\"" + render::palette_colour(4) + "\" stroke-width=\"4.5\""),
            std::string::npos)
      << attack;
  const std::size_t rt = svg.find("<g class=\"arrow retreat\"");
  const std::string retreat = svg.substr(rt, svg.find("</g>", rt) - rt);
  EXPECT_NE(retreat.find("stroke-dasharray"), std::string::npos);
  EXPECT_NE(retreat.find("#555555"), std::string::npos);
  EXPECT_NE(svg.find(">attack (hover: result)</text>"), std::string::npos);
  // Deterministic bytes.
  EXPECT_EQ(svg, render::render_svg_map(m));
}

TEST(MapRender, HtmlLegendListsPlayersWithTheirHatchAndIsEscaped) {
  render::MapModel m = render::map_model_from_state(map_state_of("dark-age-britain"));
  m.players[0].name = "<img src=x onerror=alert(1)>";
  const std::string html = render::render_map_legend_html(m);
  EXPECT_EQ(check_balanced(html), "");
  EXPECT_EQ(html.rfind("<aside class=\"map-legend\"", 0), 0u);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_NE(html.find("&lt;img src=x onerror=alert(1)&gt;"), std::string::npos);
  EXPECT_EQ(count(html, "<pattern id=\"lg-own-"), 5);
  EXPECT_EQ(count(html, "<li>"), 5 + 1 + 1 + 5 + 2 + 1);  // kingdoms, unowned, sea, terrains,
                                                          // city and fort, armies
  EXPECT_EQ(render::render_svg_map(m, {false, 1}).find(m.players[0].name), std::string::npos);
  // The legend inside the SVG escapes it too (its items hold the name as it is).
  const std::string svg = render::render_svg_map(m);
  EXPECT_EQ(svg.find(m.players[0].name), std::string::npos);
  EXPECT_NE(svg.find("&lt;img src=x onerror=alert(1)&gt; ("), std::string::npos);
}

TEST(MapRender, HostileCoordinatesNamesAndNumbersStayBounded) {
  Json st = map_state_of("dark-age-britain");
  int k = 0;
  for (auto& a : st["areas"]) {
    const double big[] = {1e300, -1e300, 1e308, 5e7, -1e7, 0};
    a["x"] = big[k % 6];
    a["y"] = big[(k + 2) % 6];
    a["armies"] = 1e300;
    a["fort"] = -5;
    a["name"] = std::string(5000, 'W') + "<&>";
    ++k;
  }
  const render::MapModel m = render::map_model_from_state(st);
  for (const render::MapArea& a : m.areas) {
    EXPECT_TRUE(!a.x || std::fabs(*a.x) <= 1e7) << a.code;
    EXPECT_EQ(a.fort, 0);
    EXPECT_LE(a.armies, 1000000000);
  }
  for (double zoom : {1.0, 8.0}) {
    const std::string svg = render::render_svg_map(m, {true, zoom});
    EXPECT_EQ(check_balanced(svg), "");
    EXPECT_EQ(svg.find("nan"), std::string::npos);
    EXPECT_EQ(svg.find("inf"), std::string::npos);
    EXPECT_EQ(svg.find("<&>"), std::string::npos);
    EXPECT_EQ(count(svg, "<g class=\"area "), static_cast<int>(m.areas.size()));
  }
}

TEST(MapView, ZoomIsAWholeNumberFromOneToEight) {
  EXPECT_EQ(map_zoom({}), 1);
  EXPECT_EQ(map_zoom({{"zoom", "2"}}), 2);
  EXPECT_EQ(map_zoom({{"zoom", "8"}}), 8);
  for (const char* bad : {"0", "9", "22", "-1", "2x", "", "1e3", "\xff"})
    EXPECT_EQ(map_zoom({{"zoom", bad}}), 1) << bad;
}

Json battle(const std::string& id, const std::string& from, const std::string& to, bool captured) {
  return {{"id", id},
          {"kind", "move"},
          {"attacker", "WSX"},
          {"defender", "MRC"},
          {"from", from},
          {"to", to},
          {"captured", captured},
          {"to_name", "Sussex"},
          {"outcome", {{"defender_retreats_to", "KNT"}}},
          {"groups", {{{"player", "WSX"}, {"from", from}}, {{"player", "WSX"}, {"from", "WIL"}}}}};
}

TEST(MapView, ReportArrowsAreMovesBattlesAndRetreatsEachOnce) {
  const Json report = {
      {"player", {{"code", "WSX"}}},
      {"actions",
       {{{"verb", "MOVE"}, {"ok", true}, {"text", "MOVE som wil 2"}},
        {{"verb", "MOVE"}, {"ok", false}, {"text", "MOVE WIL XXX 2"}},  // failed: no arrow
        {{"verb", "LEVY"}, {"ok", true}, {"text", "LEVY HAM 2"}},
        {{"verb", "MOVE"},
         {"ok", true},
         {"text", "MOVE HAM SUS 3"},
         {"battle", battle("1.1.WSX", "HAM", "SUS", true)}},
        {{"verb", "MOVE"}, {"ok", true}, {"text", "MOVE"}},  // malformed: skipped
        "not an object"}},
      {"attacks_on_you", {battle("1.1.WSX", "HAM", "SUS", true), 42}}};
  const std::vector<render::MapArrow> arrows = arrows_from_report(report);
  ASSERT_EQ(arrows.size(), 4u);
  EXPECT_EQ(arrows[0].kind, "move");
  EXPECT_EQ(arrows[0].from, "SOM");
  EXPECT_EQ(arrows[0].to, "WIL");
  EXPECT_EQ(arrows[0].player, "WSX");
  EXPECT_EQ(arrows[1].kind, "attack");
  EXPECT_EQ(arrows[1].from, "HAM");
  EXPECT_NE(arrows[1].label.find("Battle at Sussex (SUS)"), std::string::npos);
  EXPECT_NE(arrows[1].label.find("the attacker took SUS"), std::string::npos);
  EXPECT_EQ(arrows[2].from, "WIL");  // the combined attack's second origin
  EXPECT_EQ(arrows[3].kind, "retreat");
  EXPECT_EQ(arrows[3].from, "SUS");
  EXPECT_EQ(arrows[3].to, "KNT");
  EXPECT_EQ(arrows[3].player, "MRC");
  EXPECT_TRUE(arrows_from_report(Json()).empty());
  EXPECT_TRUE(arrows_from_report(Json::array()).empty());
}

TEST(MapView, TurnArrowsShowMovesOnlyWhenAsked) {
  const std::vector<Json> battles = {battle("2.1.WSX", "OXF", "MDX", false), Json("junk")};
  const Json actions = {
      {{"player", "EAN"}, {"verb", "MOVE"}, {"ok", true}, {"text", "MOVE ESX MDX 2"}},
      {{"player", "WSX"},
       {"verb", "MOVE"},
       {"ok", false},
       {"text", "MOVE OXF MDX AB-1"},
       {"battle", "2.1.WSX"}}};
  const auto without = arrows_from_turn(battles, actions, false);
  EXPECT_EQ(without.size(), 3u);  // attack from OXF and WIL, the retreat
  EXPECT_NE(without[0].label.find("MDX held"), std::string::npos);
  const auto with = arrows_from_turn(battles, actions, true);
  ASSERT_EQ(with.size(), 4u);
  EXPECT_EQ(with[3].player, "EAN");
  EXPECT_EQ(with[3].kind, "move");
}

TEST(MapView, BlockHasZoomLinksTheMapAndTheLegend) {
  const render::MapModel m = render::map_model_from_state(map_state_of("exalted-scavenger-lands"));
  const Json b = map_block(m, {{"zoom", "4"}}, "/games/x-1");
  EXPECT_EQ(b["zoom"], 4);
  EXPECT_TRUE(b["zoomed"].get<bool>());
  ASSERT_EQ(b["zoom_links"].size(), 4u);
  EXPECT_EQ(b["zoom_links"][0]["href"], "/games/x-1#map");
  EXPECT_EQ(b["zoom_links"][2]["href"], "/games/x-1?zoom=4#map");
  EXPECT_TRUE(b["zoom_links"][2]["current"].get<bool>());
  EXPECT_EQ(b["map_svg"].get<std::string>().find("class=\"legend\""), std::string::npos);
  EXPECT_NE(b["map_legend"].get<std::string>().find("map-legend"), std::string::npos);
  EXPECT_TRUE(b["region"].is_null());  // a small map is drawn whole
  EXPECT_EQ(map_block(m, {{"zoom", "9"}}, "/g")["zoom"], 1);
}

}  // namespace
}  // namespace adj::web
