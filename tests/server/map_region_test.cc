// The part of a big map a page draws (server/render/map_region.h) and the page's map block around
// it (server/web/map_view.h). Pure functions, no server.
#include <gtest/gtest.h>

#include <cstdlib>
#include <set>
#include <string>

#include "server/render/map_region.h"
#include "server/web/map_view.h"
#include "server/web/page_render.h"

namespace adj::render {
namespace {

using Json = nlohmann::json;

std::string cell(int r, int c) { return "R" + std::to_string(r) + "C" + std::to_string(c); }

// A side x side grid with coordinates, each cell bordering the next on its right and below; row r
// belongs to player P<r % players>.
MapModel grid(int side, int players) {
  MapModel m;
  m.title = "Grid";
  for (int p = 0; p < players; ++p) m.players.push_back({"P" + std::to_string(p), "Kingdom"});
  for (int r = 0; r < side; ++r)
    for (int c = 0; c < side; ++c) {
      MapArea a;
      a.code = cell(r, c);
      a.name = a.code;
      a.owner = "P" + std::to_string(r % players);
      a.x = c;
      a.y = r;
      m.areas.push_back(std::move(a));
      if (c + 1 < side) m.edges.emplace_back(cell(r, c), cell(r, c + 1));
      if (r + 1 < side) m.edges.emplace_back(cell(r, c), cell(r + 1, c));
    }
  return m;
}

std::set<std::string> codes(const MapModel& m) {
  std::set<std::string> out;
  for (const MapArea& a : m.areas) out.insert(a.code);
  return out;
}

TEST(MapRegion, KeepsTheNearestAreasBreadthFirstUpToTheBound) {
  MapModel whole = grid(40, 3);
  whole.rivers = {cell(20, 20) + "|" + cell(20, 21), cell(0, 0) + "|" + cell(0, 1)};
  whole.arrows = {{cell(20, 20), cell(19, 20), "move", "P2", ""},
                  {cell(20, 20), cell(0, 0), "attack", "P2", ""}};
  // The centre, its 4 neighbours and the 8 cells two borders away: a diamond of 13.
  const MapModel region = map_region(whole, {cell(20, 20)}, 13);
  std::set<std::string> diamond;
  for (int dr = -2; dr <= 2; ++dr)
    for (int dc = -2; dc <= 2; ++dc)
      if (std::abs(dr) + std::abs(dc) <= 2) diamond.insert(cell(20 + dr, 20 + dc));
  EXPECT_EQ(codes(region), diamond);
  EXPECT_TRUE(region.region);
  EXPECT_EQ(region.players.size(), 3u);  // whole: a player's colour is its index
  for (const auto& [a, b] : region.edges)
    EXPECT_TRUE(diamond.count(a) && diamond.count(b)) << a << " " << b;
  EXPECT_EQ(region.edges.size(), 16u);  // the diamond's own borders
  EXPECT_EQ(region.rivers, std::vector<std::string>{cell(20, 20) + "|" + cell(20, 21)});
  ASSERT_EQ(region.arrows.size(), 1u);  // the arrow to R0C0 leaves the region
  EXPECT_EQ(region.arrows[0].to, cell(19, 20));
  // In the model's order, and the same every time.
  EXPECT_EQ(region.areas.front().code, cell(18, 20));
  EXPECT_EQ(codes(map_region(whole, {cell(20, 20)}, 13)), diamond);
  EXPECT_EQ(map_region(whole, {cell(20, 20)}).areas.size(), kRegionAreas);
}

TEST(MapRegion, SeedsNamingNothingAreIgnoredAndAnotherComponentIsNeverReached) {
  MapModel whole = grid(10, 2);
  MapArea island;
  island.code = "ISLE";
  island.x = 50;
  island.y = 50;
  whole.areas.push_back(island);
  EXPECT_TRUE(map_region(whole, {}).areas.empty());
  EXPECT_TRUE(map_region(whole, {"NOWHERE"}).areas.empty());
  EXPECT_EQ(map_region(whole, {"ISLE", "NOWHERE"}).areas.size(), 1u);
  EXPECT_EQ(map_region(whole, {cell(0, 0)}, 1000).areas.size(), 100u);  // not the island
  // Several seeds: all of them first, then their neighbours.
  EXPECT_EQ(codes(map_region(whole, {cell(0, 0), "ISLE", cell(9, 9)}, 3)),
            (std::set<std::string>{cell(0, 0), "ISLE", cell(9, 9)}));
}

TEST(MapRegion, ShowsOnlyThePlayersOfItsAreasAndArrowsInTheirOwnColours) {
  MapModel whole = grid(30, 30);  // row r: player P<r>
  EXPECT_EQ(players_shown(whole), std::vector<bool>(30, true));
  whole.arrows = {{cell(5, 4), cell(5, 5), "move", "P29", ""}};
  const MapModel region = map_region(whole, {cell(5, 5)}, 3);  // R5C5, R4C5, R5C4
  std::vector<bool> expected(30, false);
  expected[4] = expected[5] = expected[29] = true;
  EXPECT_EQ(players_shown(region), expected);
  const std::string svg = render_svg_map(region);
  EXPECT_NE(svg.find("id=\"own-5\""), std::string::npos);
  EXPECT_NE(svg.find("id=\"own-29\""), std::string::npos);
  EXPECT_EQ(svg.find("id=\"own-6\""), std::string::npos);
  EXPECT_EQ(svg.find("id=\"own-0\""), std::string::npos);
  const std::string legend = render_map_legend_html(region);
  EXPECT_NE(legend.find("(P4)"), std::string::npos);
  EXPECT_NE(legend.find("(P29)"), std::string::npos);
  EXPECT_EQ(legend.find("(P6)"), std::string::npos);
  EXPECT_EQ(areas_of(region, "P5"), std::vector<std::string>({cell(5, 4), cell(5, 5)}));
}

TEST(MapView, ABigMapIsDrawnAroundTheAreaAskedForElseTheFocus) {
  const MapModel whole = grid(40, 4);  // 1,600 areas: over kWholeMapAreas
  ASSERT_GT(whole.areas.size(), kWholeMapAreas);
  const std::string around = cell(30, 30);
  const Json asked = web::map_block(whole, {{"around", around}, {"zoom", "2"}}, "/games/g",
                                    {{cell(0, 0)}, "your areas"}, "/games/g/map.svg");
  ASSERT_TRUE(asked["region"].is_object());
  EXPECT_EQ(asked["region"]["note"],
            "This world has 1600 areas: the map shows the 300 nearest " + around + ".");
  EXPECT_EQ(asked["region"]["around"], around);
  EXPECT_EQ(asked["region"]["whole_href"], "/games/g/map.svg");
  EXPECT_EQ(asked["region"]["zoom"], 2);
  EXPECT_EQ(asked["zoom_links"][0]["href"], "/games/g?around=" + around + "#map");
  EXPECT_EQ(asked["zoom_links"][2]["href"], "/games/g?zoom=4&around=" + around + "#map");
  const std::string svg = asked["map_svg"];
  EXPECT_NE(svg.find("data-code=\"" + around + "\""), std::string::npos);
  EXPECT_EQ(svg.find("data-code=\"" + cell(0, 0) + "\""), std::string::npos);

  // An area the map lacks is ignored: the focus, then.
  const Json focus =
      web::map_block(whole, {{"around", "<b>"}}, "/games/g/me", {{cell(0, 0)}, "your areas"});
  EXPECT_EQ(focus["region"]["note"],
            "This world has 1600 areas: the map shows the 300 nearest your areas.");
  EXPECT_EQ(focus["region"]["around"], "");
  EXPECT_TRUE(focus["region"]["whole_href"].is_null());
  EXPECT_NE(focus["map_svg"].get<std::string>().find("data-code=\"" + cell(0, 0) + "\""),
            std::string::npos);

  // Neither: no map, and the page says how to get one.
  const Json none = web::map_block(whole, {}, "/games/g");
  EXPECT_EQ(none["map_svg"], "");
  EXPECT_EQ(none["map_legend"], "");
  EXPECT_EQ(none["region"]["note"],
            "This world has 1600 areas, too many to draw on one page: give an area to draw the map "
            "around it.");

  // As the page shows it: the note, the form (keeping the zoom) and the map; one caption.
  const std::string html = web::render_template("_map", asked);
  EXPECT_NE(html.find("the map shows the 300 nearest " + around), std::string::npos);
  EXPECT_NE(html.find("<form method=\"get\" action=\"/games/g#map\">"), std::string::npos);
  EXPECT_NE(html.find("name=\"zoom\" value=\"2\""), std::string::npos);
  EXPECT_NE(html.find("name=\"around\" value=\"" + around + "\""), std::string::npos);
  EXPECT_NE(html.find("href=\"/games/g/map.svg\""), std::string::npos);
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_EQ(html.find("<figcaption"), html.rfind("<figcaption"));
  const std::string empty = web::render_template("_map", none);
  EXPECT_NE(empty.find("too many to draw on one page"), std::string::npos);
  EXPECT_EQ(empty.find("<svg"), std::string::npos);
  EXPECT_EQ(empty.find("map.svg"), std::string::npos);  // no whole map offered here

  // A map up to kWholeMapAreas is drawn whole, whatever the query says.
  const Json small = web::map_block(grid(20, 4), {{"around", cell(1, 1)}}, "/games/g");
  EXPECT_TRUE(small["region"].is_null());
  EXPECT_NE(small["map_svg"].get<std::string>().find("data-code=\"" + cell(19, 19) + "\""),
            std::string::npos);
  EXPECT_EQ(small["zoom_links"][1]["href"], "/games/g?zoom=2#map");
}

}  // namespace
}  // namespace adj::render
