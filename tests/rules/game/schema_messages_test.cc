// Scenario schema errors say what is allowed: the allowed values of an enum, the expected type,
// the missing field, the bounds of a range, the allowed fields.
#include <gtest/gtest.h>

#include "rules/game/scenario.h"

namespace adj {
namespace {

Json schema_messages_base() {
  return Json::parse(R"({
    "id": "t-1", "name": "Test", "engine": {"name": "dark-age"},
    "players": [{"code": "WSX", "name": "Wessex", "secret": "s", "bp": 20},
                {"code": "MRC", "name": "Mercia", "secret": "t"}],
    "areas": [{"code": "HRS", "kind": "land", "owner": "WSX", "armies": 5},
              {"code": "BDS", "kind": "land", "owner": "MRC", "armies": 2}],
    "adjacency": [["HRS", "BDS"]]
  })");
}

std::string schema_messages_first_error(const std::function<void(Json&)>& edit) {
  Json j = schema_messages_base();
  edit(j);
  auto errors = validate_scenario(j);
  return errors.empty() ? std::string("(valid)") : errors[0].path + ": " + errors[0].message;
}

TEST(SchemaMessages, EnumNamesTheAllowedValues) {
  EXPECT_EQ(schema_messages_first_error([](Json& j) { j["areas"][0]["kind"] = "swamp"; }),
            "/areas/0/kind: must be one of \"land\", \"city\", \"sea\" (got \"swamp\")");
}

TEST(SchemaMessages, TypeNamesTheExpectedType) {
  EXPECT_EQ(schema_messages_first_error([](Json& j) { j["areas"][1]["armies"] = "two"; }),
            "/areas/1/armies: must be a whole number (got a string)");
}

TEST(SchemaMessages, RangeNamesTheBounds) {
  EXPECT_EQ(schema_messages_first_error([](Json& j) { j["areas"][1]["armies"] = -2; }),
            "/areas/1/armies: must be at least 0 (got -2)");
  EXPECT_EQ(schema_messages_first_error([](Json& j) {
              j["rules"] = {{"ambush_multiplier", 11}};
            }),
            "/rules/ambush_multiplier: must be at least 1 and at most 10 (got 11)");
}

TEST(SchemaMessages, RequiredNamesTheMissingField) {
  EXPECT_EQ(schema_messages_first_error([](Json& j) { j["players"][0].erase("name"); }),
            "/players/0: the required field \"name\" is missing");
}

// A player may leave out the secret: the game gives them a fresh one (Services::create_game),
// as docs/scenarios.md and the create API say.
TEST(SchemaMessages, APlayerMayLeaveOutTheSecret) {
  EXPECT_EQ(schema_messages_first_error([](Json& j) {
              for (Json& p : j["players"]) p.erase("secret");
            }),
            "(valid)");
}

TEST(SchemaMessages, UnknownFieldNamesTheAllowedOnes) {
  const std::string e = schema_messages_first_error([](Json& j) { j["colour"] = "red"; });
  EXPECT_NE(e.find("unknown field \"colour\" (allowed: "), std::string::npos) << e;
  EXPECT_NE(e.find("players"), std::string::npos) << e;
}

}  // namespace
}  // namespace adj
