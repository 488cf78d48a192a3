// Combined attacks and the combat phase (seed 003's common rules) through the real parser,
// validator and turn loop:
//   "More than one unit may participate in a given attack."
//   "No unit may participate in more than one attack per combat phase."
//   "No unit may be the object of more than one attack per combat phase."
//   "Whenever a unit retreats from a hexagon or is eliminated as a result of combat, one of the
//    attacking units may enter the hexagon."
// The battles use the Dark Age formulas (seed 001 5.2, MOVE: "Each side takes losses of half the
// strength on the other side, and the weaker side also takes losses of half the difference in
// strengths"), computed by hand below.
#include <gtest/gtest.h>

#include "rules/combat/dark_age_engine.h"
#include "rules/orders/validator.h"
#include "rules/report/report.h"
#include "rules/turn/turn_resolver.h"
#include "tests/rules/combat/engine_world.h"

namespace adj {
namespace {

// Dark Age battles under configurable combat-phase rules and advance (as the CRT engine
// declares them), so the turn loop's enforcement is tested apart from any one engine's dice.
class PhasedEngine : public CombatEngine {
 public:
  PhasedEngine(CombatPhaseRules rules, std::optional<int> advancing, bool combine = true,
               bool simultaneous = false)
      : rules_(rules),
        advancing_(advancing),
        traits_{.name = "dark-age",
                .summary = "test engine",
                .deterministic = true,
                .simultaneous_fire = simultaneous,
                .combined_attacks = combine} {}
  const EngineTraits& traits() const override { return traits_; }
  CombatPhaseRules phase_rules(const Json&) const override { return rules_; }
  Result<BattleOutcome> resolve(const BattleInput& in, Rng& rng) const override {
    auto out = DarkAgeEngine().resolve(in, rng);
    if (out.ok() && advancing_) out->advancing = advancing_;
    return out;
  }

 private:
  CombatPhaseRules rules_;
  std::optional<int> advancing_;
  EngineTraits traits_;
};

// HRS(4) and OXS(4) of AAA are both next to BDS (BBB, 4 armies, DEFEND mode, no population);
// CCC holds KEN (5 armies), also next to BDS.
GameState combined_attack_world() {
  GameState s = testing::engine_world("dark-age", {"AAA", "BBB", "CCC"},
                                      {{"HRS", "AAA", 4},
                                       {"OXS", "AAA", 4},
                                       {"BDS", "BBB", 4},
                                       {"KEN", "CCC", 5},
                                       {"LON", "BBB", 0}},
                                      {{"HRS", "BDS"},
                                       {"OXS", "BDS"},
                                       {"KEN", "BDS"},
                                       {"HRS", "OXS"},
                                       {"BDS", "LON"},
                                       {"HRS", "LON"},
                                       {"OXS", "LON"}});
  s.game_id = "g";
  for (Player& p : s.players) {
    p.bp = 10;
    p.secret = "pw";
  }
  for (Area& a : s.areas) {
    a.terrain = "lowlands";
    a.mode = DefenceMode::kDefend;
  }
  s.order_of_play = {"AAA", "BBB", "CCC"};
  s.turn = 2;
  return s;
}

OrderAck combined_check(const GameState& s, const CombatEngine& e, const std::string& player,
                        const std::string& lines) {
  return check_order_file("GAME g\nPLAYER " + player + " pw\n" + lines, s, &e);
}

TEST(CombinedAttack, TwoAreasFightOneBattleAndWinWhereTwoAttacksWouldCostMore) {
  const DarkAgeEngine engine;
  const GameState s = combined_attack_world();
  OrderAck ack = combined_check(s, engine, "AAA", "1. MOVE HRS BDS 4\n1. MOVE OXS BDS 4\n");
  ASSERT_EQ(ack.rejected_count(), 0) << render_ack_text(ack);
  ASSERT_EQ(ack.orders.size(), 2u);
  auto res = resolve_turn(s, {{"AAA", ack.orders}}, engine);
  ASSERT_TRUE(res.ok()) << res.status().to_string();
  // One battle, A = 8 v D = 4 (armies only), diff 4: the attacker loses ⌊4/2⌋ = 2; the defender
  // loses ⌊8/2⌋ + ⌊4/2⌋ = 6, capped at its 4 armies: wiped out. 6 survivors enter BDS; the losses
  // fall one at a time on the larger group (the first on ties): HRS 1, OXS 1.
  ASSERT_EQ(res->battles.size(), 1u);
  const BattleLog& b = res->battles[0];
  EXPECT_EQ(b.attacker_armies, 8);
  EXPECT_EQ(b.outcome.attacker_losses, 2);
  ASSERT_EQ(b.groups.size(), 2u);
  EXPECT_EQ(b.groups[0].from, "HRS");
  EXPECT_EQ(b.groups[0].losses, 1);
  EXPECT_EQ(b.groups[1].losses, 1);
  EXPECT_EQ(b.groups[0].advanced + b.groups[1].advanced, 6);
  const GameState& n = res->next_state;
  EXPECT_EQ(n.find_area("BDS")->owner, "AAA");
  EXPECT_EQ(n.find_area("BDS")->armies, 6);
  EXPECT_EQ(n.find_area("HRS")->armies, 0);
  EXPECT_EQ(n.find_area("OXS")->armies, 0);
  ASSERT_EQ(res->actions.size(), 2u);
  EXPECT_TRUE(res->actions[0].ok);
  EXPECT_TRUE(res->actions[1].ok);
  EXPECT_EQ(res->actions[0].battle, res->actions[1].battle);
  EXPECT_EQ(res->economy.at("AAA").bp_spent, 2);  // each line costs a MOVE (1 BP)

  // The same armies in two separate actions: 4 v 4 loses 2 each (BDS holds with 2), then 4 v 2
  // loses ⌊2/2⌋ = 1 and kills ⌊4/2⌋ + ⌊2/2⌋ = 3 ≥ 2: 3 enter. 3 armies lost instead of 2.
  OrderAck apart = combined_check(s, engine, "AAA", "1. MOVE HRS BDS 4\n2. MOVE OXS BDS 4\n");
  auto res2 = resolve_turn(s, {{"AAA", apart.orders}}, engine);
  ASSERT_TRUE(res2.ok());
  ASSERT_EQ(res2->battles.size(), 2u);
  EXPECT_EQ(res2->battles[0].outcome.attacker_losses + res2->battles[1].outcome.attacker_losses, 3);
}

TEST(CombinedAttack, TheReportAndBattleLogShowEveryForce) {
  const DarkAgeEngine engine;
  const GameState s = combined_attack_world();
  OrderAck ack = combined_check(s, engine, "AAA", "1. MOVE HRS BDS 4\n1. MOVE OXS BDS 4\n");
  auto res = resolve_turn(s, {{"AAA", ack.orders}}, engine);
  ASSERT_TRUE(res.ok());
  const Json log = to_json(res->battles[0]);
  ASSERT_EQ(log["groups"].size(), 2u);
  EXPECT_EQ(log["groups"][1]["from"], "OXS");
  EXPECT_EQ(Json::parse(res->battles[0].input)["groups"].size(), 2u);  // --replay sees both forces
  const std::string text = render_report_text(build_report(s, *res, "AAA"), nullptr);
  EXPECT_NE(text.find("Battle at BDS (HRS + OXS -> BDS): move by AAA"), std::string::npos) << text;
  EXPECT_NE(text.find("A combined attack: 4 from HRS, 4 from OXS."), std::string::npos) << text;
  const std::string theirs = render_report_text(build_report(s, *res, "BBB"), nullptr);
  EXPECT_NE(theirs.find("A combined attack"), std::string::npos) << theirs;
}

TEST(CombinedAttack, OneLineThatCannotGoAheadStopsTheWholeAttack) {
  const DarkAgeEngine engine;
  const GameState s = combined_attack_world();
  // Seed 001 5.1: "If there are fewer armies available than you ordered ... the action fails".
  OrderAck ack = combined_check(s, engine, "AAA", "1. MOVE HRS BDS 4\n1. MOVE OXS BDS 5\n");
  ASSERT_EQ(ack.rejected_count(), 0);
  auto res = resolve_turn(s, {{"AAA", ack.orders}}, engine);
  ASSERT_TRUE(res.ok());
  EXPECT_TRUE(res->battles.empty());
  ASSERT_EQ(res->actions.size(), 2u);
  EXPECT_FALSE(res->actions[0].ok);
  EXPECT_NE(res->actions[0].message.find("the combined attack on BDS did not go ahead"),
            std::string::npos)
      << res->actions[0].message;
  EXPECT_NE(res->actions[1].message.find("only 4 armies can move from OXS"), std::string::npos)
      << res->actions[1].message;
  EXPECT_EQ(res->economy.at("AAA").bp_spent, 0);
  EXPECT_EQ(res->next_state.find_area("HRS")->armies, 4);
}

TEST(CombinedAttack, TheGrammarSaysWhichLinesMayShareAnActionNumber) {
  const DarkAgeEngine engine;
  const GameState s = combined_attack_world();
  OrderAck ack = combined_check(s, engine, "AAA",
                                "1. MOVE HRS BDS 2\n"
                                "1. MOVE OXS LON 2\n"     // another target
                                "1. ASSAULT OXS BDS 2\n"  // another verb
                                "1. MOVE HRS BDS 1\n"     // the same origin twice
                                "1. LEVY HRS\n"           // not an attack
                                "1. MOVE OXS BDS 1\n");   // joins line 1
  ASSERT_FALSE(ack.refused) << ack.refusal;
  ASSERT_EQ(ack.lines.size(), 6u);
  EXPECT_TRUE(ack.lines[0].accepted);
  EXPECT_NE(ack.lines[1].reason.find("action 1 attacks BDS"), std::string::npos)
      << ack.lines[1].reason;
  EXPECT_NE(ack.lines[2].reason.find("action 1 is a MOVE"), std::string::npos)
      << ack.lines[2].reason;
  EXPECT_NE(ack.lines[3].reason.find("already attacks from HRS"), std::string::npos)
      << ack.lines[3].reason;
  EXPECT_EQ(ack.lines[4].reason, "action number 1 is not after action 1");
  EXPECT_TRUE(ack.lines[5].accepted) << ack.lines[5].reason;
  EXPECT_FALSE(ack.lines[3].action.has_value());  // a refused join uses no action
  ASSERT_EQ(ack.orders.size(), 2u);

  // Rules that do not combine attacks refuse the second line.
  const PhasedEngine single({}, std::nullopt, /*combine=*/false);
  OrderAck no = combined_check(s, single, "AAA", "1. MOVE HRS BDS 2\n1. MOVE OXS BDS 2\n");
  ASSERT_EQ(no.rejected_count(), 1);
  EXPECT_NE(no.lines[1].reason.find("do not combine attacks"), std::string::npos);
}

TEST(CombinedAttack, AJoiningLineStandsAloneWhenTheFirstWasRejectedAndKeywordsGoFirst) {
  const DarkAgeEngine engine;
  const GameState s = combined_attack_world();
  OrderAck ack = combined_check(s, engine, "AAA",
                                "1. MOVX HRS BDS 2\n"  // a typo: rejected, action 1 stays empty
                                "1. MOVE OXS BDS 2\n"  // takes action 1 on its own
                                "2. MOVE HRS BDS 1\n"
                                "2. MOVE OXS BDS 1 AIR 1\n");  // keywords only on the first line
  ASSERT_EQ(ack.lines.size(), 4u);
  EXPECT_FALSE(ack.lines[0].accepted);
  EXPECT_TRUE(ack.lines[1].accepted) << ack.lines[1].reason;
  EXPECT_EQ(ack.lines[1].action, 1);
  EXPECT_TRUE(ack.lines[2].accepted);
  EXPECT_NE(ack.lines[3].reason.find("go on its first line (MOVE HRS BDS 1)"), std::string::npos)
      << ack.lines[3].reason;
}

CombatPhaseRules whole_turn() {
  CombatPhaseRules r;
  r.scope = CombatPhaseRules::Scope::kTurn;
  r.one_attack_per_unit = true;
  r.one_attack_per_target = true;
  return r;
}

TEST(CombatPhase, OneArmyAdvancesAndTheOthersGoHome) {
  const PhasedEngine engine(whole_turn(), 1);
  const GameState s = combined_attack_world();
  OrderAck ack = combined_check(s, engine, "AAA", "1. MOVE HRS BDS 4\n1. MOVE OXS BDS 4\n");
  auto res = resolve_turn(s, {{"AAA", ack.orders}}, engine);
  ASSERT_TRUE(res.ok());
  // As above: 6 survive (3 per area); one army (from HRS, the first line) enters BDS.
  const GameState& n = res->next_state;
  EXPECT_EQ(n.find_area("BDS")->owner, "AAA");
  EXPECT_EQ(n.find_area("BDS")->armies, 1);
  EXPECT_EQ(n.find_area("HRS")->armies, 2);
  EXPECT_EQ(n.find_area("OXS")->armies, 3);
  EXPECT_EQ(res->actions[0].message,
            "won: the combined attack took BDS; 1 army entered BDS, "
            "2 armies went back to HRS");
  EXPECT_EQ(res->actions[1].message,
            "won: the combined attack took BDS; 3 armies went back to OXS");
}

TEST(CombatPhase, NoArmyAttacksTwiceAndNoArmyIsAttackedTwice) {
  const PhasedEngine engine(whole_turn(), 1);
  const GameState s = combined_attack_world();
  // AAA action 1: HRS 4 v BDS 4: each side loses ⌊4/2⌋ = 2; BDS holds with 2 and the 2 attackers
  // go home to HRS, having attacked. Action 2: all of HRS against LON: refused (they attacked in
  // this combat phase). Action 3: fresh armies from OXS may attack. CCC's action 1 comes after
  // AAA's: KEN against BDS, whose 2 armies were already attacked: refused.
  OrderAck a =
      combined_check(s, engine, "AAA", "1. MOVE HRS BDS 4\n2. MOVE HRS LON\n3. MOVE OXS LON 1\n");
  OrderAck c = combined_check(s, engine, "CCC", "1. MOVE KEN BDS\n");
  ASSERT_EQ(a.rejected_count() + c.rejected_count(), 0) << render_ack_text(a);
  auto res = resolve_turn(s, {{"AAA", a.orders}, {"CCC", c.orders}}, engine);
  ASSERT_TRUE(res.ok());
  ASSERT_EQ(res->actions.size(), 4u);
  std::map<std::string, const ActionResult*> by;  // "AAA1" -> its result
  for (const auto& r : res->actions) by[r.player + std::to_string(r.action)] = &r;
  EXPECT_FALSE(by["AAA1"]->ok) << by["AAA1"]->message;
  EXPECT_FALSE(by["AAA2"]->ok);
  EXPECT_NE(by["AAA2"]->message.find("2 armies already attacked in this combat phase"),
            std::string::npos)
      << by["AAA2"]->message;
  EXPECT_TRUE(by["AAA3"]->ok) << by["AAA3"]->message;
  EXPECT_FALSE(by["CCC1"]->ok);
  EXPECT_EQ(by["CCC1"]->message,
            "the armies in BDS were already attacked in this combat phase (action 1, by AAA): no "
            "unit may be the object of more than one attack per combat phase");
  EXPECT_EQ(res->next_state.find_area("KEN")->armies, 5);
  EXPECT_EQ(res->next_state.find_area("HRS")->armies, 2);
  EXPECT_EQ(res->battles.size(), 2u);
}

TEST(CombatPhase, TheArmyThatEnteredMayBeAttackedAndStoppedArmiesAreNotCountedTwice) {
  const PhasedEngine engine(whole_turn(), 1);
  GameState s = combined_attack_world();
  s.find_area("BDS")->armies = 1;
  s.find_area("HRS")->armies = 5;
  // AAA action 1: OXS 4 v BDS 1: loses 0, kills 2 + 1: 1 army enters BDS, 3 go home. CCC then
  // attacks BDS: the army there never was the object of an attack, so the battle is fought.
  // AAA action 2: ASSAULT HRS LON 4 against an empty area: won, the 4 stop there (ASSAULT).
  // Action 3: MOVE HRS LON 1: the one army left in HRS is fresh and not stopped.
  s.find_area("LON")->owner = "BBB";
  OrderAck a = combined_check(s, engine, "AAA",
                              "1. MOVE OXS BDS 4\n2. ASSAULT HRS LON 4\n3. MOVE HRS LON 1\n");
  OrderAck c = combined_check(s, engine, "CCC", "1. MOVE KEN BDS\n");
  ASSERT_EQ(a.rejected_count() + c.rejected_count(), 0) << render_ack_text(a);
  auto res = resolve_turn(s, {{"AAA", a.orders}, {"CCC", c.orders}}, engine);
  ASSERT_TRUE(res.ok());
  std::map<std::string, const ActionResult*> by;
  for (const auto& r : res->actions) by[r.player + std::to_string(r.action)] = &r;
  ASSERT_EQ(by.size(), 4u);
  EXPECT_TRUE(by["AAA1"]->ok) << by["AAA1"]->message;
  EXPECT_TRUE(by["CCC1"]->battle.has_value()) << by["CCC1"]->message;
  EXPECT_TRUE(by["AAA2"]->ok) << by["AAA2"]->message;
  EXPECT_TRUE(by["AAA3"]->ok) << by["AAA3"]->message;
}

TEST(CombatPhase, AnActionRoundPhaseLetsTheArmiesAttackAgainNextAction) {
  CombatPhaseRules r = whole_turn();
  r.scope = CombatPhaseRules::Scope::kActionRound;
  const PhasedEngine engine(r, 1);
  GameState s = combined_attack_world();
  s.find_area("BDS")->armies = 1;
  OrderAck a = combined_check(s, engine, "AAA", "1. MOVE HRS BDS 4\n2. MOVE HRS LON\n");
  auto res = resolve_turn(s, {{"AAA", a.orders}}, engine);
  ASSERT_TRUE(res.ok());
  ASSERT_EQ(res->actions.size(), 2u);
  EXPECT_TRUE(res->actions[1].ok) << res->actions[1].message;
  EXPECT_EQ(res->next_state.find_area("LON")->owner, "AAA");
}

TEST(CombatPhase, DarkAgeHasNoPhaseLimits) {
  // Seed 001: continuous movement; an area may be attacked again and again.
  const DarkAgeEngine engine;
  const CombatPhaseRules r = engine.phase_rules(Json::object());
  EXPECT_FALSE(r.one_attack_per_unit);
  EXPECT_FALSE(r.one_attack_per_target);
  const GameState s = combined_attack_world();
  OrderAck a = combined_check(s, engine, "AAA", "1. MOVE HRS BDS 4\n");
  OrderAck c = combined_check(s, engine, "CCC", "1. MOVE KEN BDS\n");
  auto res = resolve_turn(s, {{"AAA", a.orders}, {"CCC", c.orders}}, engine);
  ASSERT_TRUE(res.ok());
  EXPECT_EQ(res->battles.size(), 2u);
}

TEST(SimultaneousFire, AttacksOfOneActionRoundOnOneAreaAreOneBattle) {
  // Seed 000: "combat is actually simultaneous: everybody has a chance to fight back (even if
  // effectively destroyed: casualties are removed after combat)". AAA (HRS, 4) and CCC (KEN, 5)
  // both attack BDS (4) in action 1: one battle, both forces in it. Dark Age formulas on the
  // total: A = 9 v D = 4, diff 5: the attackers lose ⌊4/2⌋ = 2 (from the larger force, KEN, then
  // the larger again: KEN 5 -> 4 -> HRS/KEN tie at 4, the first: HRS), the defender loses
  // ⌊9/2⌋ + ⌊5/2⌋ = 6 ≥ 4: wiped out. AAA comes first in the order of play: its 3 survivors
  // enter; CCC's 4 go home.
  const PhasedEngine engine({}, std::nullopt, true, /*simultaneous=*/true);
  const GameState s = combined_attack_world();
  OrderAck a = combined_check(s, engine, "AAA", "1. MOVE HRS BDS\n");
  OrderAck c = combined_check(s, engine, "CCC", "1. MOVE KEN BDS\n");
  auto res = resolve_turn(s, {{"AAA", a.orders}, {"CCC", c.orders}}, engine);
  ASSERT_TRUE(res.ok());
  ASSERT_EQ(res->battles.size(), 1u);
  const BattleLog& b = res->battles[0];
  ASSERT_EQ(b.groups.size(), 2u);
  EXPECT_EQ(b.groups[1].player, "CCC");
  EXPECT_EQ(b.groups[0].losses, 1);  // HRS
  EXPECT_EQ(b.groups[1].losses, 1);  // KEN
  const GameState& n = res->next_state;
  EXPECT_EQ(n.find_area("BDS")->owner, "AAA");
  EXPECT_EQ(n.find_area("BDS")->armies, 3);
  EXPECT_EQ(n.find_area("KEN")->armies, 4);
  ASSERT_EQ(res->actions.size(), 2u);
  EXPECT_TRUE(res->actions[0].ok);
  EXPECT_FALSE(res->actions[1].ok);
  EXPECT_EQ(res->actions[1].battle, b.id);
  EXPECT_NE(res->actions[1].message.find("BDS fell to AAA, whose attack fired at the same time"),
            std::string::npos)
      << res->actions[1].message;
  // CCC's report shows the battle.
  const std::string text = render_report_text(build_report(s, *res, "CCC"), nullptr);
  EXPECT_NE(text.find("[" + b.id + "]"), std::string::npos) << text;
}

}  // namespace
}  // namespace adj
