// The map's palette (server/render/map_palette.h): at most 256 colours taken by how many pixels
// have them, a rare but distinct colour kept over a blend next to a common one, every other
// colour drawn as its nearest entry, and a player's arrows' colours added after the map's.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "server/render/map_palette.h"
#include "server/render/map_raster.h"
#include "tests/server/png_pixels.h"

namespace adj::render::raster {
namespace {

constexpr std::uint32_t kWhite = 0xffffffu, kGreen = 0x3d7a3au, kNearGreen = 0x3e7b3bu,
                        kBlue = 0x1f1fa0u, kRed = 0xd01010u;

Pixels image(int w, int h) {
  auto p = Pixels::blank(w, h, true);
  EXPECT_TRUE(p.ok());
  return std::move(p).value();
}

void set(Pixels& p, int x, int y, std::uint32_t rgb) {
  auto* row =
      reinterpret_cast<std::uint32_t*>(p.data.data() + static_cast<std::size_t>(y) * p.stride);
  row[x] = 0xff000000u | rgb;
}

std::uint32_t entry(const Palette& pal, std::size_t i) {
  const std::string s = pal.plte();
  auto b = [&](std::size_t k) {
    return static_cast<std::uint32_t>(static_cast<unsigned char>(s[3 * i + k]));
  };
  return b(0) << 16 | b(1) << 8 | b(2);
}

// 100 x 100: white, a green half, 200 pixels of a blend next to green, 3 blue pixels.
Pixels map_like() {
  Pixels p = image(100, 100);
  for (int y = 50; y < 100; ++y)
    for (int x = 0; x < 100; ++x) set(p, x, y, kGreen);
  for (int i = 0; i < 200; ++i) set(p, i % 100, 40 + i / 100, kNearGreen);
  for (int x = 0; x < 3; ++x) set(p, x, 10, kBlue);
  return p;
}

TEST(MapPalette, TakesTheMostUsedColoursAndARareDistinctOneBeforeABlend) {
  const Pixels p = map_like();
  const Palette three = *Palette::of(p, 0, 100, 3);
  ASSERT_EQ(three.size(), 3u);
  EXPECT_EQ(entry(three, 0), kGreen);  // 5,000 pixels
  EXPECT_EQ(entry(three, 1), kWhite);  // 4,797
  EXPECT_EQ(entry(three, 2), kBlue) << "3 blue pixels beat 200 of a blend next to green";
  Indexer index(three);
  EXPECT_EQ(index(0xff000000u | kNearGreen), 0) << "the blend is drawn green";
  EXPECT_EQ(index(0xff000000u | kBlue), 2);
  EXPECT_EQ(index(0xff000000u | 0xfefefe), 1) << "a colour it never saw: the nearest";
  // With room, the blend gets its own entry too.
  const Palette four = *Palette::of(p, 0, 100, 4);
  ASSERT_EQ(four.size(), 4u);
  EXPECT_EQ(entry(four, 3), kNearGreen);
  EXPECT_EQ(Indexer(four)(0xff000000u | kNearGreen), 3);
}

// Two flat colours near each other (the flat map's sea and water, two owners' territories), each
// covering much of the image, each keep an entry even when the palette has no room for the
// colours it skipped; a blend with under a quarter of its flat colour's pixels is still skipped.
TEST(MapPalette, ANearColourWithManyPixelsIsNoBlend) {
  Pixels p = image(100, 100);
  for (int y = 50; y < 100; ++y)
    for (int x = 0; x < 100; ++x) set(p, x, y, y < 80 ? kGreen : kNearGreen);  // 3,000 and 2,000
  for (int x = 0; x < 3; ++x) set(p, x, 10, kBlue);
  for (int i = 0; i < 300; ++i) set(p, i % 100, 40 + i / 100, 0x3c793au);  // a blend by green
  const Palette four = *Palette::of(p, 0, 100, 4);
  ASSERT_EQ(four.size(), 4u);
  EXPECT_EQ(entry(four, 0), kWhite);  // 4,697 pixels
  EXPECT_EQ(entry(four, 1), kGreen);
  EXPECT_EQ(entry(four, 2), kNearGreen) << "2,000 pixels near 3,000 green: a colour of its own";
  EXPECT_EQ(entry(four, 3), kBlue) << "3 blue pixels before 300 of a blend next to green";
  EXPECT_EQ(Indexer(four)(0xff000000u | kNearGreen), 2);
}

TEST(MapPalette, RowsOutsideTheRangeAreNotCounted) {
  const Pixels p = map_like();
  const Palette top = *Palette::of(p, 0, 20, Palette::kMost);
  ASSERT_EQ(top.size(), 2u);  // white and blue: the green rows are below
  EXPECT_EQ(entry(top, 0), kWhite);
  EXPECT_EQ(entry(top, 1), kBlue);
}

TEST(MapPalette, ExtendedKeepsEveryEntryAndAddsTheNewColoursAfter) {
  Pixels p = map_like();
  const Palette plain = *Palette::of(p, 0, 100, 3);
  for (int x = 10; x < 60; ++x) set(p, x, 20, kRed);  // an arrow in rows [20, 21)
  const Palette more = plain.extended(p, {{20, 21}, {60, 61}});
  ASSERT_EQ(more.size(), 4u);
  EXPECT_EQ(more.plte().substr(0, 9), plain.plte());
  EXPECT_EQ(entry(more, 3), kRed);
  EXPECT_EQ(Indexer(more)(0xff000000u | kRed), 3);
  EXPECT_EQ(plain.extended(p, {{60, 61}}).size(), 3u) << "nothing new in those rows";
}

// A colour the palette never saw is drawn as the entry at the least weighted distance
// (2 dr^2 + 4 dg^2 + 3 db^2), the lowest index among equals, as a scan of every entry finds it.
TEST(MapPalette, AnUnseenColourIsDrawnAsTheNearestEntry) {
  Pixels p = image(300, 300);
  std::uint32_t x = 12345;
  const auto next = [&x] { return x = x * 1664525u + 1013904223u; };
  for (int y = 0; y < 300; ++y)
    for (int c = 0; c < 300; ++c) set(p, c, y, (next() >> 8) & 0xffffffu);
  const Palette pal = *Palette::of(p, 0, 300, Palette::kMost);
  ASSERT_EQ(pal.size(), 256u);
  std::vector<std::uint32_t> entries;
  for (std::size_t i = 0; i < pal.size(); ++i) entries.push_back(entry(pal, i));
  const auto scan = [&](std::uint32_t rgb) {
    std::size_t best = 0;
    long best_d = -1;
    for (std::size_t i = 0; i < entries.size(); ++i) {
      const auto ch = [](std::uint32_t v, int s) { return static_cast<long>((v >> s) & 0xff); };
      const long dr = ch(entries[i], 16) - ch(rgb, 16), dg = ch(entries[i], 8) - ch(rgb, 8),
                 db = ch(entries[i], 0) - ch(rgb, 0);
      const long d = 2 * dr * dr + 4 * dg * dg + 3 * db * db;
      if (best_d < 0 || d < best_d) best = i, best_d = d;
    }
    return best;
  };
  Indexer index(pal);
  for (int i = 0; i < 20000; ++i) {
    const std::uint32_t rgb = i < 256 ? entries[i] ^ 0x010101u : (next() >> 8) & 0xffffffu;
    ASSERT_EQ(index(0xff000000u | rgb), scan(rgb)) << "colour " << std::hex << rgb;
  }
}

// An image of more distinct colours than a map has gets no palette: it is written in true
// colour, every pixel exact, without counting or matching them all.
TEST(MapPalette, AnImageOfTooManyColoursIsWrittenInTrueColour) {
  Pixels p = image(512, 512);  // 262,144 distinct colours
  for (int y = 0; y < 512; ++y)
    for (int x = 0; x < 512; ++x) set(p, x, y, static_cast<std::uint32_t>(y * 512 + x));
  EXPECT_FALSE(Palette::of(p, 0, 512, Palette::kMost).has_value());
  EXPECT_TRUE(Palette::of(p, 0, 200, Palette::kMost).has_value()) << "102,400 colours";
  auto png = encode_png(p, 512, true);
  ASSERT_TRUE(png.ok());
  EXPECT_EQ(png->find("PLTE"), std::string::npos);
  const test_png::Decoded d = test_png::decode(*png);
  ASSERT_EQ(d.px.size(), 512u * 512u);
  EXPECT_EQ(d.at(511, 511), 0xff000000u | (511u * 512u + 511u));
}

TEST(MapPalette, AnImageOfFewColoursIsWrittenExactly) {
  const Pixels p = map_like();
  auto indexed = encode_png(p, 100, true), rgb = encode_png(p, 100, false);
  ASSERT_TRUE(indexed.ok() && rgb.ok());
  EXPECT_NE(indexed->find("PLTE"), std::string::npos);
  EXPECT_EQ(rgb->find("PLTE"), std::string::npos);
  EXPECT_LT(indexed->size(), rgb->size());
  const test_png::Decoded a = test_png::decode(*indexed), b = test_png::decode(*rgb);
  EXPECT_EQ(a.width, 100);
  EXPECT_EQ(a.px, b.px) << "4 colours: every pixel as it was drawn";
}

// Which labels the flat map draws with cairo's own text (raster::drawable_text): well-formed
// UTF-8 of left-to-right scripts without controls; anything else, hostile names too, stays with
// librsvg, which shapes and falls back (and a label cairo cannot draw never ends the map).
TEST(MapRasterText, OnlyWellFormedLeftToRightTextIsDrawnByCairo) {
  EXPECT_TRUE(drawable_text("Ardanmere"));
  EXPECT_TRUE(drawable_text("Ærøskøbing Κρήτη Москва…"));
  EXPECT_TRUE(drawable_text(""));
  EXPECT_FALSE(drawable_text("\xc3("));             // a lead byte without its continuation
  EXPECT_FALSE(drawable_text("\xc1\xbf"));          // overlong two bytes
  EXPECT_FALSE(drawable_text("\xe0\x80\xaf"));      // overlong three bytes
  EXPECT_FALSE(drawable_text("ab\xe4\xb8"));        // cut short at the end
  EXPECT_FALSE(drawable_text("\xbf"));              // a stray continuation byte
  EXPECT_FALSE(drawable_text("\xf0\x9f\x98\x80"));  // beyond U+FFFF
  EXPECT_FALSE(drawable_text("a\nb"));
  EXPECT_FALSE(drawable_text("\xc2\x85"));  // a C1 control
  EXPECT_FALSE(
      drawable_text("\xe2\x80\xae"
                    "abc"));                        // right-to-left override
  EXPECT_FALSE(drawable_text("\xd7\xa9\xd7\x9c"));  // Hebrew
}

}  // namespace
}  // namespace adj::render::raster
