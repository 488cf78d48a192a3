// The order builder (server/web/order_builder.h) and the validator cannot disagree: on every
// bundled scenario, for every player, every choice the builder offers, written as the builder
// writes it, is accepted by check_order_file, the validator behind every channel. And what the
// issue found wrong is gone: no sea as a target where the rules have no ships, INVADE only for
// Gaelic kingdoms.
#include "server/web/order_builder.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "rules/combat/engine_registry.h"
#include "rules/game/scenario.h"
#include "rules/game/state.h"
#include "rules/orders/validator.h"
#include "tests/support/grid_world.h"

namespace adj::web {
namespace {

using Json = nlohmann::json;

// The order line the builder writes for a choice (static/orders.js line()): the count blank
// (all) or 1 where a number is required.
std::string builder_line(const Json& action, const std::string& area, const std::string& target) {
  std::string line = action["verb"].get<std::string>();
  if (!area.empty()) line += " " + area;
  if (!target.empty()) line += " " + target;
  if (action["count"] == "required") line += " 1";
  return line;
}

TEST(OrderBuilder, EveryChoiceOnEveryBundledScenarioIsAcceptedByTheValidator) {
  int checked = 0;
  for (const std::string& name : bundled_scenarios()) {
    auto doc = bundled_scenario_published(name);
    ASSERT_TRUE(doc.ok()) << name;
    auto st = state_from_scenario(*doc, 1);
    ASSERT_TRUE(st.ok()) << name << ": " << st.status().to_string();
    const CombatEngine* engine = find_engine(st->engine.name);
    const Json state = to_json(*st);
    for (const Player& p : st->players) {
      const Json m = order_builder_model(state, p.code, engine);
      ASSERT_FALSE(m["actions"].empty()) << name << "/" << p.code;
      EXPECT_EQ(m["kingdoms"].size(), st->players.size() - 1) << name;  // a small game: all
      for (const Json& a : m["actions"]) {
        const std::string verb = a["verb"];
        ASSERT_TRUE(m["legal"].contains(verb)) << name << "/" << p.code << " " << verb;
        for (const auto& [area, targets] : m["legal"][verb].items())
          for (const Json& t : targets) {
            const std::string line = builder_line(a, area, t.get<std::string>());
            const std::string file = "GAME " + st->game_id + "\nPLAYER " + p.code + " " + p.secret +
                                     "\n" + line + "\nEND\n";
            const OrderAck ack = check_order_file(file, *st, engine);
            ASSERT_FALSE(ack.refused) << name << ": " << ack.refusal;
            ASSERT_EQ(ack.lines.size(), 1u) << name << ": " << line;
            EXPECT_TRUE(ack.lines[0].accepted)
                << name << "/" << p.code << ": " << line << ": " << ack.lines[0].reason;
            ++checked;
          }
      }
    }
  }
  EXPECT_GT(checked, 500);
  std::printf("builder choices checked against the validator: %d\n", checked);
}

TEST(OrderBuilder, NoSeaTargetsWithoutShipsAndInvadeOnlyForGaelicKingdoms) {
  auto doc = bundled_scenario_published("dark-age-britain");
  ASSERT_TRUE(doc.ok());
  auto st = state_from_scenario(*doc, 1);
  ASSERT_TRUE(st.ok());
  const Json state = to_json(*st);
  for (const Player& p : st->players) {
    const Json m = order_builder_model(state, p.code, find_engine(st->engine.name));
    for (const char* verb : {"MOVE", "ASSAULT", "RAID"}) {
      if (!m["legal"].contains(verb)) continue;
      for (const auto& [area, targets] : m["legal"][verb].items())
        for (const Json& t : targets) {
          const Area* a = st->find_area(t.get<std::string>());
          ASSERT_NE(a, nullptr);
          EXPECT_NE(a->kind, AreaKind::kSea) << p.code << " " << verb << " " << area << " " << t;
        }
    }
    EXPECT_EQ(m["legal"].contains("INVADE"), st->rules.is_gaelic(p.nation)) << p.code;
  }
}

TEST(OrderBuilder, ABigGameOffersGiftOnlyToTheNeighbours) {
  namespace gw = adj::testing::grid_world;
  auto st = state_from_scenario(gw::world("big", gw::Size{kBuilderKingdomsListed + 100}), 1);
  ASSERT_TRUE(st.ok()) << st.status().to_string();
  const Json state = to_json(*st);
  const std::string me = gw::player(150);
  const Json m = order_builder_model(state, me, find_engine(st->engine.name));
  // The owners of the areas next to the player's, the player aside.
  std::set<std::string> near;
  for (const Area& a : st->areas)
    if (a.owner && *a.owner == me)
      for (const std::string& n : st->neighbours(a.code))
        if (const Area* b = st->find_area(n); b && b->owner && *b->owner != me)
          near.insert(*b->owner);
  ASSERT_FALSE(near.empty());
  std::set<std::string> listed;
  for (const Json& k : m["kingdoms"]) listed.insert(k["code"].get<std::string>());
  EXPECT_EQ(listed, near);
  ASSERT_TRUE(m["legal"].contains("GIFT"));
  std::set<std::string> gift;
  for (const Json& t : m["legal"]["GIFT"][""]) gift.insert(t.get<std::string>());
  EXPECT_EQ(gift, near);
  // Exactly kBuilderKingdomsListed others: every one is still listed.
  auto small = state_from_scenario(gw::world("edge", gw::Size{kBuilderKingdomsListed + 1}), 1);
  ASSERT_TRUE(small.ok());
  EXPECT_EQ(
      order_builder_model(to_json(*small), me, find_engine(small->engine.name))["kingdoms"].size(),
      kBuilderKingdomsListed);
}

}  // namespace
}  // namespace adj::web
