// The JSON writers of the state and a turn's results (rules/game/json_form.h: one description per
// struct, written as text by json_text and turn_text, as a tree by to_json): the text is the
// tree's dump() byte for byte on every bundled scenario, on the 1,000-player scale world before
// and after a full turn, and on strings that need escaping or are not UTF-8; fixed texts pin the
// form itself. The battle inputs of rules/combat/battle_input_text.h (the form's only writer) are
// checked against a model of the document written here from its definition (local_world.h).
#include <gtest/gtest.h>

#include <set>

#include "rules/combat/battle_input_text.h"
#include "rules/combat/engine_registry.h"
#include "rules/combat/local_world.h"
#include "rules/game/scenario.h"
#include "rules/game/state_reader.h"
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

// The battle input document as local_world.h defines it, built here as a tree: the areas within
// the engine's world radius of the target, the origin and the groups' areas; the borders among
// them; the players owning them (without secrets or addresses) and the attackers; the order of
// play cut down to those players.
Json model_input(const BattleInput& in, const std::map<std::string, std::size_t>* order_position) {
  const GameState& w = *in.world;
  std::set<std::string> keep = {in.to, in.from};
  for (const auto& g : in.groups) keep.insert(g.from);
  std::vector<std::string> frontier = {in.to};
  const CombatEngine* engine = find_engine(w.engine.name);
  const int radius = engine ? engine->world_radius(w.engine.options) : 2;
  for (int step = 0; step < radius; ++step) {
    std::vector<std::string> next;
    for (const auto& code : frontier)
      for (const auto& n : w.neighbours(code))
        if (keep.insert(n).second) next.push_back(n);
    frontier = std::move(next);
  }
  Json areas = Json::array(), edges = Json::array(), players = Json::array();
  std::set<std::string> owners = {in.attacker};
  for (const auto& g : in.groups) owners.insert(g.player);
  for (const auto& code : keep) {
    const Area* a = w.find_area(code);
    areas.push_back(to_json(*a));
    if (a->owner) owners.insert(*a->owner);
    for (const auto& n : w.neighbours(code))
      if (code < n && keep.count(n)) edges.push_back(to_json(*w.find_edge(code, n)));
  }
  for (const auto& code : owners)
    if (const Player* p = w.find_player(code)) {
      Json pj = to_json(*p);
      pj.erase("secret");
      pj.erase("email");
      players.push_back(std::move(pj));
    }
  Json order = Json::array();
  if (order_position) {
    std::vector<std::pair<std::size_t, std::string>> listed;
    for (const auto& code : owners)
      if (auto it = order_position->find(code); it != order_position->end())
        listed.emplace_back(it->second, code);
    std::sort(listed.begin(), listed.end());
    for (auto& [pos, code] : listed) order.push_back(std::move(code));
  } else {
    for (const auto& code : w.order_of_play)
      if (owners.count(code)) order.push_back(code);
  }
  Json groups = Json::array();
  for (const auto& x : in.groups)
    groups.push_back({{"player", x.player},
                      {"from", x.from},
                      {"armies", x.armies},
                      {"units", x.units},
                      {"action", x.action},
                      {"line", x.line}});
  return {{"kind", to_string(in.kind)},
          {"to", in.to},
          {"attacker",
           {{"player", in.attacker},
            {"from", in.from},
            {"armies", in.attacker_armies},
            {"units", in.attacker_units},
            {"extras", in.extras}}},
          {"ambush", in.ambush},
          {"groups", std::move(groups)},
          {"engine", engine_json(w.engine)},
          {"rules", to_json(w.rules)},
          {"turn", w.turn},
          {"order_of_play", std::move(order)},
          {"areas", std::move(areas)},
          {"adjacency", std::move(edges)},
          {"players", std::move(players)}};
}

// Every attack from an owned area on an adjacent area of another owner (or none), in both the
// writer's form and the model's, with and without the order-position index (and
// battle_input_json, the writer's text parsed); returns how many.
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
      const std::string text = writer.write(in, &position);
      EXPECT_EQ(text, model_input(in, &position).dump(-1, ' ', false, kReplace))
          << from.code << " -> " << to.code;
      EXPECT_EQ(writer.write(in), model_input(in, nullptr).dump(-1, ' ', false, kReplace))
          << from.code << " -> " << to.code;
      if (n % 50 == 0) {
        EXPECT_EQ(battle_input_json(in, &position).dump(), text);
      }
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

// The forms themselves, pinned: every member of a player, an area, a border and a state, and of a
// battle log and an action, in key order, with what is left out when empty or absent.
TEST(JsonText, TheFormsAreFixedTexts) {
  Player p;
  p.code = "WSX";
  p.name = "Wessex";
  p.email = "w@x";
  p.secret = "s";
  p.nation = "Saxons";
  p.bp = 3;
  p.treasury = 4;
  p.vp = 5;
  p.reserve = 6;
  p.engine_state = {{"cards", {1}}};
  const std::string player_text =
      R"({"bp":3,"code":"WSX","email":"w@x","engine_state":{"cards":[1]},"name":"Wessex",)"
      R"("nation":"Saxons","reserve":6,"secret":"s","treasury":4,"vp":5})";
  std::string out;
  json_text::player(out, p, false);
  EXPECT_EQ(out, player_text);
  out.clear();
  json_text::player(out, p, true);  // a battle world's: no address, no secret
  EXPECT_EQ(out, R"({"bp":3,"code":"WSX","engine_state":{"cards":[1]},"name":"Wessex",)"
                 R"("nation":"Saxons","reserve":6,"treasury":4,"vp":5})");
  Area a;
  a.code = "HRS";
  a.name = "Horsa";
  a.kind = AreaKind::kCity;
  a.terrain = "hills";
  a.hinterland = "BDS";
  a.owner = "WSX";
  a.population = 2;
  a.fort = 1;
  a.trade = 3;
  a.armies = 7;
  a.mode = DefenceMode::kAmbush;
  a.ambush_against = "BDS";
  a.x = 1.5;
  a.y = -2;
  a.features = {{"port", true}};
  a.outline = Json::array({Json::array({0, 1})});
  const std::string area_text =
      R"({"ambush_against":"BDS","armies":7,"code":"HRS","engine_state":{},)"
      R"("features":{"port":true},"fort":1,"hinterland":"BDS","kind":"city","mode":"ambush",)"
      R"("name":"Horsa","outline":[[0,1]],"owner":"WSX","population":2,"retreat_to":null,)"
      R"("terrain":"hills","trade":3,"x":1.5,"y":-2.0})";
  out.clear();
  json_text::area(out, a);
  EXPECT_EQ(out, area_text);
  Area b;
  b.code = b.name = "BDS";
  const std::string plain_area =
      R"({"ambush_against":null,"armies":0,"code":"BDS","engine_state":{},"features":{},)"
      R"("fort":0,"kind":"land","mode":"retreat","name":"BDS","owner":null,"population":0,)"
      R"("retreat_to":null,"terrain":"lowlands","trade":0})";
  out.clear();
  json_text::area(out, b);
  EXPECT_EQ(out, plain_area);
  out.clear();
  json_text::edge(out, Edge{"BDS", "HRS"});
  EXPECT_EQ(out, R"(["BDS","HRS"])");

  GameState s;
  s.game_id = "g";
  s.name = "G";
  s.turn = 2;
  s.seed = 18446744073709551615ull;
  s.players = {p};
  s.areas = {a, b};
  s.edges = {Edge{"HRS", "BDS", {{"river", true}}}};
  s.order_of_play = {"WSX"};
  s.normalise();
  const std::string state = R"({"adjacency":[["BDS","HRS",{"river":true}]],"areas":[)" +
                            plain_area + "," + area_text +
                            R"(],"engine":{"name":"dark-age","options":{}},"game":"g","name":"G",)"
                            R"("order_of_play":["WSX"],"players":[)" +
                            player_text + R"(],"rules":)" + to_json(s.rules).dump() +
                            R"(,"scenario_extra":{},"seed":"18446744073709551615","turn":2})";
  EXPECT_EQ(state_text(s), state);
  EXPECT_EQ(to_json(s).dump(), state);
  // Read back both ways: the same state (the secret too).
  for (const GameState& back : {*read_state_direct(state), *state_from_json(Json::parse(state))}) {
    EXPECT_EQ(state_text(back), state);
    EXPECT_EQ(back.players.at(0).secret, "s");
    EXPECT_EQ(back.neighbours("BDS"), std::vector<std::string>{"HRS"});
  }

  BattleLog log;
  log.id = "2.1.WSX";
  log.seed = 9;
  log.engine = "dark-age";
  log.attacker = "WSX";
  log.defender = "MRC";
  log.from = "HRS";
  log.to = "BDS";
  log.attacker_armies = 5;
  log.defender_armies = 3;
  log.captured = true;
  log.draws = {Draw{6, 2}};
  BattleGroupLog g;
  g.player = "WSX";
  g.from = "HRS";
  g.action = 1;
  g.line = 4;
  g.armies = 5;
  g.losses = 1;
  g.advanced = 4;
  log.groups = {g};
  log.outcome.attacker_wins = true;
  log.outcome.attacker_losses = 1;
  log.outcome.defender_losses = 3;
  BattleRound r;
  r.phase = "round 1";
  r.attacker_before = 5;
  r.defender_before = 3;
  r.attacker_strength = 5;
  r.defender_strength = 2;
  r.attacker_losses = 1;
  r.defender_losses = 3;
  r.attacker_dice = {3};
  log.outcome.rounds = {r};
  const std::string battle =
      R"({"ambush":false,"attacker":"WSX","attacker_armies":5,"captured":true,"defender":"MRC",)"
      R"("defender_armies":3,"draws":[[6,3]],"engine":"dark-age","from":"HRS","groups":[)"
      R"({"action":1,"advanced":4,"armies":5,"from":"HRS","line":4,"losses":1,"player":"WSX",)"
      R"("returned_to":""}],"id":"2.1.WSX","kind":"move","outcome":{"attacker_losses":1,)"
      R"("attacker_stops":false,"attacker_wins":true,"defender_losses":3,"rounds":[)"
      R"({"attacker_before":5,"attacker_dice":[3],"attacker_losses":1,"attacker_strength":5,)"
      R"("defender_before":3,"defender_losses":3,"defender_strength":2,"phase":"round 1"}]},)"
      R"("seed":"9","to":"BDS"})";
  out.clear();
  json_text::battle_log(out, log);
  EXPECT_EQ(out, battle);
  EXPECT_EQ(to_json(log).dump(), battle);

  ActionResult act;
  act.player = "WSX";
  act.action = 1;
  act.line = 4;
  act.text = "MOVE HRS BDS 5";
  act.ok = true;
  act.message = "moved";
  act.battle = "2.1.WSX";
  act.bp_spent = 2;
  const std::string action_text =
      R"({"action":1,"battle":"2.1.WSX","bp_spent":2,"line":4,"message":"moved","ok":true,)"
      R"("player":"WSX","text":"MOVE HRS BDS 5","verb":"MOVE"})";
  out.clear();
  json_text::action(out, act);
  EXPECT_EQ(out, action_text);
  EXPECT_EQ(to_json(act).dump(), action_text);
}

}  // namespace
}  // namespace adj
