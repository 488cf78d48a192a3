// The direct JSON writers (rules/game/json_text.h, rules/turn/turn_text.h,
// rules/combat/battle_input_text.h) against the tree path they replace: byte for byte on every
// bundled scenario, on the 1,000-player scale world before and after a full turn, and on strings
// that need escaping or are not UTF-8.
#include <gtest/gtest.h>

#include "rules/combat/battle_input_text.h"
#include "rules/combat/engine_registry.h"
#include "rules/combat/local_world.h"
#include "rules/game/scenario.h"
#include "rules/orders/validator.h"
#include "rules/turn/turn_resolver.h"
#include "rules/turn/turn_text.h"
#include "tests/support/grid_world.h"
#include "tests/support/sanitized.h"

namespace adj {
namespace {

constexpr auto kReplace = Json::error_handler_t::replace;

std::string state_text(const GameState& s) {
  std::string out;
  json_text::state(out, s);
  return out;
}

// Every attack from an owned area on an adjacent area of another owner (or none), in both the
// writer's and the tree's form, with and without the order-position index; returns how many.
int expect_battle_inputs_match(const GameState& s, int limit = 1 << 30) {
  std::map<std::string, std::size_t> position;
  for (std::size_t i = 0; i < s.order_of_play.size(); ++i) position.emplace(s.order_of_play[i], i);
  BattleInputWriter writer(s);
  int n = 0;
  for (const Area& from : s.areas) {
    if (!from.owner || n >= limit) continue;
    for (const std::string& to_code : s.neighbours(from.code)) {
      const Area& to = *s.find_area(to_code);
      if (to.owner == from.owner) continue;
      BattleInput in;
      in.id = "1.1." + *from.owner;
      in.kind = n % 2 ? AttackKind::kAssault : AttackKind::kMove;
      in.world = &s;
      in.attacker = *from.owner;
      in.from = from.code;
      in.to = to.code;
      in.attacker_armies = std::max(1, from.armies);
      in.attacker_units = from.engine_state;
      if (n % 3 == 0) in.extras = {{"CARD", 2}, {"AIR", 1}};
      in.ambush = n % 5 == 0;
      in.options = &s.engine.options;
      in.groups.push_back({in.attacker, in.from, in.attacker_armies, in.attacker_units, 3, 7});
      // A second force from another neighbour of the target, when there is one.
      for (const std::string& other : s.neighbours(to.code))
        if (other != from.code && n % 4 == 0) {
          in.groups.push_back({"ZZZ", other, 2, Json::object(), 3, 8});
          break;
        }
      EXPECT_EQ(writer.write(in, &position),
                battle_input_json(in, &position).dump(-1, ' ', false, kReplace))
          << from.code << " -> " << to.code;
      EXPECT_EQ(writer.write(in), battle_input_json(in).dump(-1, ' ', false, kReplace))
          << from.code << " -> " << to.code;
      ++n;
    }
  }
  return n;
}

TEST(JsonText, BundledScenariosStatesAndBattleInputsAreTheTreesBytes) {
  const auto names = bundled_scenarios();
  ASSERT_FALSE(names.empty());
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    Result<Json> doc = bundled_scenario_published(name);
    ASSERT_TRUE(doc.ok()) << doc.status().to_string();
    Result<GameState> s = state_from_scenario(*doc, 7);
    ASSERT_TRUE(s.ok()) << s.status().to_string();
    EXPECT_EQ(state_text(*s), to_json(*s).dump());
    for (const Player& p : s->players) {
      std::string out;
      json_text::player(out, p, false);
      EXPECT_EQ(out, to_json(p).dump());
    }
    EXPECT_GT(expect_battle_inputs_match(*s), 0);
  }
}

TEST(JsonText, ScaleWorldTurnStateActionsBattlesAndInputsAreTheTreesBytes) {
  namespace gw = testing::grid_world;
  const gw::Size size{testing::sanitized_count(gw::kPlayers)};  // 100 under the sanitizers
  Result<GameState> start = state_from_scenario(gw::world("bench", size), 7);
  ASSERT_TRUE(start.ok()) << start.status().to_string();
  EXPECT_EQ(state_text(*start), to_json(*start).dump());
  const CombatEngine* engine = find_engine(start->engine.name);
  ASSERT_NE(engine, nullptr);
  OrderBook book;
  for (int p = 0; p < size.players; ++p) {
    OrderAck ack = check_order_file(gw::orders_for(p, "bench", size), *start, engine);
    ASSERT_FALSE(ack.refused) << p;
    book[ack.player] = ack.orders;
  }
  Result<TurnResult> r = resolve_turn(*start, book, *engine);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  {  // The overload that takes the orders instead of copying them resolves the same turn.
    OrderBook taken = book;
    Result<TurnResult> again = resolve_turn(*start, std::move(taken), *engine);
    ASSERT_TRUE(again.ok()) << again.status().to_string();
    EXPECT_EQ(again->digest, r->digest);
    EXPECT_EQ(again->orders, book);
    EXPECT_EQ(r->orders, book);
  }
  // The digest's text of the next state is the tree's dump (the store writes it as is).
  EXPECT_EQ(r->next_state_text, to_json(r->next_state).dump());
  ASSERT_GT(r->battles.size(), static_cast<std::size_t>(size.players));
  for (const BattleLog& b : r->battles) {
    std::string out;
    json_text::battle_log(out, b);
    ASSERT_EQ(out, to_json(b).dump()) << b.id;
    // Each battle's replay input is a full battle document naming its battle's sides.
    const Json in = Json::parse(b.input);
    if (b.dark_age_action == DarkAgeAction::kNone) {
      EXPECT_EQ(in.at("to"), b.to);
      EXPECT_EQ(in.at("attacker").at("player"), b.attacker);
    }
  }
  for (const ActionResult& a : r->actions) {
    std::string out;
    json_text::action(out, a);
    ASSERT_EQ(out, to_json(a).dump()) << a.player << " " << a.line;
  }
  // A world after a turn (armies moved, areas taken, retreat and ambush settings, bids).
  EXPECT_GT(expect_battle_inputs_match(r->next_state, testing::sanitized_count(3000)),
            testing::sanitized_count(1000));
}

TEST(JsonText, StringsThatNeedEscapingOrAreNotUtf8AreWrittenAsDumpWritesThem) {
  GameState s;
  s.game_id = "g";
  s.name = "Quote \" back\\slash \n\t\x01 del\x7f caf\xc3\xa9 \xe2\x82\xac";
  Player p;
  p.code = "P1";
  p.name = "bad \xff\xfe utf-8";
  p.nation = "N";
  p.engine_state = {{"k", "\x02"}, {"list", {1, 2.5, "x"}}};
  s.players.push_back(p);
  Area a;
  a.code = "A1";
  a.name = "tab\there";
  a.owner = "P1";
  a.x = 1.5;
  a.y = 2;
  a.outline = Json::array({Json::array({0.1, 0.2})});
  a.hinterland = "H";
  a.features = {{"river", true}};
  s.areas.push_back(a);
  Area b;
  b.code = "B1";
  b.name = "B1";
  s.areas.push_back(b);
  s.edges.push_back({"A1", "B1", {{"river", true}}});
  s.order_of_play = {"P1"};
  s.scenario_extra = {{"note", "\xc3"}};
  s.normalise();
  // Invalid UTF-8: strict throws as dump() does; replace writes what dump() writes.
  EXPECT_THROW(state_text(s), Json::type_error);
  std::string replaced;
  json_text::state(replaced, s, kReplace);
  EXPECT_EQ(replaced, to_json(s).dump(-1, ' ', false, kReplace));
  EXPECT_NE(replaced.find("\\u0001"), std::string::npos);
  s.players[0].name = "fine";
  s.scenario_extra = Json::object();
  EXPECT_EQ(state_text(s), to_json(s).dump());
}

}  // namespace
}  // namespace adj
