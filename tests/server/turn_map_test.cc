// The map prepared once per game and turn and painted per player (server/render/turn_map.h):
// one rasterisation of the ground and labels for any number of players, each player's map with
// only its own arrows, the same picture as the one-document map (render_svg_map + svg_to_png),
// and the same bytes from several threads. PNGs are read back with cairo.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "rules/game/scenario.h"
#include "server/render/map_png.h"
#include "server/render/map_style.h"
#include "server/render/report_arrows.h"
#include "server/render/state_map.h"
#include "server/render/svg_map.h"
#include "server/render/turn_map.h"
#include "tests/server/png_pixels.h"

namespace adj::render {
namespace {

using test_png::decode;
using test_png::Decoded;

nlohmann::json britain() {
  auto doc = bundled_scenario_published("dark-age-britain");
  EXPECT_TRUE(doc.ok());
  auto st = state_from_scenario(*doc, 1);
  EXPECT_TRUE(st.ok());
  return to_json(*st);
}

// A report of `player` with one move carried out from area `from` to area `to` (indices into
// the state's areas).
nlohmann::json move_report(const nlohmann::json& state, const std::string& player, int from,
                           int to) {
  const std::string a = state["areas"][from]["code"], b = state["areas"][to]["code"];
  return {{"player", {{"code", player}}},
          {"actions", {{{"verb", "MOVE"}, {"ok", true}, {"text", "MOVE " + a + " " + b + " 2"}}}}};
}

// The largest difference of two ARGB32 pixels in any channel.
int channel_difference(std::uint32_t a, std::uint32_t b) {
  int d = 0;
  for (int shift = 0; shift < 32; shift += 8)
    d = std::max(
        d, std::abs(static_cast<int>((a >> shift) & 0xff) - static_cast<int>((b >> shift) & 0xff)));
  return d;
}

TEST(TurnMap, OneRasterisationForEveryPlayersMapEachWithOnlyItsOwnArrows) {
  const nlohmann::json state = britain();
  const nlohmann::json a = move_report(state, "WSX", 0, 1), b = move_report(state, "MRC", 5, 9);
  nlohmann::json battle = {{"player", {{"code", "NUM"}}},
                           {"attacks_on_you",
                            {{{"id", "b1"},
                              {"from", state["areas"][3]["code"]},
                              {"to", state["areas"][4]["code"]},
                              {"attacker", "WSX"},
                              {"defender", "NUM"},
                              {"captured", true}}}}};
  auto map = prepare_turn_map(state, kMailMapLimits);
  ASSERT_TRUE(map.ok()) << map.status().to_string();
  const TurnMap& m = **map;
  EXPECT_EQ(m.base_renders(), 1);
  const auto pa = m.png(&a), pb = m.png(&b), pc = m.png(&battle);
  ASSERT_TRUE(pa.ok() && pb.ok() && pc.ok());
  std::vector<std::string> again;
  for (int i = 0; i < 10; ++i) again.push_back(*m.png(i % 2 ? &a : &b));
  EXPECT_EQ(m.base_renders(), 1) << "13 players' maps, the ground and labels drawn once";
  for (int i = 0; i < 10; ++i) EXPECT_EQ(again[static_cast<std::size_t>(i)], i % 2 ? *pa : *pb);
  EXPECT_NE(*pa, *pb);
  EXPECT_NE(*pa, *pc);
  for (const std::string* p : {&*pa, &*pb, &*pc}) EXPECT_NE(*p, m.plain_png());
  EXPECT_EQ(*m.png(nullptr), m.plain_png());
  const nlohmann::json none = {{"player", {{"code", "EAN"}}}, {"actions", nlohmann::json::array()}};
  EXPECT_EQ(*m.png(&none), m.plain_png()) << "a report without arrows: the plain map";
  // Each is the map a fresh preparation paints for that report alone: nothing left behind by
  // the players painted before.
  nlohmann::json with_a = state;
  with_a["report"] = a;
  EXPECT_EQ(*pa, *state_map_png(with_a, kMailMapLimits));
  EXPECT_EQ(m.plain_png(), *state_map_png(state, kMailMapLimits));
}

// The layers stacked look like the map drawn as one document (arrows over the areas, under the
// labels; the legend with the report's arrow kinds): same size, and the pixels within rounding.
// The flat map draws its labels' texts and legend lines with cairo (not librsvg,
// raster::draw_texts): there the pixels differ by more only in a few percent of them, the
// texts' own.
TEST(TurnMap, LooksLikeTheOneDocumentMap) {
  const nlohmann::json state = britain();
  const nlohmann::json report = move_report(state, "WSX", 0, 1);
  MapModel model = map_model_from_state(drawable_state(state));
  model.arrows = arrows_from_report(report);
  ASSERT_FALSE(model.arrows.empty());
  // The flat style also scaled down (its texts drawn at another scale than one pixel a unit).
  PngLimits small = kMailMapLimits;
  small.max_width = small.max_height = 640;
  for (const PngLimits& limits : {kFullMailMapLimits, kMailMapLimits, small}) {
    PngLimits exact = limits;  // true colour: the palette is MapPalette's and below
    exact.palette = false;
    const auto whole = svg_to_png(render_svg_map(model, png_map_style(model, exact)), exact);
    ASSERT_TRUE(whole.ok()) << whole.status().to_string();
    nlohmann::json with = state;
    with["report"] = report;
    const auto layered = state_map_png(with, exact);
    ASSERT_TRUE(layered.ok()) << layered.status().to_string();
    const std::string style = !limits.flat                          ? "full"
                              : limits.max_width == small.max_width ? "flat-small"
                                                                    : "flat";
    if (const char* keep = std::getenv("ADJ_MAP_PNG_DIR")) {  // to look at them
      std::ofstream(std::string(keep) + "/one-document-" + style + ".png", std::ios::binary)
          << *whole;
      std::ofstream(std::string(keep) + "/layered-" + style + ".png", std::ios::binary) << *layered;
    }
    const Decoded x = decode(*whole), y = decode(*layered);
    ASSERT_EQ(x.width, y.width);
    ASSERT_EQ(x.height, y.height);
    std::size_t off = 0, far = 0;
    int worst = 0;
    for (std::size_t i = 0; i < x.px.size(); ++i) {
      const int d = channel_difference(x.px[i], y.px[i]);
      worst = std::max(worst, d);
      off += d > 0 ? 1 : 0;
      far += d > 2 ? 1 : 0;
    }
    std::printf("%s %dx%d: %zu pixels differ, %zu by more than 2, by at most %d\n", style.c_str(),
                x.width, x.height, off, far, worst);
    if (!limits.flat) {
      EXPECT_LE(worst, 2) << "stacking the layers rounds differently, no more";
    } else {
      EXPECT_GT(far, 0u) << "the texts drawn by cairo, not librsvg";
      EXPECT_LT(far * 100, x.px.size() * 3) << "only the texts' pixels";
      // Ink (every channel under 0x60: names, badges' codes, the legend's lines, borders) in
      // about the same amount and mostly in the same places: texts drawn, not left out (without
      // them the layered map had under half of it), where librsvg draws them. librsvg's small
      // text is grey and cairo's crisp text dark, so cairo's has more ink, less of it shared:
      // 5,792 of 8,299 pixels (flat-small: 1,192 of 1,715); with cairo's texts not centred,
      // 3,937 (870).
      const auto is_ink = [](std::uint32_t p) {
        return ((p >> 16) & 0xff) < 0x60 && ((p >> 8) & 0xff) < 0x60 && (p & 0xff) < 0x60;
      };
      std::size_t ink_x = 0, ink_y = 0, both = 0;
      for (std::size_t i = 0; i < x.px.size(); ++i) {
        ink_x += is_ink(x.px[i]);
        ink_y += is_ink(y.px[i]);
        both += is_ink(x.px[i]) && is_ink(y.px[i]);
      }
      std::printf("ink: %zu pixels in one document, %zu layered, %zu in both\n", ink_x, ink_y,
                  both);
      EXPECT_GT(ink_y * 10, ink_x * 8) << style;
      if (style == "flat") {
        EXPECT_LT(ink_y * 10, ink_x * 15) << style;
      }
      EXPECT_GT(both * 10, ink_x * 6) << style;
    }
  }
}

// The mail's map with a palette (the default) against the same map in true colour: the same
// picture within a few levels in all but the anti-aliased edges, in fewer bytes (under half for
// the full style; under three quarters for the flat one, whose few colours and crisp edges
// compress well in true colour too: 0.67 of its bytes); a player's arrows keep their colours
// (entries after the map's).
TEST(TurnMap, APaletteMapIsTheTrueColourMapInFewerBytes) {
  const nlohmann::json state = britain();
  nlohmann::json with = state;
  with["report"] = move_report(state, "WSX", 0, 1);
  for (const PngLimits& limits : {kFullMailMapLimits, kMailMapLimits})
    for (const nlohmann::json* s : std::vector<const nlohmann::json*>{&state, &with}) {
      PngLimits exact = limits;
      exact.palette = false;
      const auto rgb = state_map_png(*s, exact), indexed = state_map_png(*s, limits);
      ASSERT_TRUE(rgb.ok() && indexed.ok());
      EXPECT_NE(indexed->find("PLTE"), std::string::npos);
      EXPECT_LT(indexed->size() * 4, rgb->size() * (limits.flat ? 3 : 2))
          << indexed->size() << " vs " << rgb->size();
      const Decoded x = decode(*rgb), y = decode(*indexed);
      ASSERT_EQ(x.width, y.width);
      ASSERT_EQ(x.px.size(), y.px.size());
      std::size_t far = 0;
      double sum = 0;
      for (std::size_t i = 0; i < x.px.size(); ++i) {
        const int d = channel_difference(x.px[i], y.px[i]);
        sum += d;
        far += d > 24 ? 1 : 0;
      }
      const double mean = sum / static_cast<double>(x.px.size());
      std::printf("%zu vs %zu bytes; mean difference %.2f; %zu of %zu pixels off by more than 24\n",
                  indexed->size(), rgb->size(), mean, far, x.px.size());
      EXPECT_LT(mean, 1.5);
      EXPECT_LT(far * 100, x.px.size()) << "under 1% of the pixels (edges) off by more than 24";
    }
}

// The mail's map is drawn flat (MapStyle::flat): no pattern, no halo, crisp territories, each
// owned territory its owner's flat colour; the web map keeps its waves, hatches and halos.
TEST(TurnMap, TheMailMapIsDrawnFlatAndTheWebMapIsNot) {
  MapModel model = map_model_from_state(drawable_state(britain()));
  ASSERT_FALSE(model.players.empty());
  MapStyle flat;
  flat.flat = true;
  const std::string f = render_svg_map(model, flat), web = render_svg_map(model);
  for (const char* full_only : {"<pattern", "url(#", "paint-order=\"stroke\""}) {
    EXPECT_EQ(f.find(full_only), std::string::npos) << full_only;
    EXPECT_NE(web.find(full_only), std::string::npos) << full_only;
  }
  EXPECT_NE(f.find("shape-rendering=\"crispEdges\""), std::string::npos);
  EXPECT_EQ(web.find("shape-rendering"), std::string::npos);
  const std::vector<bool> marker = drawn_as_markers(model);
  std::size_t owned = 0;  // the first player's territories (cities drawn as markers are squares)
  for (std::size_t i = 0; i < model.areas.size(); ++i)
    owned += !marker[i] && model.areas[i].owner == model.players[0].code ? 1 : 0;
  ASSERT_GT(owned, 0u);
  const std::string fill = "fill=\"" + mapstyle::owner_flat(0) + "\"";
  std::size_t filled = 0;
  for (std::size_t at = f.find(fill); at != std::string::npos; at = f.find(fill, at + 1)) ++filled;
  EXPECT_EQ(filled, owned + 1) << "each of the first player's territories, and its legend line";
}

// The flat mail map against the full one (render::kFullMailMapLimits, as --mail-map-style full
// draws it): at least 1,000 pixels wide, a palette of at most 64 colours of its own, and fewer
// bytes; a player's arrows still add their colours.
TEST(TurnMap, TheFlatMailMapHasFewColoursAndFewerBytesThanTheFullOne) {
  const nlohmann::json state = britain();
  auto flat = prepare_turn_map(state, kMailMapLimits),
       full = prepare_turn_map(state, kFullMailMapLimits);
  ASSERT_TRUE(flat.ok() && full.ok());
  const std::string& f = (*flat)->plain_png();
  const std::string& g = (*full)->plain_png();
  const auto size = png_size(f);
  ASSERT_TRUE(size.ok());
  EXPECT_GE(size->first, 1000);
  EXPECT_LE(size->first, 1800);
  const auto plte = [](const std::string& png) {  // the PLTE chunk's entries
    const std::size_t at = png.find("PLTE");
    if (at == std::string::npos || at < 4) return std::size_t{0};
    std::size_t n = 0;
    for (std::size_t i = at - 4; i < at; ++i) n = n * 256 + static_cast<unsigned char>(png[i]);
    return n / 3;
  };
  EXPECT_GT(plte(f), 8u);
  EXPECT_LE(plte(f), 64u);
  EXPECT_GT(plte(g), 64u);
  EXPECT_LT(f.size() * 3, g.size() * 2) << f.size() << " vs " << g.size();
  const nlohmann::json a = move_report(state, "WSX", 0, 1);
  const auto with_arrows = (*flat)->png(&a);
  ASSERT_TRUE(with_arrows.ok());
  EXPECT_GT(plte(*with_arrows), plte(f)) << "the arrows' colours after the map's";
  std::printf("flat %d x %d: %zu bytes, %zu colours; full: %zu bytes, %zu colours\n", size->first,
              size->second, f.size(), plte(f), g.size(), plte(g));
}

// A state of `players` kingdoms on a grid, each owning one lowland area (codes P0, P1, ...).
nlohmann::json many_owners(int players) {
  nlohmann::json st = britain();
  st["players"] = nlohmann::json::array();
  st["areas"] = nlohmann::json::array();
  st["adjacency"] = nlohmann::json::array();
  const int row = 10;
  for (int i = 0; i < players; ++i) {
    const std::string code = "P" + std::to_string(i);
    st["players"].push_back({{"code", code}, {"name", "Kingdom " + std::to_string(i)}});
    st["areas"].push_back({{"code", "A" + std::to_string(i)},
                           {"name", "Area " + std::to_string(i)},
                           {"kind", "land"},
                           {"terrain", "lowlands"},
                           {"owner", code},
                           {"armies", 1},
                           {"x", 100 * (i % row)},
                           {"y", 100 * (i / row)}});
    if (i % row > 0)
      st["adjacency"].push_back({"A" + std::to_string(i - 1), "A" + std::to_string(i)});
    if (i >= row)
      st["adjacency"].push_back({"A" + std::to_string(i - row), "A" + std::to_string(i)});
  }
  return st;
}

TEST(TurnMap, EveryOwnerKeepsItsColourInTheFlatMapOfABigGame) {
  for (int players : {20, 90}) {
    auto map = prepare_turn_map(many_owners(players), kMailMapLimits);
    ASSERT_TRUE(map.ok()) << map.status().to_string();
    const Decoded d = decode((*map)->plain_png());
    ASSERT_GT(d.width, 0);
    std::set<std::uint32_t> drawn;
    for (std::uint32_t px : d.px) drawn.insert(px | 0xff000000u);
    int missing = 0;
    for (int i = 0; i < players; ++i) {
      const std::string hex = mapstyle::owner_flat(static_cast<std::size_t>(i)).substr(1);
      const auto want = 0xff000000u | static_cast<std::uint32_t>(std::stoul(hex, nullptr, 16));
      if (!drawn.count(want)) ++missing;
    }
    EXPECT_EQ(missing, 0) << players << " kingdoms: " << missing
                          << " owners' colours drawn as another's";
  }
}

TEST(TurnMap, SeveralThreadsPaintTheSameBytes) {
  const nlohmann::json state = britain();
  const nlohmann::json a = move_report(state, "WSX", 0, 1), b = move_report(state, "MRC", 5, 9);
  auto map = prepare_turn_map(state, kMailMapLimits);
  ASSERT_TRUE(map.ok());
  const std::string one_a = *(*map)->png(&a), one_b = *(*map)->png(&b);
  std::vector<std::string> got(4 * 4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 4; ++i) {
        auto png = (*map)->png(i % 2 ? &a : &b);
        got[static_cast<std::size_t>(t * 4 + i)] = png.ok() ? *png : std::string();
      }
    });
  for (auto& th : threads) th.join();
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], i % 2 ? one_a : one_b);
  EXPECT_EQ((*map)->base_renders(), 1);
}

// The daemon's report threads prepare several games' maps at once: librsvg, cairo's text (its
// font caches are shared by the process) and the palette give each the bytes one thread gives,
// in both styles. The threads start before this test prepares any map alone (earlier tests in
// the binary may have warmed the shared caches already).
TEST(TurnMap, SeveralThreadsPrepareTheSameBytes) {
  const nlohmann::json state = britain(), big = many_owners(30);
  for (const PngLimits& limits : {kMailMapLimits, kFullMailMapLimits}) {
    std::vector<std::string> got(4 * 2);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&, t] {
        for (int i = 0; i < 2; ++i) {
          auto map = prepare_turn_map((t + i) % 2 ? big : state, limits);
          got[static_cast<std::size_t>(t * 2 + i)] = map.ok() ? (*map)->plain_png() : "";
        }
      });
    for (auto& th : threads) th.join();
    const auto one = prepare_turn_map(state, limits), one_big = prepare_turn_map(big, limits);
    ASSERT_TRUE(one.ok() && one_big.ok());
    for (int t = 0; t < 4; ++t)
      for (int i = 0; i < 2; ++i)
        EXPECT_EQ(got[static_cast<std::size_t>(t * 2 + i)],
                  ((t + i) % 2 ? *one_big : *one)->plain_png())
            << (limits.flat ? "flat" : "full") << " thread " << t << " map " << i;
  }
}

}  // namespace
}  // namespace adj::render
