// The SVG map and charts (server/render/svg_map.h, svg_charts.h) and the page view models
// (pages_view.h): pure functions, tested on the bundled scenarios.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "rules/game/scenario.h"
#include "server/render/svg_map.h"
#include "server/web/page_render.h"
#include "server/web/pages_view.h"
#include "server/web/svg_charts.h"
#include "tests/server/web_test_util.h"

namespace adj::web {
namespace {

using ::adj::testing::check_balanced;
using ::adj::testing::count;

Json svg_state_of(const std::string& scenario) {
  auto doc = bundled_scenario_published(scenario);
  EXPECT_TRUE(doc.ok()) << doc.status().to_string();
  auto st = state_from_scenario(*doc, 1);
  EXPECT_TRUE(st.ok()) << st.status().to_string();
  return to_json(*st);
}

// An area named after its code, at (x, y) when both are given.
render::MapArea area(const std::string& code, std::optional<double> x = std::nullopt,
                     std::optional<double> y = std::nullopt) {
  render::MapArea a;
  a.code = code;
  a.name = code;
  a.x = x;
  a.y = y;
  return a;
}

TEST(Escape, HtmlAndXml) {
  EXPECT_EQ(html_escape("<a href=\"x\">Tom & 'Jerry'</a>"),
            "&lt;a href=&quot;x&quot;&gt;Tom &amp; &#39;Jerry&#39;&lt;/a&gt;");
  const std::string control = std::string("a\x01") + "b\n\t<";
  EXPECT_EQ(html_escape(control), std::string("a\x01") + "b\n\t&lt;");
  EXPECT_EQ(xml_escape(control), "ab\n\t&lt;");  // XML 1.0 has no place for control characters
  EXPECT_EQ(html_escape(""), "");
}

TEST(SvgMap, BritainHasEveryAreaAndIsWellFormed) {
  const Json st = svg_state_of("dark-age-britain");
  const render::MapModel m = render::map_model_from_state(st);
  ASSERT_EQ(m.areas.size(), st["areas"].size());
  ASSERT_EQ(m.players.size(), 5u);
  const std::string svg = render::render_svg_map(m);
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
  EXPECT_EQ(check_balanced(svg), "");
  // Issue 13: names, not only codes. At zoom 4 every territory has room for its name; cities
  // are markers named beside them. Codes stay in the hover titles.
  const std::string big = render::render_svg_map(m, {true, 4});
  EXPECT_EQ(check_balanced(big), "");
  for (const auto& a : st["areas"]) {
    const std::string code = a["code"], name = a["name"];
    EXPECT_NE(svg.find("id=\"area-" + code + "\""), std::string::npos) << code;
    EXPECT_NE(svg.find("<title>" + code + " " + name + " ("), std::string::npos) << code;
    if (a["kind"] == "city")
      EXPECT_NE(big.find(">" + name + " " + std::to_string(a["armies"].get<int>()) + "</text>"),
                std::string::npos)
          << code;
    else
      EXPECT_NE(big.find(" class=\"name\">" + name + "</text>"), std::string::npos) << code;
  }
  // Territories: sea in waves, land under the owner's hatch; cities are markers, not territories.
  EXPECT_EQ(count(svg, "<g class=\"area sea\""), 3);   // IRS, CHN, NTS
  EXPECT_EQ(count(svg, "fill=\"url(#sea)\""), 3 + 1);  // and the legend's swatch
  EXPECT_EQ(count(svg, "fill=\"url(#water)\""), 1);    // the water around, in bigger tiles
  EXPECT_EQ(count(svg, "<g class=\"area city\""), 6);  // WIN CAN LON GLO LEI YRK
  EXPECT_EQ(count(svg, "<g class=\"area land\""), 20);
  const std::size_t win = svg.find("id=\"area-WIN\"");
  EXPECT_EQ(svg.substr(win, svg.find("</g>", win) - win).find("<path"), std::string::npos);
  EXPECT_EQ(svg.find("<line "), std::string::npos);
  EXPECT_EQ(svg.find("<circle cx"), std::string::npos);
  // Owners: a colour-blind-safe colour plus a hatch per player, and the owner's code with the
  // army count (Hampshire: Wessex, 4 armies).
  EXPECT_EQ(count(svg, "<pattern id=\"own-"), 5);
  EXPECT_NE(svg.find("fill=\"url(#own-4)\""), std::string::npos);  // Wessex sorts last
  EXPECT_NE(svg.find(">WSX 4</text>"), std::string::npos);
  EXPECT_NE(svg.find("HAM Hampshire (land): Wessex (WSX), 4 armies"), std::string::npos);
  // Legend inside (the standalone form): every kingdom, terrain, cities, forts.
  for (const auto& p : st["players"])
    EXPECT_NE(svg.find(p["name"].get<std::string>() + " (" + p["code"].get<std::string>() + ")"),
              std::string::npos);
  for (const char* key : {"unowned land", "sea", "forest", "mountains", "wetlands",
                          "city (in its hinterland)", "fort (number: its level)"})
    EXPECT_NE(svg.find(std::string(">") + key), std::string::npos) << key;
  // Text with a halo.
  EXPECT_NE(svg.find("paint-order=\"stroke\""), std::string::npos);
}

TEST(SvgMap, SixAreasFitASmallBoxAndZoomWidensTheCanvas) {
  render::MapModel m;
  for (int i = 0; i < 6; ++i)
    m.areas.push_back(area("A" + std::to_string(i), static_cast<double>(i % 3) * 100,
                           static_cast<double>(i / 3) * 100));
  const auto size_of = [](const std::string& svg) {
    const std::size_t w = svg.find("width=\""), h = svg.find("height=\"");
    return std::make_pair(std::stod(svg.substr(w + 7)), std::stod(svg.substr(h + 8)));
  };
  const auto [w1, h1] = size_of(render::render_svg_map(m, {false, 1}));
  EXPECT_LE(w1, 1000);  // about a desktop page's width at 1x
  EXPECT_LE(h1, 750);
  EXPECT_GE(w1, 700);
  const auto [w2, h2] = size_of(render::render_svg_map(m, {false, 2}));
  EXPECT_NEAR(w2, 2 * w1, 20);
  EXPECT_NEAR(h2, 2 * h1, 20);
  // Zoom is bounded 1..8; nonsense is 1.
  EXPECT_EQ(render::render_svg_map(m, {false, 100}), render::render_svg_map(m, {false, 8}));
  EXPECT_EQ(render::render_svg_map(m, {false, std::nan("")}),
            render::render_svg_map(m, {false, 1}));
  EXPECT_EQ(render::render_svg_map(m, {false, -3}), render::render_svg_map(m, {false, 1}));
  EXPECT_NE(render::render_svg_map(m, {false, 1}).find("viewBox=\"0 0 "), std::string::npos);
  EXPECT_EQ(render::render_svg_map(m, {false, 1}).find("class=\"legend\""), std::string::npos);
  EXPECT_NE(render::render_svg_map(m, {true, 1}).find("class=\"legend\""), std::string::npos);
}

TEST(SvgMap, ScenarioCoordinatesAreScaledKeepingTheShape) {
  const render::MapModel m = render::map_model_from_state(svg_state_of("dark-age-britain"));
  const render::Layout lay = render::layout_areas(m, 800);
  EXPECT_FALSE(lay.automatic);
  ASSERT_EQ(lay.at.size(), m.areas.size());
  for (const render::Point& p : lay.at) {
    EXPECT_GE(p.x, 0);
    EXPECT_LE(p.x, lay.width);
    EXPECT_GE(p.y, 0);
    EXPECT_LE(p.y, lay.height);
  }
  // Same ratio of distances as the scenario's coordinates.
  const double sx = (lay.at[1].x - lay.at[0].x) / (*m.areas[1].x - *m.areas[0].x);
  const double sy = (lay.at[1].y - lay.at[0].y) / (*m.areas[1].y - *m.areas[0].y);
  EXPECT_NEAR(sx, sy, 1e-9);
}

TEST(SvgMap, AutomaticLayoutWithoutCoordinates) {
  Json st = svg_state_of("dark-age-britain");
  for (auto& a : st["areas"]) {
    a.erase("x");
    a.erase("y");
  }
  const render::MapModel m = render::map_model_from_state(st);
  const render::Layout lay = render::layout_areas(m, 800);
  EXPECT_TRUE(lay.automatic);
  ASSERT_EQ(lay.at.size(), m.areas.size());
  // Deterministic.
  const render::Layout again = render::layout_areas(m, 800);
  for (std::size_t i = 0; i < lay.at.size(); ++i) {
    EXPECT_EQ(lay.at[i].x, again.at[i].x);
    EXPECT_EQ(lay.at[i].y, again.at[i].y);
  }
  // Inside the canvas, no two areas on top of each other.
  double mind = 1e9;
  for (std::size_t i = 0; i < lay.at.size(); ++i) {
    EXPECT_GE(lay.at[i].x, 0);
    EXPECT_LE(lay.at[i].x, lay.width);
    EXPECT_GE(lay.at[i].y, 0);
    EXPECT_LE(lay.at[i].y, lay.height);
    for (std::size_t j = i + 1; j < lay.at.size(); ++j)
      mind = std::min(mind, std::hypot(lay.at[i].x - lay.at[j].x, lay.at[i].y - lay.at[j].y));
  }
  EXPECT_GT(mind, 15);
  // Neighbours end up closer than areas in general.
  std::map<std::string, std::size_t> idx;
  for (std::size_t i = 0; i < m.areas.size(); ++i) idx[m.areas[i].code] = i;
  auto dist = [&](std::size_t a, std::size_t b) {
    return std::hypot(lay.at[a].x - lay.at[b].x, lay.at[a].y - lay.at[b].y);
  };
  double edge_sum = 0, all_sum = 0;
  int all_n = 0;
  for (const auto& [a, b] : m.edges) edge_sum += dist(idx[a], idx[b]);
  for (std::size_t i = 0; i < lay.at.size(); ++i)
    for (std::size_t j = i + 1; j < lay.at.size(); ++j, ++all_n) all_sum += dist(i, j);
  EXPECT_LT(edge_sum / static_cast<double>(m.edges.size()), 0.6 * all_sum / all_n);
  // Still a complete, well-formed map.
  const std::string svg = render::render_svg_map(m);
  EXPECT_EQ(check_balanced(svg), "");
  for (const auto& a : m.areas)
    EXPECT_NE(svg.find("id=\"area-" + a.code + "\""), std::string::npos);
}

TEST(SvgMap, AutomaticLayoutOfDisconnectedAndTinyMaps) {
  render::MapModel m;
  EXPECT_EQ(check_balanced(render::render_svg_map(m)), "");  // no areas at all
  m.areas.push_back(area("A"));
  render::Layout one = render::layout_areas(m);
  ASSERT_EQ(one.at.size(), 1u);
  EXPECT_TRUE(std::isfinite(one.at[0].x) && std::isfinite(one.at[0].y));
  for (const char* c : {"B", "C", "D"}) m.areas.push_back(area(c));
  m.edges = {{"A", "B"}, {"A", "UNKNOWN"}};  // C and D are islands; unknown codes ignored
  const render::Layout lay = render::layout_areas(m);
  for (const render::Point& p : lay.at) {
    EXPECT_TRUE(std::isfinite(p.x) && std::isfinite(p.y));
    EXPECT_GE(p.x, 0);
    EXPECT_LE(p.x, lay.width);
  }
  EXPECT_EQ(check_balanced(render::render_svg_map(m)), "");
}

TEST(SvgMap, EveryBundledScenarioDraws) {
  for (const std::string& name : bundled_scenarios()) {
    const Json st = svg_state_of(name);
    const std::string svg = render::render_svg_map(render::map_model_from_state(st));
    EXPECT_EQ(check_balanced(svg), "") << name;
    for (const auto& a : st["areas"])
      EXPECT_NE(svg.find("data-code=\"" + a["code"].get<std::string>() + "\""), std::string::npos)
          << name;
  }
}

TEST(SvgMap, EscapesNamesFromTheScenario) {
  render::MapModel m;
  m.title = "<script>alert(1)</script>";
  m.players.push_back({"EVL", "<script>alert('x')</script> & co"});
  m.areas.push_back(area("A", 0, 0));
  m.areas.back().name = "<b>bold</b>";
  m.areas.back().owner = "EVL";
  m.areas.push_back(area("B", 10, 5));
  m.areas.back().name = "\"quoted\"";
  m.areas.back().kind = "city";
  m.areas.back().hinterland = "A";
  const std::string svg = render::render_svg_map(m);
  EXPECT_EQ(svg.find("<script"), std::string::npos);
  EXPECT_EQ(svg.find("<b>"), std::string::npos);
  EXPECT_NE(svg.find("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; co"),
            std::string::npos);
  EXPECT_NE(svg.find("&quot;quoted&quot;"), std::string::npos);
  EXPECT_EQ(check_balanced(svg), "");
}

TEST(SvgMap, PaletteIsStableAndDistinct) {
  std::set<std::string> seen;
  for (std::size_t i = 0; i < 40; ++i) {
    const std::string c = render::palette_colour(i);
    ASSERT_EQ(c.size(), 7u);
    EXPECT_EQ(c[0], '#');
    EXPECT_EQ(c, render::palette_colour(i));
    seen.insert(c);
  }
  EXPECT_EQ(seen.size(), 40u);
}

Json roundup(int turn, std::vector<std::tuple<std::string, int, int, int>> k) {
  Json ks = Json::array();
  for (const auto& [code, areas, armies, pop] : k)
    ks.push_back({{"code", code},
                  {"name", code + " land"},
                  {"areas", areas},
                  {"armies", armies},
                  {"population", pop},
                  {"vp", 0}});
  return {{"turn", turn},
          {"order_of_play", Json::array()},
          {"next_order_of_play", Json::array()},
          {"kingdoms", ks}};
}

TEST(SvgCharts, OneSeriesPerKingdomInEachChart) {
  const Json st = svg_state_of("dark-age-britain");
  const std::vector<Json> roundups = {roundup(2, {{"WSX", 6, 10, 12}}),
                                      roundup(1, {{"WSX", 5, 9, 11}, {"MRC", 4, 8, 9}})};
  const KingdomHistory h = history_from_roundups(st["players"], roundups, &st);
  ASSERT_EQ(h.turns, (std::vector<int>{0, 1, 2}));
  ASSERT_EQ(h.kingdoms.size(), 5u);
  const auto& wsx = *std::find_if(h.kingdoms.begin(), h.kingdoms.end(),
                                  [](const auto& k) { return k.code == "WSX"; });
  EXPECT_EQ(wsx.areas, (std::vector<double>{4, 5, 6}));  // SOM WIL HAM WIN at the start
  EXPECT_EQ(wsx.armies, (std::vector<double>{10, 9, 10}));
  const auto& mrc = *std::find_if(h.kingdoms.begin(), h.kingdoms.end(),
                                  [](const auto& k) { return k.code == "MRC"; });
  EXPECT_EQ(mrc.areas[2], 0);  // not in the turn-2 roundup: counted 0

  const auto charts = kingdom_charts(h);
  ASSERT_EQ(charts.size(), 3u);
  EXPECT_EQ(charts[0].title, "Areas");
  EXPECT_EQ(charts[1].title, "Armies");
  EXPECT_EQ(charts[2].title, "Population");
  for (const auto& c : charts) {
    const std::string svg = render_line_chart(c);
    EXPECT_EQ(check_balanced(svg), "") << c.title;
    EXPECT_EQ(count(svg, "<g class=\"series\""), 5) << c.title;
    EXPECT_EQ(count(svg, "<polyline"), 5);
    for (const auto& p : st["players"])
      EXPECT_NE(svg.find("data-series=\"" + p["name"].get<std::string>() + " (" +
                         p["code"].get<std::string>() + ")\""),
                std::string::npos);
  }
}

TEST(SvgCharts, ChartsOfManyKingdomsDrawTheLeadingOnesAtTheLastTurn) {
  KingdomHistory h;
  h.turns = {0, 1};
  for (int i = 0; i < 40; ++i) {
    KingdomHistory::Kingdom k;
    k.code = "K" + std::to_string(i);
    k.palette = static_cast<std::size_t>(i);
    k.areas = {1, static_cast<double>(i % 20)};    // K19 and K39 lead; ties in the game's order
    k.armies = {static_cast<double>(100 - i), 1};  // all tie at the last turn
    k.population = {};
    h.kingdoms.push_back(std::move(k));
  }
  const auto charts = kingdom_charts(h);
  ASSERT_EQ(charts.size(), 3u);
  EXPECT_EQ(charts[0].title, "Areas (the 12 leading of 40 kingdoms)");
  ASSERT_EQ(charts[0].series.size(), kMaxChartSeries);
  EXPECT_EQ(charts[0].series[0].label, "K19");
  EXPECT_EQ(charts[0].series[1].label, "K39");
  EXPECT_EQ(charts[0].series[2].label, "K18");
  EXPECT_EQ(charts[0].series[0].colour, render::palette_colour(19));  // the kingdom's own colour
  ASSERT_EQ(charts[1].series.size(), kMaxChartSeries);
  EXPECT_EQ(charts[1].series[0].label, "K0");
  EXPECT_EQ(charts[1].series[11].label, "K11");
  EXPECT_EQ(charts[2].series.size(), kMaxChartSeries);  // no values: 0 for all
  EXPECT_EQ(count(render_line_chart(charts[0]), "<g class=\"series\""), 12);
}

TEST(SvgCharts, EmptyAndHostileCharts) {
  LineChart c;
  c.title = "<script>x</script>";
  const std::string empty = render_line_chart(c);
  EXPECT_EQ(check_balanced(empty), "");
  EXPECT_NE(empty.find("no data yet"), std::string::npos);
  EXPECT_EQ(empty.find("<script>"), std::string::npos);
  c.x = {3};
  c.series.push_back({"<i>k</i>", "#123456", {7}});
  const std::string one = render_line_chart(c);
  EXPECT_EQ(check_balanced(one), "");
  EXPECT_EQ(one.find("<i>"), std::string::npos);
  EXPECT_NE(one.find("<circle"), std::string::npos);  // a single point still shows
}

TEST(PageView, TimesParseAndFormat) {
  EXPECT_EQ(format_time(0), "1970-01-01 00:00 UTC");
  EXPECT_EQ(parse_time("2025-03-01T18:00"), 1740852000);
  EXPECT_EQ(parse_time("2025-03-01 18:00:30"), 1740852030);
  EXPECT_EQ(parse_time(" 1740852000 "), 1740852000);
  EXPECT_EQ(datetime_local(1740852000), "2025-03-01T18:00");
  EXPECT_FALSE(parse_time(""));
  EXPECT_FALSE(parse_time("tomorrow"));
  EXPECT_FALSE(parse_time("2025-13-01T18:00"));
  EXPECT_FALSE(parse_time("2025-03-01T18:00junk"));
}

TEST(PageView, BattleShowsEveryRoundAndDie) {
  const Json battle = {{"id", "1.2.WSX"},
                       {"kind", "attack"},
                       {"attacker", "WSX"},
                       {"defender", nullptr},
                       {"from", "HAM"},
                       {"to", "SUS"},
                       {"attacker_armies", 4},
                       {"defender_armies", 1},
                       {"ambush", false},
                       {"captured", true},
                       {"seed", "42"},
                       {"draws", {{6, 5}, {6, 2}}},
                       {"outcome",
                        {{"attacker_losses", 0},
                         {"defender_losses", 1},
                         {"rounds",
                          {{{"phase", "battle"},
                            {"attacker_before", 4},
                            {"defender_before", 1},
                            {"attacker_strength", 4},
                            {"defender_strength", 1},
                            {"attacker_losses", 0},
                            {"defender_losses", 1},
                            {"attacker_dice", {5}},
                            {"defender_dice", {2}}}}}}}};
  const Json v = battle_view(battle, "WSX");
  EXPECT_TRUE(v["you_attacked"].get<bool>());
  EXPECT_EQ(v["defender"], "unowned");
  EXPECT_EQ(v["result"], "the attacker took SUS");
  EXPECT_EQ(v["rounds"][0]["attacker_dice"], Json({5}));
  EXPECT_EQ(v["draws"].size(), 2u);
  const std::string html = render_template("_battle", v);
  EXPECT_EQ(check_balanced(html, true), "");
  EXPECT_NE(html.find("<span class=\"die\">5</span>"), std::string::npos);
  EXPECT_NE(html.find("<span class=\"die\">2</span>"), std::string::npos);
  EXPECT_NE(html.find("5/d6"), std::string::npos);
  EXPECT_NE(html.find("the attacker took SUS"), std::string::npos);
  EXPECT_NE(html.find("<th>Attacker dice</th><th>Defender dice</th>"), std::string::npos);
}

TEST(PageView, BattleWithoutDiceHasNoDiceColumns) {
  // Dark Age is diceless: its rounds carry empty dice lists, and the table no dice columns.
  const Json battle = {{"id", "1.2.WSX"},
                       {"kind", "assault"},
                       {"attacker", "WSX"},
                       {"defender", "MRC"},
                       {"to", "OXF"},
                       {"attacker_armies", 6},
                       {"defender_armies", 2},
                       {"outcome",
                        {{"attacker_losses", 1},
                         {"defender_losses", 2},
                         {"rounds",
                          {{{"phase", "battle"},
                            {"attacker_before", 6},
                            {"defender_before", 2},
                            {"attacker_dice", Json::array()},
                            {"defender_dice", Json::array()}},
                           {{"phase", "pursuit"}, {"attacker_before", 5}}}}}}};
  const Json v = battle_view(battle, "WSX");
  EXPECT_FALSE(v["has_dice"].get<bool>());
  const std::string html = render_template("_battle", v);
  EXPECT_EQ(check_balanced(html, true), "");
  EXPECT_EQ(html.find("dice"), std::string::npos) << html;
  // Each row has as many cells as the head has columns (7).
  EXPECT_EQ(count(html, "</th>"), 7);
  EXPECT_EQ(count(html, "</td>"), 14);
}

TEST(PageView, BattleShowsVirtutiMilitariStrengthInPoints) {
  // The engine counts half-points (15 = 7.5 points) and gives the points as text in detail.
  const Json battle = {
      {"id", "1.1.AXI"},
      {"outcome",
       {{"rounds",
         {{{"phase", "battle"},
           {"attacker_strength", 15},
           {"defender_strength", 18},
           {"detail",
            {{"attacker_strength_points", "7.5"}, {"defender_strength_points", "9"}}}}}}}}};
  const Json v = battle_view(battle, "AXI");
  EXPECT_EQ(v["rounds"][0]["attacker_strength"], "7.5");
  EXPECT_EQ(v["rounds"][0]["defender_strength"], "9");
  EXPECT_NE(render_template("_battle", v).find(">7.5<"), std::string::npos);
}

TEST(PageView, BattleReadsAsASentenceWithTheCrtColumnAndNoEmptyDiceLine) {
  // Issue 13: "Battle at Middlesex (Oxford → Middlesex)", not "Battle 2.1.WSX"; the CRT column,
  // shifts, die and result; no "every die drawn: none" for battles without dice.
  const Json battle = {{"id", "2.1.WSX"},
                       {"kind", "move"},
                       {"attacker", "WSX"},
                       {"defender", "MRC"},
                       {"from", "OXF"},
                       {"from_name", "Oxford"},
                       {"to", "MDX"},
                       {"to_name", "Middlesex"},
                       {"attacker_armies", 9},
                       {"defender_armies", 2},
                       {"draws", Json::array()},
                       {"outcome",
                        {{"rounds",
                          {{{"phase", "crt"},
                            {"attacker_dice", {5}},
                            {"detail",
                             {{"column", "2-3"},
                              {"column_before_shifts", "6-7"},
                              {"shifts", {{"forest", 2}}},
                              {"result", "AR"}}}}}}}}};
  const std::string html = render_template("_battle", battle_view(battle, "MRC"));
  EXPECT_EQ(check_balanced(html, true), "");
  EXPECT_NE(html.find("Battle at Middlesex</strong> (Oxford &rarr; Middlesex)"), std::string::npos)
      << html;
  EXPECT_NE(html.find("column 2-3 (6-7 shifted 2 left: forest 2), die 5: AR"), std::string::npos)
      << html;
  EXPECT_EQ(html.find("Every die drawn"), std::string::npos) << html;
}

TEST(PageView, EveryTemplateParses) {
  for (const char* name :
       {"layout", "error", "index", "game", "audit", "login", "me", "report", "orders_result",
        "gm_login", "gm_index", "gm_game", "gm_turn", "_roundup", "_battle"}) {
    std::string out;
    EXPECT_NO_THROW(out = render_template(name, Json::object())) << name;
    EXPECT_EQ(check_balanced(out, true), "") << name;
  }
  EXPECT_THROW(render_template("no-such-template", Json::object()), std::runtime_error);
}

}  // namespace
}  // namespace adj::web
