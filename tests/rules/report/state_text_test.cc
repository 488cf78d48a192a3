// rules/report/state_text: engine state as readable text, on the shapes the engines produce.
#include "rules/report/state_text.h"

#include <gtest/gtest.h>

namespace adj {
namespace {

using Json = nlohmann::json;

TEST(StateText, VirtutiMilitariCardsAndAirTokens) {
  const Json s = Json::parse(R"({"air":2,"hand":[
      {"dice":[],"hp":2,"id":"last-stand","name":"Last Stand","strength":3},
      {"dice":["green"],"hp":0,"id":"cavalry-charge","name":"Cavalry Charge","strength":2}]})");
  EXPECT_EQ(state_lines(s, "  "),
            "  air: 2\n"
            "  hand: Last Stand (hp 2, strength 3), Cavalry Charge (dice: green; hp 0; "
            "strength 2)\n");
}

TEST(StateText, UnitsOfAnArea) {
  const Json s = Json::parse(
      R"({"units":[{"level":2,"type":"army"},{"level":1,"type":"army"},{"level":1,"type":"artillery"}]})");
  EXPECT_EQ(state_inline(s), "units: army (level 2), army (level 1), artillery (level 1)");
}

TEST(StateText, NestedProfileIsSpreadOverIndentedLines) {
  const Json s = Json::parse(R"({"profile":{
      "commander":{"charisma":2,"war":2},"damage_type":"lethal","name":"Guild mercenaries",
      "unit":{"drill":2,"health_track":3,"soak":{"bashing":3,"lethal":2}}}})");
  EXPECT_EQ(state_lines(s, ""),
            "profile:\n"
            "  commander: charisma 2, war 2\n"
            "  damage type: lethal\n"
            "  name: Guild mercenaries\n"
            "  unit:\n"
            "    drill: 2\n"
            "    health track: 3\n"
            "    soak: bashing 3, lethal 2\n");
}

TEST(StateText, PlainValuesListsAndNothingToShow) {
  EXPECT_EQ(state_inline(Json::parse(R"({"tanks":[3,2,0],"ready":true})")),
            "ready yes; tanks: 3, 2, 0");
  EXPECT_EQ(state_inline(Json::parse(R"([{"id":"t1","damage":1},{"id":"t2"}])")),
            "t1 (damage 1), t2");
  EXPECT_EQ(state_inline(Json::object()), "-");
  EXPECT_EQ(state_inline(Json()), "-");
  EXPECT_EQ(state_lines(Json::object(), "  "), "");
  EXPECT_EQ(state_lines(Json::parse(R"({"hand":[],"air":0})"), "  "), "  air: 0\n");
}

}  // namespace
}  // namespace adj
