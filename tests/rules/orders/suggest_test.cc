// An unknown area code in an order gets the nearest codes of the game as a suggestion, by edit
// distance over codes and names; bounded and deterministic.
#include <gtest/gtest.h>

#include "rules/orders/suggest.h"
#include "rules/orders/validator.h"

namespace adj {
namespace {

GameState suggest_map() {
  GameState s;
  s.game_id = "g-1";
  s.turn = 1;
  auto area = [](std::string code, std::string name) {
    Area a;
    a.code = std::move(code);
    a.name = std::move(name);
    return a;
  };
  s.areas = {area("HRS", "Horsham"), area("HRT", "Hertford"), area("OXF", "Oxford"),
             area("YRK", "York"), area("WESSEXLAND", "Wessexland")};
  s.edges = {{"HRS", "OXF"}, {"HRT", "OXF"}, {"OXF", "YRK"}};
  Player p;
  p.code = "WSX";
  p.secret = "secret-1";
  s.players = {p};
  s.normalise();
  return s;
}

TEST(AreaSuggest, EditDistanceIsCaseInsensitiveAndBounded) {
  EXPECT_EQ(edit_distance("hrs", "HRS", 2), 0u);
  EXPECT_EQ(edit_distance("HRX", "HRS", 2), 1u);
  EXPECT_EQ(edit_distance("ABCDEFGH", "HRS", 2), 3u);  // limit + 1
}

TEST(AreaSuggest, NearestCodesByCodeAndName) {
  const GameState s = suggest_map();
  EXPECT_EQ(nearest_area_codes("HRX", s), (std::vector<std::string>{"HRS", "HRT"}));
  EXPECT_EQ(nearest_area_codes("OXFORD", s), (std::vector<std::string>{"OXF"}));
  EXPECT_EQ(nearest_area_codes("Yrok", s), (std::vector<std::string>{"YRK"}));
  EXPECT_EQ(nearest_area_codes("WESSEXLNAD", s), (std::vector<std::string>{"WESSEXLAND"}));
  EXPECT_TRUE(nearest_area_codes("QQQ", s).empty());
  EXPECT_TRUE(nearest_area_codes(std::string(100, 'H'), s).empty());
  EXPECT_EQ(did_you_mean("HRX", s), "; did you mean HRS or HRT?");
  EXPECT_EQ(did_you_mean("QQQ", s), "");
}

TEST(AreaSuggest, TheValidatorSuggestsInTheLinesReason) {
  const GameState s = suggest_map();
  const OrderAck ack = check_order_file(
      "GAME g-1\nPLAYER WSX secret-1\n1. MOVE HRX OXF\n2. MOVE HRS OXFORD\n3. MOVE HRS QQQ\n", s,
      nullptr);
  ASSERT_FALSE(ack.refused) << ack.refusal;
  ASSERT_EQ(ack.lines.size(), 3u);
  EXPECT_EQ(ack.lines[0].reason, "unknown area \"HRX\"; did you mean HRS or HRT?");
  EXPECT_EQ(ack.lines[1].reason, "unknown area \"OXFORD\"; did you mean OXF?");
  EXPECT_EQ(ack.lines[2].reason, "unknown area \"QQQ\"");
}

}  // namespace
}  // namespace adj
