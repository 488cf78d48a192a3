// Dark Age RAID, INVADE and the Gaelic conversion on retreat (docs/rules/dark-age.md §1.6, §1.8),
// worked by hand through the whole turn loop under the dark-age engine. Defence level Def = armies
// + population + fort + terrain bonus (lowlands 0, forest +1: OQ-4).
#include <gtest/gtest.h>

#include "rules/combat/engine_registry.h"
#include "rules/orders/validator.h"
#include "rules/report/report.h"
#include "rules/turn/turn_resolver.h"

namespace adj {
namespace {

struct A {
  std::string code;
  std::optional<std::string> owner;
  int armies = 0;
  int pop = 0;
  int fort = 0;
  std::string terrain = "lowlands";
  DefenceMode mode = DefenceMode::kDefend;
  std::optional<std::string> retreat_to{}, ambush_against{};
  AreaKind kind = AreaKind::kLand;
};

// Players WSX (Saxons), MRC (Angles), IRL (Irish), SCO (Scots), each with 10 BPs; order of play
// as listed. Areas HRS-BDS-LON in a row, YRK next to BDS, city CTY in BDS.
GameState raid_world(const std::vector<A>& areas, const std::string& engine = "dark-age") {
  GameState s;
  s.game_id = "raid";
  s.engine.name = engine;
  for (auto [code, nation] : std::vector<std::pair<std::string, std::string>>{
           {"IRL", "Irish"}, {"MRC", "Angles"}, {"SCO", "Scots"}, {"WSX", "Saxons"}}) {
    Player p;
    p.code = code;
    p.name = code;
    p.nation = nation;
    p.secret = "pw";
    p.bp = 10;
    s.players.push_back(p);
  }
  for (const A& a : areas) {
    Area x;
    x.code = a.code;
    x.name = a.code;
    x.kind = a.kind;
    x.owner = a.owner;
    x.armies = a.armies;
    x.population = a.pop;
    x.fort = a.fort;
    x.terrain = a.terrain;
    x.mode = a.mode;
    x.retreat_to = a.retreat_to;
    x.ambush_against = a.ambush_against;
    if (a.kind == AreaKind::kCity) x.hinterland = "BDS";
    s.areas.push_back(x);
  }
  std::sort(s.areas.begin(), s.areas.end(), [](auto& a, auto& b) { return a.code < b.code; });
  for (auto [a, b] : std::vector<std::pair<std::string, std::string>>{
           {"BDS", "HRS"}, {"BDS", "LON"}, {"BDS", "YRK"}, {"BDS", "CTY"}})
    if (s.find_area(a) && s.find_area(b)) s.edges.push_back({a, b});
  s.order_of_play = {"WSX", "IRL", "MRC", "SCO"};
  s.normalise();
  return s;
}

struct Run {
  TurnResult result;
  const Area& area(const std::string& code) const { return *result.next_state.find_area(code); }
  const ActionResult& action(std::size_t i = 0) const { return result.actions.at(i); }
  const BattleLog& battle(std::size_t i = 0) const { return result.battles.at(i); }
};

// Checks `lines` of `player` with the real validator (all must be accepted) and runs the turn.
Run raid_run(const GameState& s, const std::string& player, const std::vector<std::string>& lines) {
  const CombatEngine* engine = find_engine(s.engine.name);
  EXPECT_NE(engine, nullptr);
  std::string text = "GAME raid\nPLAYER " + player + " pw\n";
  for (const auto& l : lines) text += l + "\n";
  OrderAck ack = check_order_file(text, s, engine);
  EXPECT_FALSE(ack.refused) << ack.refusal;
  EXPECT_EQ(ack.rejected_count(), 0) << render_ack_text(ack);
  auto res = resolve_turn(s, {{player, ack.orders}}, *engine);
  EXPECT_TRUE(res.ok()) << res.status().to_string();
  return {std::move(res).value()};
}

// The reason the validator gives for the one order line, "" when accepted.
std::string rejection(const GameState& s, const std::string& player, const std::string& line) {
  const CombatEngine* engine = find_engine(s.engine.name);
  OrderAck ack = check_order_file("GAME raid\nPLAYER " + player + " pw\n" + line + "\n", s, engine);
  EXPECT_FALSE(ack.refused) << ack.refusal;
  EXPECT_EQ(ack.lines.size(), 1u);
  return ack.lines.empty() ? "<none>" : ack.lines[0].reason;
}

// --- RAID -----------------------------------------------------------------------------------

// "RAID | 1 BP | attacker −1 army if Def>0 (after retreats); defender −1 army unless successful
// ambush or terrain mountains/wetlands/forest | always gives up" (§1.8).
// BDS: 2 armies, pop 2 -> Def 4 > 0: raiders lose 1; lowlands, no ambush: defenders lose 1.
// One defending army survives: no pillage. 3 - 1 = 2 raiders go home to HRS.
TEST(Raid, BothSidesLoseOneArmyAndTheRaidersGoHome) {
  auto r =
      raid_run(raid_world({{"HRS", "WSX", 3}, {"BDS", "MRC", 2, 2}}), "WSX", {"RAID HRS BDS 3"});
  EXPECT_EQ(r.area("HRS").armies, 2);
  EXPECT_EQ(r.area("BDS").armies, 1);
  EXPECT_EQ(r.area("BDS").population, 2);
  EXPECT_EQ(r.area("BDS").owner, "MRC");
  EXPECT_TRUE(r.action().ok);
  EXPECT_EQ(r.action().bp_spent, 1);
  EXPECT_EQ(r.action().message,
            "raided BDS: lost 1 army, the defenders lost 1 army; 2 armies went back to HRS");
  const BattleLog& b = r.battle();
  EXPECT_EQ(b.dark_age_action, DarkAgeAction::kRaid);
  EXPECT_EQ(to_json(b)["kind"], "raid");
  EXPECT_FALSE(b.captured);
  EXPECT_EQ(b.outcome.rounds.at(0).defender_strength, 4);
  EXPECT_EQ(b.outcome.attacker_losses, 1);
  EXPECT_EQ(b.outcome.defender_losses, 1);
  EXPECT_FALSE(b.outcome.detail.contains("pillaged"));
}

// "pillage if no defending armies survive and attacker not wiped" (§1.8). BDS: 1 army, pop 2 ->
// Def 3: raiders lose 1, the last defender falls: pillage costs BDS 1 population (2 -> 1;
// RulesConfig::raid_pillage_population). The area is not captured.
TEST(Raid, PillagesWhenNoDefenderIsLeft) {
  auto r = raid_run(raid_world({{"HRS", "WSX", 3}, {"BDS", "MRC", 1, 2}}), "WSX", {"RAID HRS BDS"});
  EXPECT_EQ(r.area("HRS").armies, 2);
  EXPECT_EQ(r.area("BDS").armies, 0);
  EXPECT_EQ(r.area("BDS").population, 1);
  EXPECT_EQ(r.area("BDS").owner, "MRC");
  EXPECT_EQ(r.action().message,
            "raided BDS: lost 1 army, the defenders lost 1 army; pillaged BDS (1 population "
            "lost); 2 armies went back to HRS");
  EXPECT_EQ(r.battle().outcome.detail["population_lost"], 1);
}

// OQ-3: "for RAID treat a 'successful ambush' as: ambush set against the raiding area ⇒ defender
// loses no army". BDS (1 army, pop 2, Def 3) ambushes HRS: raiders lose 1, defenders 0; the
// defender survives, so no pillage. An ambush against another area (YRK) does not help.
TEST(Raid, AnAmbushAgainstTheRaidersAreaSavesTheDefender) {
  A bds{"BDS", "MRC", 1, 2};
  bds.mode = DefenceMode::kAmbush;
  bds.ambush_against = "HRS";
  auto r =
      raid_run(raid_world({{"HRS", "WSX", 3}, bds, {"YRK", "MRC", 0}}), "WSX", {"RAID HRS BDS 3"});
  EXPECT_EQ(r.area("HRS").armies, 2);
  EXPECT_EQ(r.area("BDS").armies, 1);
  EXPECT_EQ(r.area("BDS").population, 2);
  EXPECT_TRUE(r.battle().ambush);
  EXPECT_EQ(r.battle().outcome.rounds.at(0).detail["defender_spared"], "ambush");

  bds.ambush_against = "YRK";
  auto other =
      raid_run(raid_world({{"HRS", "WSX", 3}, bds, {"YRK", "MRC", 0}}), "WSX", {"RAID HRS BDS 3"});
  EXPECT_EQ(other.area("BDS").armies, 0);
  EXPECT_EQ(other.area("BDS").population, 1);  // pillaged
  EXPECT_FALSE(other.battle().ambush);
}

// "unless ... terrain mountains/wetlands/forest". Forest BDS: 1 army, pop 1, bonus 1 -> Def 3:
// raiders lose 1, the defender loses none; no pillage.
TEST(Raid, ForestShelterTheDefenders) {
  A bds{"BDS", "MRC", 1, 1};
  bds.terrain = "forest";
  auto r = raid_run(raid_world({{"HRS", "WSX", 3}, bds}), "WSX", {"RAID HRS BDS 3"});
  EXPECT_EQ(r.area("HRS").armies, 2);
  EXPECT_EQ(r.area("BDS").armies, 1);
  EXPECT_EQ(r.area("BDS").population, 1);
  EXPECT_EQ(r.battle().outcome.rounds.at(0).defender_strength, 3);
  EXPECT_EQ(r.battle().outcome.rounds.at(0).detail["defender_spared"], "terrain");
}

// "attacker −1 army if Def>0": an empty lowland area with no population has Def 0, so the raid
// costs no army; nothing defends it, so it is pillaged (it has no population to lose).
TEST(Raid, DefenceLevelZeroCostsTheRaidersNothing) {
  auto r =
      raid_run(raid_world({{"HRS", "WSX", 2}, {"BDS", "MRC", 0, 0}}), "WSX", {"RAID HRS BDS 2"});
  EXPECT_EQ(r.area("HRS").armies, 2);
  EXPECT_EQ(r.battle().outcome.attacker_losses, 0);
  EXPECT_EQ(r.battle().outcome.detail["population_lost"], 0);
}

// "pillage if ... attacker not wiped": 1 raider against BDS with pop 2 (Def 2) is lost; no pillage.
TEST(Raid, AWipedOutRaiderDoesNotPillage) {
  auto r =
      raid_run(raid_world({{"HRS", "WSX", 1}, {"BDS", "MRC", 0, 2}}), "WSX", {"RAID HRS BDS 1"});
  EXPECT_EQ(r.area("HRS").armies, 0);
  EXPECT_EQ(r.area("BDS").population, 2);
  EXPECT_FALSE(r.action().ok);
  EXPECT_EQ(r.action().message, "the raid failed: all raiding armies were lost");
  const GameState start = raid_world({{"HRS", "WSX", 1}, {"BDS", "MRC", 0, 2}});
  const std::string text = render_report_text(build_report(start, r.result, "MRC"));
  EXPECT_NE(text.find("Result: the raiders were lost; attacker 1 -> 0"), std::string::npos) << text;
}

// "retreat may trigger" (§1.8) with rule 3.11: BDS in RETREAT mode to LON (its owner's), 1 army,
// pop 1 (Def 2); 3 raiders > 1 army and > 2: the army withdraws to LON first. Then Def = 1 (the
// population): raiders lose 1; no defending army to lose; none left, so BDS is pillaged (1 -> 0).
TEST(Raid, TheRetreatModeMayWithdrawTheDefendersFirst) {
  A bds{"BDS", "MRC", 1, 1};
  bds.mode = DefenceMode::kRetreat;
  bds.retreat_to = "LON";
  auto r =
      raid_run(raid_world({{"HRS", "WSX", 3}, bds, {"LON", "MRC", 1}}), "WSX", {"RAID HRS BDS 3"});
  EXPECT_EQ(r.area("LON").armies, 2);
  EXPECT_EQ(r.area("BDS").armies, 0);
  EXPECT_EQ(r.area("BDS").population, 0);
  EXPECT_EQ(r.area("HRS").armies, 2);
  EXPECT_EQ(r.battle().defender_withdrew_to, "LON");
  EXPECT_EQ(r.battle().withdrawn_armies, 1);
  EXPECT_EQ(r.battle().outcome.rounds.at(0).defender_strength, 1);
}

// "Attacks on your own area: ... ASSAULT, RAID, SIEGE fail" and "If you lack the BPs the action
// fails" (§1.8, §1.4): RAID costs 1 BP.
TEST(Raid, OnYourOwnAreaOrWithoutBpsFails) {
  auto own = raid_run(raid_world({{"HRS", "WSX", 3}, {"BDS", "WSX", 1}}), "WSX", {"RAID HRS BDS"});
  EXPECT_FALSE(own.action().ok);
  EXPECT_EQ(own.action().message, "RAID on your own area BDS fails");
  EXPECT_EQ(own.area("HRS").armies, 3);

  GameState s = raid_world({{"HRS", "WSX", 3}, {"BDS", "MRC", 1}});
  s.find_player("WSX")->bp = 0;
  auto poor = raid_run(s, "WSX", {"RAID HRS BDS"});
  EXPECT_FALSE(poor.action().ok);
  EXPECT_EQ(poor.action().message, "not enough BPs (you have 0, it costs 1)");
  EXPECT_TRUE(poor.result.battles.empty());
}

// --- INVADE ---------------------------------------------------------------------------------

// "INVADE | 0 | attacker −1 population; defender −1 army, else −1 fort, else −1 population |
// nothing moves | Gaelic only; not vs cities" (§1.8). IRL (Irish) invades from HRS (pop 3).
TEST(Invade, CostsOnePopulationAndTakesAnArmyElseAFortElsePopulation) {
  // BDS has 2 armies: it loses one; HRS 3 -> 2 population; no BP; nothing moves.
  auto army = raid_run(raid_world({{"HRS", "IRL", 1, 3}, {"BDS", "MRC", 2, 2, 1}}), "IRL",
                       {"INVADE HRS BDS -"});
  EXPECT_EQ(army.area("HRS").population, 2);
  EXPECT_EQ(army.area("HRS").armies, 1);
  EXPECT_EQ(army.area("BDS").armies, 1);
  EXPECT_EQ(army.area("BDS").fort, 1);
  EXPECT_EQ(army.area("BDS").population, 2);
  EXPECT_EQ(army.area("BDS").owner, "MRC");
  EXPECT_TRUE(army.action().ok);
  EXPECT_EQ(army.action().bp_spent, 0);
  EXPECT_EQ(army.action().message, "invaded BDS from HRS (HRS lost 1 population): BDS lost 1 army");
  EXPECT_EQ(to_json(army.battle())["kind"], "invade");

  // No army, fort 1: the fort falls to 0.
  auto fort = raid_run(raid_world({{"HRS", "IRL", 0, 3}, {"BDS", "MRC", 0, 2, 1}}), "IRL",
                       {"INVADE HRS BDS"});
  EXPECT_EQ(fort.area("BDS").fort, 0);
  EXPECT_EQ(fort.area("BDS").population, 2);
  EXPECT_EQ(fort.battle().outcome.fort_after, 0);

  // No army, no fort: population 2 -> 1.
  auto pop =
      raid_run(raid_world({{"HRS", "IRL", 0, 3}, {"BDS", "MRC", 0, 2}}), "IRL", {"INVADE HRS BDS"});
  EXPECT_EQ(pop.area("BDS").population, 1);
  EXPECT_EQ(pop.area("HRS").population, 2);

  // Nothing at all: the cost is still paid.
  auto none = raid_run(raid_world({{"HRS", "IRL", 0, 3}, {"BDS", std::nullopt, 0, 0}}), "IRL",
                       {"INVADE HRS BDS"});
  EXPECT_EQ(none.area("HRS").population, 2);
  EXPECT_EQ(none.battle().outcome.detail["target_lost"], "nothing");
}

TEST(Invade, NeedsPopulationInTheOrigin) {
  auto r =
      raid_run(raid_world({{"HRS", "IRL", 2, 0}, {"BDS", "MRC", 1}}), "IRL", {"INVADE HRS BDS"});
  EXPECT_FALSE(r.action().ok);
  EXPECT_EQ(r.action().message, "no population in HRS to invade with");
  EXPECT_EQ(r.area("BDS").armies, 1);
}

// --- Gaelic conversion ----------------------------------------------------------------------

// "Gaelic-owned area attacked by a non-Gaelic kingdom: when a retreat triggers, the population
// converts to armies and retreats too" (§1.6). §1.13 example 7 with an Irish defender: BDS (IRL)
// Arm 2, Pop 2 (Def 4), RETREAT to LON; WSX (Saxons) MOVEs with 5: 5 > 2 and 5 > 4, so the 2
// armies and the 2 population (as 2 armies) go to LON (1 + 4 = 5). The battle is then against
// Def 0: the attacker loses ⌊0/2⌋ = 0 and all 5 enter (example 7 without the rule: 4 enter).
TEST(GaelicConversion, PopulationRetreatsAsArmiesFromANonGaelicAttack) {
  A bds{"BDS", "IRL", 2, 2};
  bds.mode = DefenceMode::kRetreat;
  bds.retreat_to = "LON";
  auto r =
      raid_run(raid_world({{"HRS", "WSX", 5}, bds, {"LON", "IRL", 1}}), "WSX", {"MOVE HRS BDS 5"});
  EXPECT_EQ(r.area("LON").armies, 5);
  EXPECT_EQ(r.area("BDS").owner, "WSX");
  EXPECT_EQ(r.area("BDS").armies, 5);
  EXPECT_EQ(r.area("BDS").population, 0);
  EXPECT_EQ(r.battle().withdrawn_armies, 2);
  EXPECT_EQ(r.battle().converted_population, 2);
  EXPECT_EQ(to_json(r.battle())["converted_population"], 2);
}

// Gaelic against Gaelic (SCO, Scots, attacks IRL): no conversion; example 7 as written (the
// attacker loses ⌊2/2⌋ = 1 against the population, 4 enter, capture by another nation: pop 1).
TEST(GaelicConversion, NotWhenTheAttackerIsGaelicToo) {
  A bds{"BDS", "IRL", 2, 2};
  bds.mode = DefenceMode::kRetreat;
  bds.retreat_to = "LON";
  auto r =
      raid_run(raid_world({{"HRS", "SCO", 5}, bds, {"LON", "IRL", 1}}), "SCO", {"MOVE HRS BDS 5"});
  EXPECT_EQ(r.area("LON").armies, 3);
  EXPECT_EQ(r.area("BDS").armies, 4);
  EXPECT_EQ(r.area("BDS").population, 1);
  EXPECT_EQ(r.battle().converted_population, 0);
  EXPECT_FALSE(to_json(r.battle()).contains("converted_population"));
}

// The conversion also follows a RAID's retreat: IRL's BDS Arm 1, Pop 1 (Def 2), 3 Saxon raiders:
// the army and 1 population (as an army) go to LON (1 + 2 = 3); Def is then 0, so the raiders lose
// nothing, and BDS, undefended, is pillaged of the population it no longer has (0 lost).
TEST(GaelicConversion, AlsoOnARaidsRetreat) {
  A bds{"BDS", "IRL", 1, 1};
  bds.mode = DefenceMode::kRetreat;
  bds.retreat_to = "LON";
  auto r =
      raid_run(raid_world({{"HRS", "WSX", 3}, bds, {"LON", "IRL", 1}}), "WSX", {"RAID HRS BDS 3"});
  EXPECT_EQ(r.area("LON").armies, 3);
  EXPECT_EQ(r.area("BDS").population, 0);
  EXPECT_EQ(r.area("HRS").armies, 3);
  EXPECT_EQ(r.battle().converted_population, 1);
  EXPECT_EQ(r.battle().outcome.attacker_losses, 0);
}

// Under other rules the conversion does not apply (it is the Dark Age rulebook's).
TEST(GaelicConversion, OnlyUnderTheDarkAgeRules) {
  const CombatEngine* crt = find_engine("crt");
  ASSERT_NE(crt, nullptr);
  ASSERT_FALSE(crt->dark_age_actions());
  // The first test's world under the CRT: 5 v 2 is column 2-3, where 3 of 6 faces push the
  // defender out, so RETREAT mode withdraws the 2 armies; the population stays population.
  A bds{"BDS", "IRL", 2, 2};
  bds.mode = DefenceMode::kRetreat;
  bds.retreat_to = "LON";
  auto r = raid_run(raid_world({{"HRS", "WSX", 5}, bds, {"LON", "IRL", 1}}, "crt"), "WSX",
                    {"MOVE HRS BDS 5"});
  EXPECT_EQ(r.battle().withdrawn_armies, 2);
  EXPECT_EQ(r.battle().converted_population, 0);
  EXPECT_EQ(r.area("LON").armies, 3);
}

// --- Orders ---------------------------------------------------------------------------------

TEST(RaidInvadeOrders, ValidatorReasons) {
  const GameState s = raid_world({{"HRS", "IRL", 3, 3},
                                  {"BDS", "MRC", 1},
                                  {"YRK", "MRC", 1},
                                  {"CTY", "MRC", 1, 0, 0, "lowlands", DefenceMode::kDefend,
                                   std::nullopt, std::nullopt, AreaKind::kCity}});
  EXPECT_EQ(rejection(s, "IRL", "RAID HRS BDS 2"), "");
  EXPECT_EQ(rejection(s, "IRL", "RAID HRS BDS AB-1"), "");
  EXPECT_EQ(rejection(s, "IRL", "INVADE HRS BDS -"), "");
  EXPECT_EQ(rejection(s, "IRL", "INVADE HRS BDS"), "");
  EXPECT_EQ(rejection(s, "IRL", "RAID HRS YRK"), "HRS and YRK are not adjacent");
  EXPECT_EQ(rejection(s, "IRL", "RAID HRS HRS"), "RAID needs two different areas (HRS twice)");
  EXPECT_EQ(rejection(s, "MRC", "RAID BDS CTY"), "RAID is not allowed against a city (CTY)");
  EXPECT_EQ(rejection(s, "MRC", "INVADE BDS CTY"), "INVADE is not allowed against a city (CTY)");
  // DA13 5.15: the Irish, Scots and Picts are the Gaelic kingdoms.
  EXPECT_EQ(rejection(s, "MRC", "INVADE BDS HRS"),
            "only the Gaelic kingdoms (Irish, Picts, Scots) may INVADE; MRC is Angles");
  EXPECT_EQ(rejection(s, "WSX", "INVADE BDS HRS"),
            "only the Gaelic kingdoms (Irish, Picts, Scots) may INVADE; WSX is Saxons");
  EXPECT_EQ(rejection(s, "SCO", "INVADE BDS HRS"), "");

  // Nation names are matched without regard to case.
  GameState lower = s;
  lower.find_player("MRC")->nation = "PICTS";
  EXPECT_EQ(rejection(lower, "MRC", "INVADE BDS HRS"), "");

  // Dark Age actions under other rules.
  GameState pow = s;
  pow.engine.name = "path-of-war";
  EXPECT_EQ(rejection(pow, "IRL", "RAID HRS BDS"),
            "RAID is a Dark Age action, not part of this game's rules (path-of-war)");
  EXPECT_EQ(rejection(pow, "IRL", "INVADE HRS BDS"),
            "INVADE is a Dark Age action, not part of this game's rules (path-of-war)");
}

TEST(RaidInvadeOrders, ParserForms) {
  const auto one = [](const std::string& line) {
    return parse_order_file("GAME g\nPLAYER IRL pw\n" + line + "\n", 16);
  };
  auto raid = one("raid hrs bds ab-2");
  ASSERT_EQ(raid.orders.size(), 1u);
  EXPECT_EQ(raid.orders[0].verb, Verb::kRaid);
  EXPECT_EQ(raid.orders[0].from, "HRS");
  EXPECT_EQ(raid.orders[0].to, "BDS");
  EXPECT_EQ(raid.orders[0].qty, (Quantity{Quantity::Kind::kAllBut, 2}));
  EXPECT_EQ(one("RAID HRS BDS").orders.at(0).qty, Quantity{});
  EXPECT_EQ(one("RAID HRS BDS 3").orders.at(0).qty, (Quantity{Quantity::Kind::kExact, 3}));

  auto inv = one("Invade HRS BDS -");
  ASSERT_EQ(inv.orders.size(), 1u);
  EXPECT_EQ(inv.orders[0].verb, Verb::kInvade);
  EXPECT_EQ(inv.orders[0].qty, Quantity{});
  EXPECT_EQ(one("INVADE HRS BDS").orders.size(), 1u);

  const auto reason = [&](const std::string& line) {
    auto p = one(line);
    return p.lines.empty() || p.lines[0].accepted ? std::string() : p.lines[0].reason;
  };
  EXPECT_EQ(reason("RAID HRS"), "RAID needs <from> <to> [<n> | AB-<n>]");
  EXPECT_EQ(reason("RAID HRS BDS lots"), "\"lots\" is not a valid quantity");
  EXPECT_EQ(reason("INVADE HRS"), "INVADE needs <from> <to> [-]");
  EXPECT_EQ(reason("INVADE HRS BDS 3"), "INVADE needs <from> <to> [-]; \"3\" is extra");
  EXPECT_EQ(reason("INVADE HRS BDS - -"), "INVADE needs <from> <to> [-]; \"-\" is extra");
  EXPECT_EQ(reason("LEVY HRS AB-1"),
            "\"AB-1\": \"all but\" is only for MOVE, ASSAULT, PROBE, OVERRUN and RAID");
  EXPECT_EQ(verb_from_name("raid"), Verb::kRaid);
  EXPECT_EQ(verb_from_name("RETREAT"), Verb::kRetreat);
  EXPECT_EQ(verb_from_name("invade"), Verb::kInvade);
  EXPECT_EQ(verb_from_name("INVADES"), std::nullopt);
}

TEST(RaidInvadeOrders, TheDarkAgeHelpNamesThem) {
  const CombatEngine* e = find_engine("dark-age");
  ASSERT_NE(e, nullptr);
  EXPECT_NE(e->order_help().find("RAID <from> <to>"), std::string_view::npos);
  EXPECT_NE(e->order_help().find("INVADE <from> <to> [-]"), std::string_view::npos);
  EXPECT_TRUE(e->dark_age_actions());
}

// --- Reports --------------------------------------------------------------------------------

TEST(RaidInvadeReports, ShowTheRaidThePillageTheInvasionAndTheConversion) {
  GameState s = raid_world({{"HRS", "WSX", 3}, {"BDS", "MRC", 1, 2}});
  auto raid = raid_run(s, "WSX", {"RAID HRS BDS"});
  const std::string text = render_report_text(build_report(s, raid.result, "WSX"));
  EXPECT_NE(text.find("Battle at BDS (HRS -> BDS): raid by WSX, 3 attacking against 1 defending "
                      "(MRC) [1.1.WSX]"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("The raiders pillaged BDS: 1 population lost."), std::string::npos) << text;
  EXPECT_NE(text.find("Result: the raiders went back to HRS; attacker 3 -> 2, defender 1 -> 0"),
            std::string::npos)
      << text;
  const std::string theirs = render_report_text(build_report(s, raid.result, "MRC"));
  EXPECT_NE(theirs.find("Battle at BDS (HRS -> BDS): raid by WSX"), std::string::npos) << theirs;

  GameState i = raid_world({{"HRS", "IRL", 0, 3}, {"BDS", "MRC", 0, 2, 1}});
  auto inv = raid_run(i, "IRL", {"INVADE HRS BDS -"});
  const std::string itext = render_report_text(build_report(i, inv.result, "MRC"));
  EXPECT_NE(itext.find("Invasion 1.1.IRL: HRS -> BDS (IRL) against MRC"), std::string::npos)
      << itext;
  EXPECT_NE(itext.find("HRS population 3 -> 2; BDS lost 1 fort level; nothing moved"),
            std::string::npos)
      << itext;

  A bds{"BDS", "IRL", 2, 2};
  bds.mode = DefenceMode::kRetreat;
  bds.retreat_to = "LON";
  GameState g = raid_world({{"HRS", "WSX", 5}, bds, {"LON", "IRL", 1}});
  auto conv = raid_run(g, "WSX", {"MOVE HRS BDS 5"});
  const std::string gtext = render_report_text(build_report(g, conv.result, "IRL"));
  EXPECT_NE(gtext.find("Gaelic rule: 2 population turned into armies and retreated with them."),
            std::string::npos)
      << gtext;
}

}  // namespace
}  // namespace adj
