// The map on the pages (issue 13): the game page's zoom links and legend beside the map, the
// report's moves and battles as arrows, the archive's battles, the standalone map.svg. Through
// the Router over a real SQLite file (web_pages_fixture.h), Dark Age Britain's turn 1.
#include <gtest/gtest.h>

#include "tests/server/web_pages_fixture.h"
#include "tests/server/web_test_util.h"

namespace adj::web {
namespace {

using ::adj::testing::check_balanced;
using ::adj::testing::count;
using http::Request;
using http::Response;

using namespace pages_test;

class WebMapPages : public PagesFixture {
 protected:
  Response get_zoom(const std::string& path, const std::string& zoom,
                    const std::string& cookies = "") {
    Request r = request("GET", path, cookies);
    r.query["zoom"] = zoom;
    return router_->route(r);
  }
  static std::string svg_width(const std::string& body) {
    const std::size_t svg = body.find("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"map\"");
    const std::size_t w = body.find("width=\"", svg);
    return body.substr(w + 7, body.find('"', w + 7) - w - 7);
  }
};

TEST_F(WebMapPages, GamePageHasTheMapWithZoomLinksAndTheLegendBesideIt) {
  create_britain();
  Response r = get("/games/britain-1");
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(check_balanced(r.body, true), "");
  EXPECT_NE(r.body.find("<link rel=\"stylesheet\" href=\"/static/map.css\">"), std::string::npos);
  EXPECT_NE(r.body.find("<div class=\"map-wrap\" id=\"map\">"), std::string::npos);
  EXPECT_NE(r.body.find("<aside class=\"map-legend\""), std::string::npos);
  EXPECT_LT(r.body.find("<figure class=\"map-figure\">"),
            r.body.find("<aside class=\"map-legend\""));
  EXPECT_NE(r.body.find("<strong aria-current=\"true\">1\u00d7</strong>"), std::string::npos);
  EXPECT_NE(r.body.find("href=\"/games/britain-1?zoom=4#map\""), std::string::npos);
  const std::size_t map_at = r.body.find("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"map\"");
  const std::string map = r.body.substr(map_at, r.body.find("</svg>", map_at) - map_at);
  EXPECT_EQ(map.find("<g class=\"legend\""), std::string::npos);  // the HTML one instead
  EXPECT_NE(r.body.find("Wessex (WSX)"), std::string::npos);
  const double w1 = std::stod(svg_width(r.body));
  EXPECT_LE(w1, 1000);
  EXPECT_GE(w1, 700);

  Response z = get_zoom("/games/britain-1", "4");
  ASSERT_EQ(z.status, 200);
  EXPECT_NE(z.body.find("<div class=\"map-box zoomed\">"), std::string::npos);
  EXPECT_NEAR(std::stod(svg_width(z.body)), 4 * w1, 40);
  EXPECT_NE(z.body.find(" class=\"name\">Leicestershire</text>"), std::string::npos);
  // Out of range or not a number: zoom 1.
  for (const char* bad : {"9", "0", "100000", "-2", "x"})
    EXPECT_EQ(svg_width(get_zoom("/games/britain-1", bad).body), svg_width(r.body)) << bad;

  Response css = get("/static/map.css");
  EXPECT_EQ(css.status, 200);
  EXPECT_EQ(css.content_type, "text/css; charset=utf-8");
  EXPECT_NE(css.body.find(".map-box"), std::string::npos);

  // The standalone SVG keeps its legend inside and needs nothing from the page.
  Response svg = get("/games/britain-1/map.svg");
  EXPECT_EQ(svg.status, 200);
  EXPECT_NE(svg.body.find("<g class=\"legend\""), std::string::npos);
  EXPECT_NE(svg.body.find("<pattern id=\"own-0\""), std::string::npos);
  // Nothing external: a link is only ever to the document's own fragment (the waves' rows).
  for (std::size_t at = svg.body.find("href="); at != std::string::npos;
       at = svg.body.find("href=", at + 1))
    EXPECT_EQ(svg.body.compare(at, 7, "href=\"#"), 0) << svg.body.substr(at, 40);
  EXPECT_NE(svg.body.find("href=\"#water-row\""), std::string::npos);
  EXPECT_EQ(check_balanced(svg.body), "");
}

TEST_F(WebMapPages, ReportDrawsThePlayersMovesBattlesAndTheAttacksOnIt) {
  create_britain();
  play_turn1();
  Response r = get("/games/britain-1/me/reports/1", player_cookie("WSX"));
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(check_balanced(r.body, true), "");
  EXPECT_NE(r.body.find("The turn on the map"), std::string::npos);
  // Its own attacks (HAM -> OXF, SOM -> DEV), its move (WIL -> SOM), and Mercia's attack on it.
  EXPECT_NE(r.body.find("<g class=\"arrow attack\" data-from=\"HAM\" data-to=\"OXF\">"),
            std::string::npos);
  EXPECT_NE(r.body.find("<g class=\"arrow attack\" data-from=\"SOM\" data-to=\"DEV\">"),
            std::string::npos);
  EXPECT_NE(r.body.find("<g class=\"arrow move\" data-from=\"WIL\" data-to=\"SOM\">"),
            std::string::npos);
  EXPECT_NE(r.body.find("<g class=\"arrow attack\" data-from=\"GLS\" data-to=\"OXF\">"),
            std::string::npos);
  EXPECT_NE(r.body.find("Battle at Oxfordshire (OXF): move by WSX from Hampshire (HAM) against "
                        "unowned; the attacker took OXF"),
            std::string::npos);
  // Nobody else's moves: East Anglia's SFK -> ESX is not on Wessex's report.
  EXPECT_EQ(r.body.find("data-from=\"SFK\""), std::string::npos);
  // The zoom links stay on the report.
  EXPECT_NE(r.body.find("href=\"/games/britain-1/me/reports/1?zoom=2#map\""), std::string::npos);
}

TEST_F(WebMapPages, ArchiveTurnDrawsTheBattlesButNoMovesWhileTheGameRuns) {
  create_britain();
  play_turn1();
  Response r = get("/games/britain-1/archive/1");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(check_balanced(r.body, true), "");
  EXPECT_NE(r.body.find("<g class=\"arrow attack\" data-from=\"ESX\" data-to=\"MDX\">"),
            std::string::npos);
  EXPECT_NE(r.body.find("<g class=\"arrow attack\" data-from=\"PWS\" data-to=\"GLS\">"),
            std::string::npos);
  EXPECT_EQ(count(r.body, "<g class=\"arrow move\""), 0);  // orders are private until the end
  EXPECT_NE(r.body.find("<aside class=\"map-legend\""), std::string::npos);
  EXPECT_NE(get_zoom("/games/britain-1/archive/1", "2").body.find("map-box zoomed"),
            std::string::npos);
}

}  // namespace
}  // namespace adj::web
