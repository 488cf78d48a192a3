// base/ascii.h: case folding, trimming and counted nouns, independent of the locale.
#include "base/ascii.h"

#include <gtest/gtest.h>

namespace adj {
namespace {

TEST(Ascii, CaseFoldingTouchesOnlyAsciiLetters) {
  EXPECT_EQ(ascii::upper("wsx-1 ü"), "WSX-1 ü");
  EXPECT_EQ(ascii::lower("WSX Ü"), "wsx Ü");
  EXPECT_TRUE(ascii::iequals("Britain-1", "BRITAIN-1"));
  EXPECT_FALSE(ascii::iequals("britain", "britain-1"));
  EXPECT_TRUE(ascii::istarts_with("MOVE A B", "move "));
  EXPECT_EQ(ascii::trim("\t move \r\n"), "move");
}

TEST(Ascii, WithCountSaysOneThingAndManyThings) {
  EXPECT_EQ(ascii::with_count(1, "line"), "1 line");
  EXPECT_EQ(ascii::with_count(0, "line"), "0 lines");
  EXPECT_EQ(ascii::with_count(7, "order"), "7 orders");
  EXPECT_EQ(ascii::with_count(-1, "point"), "-1 points");
}

}  // namespace
}  // namespace adj
